/*
 * profiling/Census.h -- one heap census: a walk over the live heap right
 * after a major GC that sums object sizes into labelled buckets (by closure
 * type, info table, era, description, type or module).
 */
#ifndef STRATA_CENSUS_H
#define STRATA_CENSUS_H

#include <stdbool.h>
#include <stdint.h>

#include "LiveTally.h"
#include "ProfHeap.h"
#include "strata/InfoTables.h"

typedef struct {
    char *label;                  /* owned; what the sample calls the bucket */
    uint64_t bytes;               /* live bytes in this census */
    const StgInfoTable *info;     /* -hi: the table (for its IPE event) */
} CensusBucket;

typedef struct Census_ {
    CensusBucket *buckets;        /* [0 .. n_buckets), in first-seen order */
    size_t n_buckets, cap_buckets;
    uint64_t total_bytes;         /* sum over the buckets */
    uint64_t objects;             /* objects counted */
} Census;

/* Walks the heap (every generation's blocks and large objects; the nursery
 * must be empty, as after a major GC) and fills c, which census_init has
 * prepared, for the given breakdown and era range.  Era 0 is skipped in
 * the era breakdown and whenever an era range is selected. */
void census_take(Census *c, HeapBreakdown by, EraRange eras);

/* Fills c from the per-table totals a major GC counted (any breakdown;
 * HEAP_BY_ERA from a tally by era, which only the non-moving collector
 * counts); the same figures census_take would find right after that GC,
 * without reading the heap again. */
void census_from_tally(Census *c, HeapBreakdown by, const LiveTally *t);

/* Where two censuses of the same heap disagree: "(the totals)", the first
 * label of a whose bytes differ in b, or NULL when they agree.  Labels are
 * unique within a census. */
const char *census_first_difference(const Census *a, const Census *b);

void census_init(Census *c);
void census_free(Census *c);

#endif /* STRATA_CENSUS_H */
