/*
 * base/WordMap.c -- the open-addressing map of WordMap.h.
 */
#include "WordMap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Rehashes m into twice its slots (64 at first).  ENOMEM leaves m as is. */
static int word_map_grow(WordMap *m)
{
    if (m->cap > SIZE_MAX / 2 / sizeof(uint64_t))
        return ENOMEM;
    size_t cap = m->cap ? 2 * m->cap : 64;
    uint64_t *keys = calloc(cap, sizeof *keys), *vals = calloc(cap, sizeof *vals);
    if (keys == NULL || vals == NULL) {
        free(keys);
        free(vals);
        return ENOMEM;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] == 0)
            continue;
        size_t j = word_map_hash(m->keys[i], cap);
        while (keys[j] != 0)
            j = (j + 1) & (cap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

uint64_t *word_map_slot(WordMap *m, uint64_t key, bool *found)
{
    if (key == 0) {
        *found = m->has_zero;
        if (!m->has_zero) {
            m->has_zero = true;
            m->zero_val = 0;
            m->n++;
        }
        return &m->zero_val;
    }
    if ((m->n + 1) * 4 > m->cap * 3 && word_map_grow(m) != 0)
        return NULL;
    size_t i = word_map_hash(key, m->cap);
    while (m->keys[i] != 0) {
        if (m->keys[i] == key) {
            *found = true;
            return &m->vals[i];
        }
        i = (i + 1) & (m->cap - 1);
    }
    m->keys[i] = key;
    m->vals[i] = 0;
    m->n++;
    *found = false;
    return &m->vals[i];
}

int word_map_put(WordMap *m, uint64_t key, uint64_t val)
{
    bool found;
    uint64_t *slot = word_map_slot(m, key, &found);
    if (slot == NULL)
        return ENOMEM;
    *slot = val;
    return 0;
}

bool word_map_remove(WordMap *m, uint64_t key)
{
    if (key == 0) {
        bool had = m->has_zero;
        m->n -= had;
        m->has_zero = false;
        return had;
    }
    if (m->cap == 0)
        return false;
    size_t i = word_map_hash(key, m->cap);
    while (m->keys[i] != key) {
        if (m->keys[i] == 0)
            return false;
        i = (i + 1) & (m->cap - 1);
    }
    /* Backward shift: each later key of the run moves into the hole when
     * its home slot does not lie after the hole (cyclically), so every
     * lookup still finds its key before the first empty slot. */
    size_t hole = i;
    for (size_t j = (i + 1) & (m->cap - 1); m->keys[j] != 0; j = (j + 1) & (m->cap - 1)) {
        size_t home = word_map_hash(m->keys[j], m->cap);
        bool home_in_gap = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (home_in_gap)
            continue;
        m->keys[hole] = m->keys[j];
        m->vals[hole] = m->vals[j];
        hole = j;
    }
    m->keys[hole] = 0;
    m->n--;
    return true;
}

bool word_map_next(const WordMap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
    /* Position 0 is the key 0; position i + 1 is slot i. */
    if (*pos == 0) {
        *pos = 1;
        if (m->has_zero) {
            *key = 0;
            *val = m->zero_val;
            return true;
        }
    }
    for (; *pos <= m->cap; (*pos)++) {
        size_t i = *pos - 1;
        if (m->keys[i] != 0) {
            *key = m->keys[i];
            *val = m->vals[i];
            (*pos)++;
            return true;
        }
    }
    return false;
}

size_t word_map_bytes(const WordMap *m)
{
    return m->cap * (sizeof *m->keys + sizeof *m->vals);
}

void word_map_clear(WordMap *m)
{
    if (m->cap != 0)
        memset(m->keys, 0, m->cap * sizeof *m->keys);
    m->n = 0;
    m->has_zero = false;
}

void word_map_free(WordMap *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
