/*
 * bench/debug/steady-heap.c -- the heap that docs/design/debugger.md
 * measures strata-debug on, held still: a binary tree of depth DEPTH
 * (2^(DEPTH+1) - 1 Node constructors, 24 bytes each: 805 MB at depth 24,
 * the long-lived tree of examples/bintrees), then short-lived depth-4
 * trees built and dropped until the program is killed, so that a client
 * can pause it (a pause needs an allocation) and every pause sees the
 * same live heap.  bintrees itself moves on to bigger short-lived trees
 * within seconds, so its pauses see different heaps.  Run by
 * bench/debug/run.
 *
 *     bench/debug/steady-heap 24 [holder] +RTS --debug-socket=S -RTS
 *
 * With "holder", the second half of the tree is held only by a Node of
 * era 2, so that `boundary --era 1-1` has a holder to rank.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata.h>

STRATA_CONSTR_INFO(Node_info, "Node", 2, 0);
STRATA_CONSTR_INFO(Nil_info, "Nil", 0, 0);
static StgClosure Nil_closure = {&Nil_info};

static StgClosure *make(int depth)
{
    if (depth == 0) {
        StgClosure *n = strata_alloc_constr(&Node_info);
        STRATA_FIELD(n, 0) = &Nil_closure;
        STRATA_FIELD(n, 1) = &Nil_closure;
        return n;
    }
    STRATA_ROOTS(r, 2);
    r[0] = make(depth - 1);
    r[1] = make(depth - 1);
    StgClosure *n = strata_alloc_constr(&Node_info);
    STRATA_FIELD(n, 0) = r[0];
    STRATA_FIELD(n, 1) = r[1];
    STRATA_ROOTS_POP(r);
    return n;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    int depth = argc > 1 ? atoi(argv[1]) : 24;
    bool holder = argc > 2 && strcmp(argv[2], "holder") == 0;
    if (argc > 3 || (argc > 2 && !holder) || depth < 1 || depth > 28) {
        fprintf(stderr, "usage: %s DEPTH (1..28) [holder] [+RTS ... -RTS]\n", argv[0]);
        hs_exit();
        return 2;
    }
    STRATA_ROOTS(r, 2);
    if (!holder) {
        r[0] = make(depth);
    } else {
        /* The same number of objects, but the second half of the tree
         * held by an era-2 Node alone: a boundary with a holder (boundary
         * --era 1-1 ranks it, with half the heap) builds the dominator
         * tree, which a heap of one era lets it skip. */
        r[0] = make(depth - 1);
        r[1] = make(depth - 1);
        setUserEra(2);
        StgClosure *h = strata_alloc_constr(&Node_info);
        STRATA_FIELD(h, 0) = r[1];
        STRATA_FIELD(h, 1) = &Nil_closure;
        r[1] = h;
    }
    printf("ready: tree of depth %d%s\n", depth, holder ? ", half of it held from era 2" : "");
    fflush(stdout);
    for (;;)
        (void)make(4);
}
