/*
 * bench/workloads/binary-trees/strata.c -- binary-trees on the strata C API
 * (the same program as examples/bintrees.c).
 *
 * A long-lived tree of depth DEPTH lives throughout; for each depth
 * d = 4, 6, ..., DEPTH, 2^(DEPTH - d + 4) short-lived trees of depth d are
 * built, checked and discarded.  The output matches the classic program's
 * and, line for line, the other variants in this directory (ghc.hs,
 * boehm.c, malloc.c); bench/run compares them.
 *
 *     bench/out/binary-trees/strata 21 +RTS -s -RTS
 */
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

STRATA_CONSTR_INFO(Node_info, "Node", 2, 0);
STRATA_CONSTR_INFO(Nil_info, "Nil", 0, 0);
static StgClosure Nil_closure = {&Nil_info};

#define MIN_DEPTH 4

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

/* Checking allocates nothing, so raw pointers are safe here. */
static long check(const StgClosure *t)
{
    if (t->info == &Nil_info)
        return 0;
    return 1 + check(STRATA_FIELD(t, 0)) + check(STRATA_FIELD(t, 1));
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 10;
    if (argc > 2 || n < 0 || n > 30) {
        fprintf(stderr, "usage: %s DEPTH (0..30) [+RTS ... -RTS]\n", argv[0]);
        hs_exit();
        return 2;
    }
    int max_depth = n > MIN_DEPTH + 2 ? n : MIN_DEPTH + 2;
    int stretch = max_depth + 1;
    printf("stretch tree of depth %d\t check: %ld\n", stretch, check(make(stretch)));

    STRATA_ROOTS(r, 1);
    r[0] = make(max_depth);
    for (int d = MIN_DEPTH; d <= max_depth; d += 2) {
        long iterations = 1L << (max_depth - d + MIN_DEPTH);
        long sum = 0;
        for (long i = 0; i < iterations; i++)
            sum += check(make(d));
        printf("%ld\t trees of depth %d\t check: %ld\n", iterations, d, sum);
    }
    printf("long lived tree of depth %d\t check: %ld\n", max_depth, check(r[0]));
    STRATA_ROOTS_POP(r);
    hs_exit();
    return 0;
}
