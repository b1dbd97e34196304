/*
 * bench/eras/era-scale.c -- what eras cost at scale (issue 23): the same
 * live data spread over 1 to 100,000 live eras.  Each mode prints one
 * line of `key=value` figures for bench/eras/run.
 *
 *   era-scale gc CELLS ERAS      a list of CELLS 3-word cells whose eras
 *                                change every CELLS/ERAS cells; then 9
 *                                major GCs: median ms per major GC
 *   era-scale rss OBJECTS ERAS   OBJECTS 4-word objects, ERAS eras (one
 *                                object per era when equal); allocation
 *                                time and the first major GC, then peak RSS
 *   era-scale alloc N EVERY      N short-lived 3-word allocations, a new
 *                                era every EVERY of them (0: never);
 *                                ns per allocation
 *   era-scale threads T N EVERY
 *                                T threads (rts_lock each), each making N
 *                                3-word allocations and incrementUserEra(1)
 *                                every EVERY of them (0: never); wall
 *                                seconds from the first start to the last
 *                                end (issue 35: eras per request)
 *   era-scale pingpong N         no heap: two threads hand a counter
 *                                back and forth N times on one cache
 *                                line; ns per one-way move of the line,
 *                                what an era change's transfers cost on
 *                                this machine
 *   era-scale leak GCS           --automatic-era-increment: one 4-word
 *                                object leaked per major GC over GCS major
 *                                GCs (with garbage between); peak RSS
 *                                against live bytes
 *
 * Times are process CPU time.  Run with +RTS flags as usual;
 * bench/eras/run chooses them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <strata.h>

STRATA_CONSTR_INFO(Cell_info, "Cell", 2, 0);   /* head (unused), tail */
STRATA_CONSTR_INFO(Obj_info, "Obj", 1, 2);     /* next, two words */

/* Process CPU time: the figures compare runs on a shared machine, where
 * wall time also measures the neighbours. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long peak_rss_kb(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void mode_gc(long cells, long eras)
{
    long per_era = cells / eras > 0 ? cells / eras : 1;
    STRATA_ROOTS(r, 1);
    for (long i = 0; i < cells; i++) {
        if (i % per_era == 0)
            setUserEra((StgWord)(i / per_era) + 1);
        StgClosure *c = strata_alloc_constr(&Cell_info);
        STRATA_FIELD(c, 1) = r[0];
        r[0] = c;
    }
    strata_perform_gc(1);   /* everything reaches the old generation */
    double t[9];
    for (int k = 0; k < 9; k++) {
        double t0 = now_s();
        strata_perform_gc(1);
        t[k] = now_s() - t0;
    }
    qsort(t, 9, sizeof t[0], cmp_double);
    printf("mode=gc cells=%ld eras=%ld major_gc_ms=%.3f peak_rss_mb=%.1f\n", cells, eras,
           t[4] * 1e3, (double)peak_rss_kb() / 1024);
    STRATA_ROOTS_POP(r);
}

static void mode_rss(long objects, long eras)
{
    long per_era = objects / eras > 0 ? objects / eras : 1;
    STRATA_ROOTS(r, 1);
    double t0 = now_s();
    for (long i = 0; i < objects; i++) {
        if (i % per_era == 0)
            setUserEra((StgWord)(i / per_era) + 1);
        StgClosure *c = strata_alloc_constr(&Obj_info);
        STRATA_FIELD(c, 0) = r[0];
        r[0] = c;
    }
    double alloc_s = now_s() - t0;
    t0 = now_s();
    strata_perform_gc(1);
    double gc_s = now_s() - t0;
    strata_perform_gc(1);
    printf("mode=rss objects=%ld eras=%ld live_kb=%ld alloc_s=%.4f first_major_s=%.4f "
           "peak_rss_mb=%.1f\n", objects, eras, objects * 32 / 1024, alloc_s, gc_s,
           (double)peak_rss_kb() / 1024);
    STRATA_ROOTS_POP(r);
}

static void mode_alloc(long n, long every)
{
    double t0 = now_s();
    StgWord sink = 0;
    long until_change = every;   /* a countdown: no division in the loop */
    for (long i = 0; i < n; i++) {
        if (every > 0 && --until_change == 0) {
            incrementUserEra(1);
            until_change = every;
        }
        StgClosure *c = strata_alloc_constr(&Cell_info);
        sink += (StgWord)c & 1;
    }
    double s = now_s() - t0;
    printf("mode=alloc n=%ld every=%ld ns_per_alloc=%.2f sink=%lu\n", n, every, s * 1e9 / (double)n,
           (unsigned long)sink);
}

static long threads_n, threads_every;

static void *threads_worker(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock();
    StgWord sink = 0;
    /* EVERY 0 counts down too, past the end: the runs with and without
     * changes then differ in the changes alone, not in the loop. */
    long every = threads_every > 0 ? threads_every : threads_n + 1;
    long until_change = every;
    for (long i = 0; i < threads_n; i++) {
        if (--until_change == 0) {
            incrementUserEra(1);
            until_change = every;
        }
        StgClosure *c = strata_alloc_constr(&Cell_info);
        sink += (StgWord)c & 1;
    }
    rts_unlock(cap);
    return (void *)(uintptr_t)sink;
}

/* Wall time: the threads run at once, which CPU time would add up. */
static double wall_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void mode_threads(long t, long n, long every)
{
    pthread_t ts[64];
    threads_n = n;
    threads_every = every;
    if (t > 64)
        t = 64;
    rts_suspend();   /* the workers may take every capability */
    double t0 = wall_s();
    for (long i = 0; i < t; i++)
        if (pthread_create(&ts[i], NULL, threads_worker, NULL) != 0) {
            fprintf(stderr, "era-scale: pthread_create failed\n");
            exit(1);
        }
    for (long i = 0; i < t; i++)
        pthread_join(ts[i], NULL);
    double s = wall_s() - t0;
    rts_resume();
    long changes = every > 0 ? t * (n / every) : 0;
    printf("mode=threads threads=%ld n=%ld every=%ld changes=%ld wall_s=%.4f era=%lu\n", t, n,
           every, changes, s, (unsigned long)getUserEra());
}

/* One cache line that two threads take turns to write: the holder of an
 * odd count makes it even, the other the next odd. */
static _Alignas(64) uint64_t pingpong_line;
static long pingpong_n;

static void *pingpong_other(void *arg)
{
    (void)arg;
    for (long i = 1; i < pingpong_n; i += 2) {
        while (__atomic_load_n(&pingpong_line, __ATOMIC_ACQUIRE) != (uint64_t)i)
            ;
        __atomic_store_n(&pingpong_line, (uint64_t)i + 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void mode_pingpong(long n)
{
    pthread_t t;
    pingpong_n = n - n % 2;
    __atomic_store_n(&pingpong_line, 0, __ATOMIC_RELAXED);
    if (pthread_create(&t, NULL, pingpong_other, NULL) != 0) {
        fprintf(stderr, "era-scale: pthread_create failed\n");
        exit(1);
    }
    double t0 = wall_s();
    for (long i = 0; i < pingpong_n; i += 2) {
        __atomic_store_n(&pingpong_line, (uint64_t)i + 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(&pingpong_line, __ATOMIC_ACQUIRE) != (uint64_t)i + 2)
            ;
    }
    double s = wall_s() - t0;
    pthread_join(t, NULL);
    printf("mode=pingpong n=%ld ns_per_move=%.1f\n", pingpong_n, s * 1e9 / (double)pingpong_n);
}

static void mode_leak(long gcs)
{
    STRATA_ROOTS(r, 1);
    long leaked = 0;
    while (leaked < gcs) {
        /* Garbage until the next major GC, then one object that stays. */
        StgWord before = getUserEra();
        while (getUserEra() == before) {
            for (int i = 0; i < 64; i++)
                (void)strata_alloc_constr(&Cell_info);
            strata_perform_gc(1);
        }
        StgClosure *c = strata_alloc_constr(&Obj_info);
        STRATA_FIELD(c, 0) = r[0];
        r[0] = c;
        leaked++;
    }
    strata_perform_gc(1);
    printf("mode=leak gcs=%ld live_kb=%ld peak_rss_mb=%.1f\n", gcs, leaked * 32 / 1024,
           (double)peak_rss_kb() / 1024);
    STRATA_ROOTS_POP(r);
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "";
    long a = argc > 2 ? atol(argv[2]) : 0, b = argc > 3 ? atol(argv[3]) : 0;
    long c = argc > 4 ? atol(argv[4]) : 0;
    int status = 0;
    if (strcmp(mode, "gc") == 0 && a > 0 && b > 0)
        mode_gc(a, b);
    else if (strcmp(mode, "rss") == 0 && a > 0 && b > 0)
        mode_rss(a, b);
    else if (strcmp(mode, "alloc") == 0 && a > 0 && b >= 0)
        mode_alloc(a, b);
    else if (strcmp(mode, "threads") == 0 && a > 0 && b > 0 && c >= 0)
        mode_threads(a, b, c);
    else if (strcmp(mode, "leak") == 0 && a > 0)
        mode_leak(a);
    else if (strcmp(mode, "pingpong") == 0 && a > 1)
        mode_pingpong(a);
    else {
        fprintf(stderr, "usage: %s gc CELLS ERAS | rss OBJECTS ERAS | alloc N EVERY | "
                        "threads T N EVERY | leak GCS | pingpong N  [+RTS ... -RTS]\n", argv[0]);
        status = 2;
    }
    hs_exit();
    return status;
}
