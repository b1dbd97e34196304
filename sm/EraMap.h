/*
 * sm/EraMap.h -- the collector's map from an era to where its copies go in
 * one generation (Note [Where a copy goes] in Evac.c).
 *
 * Eras are small integers, mostly consecutive, and a major GC over many
 * eras looks up nearly every copy's era in copy order, which follows era
 * order for data allocated in sequence.  So the slot is the era itself
 * modulo the capacity (linear probing on collisions): consecutive eras
 * land in consecutive slots and share cache lines, where a scattering hash
 * made every lookup a cache miss (bench/optimisations.md, row def726c).
 * Keys and values sit side by side, and a
 * value of 0 marks an empty slot (the collector never stores 0).
 */
#ifndef STRATA_ERAMAP_H
#define STRATA_ERAMAP_H

#include <stdint.h>

#include "strata/Config.h"

typedef struct {
    uint64_t era;
    StgWord val;                 /* 0: empty slot */
} EraMapSlot;

typedef struct {
    EraMapSlot *slots;           /* [0 .. capacity) */
    StgWord capacity;            /* a power of two, or 0 */
    StgWord count;               /* slots in use; at most capacity / 2 */
} EraMap;

/* The value slot of era, created (value 0) if absent.  The pointer is
 * valid until the next call.  Panics when out of C heap. */
StgWord *era_map_slot(EraMap *m, uint64_t era);

/* Forgets every era; a table far larger than its last use shrinks. */
void era_map_clear(EraMap *m);

void era_map_free(EraMap *m);

#endif /* STRATA_ERAMAP_H */
