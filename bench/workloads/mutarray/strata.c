/*
 * bench/workloads/mutarray -- mutation-heavy: a large boxed mutable array
 * written with young values (strata C API).
 *
 * An array of N boxed Ints, filled with i.  Then PASSES passes of N steps:
 * pick a pseudo-random index j, read a[j] = v, add v to a running sum and
 * write a freshly allocated box (3v + pass) mod 2^30 back to a[j].  The
 * array soon lives in the old generation while every value written into it
 * is young, so each write goes through the write barrier and the remembered
 * set decides what the minor collections scan.  Prints the running sum and
 * the sum of the final array; ghc.hs (an IOArray Int Int) does the same.
 *
 *     strata <n> [+RTS ... -RTS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

#define PASSES 10
#define MASK ((1L << 30) - 1)

STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);
#define INT_VAL(c) ((long)STRATA_WORD((c), 0))

static StgClosure *mk_int(long n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = (StgWord)n;
    return c;
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
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array((StgWord)n);
    for (long i = 0; i < n; i++) {
        StgClosure *v = mk_int(i);             /* may move the array: */
        strata_mut_array_write(r[0], (StgWord)i, v);   /* re-read the root */
    }
    uint64_t g = 42;
    long running = 0;
    for (long p = 1; p <= PASSES; p++) {
        for (long s = 0; s < n; s++) {
            g = g * 6364136223846793005ULL + 1442695040888963407ULL;
            StgWord j = (StgWord)((g >> 33) % (uint64_t)n);
            long v = INT_VAL(strata_mut_array_read(r[0], j));
            running += v;
            StgClosure *box = mk_int((3 * v + p) & MASK);
            strata_mut_array_write(r[0], j, box);
        }
    }
    long final = 0;
    for (long i = 0; i < n; i++)
        final += INT_VAL(strata_mut_array_read(r[0], (StgWord)i));
    STRATA_ROOTS_POP(r);
    printf("mutarray n=%ld passes=%d running=%ld final=%ld\n", n, PASSES, running, final);
    hs_exit();
    return 0;
}
