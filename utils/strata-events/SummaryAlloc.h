/*
 * utils/strata-events/SummaryAlloc.h -- the allocation sites part of
 * `strata-events summary`.  The whole API of SummaryAlloc.c.
 */
#ifndef STRATA_EVENTS_SUMMARY_ALLOC_H
#define STRATA_EVENTS_SUMMARY_ALLOC_H

#include <stddef.h>
#include <stdio.h>

#include "AllocModel.h"

/* The allocation sites of a log that samples: the top N (0 = all) call
 * stacks by bytes allocated and by bytes alive, as text or as the
 * summary's "allocation_sampling" JSON member.  Prints nothing for a log
 * without samples; 0 when out of memory. */
int tool_summary_alloc(FILE *out, const AllocModel *m, size_t top, int json);

#endif /* STRATA_EVENTS_SUMMARY_ALLOC_H */
