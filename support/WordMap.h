/*
 * support/WordMap.h -- a small open-addressing hash map from 64-bit keys to
 * words, for the runtime's own bookkeeping: the collector's era -> to-space
 * block map, the census's info table -> bucket map, the set of info tables
 * with an IPE event.  Linear probing, power-of-two capacity, at most half
 * full; lookups never allocate once the key exists.
 */
#ifndef STRATA_WORDMAP_H
#define STRATA_WORDMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "strata/Config.h"

typedef struct {
    uint64_t *keys;      /* key of each slot; valid where used[i] */
    StgWord *vals;       /* value of each slot; valid where used[i] */
    bool *used;          /* slot holds a key */
    StgWord capacity;    /* slots, a power of two (0 = nothing allocated) */
    StgWord count;       /* used slots */
} WordMap;

/* The value slot for key, created (value 0) if absent; *found says which.
 * The pointer is valid until the next insertion. */
StgWord *word_map_slot(WordMap *m, uint64_t key, bool *found);

/* Forgets every key, keeping the allocated slots. */
void word_map_clear(WordMap *m);

void word_map_free(WordMap *m);

/* Iteration: for (StgWord i = 0; i < m->capacity; i++) if (m->used[i]) ... */

#endif /* STRATA_WORDMAP_H */
