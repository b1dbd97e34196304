/*
 * bench/workloads/lists -- an allocation-heavy list workload (strata C API).
 *
 * REPS times: build xs = [1+r .. n+r] (boxed Ints in cons cells), map
 * (\x -> 3x + r) over it, filter the even results, then sum the filtered
 * list and take the length of xs (so xs stays alive across the map and the
 * filter).  Lists are built with accumulators, so map reverses and filter
 * reverses back, exactly as in ghc.hs.
 *
 *     strata <n> [+RTS ... -RTS]
 */
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

#define REPS 10

STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);
STRATA_CONSTR_INFO(Cons_info, "Cons", 2, 0);
STRATA_CONSTR_INFO(Nil_info, "Nil", 0, 0);
static StgClosure Nil_closure = {&Nil_info};
#define NIL (&Nil_closure)

#define INT_VAL(c) ((long)STRATA_WORD((c), 0))

static StgClosure *mk_int(long n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = (StgWord)n;
    return c;
}

/* [lo..hi], built from hi down. */
static StgClosure *upto(long lo, long hi)
{
    STRATA_ROOTS(r, 2);
    r[0] = NIL;
    for (long i = hi; i >= lo; i--) {
        r[1] = mk_int(i);
        StgClosure *cell = strata_alloc_constr(&Cons_info);
        STRATA_FIELD(cell, 0) = r[1];
        STRATA_FIELD(cell, 1) = r[0];
        r[0] = cell;
    }
    StgClosure *l = r[0];
    STRATA_ROOTS_POP(r);
    return l;
}

/* map (\x -> 3x + k), reversed. r[0]: rest of input, r[1]: acc, r[2]: box. */
static StgClosure *map_rev(long k, StgClosure *xs)
{
    STRATA_ROOTS(r, 3);
    r[0] = xs;
    r[1] = NIL;
    while (r[0] != NIL) {
        r[2] = mk_int(3 * INT_VAL(STRATA_FIELD(r[0], 0)) + k);
        StgClosure *cell = strata_alloc_constr(&Cons_info);
        STRATA_FIELD(cell, 0) = r[2];
        STRATA_FIELD(cell, 1) = r[1];
        r[1] = cell;
        r[0] = STRATA_FIELD(r[0], 1);
    }
    StgClosure *l = r[1];
    STRATA_ROOTS_POP(r);
    return l;
}

/* filter even, reversed; shares the element boxes like Haskell's filter. */
static StgClosure *filter_even_rev(StgClosure *xs)
{
    STRATA_ROOTS(r, 2);
    r[0] = xs;
    r[1] = NIL;
    while (r[0] != NIL) {
        if ((INT_VAL(STRATA_FIELD(r[0], 0)) & 1) == 0) {
            StgClosure *cell = strata_alloc_constr(&Cons_info);
            STRATA_FIELD(cell, 0) = STRATA_FIELD(r[0], 0);
            STRATA_FIELD(cell, 1) = r[1];
            r[1] = cell;
        }
        r[0] = STRATA_FIELD(r[0], 1);
    }
    StgClosure *l = r[1];
    STRATA_ROOTS_POP(r);
    return l;
}

/* Traversals allocate nothing: raw pointers are safe. */
static long sum(const StgClosure *l)
{
    long s = 0;
    for (; l != NIL; l = STRATA_FIELD(l, 1))
        s += INT_VAL(STRATA_FIELD(l, 0));
    return s;
}

static long length(const StgClosure *l)
{
    long n = 0;
    for (; l != NIL; l = STRATA_FIELD(l, 1))
        n++;
    return n;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    if (argc > 2 || n < 1) {
        fprintf(stderr, "usage: %s N [+RTS ... -RTS]\n", argv[0]);
        hs_exit();
        return 2;
    }
    long total = 0, kept = 0;
    STRATA_ROOTS(r, 3);
    for (long rep = 0; rep < REPS; rep++) {
        r[0] = upto(1 + rep, n + rep);
        r[1] = map_rev(rep, r[0]);
        r[2] = filter_even_rev(r[1]);
        long l2 = length(r[2]);
        total += sum(r[2]) + length(r[0]);
        kept += l2;
        r[0] = r[1] = r[2] = NULL;
    }
    STRATA_ROOTS_POP(r);
    printf("lists n=%ld reps=%d kept=%ld total=%ld\n", n, REPS, kept, total);
    hs_exit();
    return 0;
}
