/*
 * examples/thunk-leak.c -- a thunk leak: a running total kept lazily.
 *
 * Each step replaces the total by a thunk "previous total + x" without
 * forcing it, the classic foldl space leak: the chain of unevaluated
 * thunks (THUNK_1_1 in -hT, the add_thunk info table in -hi) grows until
 * the end, when the total is finally demanded.  Compare
 *
 *     thunk-leak +RTS -hT -l -RTS          the leak
 *     thunk-leak 10 strict +RTS -hT -l -RTS  forcing every step: flat
 *
 * Usage: thunk-leak [ROUNDS of 200000 steps (default 10)] [strict]
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata.h>

static const StgInfoProv add_prov = {"add_thunk_info", "add", "Integer", "total",
                                     "Main", "examples/thunk-leak.c", "27:1-40"};
STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);

/* total = previous + x, with previous in payload[0] and x in word 0. */
static StgClosure *add_entry(StgClosure **self)
{
    StgWord x = STRATA_THUNK_WORD(*self, 1);
    StgWord prev = STRATA_WORD(strata_eval(STRATA_THUNK_FIELD(*self, 0)), 0);
    StgClosure *n = strata_alloc_constr(&Int_info);
    STRATA_WORD(n, 0) = prev + x;
    return n;
}
static STRATA_THUNK_INFO_PROV(add_info, "add_thunk", 1, 1, add_entry, &add_prov);

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long rounds = argc > 1 ? atol(argv[1]) : 10;
    bool strict = argc > 2 && strcmp(argv[2], "strict") == 0;
    if (rounds < 1 || (argc > 2 && !strict) || argc > 3) {
        fprintf(stderr, "usage: %s [ROUNDS (>= 1)] [strict]\n", argv[0]);
        hs_exit();
        return 2;
    }
    const long per_round = 200000;
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_constr(&Int_info);   /* the total: 0 */
    /* The thunks in order, so the total can be forced oldest first without
     * a C recursion as deep as the chain. */
    r[1] = strata_alloc_mut_array((StgWord)(rounds * per_round));
    StgWord n = 0;
    for (long round = 0; round < rounds; round++) {
        for (long i = 0; i < per_round; i++, n++) {
            StgClosure *t = strata_alloc_thunk(&add_info);
            STRATA_THUNK_FIELD(t, 0) = r[0];
            STRATA_THUNK_WORD(t, 1) = n % 1000;
            r[0] = t;
            strata_mut_array_write(r[1], n, t);
            if (strict)
                (void)strata_eval(r[0]);
            /* Some ordinary work between steps. */
            for (int k = 0; k < 40; k++)
                (void)strata_alloc_bytes(64);
        }
    }
    for (StgWord i = 0; i < n; i++)
        (void)strata_eval(strata_mut_array_read(r[1], i));
    printf("total of %lu steps: %lu\n", (unsigned long)n,
           (unsigned long)STRATA_WORD(strata_eval(r[0]), 0));
    STRATA_ROOTS_POP(r);
    hs_exit();
    return 0;
}
