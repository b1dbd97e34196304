/*
 * sm/EraMap.c -- era -> destination map for the collector (see EraMap.h).
 * Relies on calloc only.
 */
#include "EraMap.h"

#include <stdlib.h>
#include <string.h>

#include "Messages.h"

static void era_map_resize(EraMap *m, StgWord cap)
{
    EraMapSlot *n = calloc(cap, sizeof *n);
    if (n == NULL)
        rts_panic("era map: out of C heap (slots=%lu)", (unsigned long)cap);
    for (StgWord i = 0; i < m->capacity; i++) {
        if (m->slots[i].val == 0)
            continue;
        StgWord j = (StgWord)m->slots[i].era & (cap - 1);
        while (n[j].val != 0)
            j = (j + 1) & (cap - 1);
        n[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = n;
    m->capacity = cap;
}

StgWord *era_map_slot(EraMap *m, uint64_t era)
{
    if (2 * (m->count + 1) > m->capacity)
        era_map_resize(m, m->capacity ? 2 * m->capacity : 64);
    StgWord mask = m->capacity - 1;
    for (StgWord i = (StgWord)era & mask;; i = (i + 1) & mask) {
        EraMapSlot *s = &m->slots[i];
        if (s->val == 0) {
            /* A new entry: the caller stores a nonzero value in it. */
            s->era = era;
            m->count++;
            return &s->val;
        }
        if (s->era == era)
            return &s->val;
    }
}

void era_map_clear(EraMap *m)
{
    if (m->capacity == 0)
        return;
    StgWord used = m->count;
    m->count = 0;
    if (m->capacity > 1024 && 8 * used < m->capacity) {
        free(m->slots);
        m->slots = NULL;
        m->capacity = 0;   /* regrows to what the next GC needs */
        return;
    }
    memset(m->slots, 0, m->capacity * sizeof *m->slots);
}

void era_map_free(EraMap *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}
