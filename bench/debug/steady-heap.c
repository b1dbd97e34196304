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
 *     bench/debug/steady-heap 24 +RTS --debug-socket=S -RTS
 */
#include <stdio.h>
#include <stdlib.h>

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
    if (argc > 2 || depth < 0 || depth > 28) {
        fprintf(stderr, "usage: %s DEPTH (0..28) [+RTS ... -RTS]\n", argv[0]);
        hs_exit();
        return 2;
    }
    STRATA_ROOTS(r, 1);
    r[0] = make(depth);
    printf("ready: tree of depth %d\n", depth);
    fflush(stdout);
    for (;;)
        (void)make(4);
}
