/*
 * profiling/Ipe.h -- info-table provenance: what an info table says about
 * where it comes from, and the IPE events that tell visualisers so.
 */
#ifndef STRATA_IPE_H
#define STRATA_IPE_H

#include "strata/InfoTables.h"

/* Posts an IPE event for info unless one was posted already in this run.
 * Call before the first sample that uses the table's -hi label. */
void ipe_post_once(const StgInfoTable *info);

/* Forgets what was posted and the resolved provenance (hs_exit). */
void ipe_exit(void);

#endif /* STRATA_IPE_H */
