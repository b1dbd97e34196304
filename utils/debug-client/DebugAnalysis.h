/*
 * utils/debug-client/DebugAnalysis.h -- analyses over a DbgClient (live or
 * snapshot), for the tools: reachability (Marks.h) with retainer paths
 * (Reach.h), search (Search.h), census, thunks, duplicates, weak
 * pointers, fragmentation and GML (Analysis.h), dominators and retained
 * sizes (Idom.h, Dominators.h), the era boundary (Boundary.h), era
 * ranges (EraRange.h) and snapshots (Snapshot.h).  See
 * docs/strata-debug.md.  Declares nothing of its own, as DebugClient.h.
 */
#ifndef STRATA_DEBUGANALYSIS_H
#define STRATA_DEBUGANALYSIS_H

#include "Analysis.h"
#include "Boundary.h"
#include "DebugClient.h"
#include "Dominators.h"
#include "EraRange.h"
#include "Idom.h"
#include "Marks.h"
#include "Reach.h"
#include "Search.h"
#include "Snapshot.h"

#endif /* STRATA_DEBUGANALYSIS_H */
