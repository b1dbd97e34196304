/*
 * utils/strata-debug/tui/TuiHeapPrivate.h -- what the files of the heap's
 * views share: TuiHeap.c (status, traversal, search, opening, snapshots,
 * refresh), TuiHeapNodes.c (node labels and the loader that expands
 * them), TuiHeapPanes.c (census and fragmentation), TuiHeapDiff.c (the
 * diff).
 */
#ifndef STRATA_TUIHEAPPRIVATE_H
#define STRATA_TUIHEAPPRIVATE_H

#include "TuiHeap.h"

/* Sets the status line; returns -1 for an error, else 0. */
int tui_heap_set_status(TuiHeap *h, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Traverses the heap once per pause (h->reach); -1 with the status set. */
int tui_heap_ensure_reach(TuiHeap *h);
/* A closure's row ("prefix0x7f..  SessionEntry  CONSTR  era 2  32 B",
 * coloured by its era), or a row with the error; NULL on out of memory. */
TuiNode *tui_heap_closure_node(TuiHeap *h, int kind, const char *prefix, uint64_t addr);
/* The loader of every view's tree (TuiTreeLoadFn; env is the TuiHeap). */
int tui_heap_load_node(TuiNode *n, void *env);
/* The diff view before any diff: how to get one. */
int tui_heap_diff_hint(TuiHeap *h);
/* Rebuilds the roots view. */
int tui_heap_build_roots(TuiHeap *h);

#endif /* STRATA_TUIHEAPPRIVATE_H */
