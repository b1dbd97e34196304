/*
 * bench/gc/minor-gc.c -- what one minor GC of a nursery that is all alive
 * costs, copied or promoted in place (Note [Promoting the nursery in
 * place] in sm/PromoteInPlace.h).  bench/gc/run runs it.
 *
 *   minor-gc live NURSERY_KIB ROUNDS +RTS -ANURSERY_KIBk --promote-in-place=...
 *       ROUNDS times: a list grown by 7/8 of the nursery in 3-word cells,
 *       all kept, then one minor GC (strata_perform_gc), timed alone in
 *       process CPU time.  Prints "gcs=N median_us=M": the median over the
 *       rounds, which leaves out the few whose GC the heap's growth made
 *       major (+RTS -S, 32 rounds: 3 of them; promoted in place, 2 more
 *       copy the nursery after a major GC).
 *
 * Give the same size to -A and to NURSERY_KIB: the program cannot read
 * the flag back.  Memory: ROUNDS * 7/8 of the nursery stays alive.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <strata.h>

STRATA_CONSTR_INFO(Cell_info, "Cell", 1, 1);   /* tail; a number */
static StgClosure Nil_closure = {&Cell_info};

static double cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void live(long nursery_kib, long rounds)
{
    long cells = nursery_kib * 1024 / 8 * 7 / (long)(3 * sizeof(StgWord));
    double *us = calloc((size_t)rounds, sizeof *us);
    if (us == NULL) {
        fprintf(stderr, "minor-gc: no memory for %ld rounds' times\n", rounds);
        exit(1);
    }
    STRATA_ROOTS(r, 1);
    r[0] = &Nil_closure;
    strata_perform_gc(0);   /* an empty nursery to start from */
    for (long k = 0; k < rounds; k++) {
        for (long i = 0; i < cells; i++) {
            StgClosure *c = strata_alloc_constr(&Cell_info);
            STRATA_FIELD(c, 0) = r[0];
            STRATA_WORD(c, 1) = (StgWord)i;
            r[0] = c;
        }
        double t0 = cpu_us();
        strata_perform_gc(0);
        us[k] = cpu_us() - t0;
    }
    STRATA_ROOTS_POP(r);
    qsort(us, (size_t)rounds, sizeof *us, cmp_double);
    printf("gcs=%ld median_us=%.1f\n", rounds, us[rounds / 2]);
    free(us);
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;
    if (argc == 4 && strcmp(argv[1], "live") == 0 && a > 0 && b > 0) {
        live(a, b);
    } else {
        fprintf(stderr, "usage: minor-gc live NURSERY_KIB ROUNDS +RTS -ANURSERY_KIBk -RTS\n");
        hs_exit();
        return 2;
    }
    hs_exit();
    return 0;
}
