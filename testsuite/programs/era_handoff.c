/*
 * testsuite/programs/era_handoff.c -- the exactness rule of an era change
 * without a stopped world (docs/design/eras.md, Exactness; Note [Changing
 * the era without stopping the world] in sm/heap/Era.c): an object whose
 * allocation an era change happens before has that era or a later one.
 *
 * THREADS threads in a ring, each attached with rts_lock.  Every round,
 * thread i advances the era (incrementUserEra) and allocates a message
 * holding the era it got, then hands it to thread i+1 twice: through a
 * mutable variable written with the barrier (STRATA_MUT_VAR_READ on the
 * other side), and through a pthread mutex guarding a C slot (the message
 * itself sits in a shared mutable array, written before the lock is
 * taken).  The sender checks each message's era as it makes it (the same
 * thread changed the era); the receiver allocates an object as soon as a
 * message arrives and checks that it has at least the sent era: the
 * change happened before that allocation, through the handoff.  (The
 * receiver does not read the message's block: its holder may be adding
 * a run to it, which only a stopped world may read.)  While
 * waiting, a thread gives its capability back (rts_suspend), so a
 * collection is never held up.
 *
 *     era_handoff THREADS ROUNDS +RTS -N<n> -RTS
 *
 * Prints "era_handoff: ok threads=T rounds=R checks=C" and exits 0, or
 * names the first wrong object and exits 1.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

#include "EraRuns.h"
#include "Segment.h"

STRATA_CONSTR_INFO(Msg_info, "Msg", 0, 2);    /* sent era, round */
STRATA_CONSTR_INFO(Probe_info, "Probe", 0, 1);

#define MAX_THREADS 16

static long n_threads, n_rounds;
static StgStablePtr mut_vars[MAX_THREADS];   /* mailbox of thread i */
static StgStablePtr locked_msgs;             /* [i]: thread i's locked message */
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static long slot_round[MAX_THREADS];         /* under slot_lock: the round in locked_msgs[i] */
static atomic_long checks, failures;

static StgWord era_of(StgClosure *c)
{
    return (StgWord)heap_object_era(c);
}

static void check(const char *what, long id, long round, StgWord got, StgWord sent)
{
    atomic_fetch_add(&checks, 1);
    if (got >= sent)
        return;
    if (atomic_fetch_add(&failures, 1) == 0)
        fprintf(stderr, "era_handoff: %s has era %lu, older than the era %lu changed to before "
                        "it was handed over (thread=%ld, round=%ld)\n",
                what, (unsigned long)got, (unsigned long)sent, id, round);
}

/* The object allocated on receiving msg, against the era sent. */
static void check_received(StgClosure *msg, const char *how, long id, long round)
{
    StgWord sent = STRATA_WORD(msg, 0);
    StgClosure *probe = strata_alloc_constr(&Probe_info);   /* msg may move now */
    check(how, id, round, era_of(probe), sent);
}

static void wait_a_little(void)
{
    rts_suspend();
    sched_yield();
    rts_resume();
}

static StgClosure *make_msg(long round)
{
    StgWord era = incrementUserEra(1);
    StgClosure *msg = strata_alloc_constr(&Msg_info);
    STRATA_WORD(msg, 0) = era;
    STRATA_WORD(msg, 1) = (StgWord)round;
    check("the changing thread's own next object", -1, round, era_of(msg), era);
    return msg;
}

static void send_both(long id, long round)
{
    long to = (id + 1) % n_threads;
    strata_mut_var_write(deRefStablePtr(mut_vars[to]), make_msg(round));
    StgClosure *msg = make_msg(round);
    strata_mut_array_write(deRefStablePtr(locked_msgs), (StgWord)to, msg);
    pthread_mutex_lock(&slot_lock);
    slot_round[to] = round;
    pthread_mutex_unlock(&slot_lock);
}

static void receive_both(long id, long round)
{
    StgClosure *m;
    while ((m = STRATA_MUT_VAR_READ(deRefStablePtr(mut_vars[id]))) == NULL ||
           (long)STRATA_WORD(m, 1) < round)
        wait_a_little();
    check_received(m, "an object allocated after a handoff through a mutable variable", id, round);
    for (;;) {
        pthread_mutex_lock(&slot_lock);
        long got = slot_round[id];
        pthread_mutex_unlock(&slot_lock);
        if (got >= round)
            break;
        wait_a_little();
    }
    m = strata_mut_array_read(deRefStablePtr(locked_msgs), (StgWord)id);
    check_received(m, "an object allocated after a handoff through a lock", id, round);
}

static void *worker(void *arg)
{
    long id = (long)arg;
    Capability *cap = rts_lock();
    for (long round = 1; round <= n_rounds; round++) {
        send_both(id, round);
        receive_both(id, round);
        /* Garbage between rounds, so that collections run meanwhile. */
        for (int i = 0; i < 200; i++)
            (void)strata_alloc_constr(&Probe_info);
    }
    rts_unlock(cap);
    return NULL;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    n_threads = argc > 1 ? atol(argv[1]) : 0;
    n_rounds = argc > 2 ? atol(argv[2]) : 0;
    if (n_threads < 2 || n_threads > MAX_THREADS || n_rounds < 1) {
        fprintf(stderr, "usage: %s THREADS(2..%d) ROUNDS [+RTS -N<n> -RTS]\n", argv[0],
                MAX_THREADS);
        hs_exit();
        return 2;
    }
    for (long i = 0; i < n_threads; i++) {
        mut_vars[i] = getStablePtr(strata_alloc_mut_var());
        slot_round[i] = 0;
    }
    locked_msgs = getStablePtr(strata_alloc_mut_array((StgWord)n_threads));
    pthread_t ts[MAX_THREADS];
    rts_suspend();   /* the workers may need every capability */
    for (long i = 0; i < n_threads; i++)
        if (pthread_create(&ts[i], NULL, worker, (void *)i) != 0) {
            fprintf(stderr, "era_handoff: pthread_create failed\n");
            return 1;
        }
    for (long i = 0; i < n_threads; i++)
        pthread_join(ts[i], NULL);
    rts_resume();
    for (long i = 0; i < n_threads; i++)
        freeStablePtr(mut_vars[i]);
    freeStablePtr(locked_msgs);
    long bad = atomic_load(&failures);
    if (bad == 0)
        printf("era_handoff: ok threads=%ld rounds=%ld checks=%ld\n", n_threads, n_rounds,
               atomic_load(&checks));
    hs_exit();
    return bad == 0 ? 0 : 1;
}
