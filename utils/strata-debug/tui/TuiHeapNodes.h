/*
 * utils/strata-debug/tui/TuiHeapNodes.h -- the rows of the heap's trees
 * and the loader that expands them (TuiHeapNodes.c), shared by every view.
 * The whole API of TuiHeapNodes.c.
 */
#ifndef STRATA_TUIHEAPNODES_H
#define STRATA_TUIHEAPNODES_H

#include <stdint.h>

#include "TuiHeapState.h"

/* A closure's row ("prefix0x7f..  SessionEntry  CONSTR  era 2  32 B",
 * coloured by its era), or a row with the error; NULL on out of memory. */
TuiNode *tui_heap_closure_node(TuiHeap *h, int kind, const char *prefix, uint64_t addr);
/* The loader of every view's tree (TuiTreeLoadFn; env is the TuiHeap). */
int tui_heap_load_node(TuiNode *n, void *env);
/* Rebuilds the roots view. */
int tui_heap_build_roots(TuiHeap *h);

#endif /* STRATA_TUIHEAPNODES_H */
