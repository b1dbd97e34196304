/*
 * testsuite/programs/twin_copies.c -- how often a parallel minor GC
 * copies one constructor twice (Note [Immutable copies without a claim]
 * in sm/Evac.c), and that a stable name or a weak pointer stops it.
 *
 * Two old mutable arrays, A and B, hold the same young constructors in
 * the same order; between the writes to A and those to B the program
 * dirties PAD old mutable variables, so that A and B land in different
 * blocks of the remembered set, which the GC threads take one each
 * (Note [Roots in parallel] in sm/GC.c).  Two GC threads then scan the
 * same objects in the same order, and whichever is behind catches up with
 * the other (a forwarded object costs it one load): they race for every
 * object from there on.  After each minor GC, A[i] and B[i] must hold the
 * same words; where they are at two addresses, the object was copied
 * twice.
 *
 *     twin_copies ROUNDS OBJECTS [stable-name|weak] +RTS -N2 -qn2 -A64m -RTS
 *
 * With stable-name or weak, one exists for the whole run, and the
 * collector must then claim every copy: any twin is an error.  Prints
 * "twin_copies: ok rounds=R objects=N twins=T rounds-with-twins=W" and
 * exits 0, or names what was wrong and exits 1 (2: bad arguments).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata.h>

/* One word: the index it was written at, and the round. */
STRATA_CONSTR_INFO(Leaf_info, "Leaf", 0, 1);

#define PAD 1100   /* more than a remembered-set block's 512 entries */

static StgStablePtr arr_a, arr_b, pad;

static StgClosure *leaf(StgWord value)
{
    StgClosure *l = strata_alloc_constr(&Leaf_info);
    STRATA_WORD(l, 0) = value;
    return l;
}

/* Fills A and B with the same n young leaves, the pad's variables
 * dirtied between them, and collects the young generation. */
static void one_round(long n, StgWord round)
{
    for (long i = 0; i < n; i++)
        strata_mut_array_write(deRefStablePtr(arr_a), (StgWord)i, leaf(round * (StgWord)n + (StgWord)i));
    for (StgWord k = 0; k < PAD; k++)
        strata_mut_var_write(strata_mut_array_read(deRefStablePtr(pad), k), NULL);
    for (long i = 0; i < n; i++) {
        StgClosure *a = deRefStablePtr(arr_a);
        strata_mut_array_write(deRefStablePtr(arr_b), (StgWord)i, strata_mut_array_read(a, (StgWord)i));
    }
    strata_perform_gc(0);
}

/* The number of slots whose leaf sits at two addresses; -1 if a leaf's
 * word is not what was written. */
static long count_twins(long n, StgWord round)
{
    StgClosure *a = deRefStablePtr(arr_a), *b = deRefStablePtr(arr_b);
    long twins = 0;
    for (long i = 0; i < n; i++) {
        StgClosure *x = strata_mut_array_read(a, (StgWord)i);
        StgClosure *y = strata_mut_array_read(b, (StgWord)i);
        StgWord want = round * (StgWord)n + (StgWord)i;
        if (x->info != &Leaf_info || y->info != &Leaf_info || STRATA_WORD(x, 0) != want ||
            STRATA_WORD(y, 0) != want) {
            fprintf(stderr, "twin_copies: slot %ld of round %lu holds the wrong leaf\n", i,
                    (unsigned long)round);
            return -1;
        }
        twins += x != y;
    }
    return twins;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long rounds = argc > 1 ? atol(argv[1]) : 0;
    long n = argc > 2 ? atol(argv[2]) : 0;
    const char *mode = argc > 3 ? argv[3] : "";
    if (rounds < 1 || n < 1 || argc > 4 ||
        (mode[0] != '\0' && strcmp(mode, "stable-name") != 0 && strcmp(mode, "weak") != 0)) {
        fprintf(stderr, "usage: %s ROUNDS OBJECTS [stable-name|weak]\n", argv[0]);
        hs_exit();
        return 2;
    }
    arr_a = getStablePtr(strata_alloc_mut_array((StgWord)n));
    arr_b = getStablePtr(strata_alloc_mut_array((StgWord)n));
    pad = getStablePtr(strata_alloc_mut_array(PAD));
    for (StgWord k = 0; k < PAD; k++)
        strata_mut_array_write(deRefStablePtr(pad), k, strata_alloc_mut_var());
    StgStablePtr weak = NULL;
    if (strcmp(mode, "stable-name") == 0)
        (void)strata_make_stable_name(deRefStablePtr(pad));
    if (strcmp(mode, "weak") == 0) {
        StgClosure *p = deRefStablePtr(pad);
        weak = getStablePtr(strata_mk_weak(p, p, NULL, NULL));
    }
    strata_perform_gc(1);   /* the arrays and the variables are old now */
    long twins = 0, rounds_with_twins = 0;
    for (long r = 0; r < rounds; r++) {
        one_round(n, (StgWord)r);
        long t = count_twins(n, (StgWord)r);
        if (t < 0)
            return 1;
        twins += t;
        rounds_with_twins += t > 0;
    }
    int bad = mode[0] != '\0' && twins > 0;
    if (bad)
        fprintf(stderr, "twin_copies: %ld constructors copied twice while a %s exists\n", twins,
                mode);
    else
        printf("twin_copies: ok rounds=%ld objects=%ld twins=%ld rounds-with-twins=%ld\n", rounds,
               n, twins, rounds_with_twins);
    if (weak != NULL)
        freeStablePtr(weak);
    freeStablePtr(pad);
    freeStablePtr(arr_b);
    freeStablePtr(arr_a);
    hs_exit();
    return bad ? 1 : 0;
}
