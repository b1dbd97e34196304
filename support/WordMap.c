/*
 * support/WordMap.c -- the open-addressing map of WordMap.h.  Fibonacci
 * hashing spreads keys that differ only in high or low bits (eras are small
 * integers, info tables are aligned addresses).
 */
#include "WordMap.h"

#include <stdlib.h>
#include <string.h>

#include "Messages.h"

static StgWord slot_of(uint64_t key, StgWord mask)
{
    return (StgWord)((key * 0x9E3779B97F4A7C15ull) >> 29) & mask;
}

static void word_map_grow(WordMap *m)
{
    StgWord cap = m->capacity ? 2 * m->capacity : 16;
    WordMap n = {calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(StgWord)),
                 calloc(cap, sizeof(bool)), cap, 0};
    if (n.keys == NULL || n.vals == NULL || n.used == NULL)
        rts_panic("word map: out of C heap (slots=%lu)", (unsigned long)cap);
    for (StgWord i = 0; i < m->capacity; i++) {
        if (!m->used[i])
            continue;
        StgWord j = slot_of(m->keys[i], cap - 1);
        while (n.used[j])
            j = (j + 1) & (cap - 1);
        n.used[j] = true;
        n.keys[j] = m->keys[i];
        n.vals[j] = m->vals[i];
        n.count++;
    }
    word_map_free(m);
    *m = n;
}

StgWord *word_map_slot(WordMap *m, uint64_t key, bool *found)
{
    if (2 * (m->count + 1) > m->capacity)
        word_map_grow(m);
    StgWord mask = m->capacity - 1;
    StgWord i = slot_of(key, mask);
    while (m->used[i]) {
        if (m->keys[i] == key) {
            *found = true;
            return &m->vals[i];
        }
        i = (i + 1) & mask;
    }
    m->used[i] = true;
    m->keys[i] = key;
    m->vals[i] = 0;
    m->count++;
    *found = false;
    return &m->vals[i];
}

void word_map_clear(WordMap *m)
{
    if (m->capacity != 0)
        memset(m->used, 0, m->capacity * sizeof *m->used);
    m->count = 0;
}

void word_map_free(WordMap *m)
{
    free(m->keys);
    free(m->vals);
    free(m->used);
    memset(m, 0, sizeof *m);
}
