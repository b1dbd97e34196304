/*
 * testsuite/programs/blackhole_cycle.c -- threads that wait for each
 * other's blackholes (Note [Cycles of blackhole waits] in
 * rts/Blackholes.c).
 *
 *     blackhole_cycle cycle THREADS    thread i evaluates ring_i, whose entry
 *                                      forces ring_(i+1 mod THREADS): the
 *                                      runtime must report <<loop>> naming
 *                                      each thread and thunk, and exit 1
 *     blackhole_cycle chain THREADS    the same, but the last thunk returns
 *                                      a value instead: no cycle, every
 *                                      thread gets THREADS - 1, exit 0
 *     blackhole_cycle stuck            thread 2 evaluates a thunk that never
 *                                      returns, thread 3 waits for it, and
 *                                      hs_exit names what each waits for
 *
 * Each entry waits, suspended, until every thread has claimed its thunk, so
 * the threads meet whatever -N is; then it collects once, so that the cycle
 * is found with the blackholes moved.  An alarm ends a run that hangs.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <strata.h>

#include "Blackholes.h"
#include "Threads.h"

#define MAX_THREADS 8

STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);

static long n_threads;
static bool chain;                       /* the last thunk returns a value */
static StgStablePtr ring[MAX_THREADS];   /* thunk i, for thread i */
static atomic_int claimed;
static atomic_int failures;

static StgClosure *mk_int(long v)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = (StgWord)v;
    return c;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* Thunk i: wait until every thread has claimed its own thunk, then force
 * the next one (or, the last of a chain, return a value). */
static StgClosure *ring_entry(StgClosure **self)
{
    long i = (long)STRATA_THUNK_WORD(*self, 0);
    atomic_fetch_add(&claimed, 1);
    rts_suspend();
    while (atomic_load(&claimed) < n_threads)
        sleep_ms(1);
    rts_resume();
    strata_perform_gc(1);   /* move the blackholes before they meet */
    if (chain && i == n_threads - 1)
        return mk_int(0);
    StgClosure *next = strata_eval(deRefStablePtr(ring[(i + 1) % n_threads]));
    return mk_int((long)STRATA_WORD(next, 0) + 1);
}
STRATA_THUNK_INFO(ring_0_info, "ring_0", 0, 1, ring_entry);
STRATA_THUNK_INFO(ring_1_info, "ring_1", 0, 1, ring_entry);
STRATA_THUNK_INFO(ring_2_info, "ring_2", 0, 1, ring_entry);
STRATA_THUNK_INFO(ring_3_info, "ring_3", 0, 1, ring_entry);
STRATA_THUNK_INFO(ring_n_info, "ring_n", 0, 1, ring_entry);

static const StgInfoTable *ring_info(long i)
{
    static const StgInfoTable *named[] = {&ring_0_info, &ring_1_info, &ring_2_info,
                                          &ring_3_info};
    return i < 4 ? named[i] : &ring_n_info;
}

static void *ring_worker(void *arg)
{
    long i = (long)arg;
    Capability *cap = rts_lock();
    StgClosure *v = strata_eval(deRefStablePtr(ring[i]));
    long want = chain ? n_threads - 1 - i : -1;
    if ((long)STRATA_WORD(v, 0) != want) {
        fprintf(stderr, "blackhole_cycle: thread for ring_%ld got %ld, want %ld\n", i,
                (long)STRATA_WORD(v, 0), want);
        atomic_fetch_add(&failures, 1);
    }
    rts_unlock(cap);
    return NULL;
}

/* The stuck mode's thunk: claimed, then never returns (its thread waits
 * in a foreign call until the process ends).  Counted once suspended, so
 * that hs_exit is sure to find it so. */
static StgClosure *stuck_entry(StgClosure **self)
{
    (void)self;
    rts_suspend();
    atomic_fetch_add(&claimed, 1);
    for (;;)
        sleep_ms(1000);
    return NULL;
}
STRATA_THUNK_INFO(stuck_info, "stuck_thunk", 0, 0, stuck_entry);

static void *stuck_worker(void *arg)
{
    (void)arg;
    (void)rts_lock();
    (void)strata_eval(deRefStablePtr(ring[0]));   /* never returns */
    return NULL;
}

static void count_waiting(StrataThread *t, void *env)
{
    char what[256];
    if (blackholes_describe_wait(t, what, sizeof what))
        ++*(int *)env;
}

/* Resumes once the second stuck thread waits for the thunk (what hs_exit
 * must then name: a fixed sleep would be a guess), looked at holding the
 * capability as blackholes_describe_wait asks, and given back between
 * looks. */
static void resume_when_one_waits(void)
{
    for (;;) {
        int waiting = 0;
        rts_resume();
        threads_for_each(count_waiting, &waiting);
        if (waiting > 0)
            return;
        rts_suspend();
        sleep_ms(1);
    }
}

static int run_threads(void *(*worker)(void *), long n, bool join)
{
    pthread_t ts[MAX_THREADS];
    rts_suspend();   /* joining blocks: give the capability back */
    for (long i = 0; i < n; i++)
        if (pthread_create(&ts[i], NULL, worker, (void *)i) != 0) {
            fprintf(stderr, "blackhole_cycle: pthread_create failed\n");
            return 1;
        }
    if (join) {
        for (long i = 0; i < n; i++)
            pthread_join(ts[i], NULL);
        rts_resume();
    } else {
        while (atomic_load(&claimed) < 1)
            sleep_ms(1);
        resume_when_one_waits();
    }
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: blackhole_cycle cycle|chain THREADS (2..%d) | stuck\n",
            MAX_THREADS);
    return 2;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    alarm(60);   /* a hang is a failure, not a stuck test run */
    bool stuck = argc == 2 && strcmp(argv[1], "stuck") == 0;
    if (!stuck && (argc != 3 || (strcmp(argv[1], "cycle") != 0 &&
                                 strcmp(argv[1], "chain") != 0)))
        return usage();
    chain = strcmp(argv[1], "chain") == 0;
    n_threads = stuck ? 2 : strtol(argv[2], NULL, 10);
    if (n_threads < 2 || n_threads > MAX_THREADS)
        return usage();
    if (stuck) {
        ring[0] = getStablePtr(strata_alloc_thunk(&stuck_info));
    } else {
        for (long i = 0; i < n_threads; i++) {
            StgClosure *t = strata_alloc_thunk(ring_info(i));
            STRATA_THUNK_WORD(t, 0) = (StgWord)i;
            ring[i] = getStablePtr(t);
        }
    }
    if (run_threads(stuck ? stuck_worker : ring_worker, n_threads, !stuck) != 0)
        return 1;
    if (!stuck)
        printf("blackhole_cycle: ok %s threads=%ld caps=%u\n", argv[1], n_threads,
               strata_n_capabilities());
    hs_exit();   /* stuck: reports both threads after its wait */
    return atomic_load(&failures) == 0 ? 0 : 1;
}
