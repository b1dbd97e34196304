/*
 * testsuite/programs/segment_fill.c -- a heap whose non-moving segments
 * hold a known number of objects of one size, for strata-debug's view of
 * the segments (debug-segments.sh).
 *
 *     segment_fill OBJECTS ERAS DROP +RTS --nonmoving-gc --debug-socket=S -RTS
 *
 * Allocates OBJECTS records of 11 words (a size no runtime object has),
 * in ERAS eras of OBJECTS / ERAS each (the last takes the rest), keeps
 * them in a mutable array, and runs a major collection, which moves them
 * into the segments of the non-moving generation.  Then it forgets the
 * first DROP of them, which stay in their slots until the next major
 * collection, and says so on stdout:
 *
 *     segment_fill: objects=N eras=E dropped=D record_bytes=88
 *
 * Then it allocates short-lived garbage, a little at a time, until it is
 * killed, so that a debugger can pause it.  Exits 2 on bad arguments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <strata.h>

/* Ten words of data: 11 words with the info pointer. */
STRATA_CONSTR_INFO(Record_info, "Record", 0, 10);

static long arg(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    return *s != '\0' && *end == '\0' ? v : -1;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long n = argc == 4 ? arg(argv[1]) : -1, eras = argc == 4 ? arg(argv[2]) : -1;
    long drop = argc == 4 ? arg(argv[3]) : -1;
    if (n < 1 || eras < 1 || eras > n || drop < 0 || drop > n) {
        fprintf(stderr, "usage: segment_fill OBJECTS ERAS DROP (1 <= ERAS <= OBJECTS, "
                        "0 <= DROP <= OBJECTS)\n");
        hs_exit();
        return 2;
    }
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array((StgWord)n);
    long per_era = n / eras;
    for (long i = 0; i < n; i++) {
        long e = i / per_era + 1;
        if (i % per_era == 0 && e <= eras)
            setUserEra((StgWord)e);
        StgClosure *rec = strata_alloc_constr(&Record_info);
        for (int w = 0; w < 10; w++)
            STRATA_WORD(rec, w) = (StgWord)i * 10 + (StgWord)w;
        strata_mut_array_write(r[0], (StgWord)i, rec);
    }
    strata_perform_gc(1);
    for (long i = 0; i < drop; i++)
        strata_mut_array_write(r[0], (StgWord)i, NULL);
    printf("segment_fill: objects=%ld eras=%ld dropped=%ld record_bytes=88\n", n, eras, drop);
    fflush(stdout);
    for (;;) {
        for (int i = 0; i < 1000; i++)
            (void)strata_alloc_constr(&Record_info);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}
