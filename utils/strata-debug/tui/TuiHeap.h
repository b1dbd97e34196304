/*
 * utils/strata-debug/tui/TuiHeap.h -- the terminal UI's views of the heap,
 * as trees (TuiTree.h) built with the client library: the roots, search
 * results with their retainer paths, the census, fragmentation and the
 * diff against an earlier snapshot.  No
 * terminal here: Tui.c drives it and TuiDraw.c shows it.  This file opens
 * and closes the views, searches, writes snapshots and refreshes; the
 * state they share is TuiHeapState.h, the census and fragmentation views
 * TuiHeapPanes.h, the diff TuiHeapDiff.h.
 *
 * Opening draws the roots without a traversal (only the blocks holding
 * the root closures are fetched); reachability is computed on the first
 * search, census, fragmentation or snapshot, and kept for the pause.
 */
#ifndef STRATA_TUIHEAP_H
#define STRATA_TUIHEAP_H

#include "TuiHeapState.h"


/* Sets up the views and builds the roots tree. -1 with h->status set. */
int tui_heap_open(TuiHeap *h, DbgClient *c, const char *source, uint32_t timeout_ms);
void tui_heap_close(TuiHeap *h);

/* Runs a search (TuiQuery.h syntax) into the search view. */
int tui_heap_search(TuiHeap *h, const char *text);
/* Writes a snapshot of the paused heap. */
int tui_heap_snapshot(TuiHeap *h, const char *file);
/* Live only: resumes the program, pauses it again and rebuilds the views. */
int tui_heap_refresh(TuiHeap *h);


#endif /* STRATA_TUIHEAP_H */
