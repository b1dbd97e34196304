/*
 * bench/roots/static-rewrite.c -- issue 22.1: a static mutable variable written
 * between minor GCs.  Prints the time of the first and the last 1,000 of
 * 30,000 rounds; with each static closure a root once, the two are alike.
 *
 *     cc -O2 -Iincludes bench/roots/static-rewrite.c build/.libs/libstrata.a \
 *        -lffi -lelf -ldwarf -lm -lpthread -o static-rewrite
 */
#include <stdio.h>
#include <time.h>
#include <strata.h>

STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);
static StgMutVar var = {&stg_MUT_VAR_CLEAN_info, NULL};
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}
int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    double t0 = now(), first = 0, last = 0;
    for (int i = 0; i < 30000; i++) {
        if (i == 1000) first = now() - t0;
        if (i == 29000) t0 = now();
        StgClosure *c = strata_alloc_constr(&Int_info);
        STRATA_WORD(c, 0) = (StgWord)i;
        strata_mut_var_write((StgClosure *)&var, c);
        strata_perform_gc(0);
    }
    last = now() - t0;
    printf("first 1000 rounds %.4f s, last 1000 rounds %.4f s, ratio %.2f\n", first, last, last / first);
    hs_exit();
    return 0;
}
