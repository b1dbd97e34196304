/*
 * utils/strata-debug/tui/TuiHeapPanes.h -- the census and fragmentation
 * views (TuiHeapPanes.c).  The whole API of TuiHeapPanes.c.
 */
#ifndef STRATA_TUIHEAPPANES_H
#define STRATA_TUIHEAPPANES_H

#include "TuiHeapState.h"

/* Builds a census, fragmentation or diff view if it is not built yet. */
int tui_heap_build_view(TuiHeap *h, TuiView v);
/* Next census grouping (type, info, era, module); rebuilds the view. */
int tui_heap_next_census_by(TuiHeap *h);

#endif /* STRATA_TUIHEAPPANES_H */
