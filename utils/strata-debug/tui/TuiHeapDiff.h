/*
 * utils/strata-debug/tui/TuiHeapDiff.h -- the diff view against an
 * earlier snapshot (TuiHeapDiff.c).  The whole API of TuiHeapDiff.c.
 */
#ifndef STRATA_TUIHEAPDIFF_H
#define STRATA_TUIHEAPDIFF_H

#include "TuiHeapState.h"

/* The diff view against the earlier snapshot a_file. */
int tui_heap_diff(TuiHeap *h, const char *a_file);
/* The diff view before any diff: how to get one. */
int tui_heap_diff_hint(TuiHeap *h);

#endif /* STRATA_TUIHEAPDIFF_H */
