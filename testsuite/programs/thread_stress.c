/*
 * testsuite/programs/thread_stress.c -- several OS threads mutate one heap
 * at once (+RTS -N): each attaches with rts_lock, builds lists, publishes
 * them in a shared mutable array and reads the other threads' lists back,
 * forces one shared thunk that every thread wants at once (it must be
 * evaluated exactly once, the others blocking on its blackhole), changes
 * the era, forces collections, and suspends around sleeps; calls back into
 * the heap through an rts_mkFunPtr function pointer and posts eventlog
 * markers from every thread.  Each list cell records the era before and
 * after its allocation, and its block must carry an era between the two
 * (getUserEra's answer is the era of the caller's next object or an older
 * one: Note [Changing the era without stopping the world]).
 * The main thread suspends while it joins the workers.  Every value is
 * checked.
 *
 *     thread_stress THREADS ROUNDS +RTS -N<n> -A8k -DS -RTS
 *
 * Prints "thread_stress: ok threads=T rounds=R thunk_entries=1 ..." and
 * exits 0, or names the first thing that was wrong and exits 1.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <strata.h>

#include "EraRuns.h"
#include "Segment.h"

STRATA_CONSTR_INFO(Cons_info, "Cons", 1, 1);   /* tail, value */
STRATA_CONSTR_INFO(Era_info, "Era", 0, 2);     /* era before, era after */

static StgClosure *id_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    return args[0];
}
STRATA_FUN_INFO(id_info, "id", 0, 0, 1, id_entry);
static StgClosure id_closure = {&id_info};
static int64_t (*id_fp)(int64_t);
STRATA_CONSTR_INFO(Box_info, "Box", 0, 1);

#define LIST_LEN 300
#define SHARED_SUM 123456789u

static atomic_int thunk_entries;
static StgStablePtr shared_array;   /* THREADS slots: each thread's latest list */
static StgStablePtr shared_thunk;
static long n_threads, n_rounds;
static atomic_int failures;

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* The shared thunk: slow on purpose, and it gives its capability back while
 * it sleeps, so that at -N1 too the others run into its blackhole. */
static StgClosure *slow_entry(StgClosure **self)
{
    (void)self;
    atomic_fetch_add(&thunk_entries, 1);
    rts_suspend();
    sleep_us(20000);
    rts_resume();
    StgClosure *b = strata_alloc_constr(&Box_info);
    STRATA_WORD(b, 0) = SHARED_SUM;
    return b;
}
STRATA_THUNK_INFO(slow_info, "slow", 0, 0, slow_entry);

static void fail(const char *what, long thread, long round, unsigned long got,
                 unsigned long want)
{
    fprintf(stderr, "thread_stress: %s (thread=%ld, round=%ld, got=%lu, want=%lu)\n", what,
            thread, round, got, want);
    atomic_fetch_add(&failures, 1);
}

/* A list of LIST_LEN cells whose values are base, base+1, ... */
static StgClosure *build_list(StgWord base)
{
    STRATA_ROOTS(r, 1);
    for (StgWord i = 0; i < LIST_LEN; i++) {
        StgClosure *c = strata_alloc_constr(&Cons_info);
        STRATA_FIELD(c, 0) = r[0];
        STRATA_WORD(c, 1) = base + LIST_LEN - 1 - i;
        r[0] = c;
    }
    StgClosure *head = r[0];
    STRATA_ROOTS_POP(r);
    return head;
}

/* True if c is a whole list of base, base+1, ... */
static bool list_ok(StgClosure *c, StgWord *base_out)
{
    if (c == NULL)
        return true;
    StgWord base = STRATA_WORD(c, 1), n = 0;
    for (; c != NULL; c = STRATA_FIELD(c, 0), n++)
        if (STRATA_WORD(c, 1) != base + n)
            return false;
    *base_out = base;
    return n == LIST_LEN;
}

/* An object's block carries an era between the ones read around its
 * allocation. */
static void check_era(long id, long round)
{
    StgWord before = getUserEra();
    StgClosure *e = strata_alloc_constr(&Era_info);
    StgWord after = getUserEra();
    StgWord born = (StgWord)heap_object_era(e);
    if (born < before || born > after)
        fail("object in a block of the wrong era", id, round, born, before);
}

static void *worker(void *arg)
{
    long id = (long)arg;
    Capability *cap = rts_lock();
    if (cap == NULL) {
        fail("rts_lock returned NULL", id, 0, 0, 1);
        return NULL;
    }
    STRATA_ROOTS(r, 2);
    for (long round = 0; round < n_rounds; round++) {
        StgWord base = (StgWord)(id * 1000000 + round * 1000);
        r[0] = build_list(base);
        StgWord got = 0;
        if (!list_ok(r[0], &got) || got != base)
            fail("own list corrupt", id, round, got, base);
        strata_mut_array_write(deRefStablePtr(shared_array), (StgWord)id, r[0]);
        /* Another thread's latest list: whole, whatever it is now. */
        long other = (id + 1 + round) % n_threads;
        r[1] = strata_mut_array_read(deRefStablePtr(shared_array), (StgWord)other);
        if (!list_ok(r[1], &got))
            fail("another thread's list corrupt", id, round, (unsigned long)other, 0);
        if (round == n_rounds / 2) {
            StgClosure *v = strata_eval(deRefStablePtr(shared_thunk));
            if (STRATA_WORD(v, 0) != SHARED_SUM)
                fail("shared thunk value", id, round, STRATA_WORD(v, 0), SHARED_SUM);
        }
        if (round % 17 == id % 17)
            incrementUserEra(1);
        check_era(id, round);
        if (round % 10 == 0) {
            int64_t v = id_fp((int64_t)(id * 1000 + round));   /* a callback */
            if (v != id * 1000 + round)
                fail("callback through rts_mkFunPtr", id, round, (unsigned long)v,
                     (unsigned long)(id * 1000 + round));
            char marker[64];
            snprintf(marker, sizeof marker, "worker %ld round %ld", id, round);
            traceMarker(marker);
        }
        if (round % 29 == 0)
            strata_perform_gc(round % 58 == 0);
        if (round % 13 == 0) {
            rts_suspend();
            sleep_us(200);
            rts_resume();
        }
    }
    STRATA_ROOTS_POP(r);
    rts_unlock(cap);
    return NULL;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    n_threads = argc > 1 ? atol(argv[1]) : 4;
    n_rounds = argc > 2 ? atol(argv[2]) : 200;
    if (n_threads < 1 || n_threads > 64 || n_rounds < 1) {
        fprintf(stderr, "usage: %s THREADS(1-64) ROUNDS\n", argv[0]);
        hs_exit();
        return 2;
    }
    shared_array = getStablePtr(strata_alloc_mut_array((StgWord)n_threads));
    shared_thunk = getStablePtr(strata_alloc_thunk(&slow_info));
    HsFunPtr fp = rts_mkFunPtr(&id_closure, "i64(i64)");
    if (fp == NULL)
        return 1;
    memcpy(&id_fp, &fp, sizeof fp);
    pthread_t *ts = calloc((size_t)n_threads, sizeof *ts);
    /* Joining blocks: suspended, the main thread holds no capability, so
     * the workers' collections do not wait for it. */
    rts_suspend();
    for (long i = 0; i < n_threads; i++)
        if (pthread_create(&ts[i], NULL, worker, (void *)i) != 0) {
            fprintf(stderr, "thread_stress: pthread_create failed\n");
            return 1;
        }
    for (long i = 0; i < n_threads; i++)
        pthread_join(ts[i], NULL);
    rts_resume();
    free(ts);
    StgWord got = 0;
    for (long i = 0; i < n_threads; i++)
        if (!list_ok(strata_mut_array_read(deRefStablePtr(shared_array), (StgWord)i), &got))
            fail("final list corrupt", i, n_rounds, got, 0);
    /* Every increment counts, whichever threads made them at once. */
    StgWord increments = 0;
    for (long id = 0; id < n_threads; id++)
        for (long round = 0; round < n_rounds; round++)
            increments += round % 17 == id % 17;
    if (getUserEra() != 1 + increments)
        fail("era increments lost", -1, -1, (unsigned long)getUserEra(),
             (unsigned long)(1 + increments));
    if (atomic_load(&thunk_entries) != 1)
        fail("shared thunk evaluated more or less than once", -1, -1,
             (unsigned long)atomic_load(&thunk_entries), 1);
    int bad = atomic_load(&failures);
    if (bad == 0)
        printf("thread_stress: ok threads=%ld rounds=%ld thunk_entries=%d era=%lu caps=%u\n",
               n_threads, n_rounds, atomic_load(&thunk_entries), (unsigned long)getUserEra(),
               strata_n_capabilities());
    freeStablePtr(shared_array);
    freeStablePtr(shared_thunk);
    hs_free_fun_ptr(fp);
    hs_exit();
    return bad == 0 ? 0 : 1;
}
