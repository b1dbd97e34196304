/*
 * utils/debug-client/DebugDiff.h -- the diff of two heaps, for the tools:
 * the data (DiffTypes.h), the diff (Diff.h) and its new objects' paths
 * (DiffNewObjects.h).  Declares nothing of its own; the library's own
 * files include the headers they use.
 */
#ifndef STRATA_DEBUGDIFF_H
#define STRATA_DEBUGDIFF_H

#include "DebugAnalysis.h"
#include "Diff.h"
#include "DiffNewObjects.h"
#include "DiffTypes.h"

#endif /* STRATA_DEBUGDIFF_H */
