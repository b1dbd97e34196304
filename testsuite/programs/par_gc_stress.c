/*
 * testsuite/programs/par_gc_stress.c -- work for the parallel collector
 * (+RTS -N -qn): several threads build one shared graph, each node
 * pointing at two nodes that any thread made earlier, taken from a shared
 * pool (a mutable array), so that most objects are reachable from many
 * places and two GC threads often reach one object at once (the race of
 * Note [Copying in parallel] in sm/Evac.h).  The era moves on every few
 * hundred allocations and collections are forced now and then, so that
 * each GC copies objects of many eras.
 *
 * Each node records its value, the values of its two children, and the
 * eras read before and after its allocation; a check word ties them
 * together.  Every thread checks the nodes it reaches as it goes, and the
 * main thread walks the whole graph at the end: every field must be what
 * was written, and every node's block must still carry an era between
 * the two it recorded (copies keep their era, .inv.block-era).
 *
 *     par_gc_stress THREADS NODES_PER_THREAD +RTS -N<n> -qn<n> -A8k -DS -RTS
 *
 * Prints "par_gc_stress: ok threads=T nodes=N checked=C eras=E" and exits
 * 0, or names the first thing that was wrong and exits 1.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

#include "EraRuns.h"
#include "Segment.h"

/* left, right; value, depth, era before, era after, check */
STRATA_CONSTR_INFO(Node_info, "Node", 2, 5);

/* Payload word indices: the two pointers come first. */
enum { F_VALUE = 2, F_DEPTH, F_ERA_BEFORE, F_ERA_AFTER, F_CHECK };

#define POOL_SIZE 1024
#define MAX_DEPTH 6          /* bounds the live graph: a node's ancestors */
#define ERA_EVERY 300        /* allocations between era increments, per thread */
#define GC_EVERY 5000        /* allocations between forced collections */

static StgStablePtr pool;   /* POOL_SIZE slots of nodes */
static long n_threads, n_nodes;
static atomic_int failures;
static atomic_long checked;

static uint64_t mix(uint64_t value, uint64_t left, uint64_t right)
{
    uint64_t h = value * 0x9e3779b97f4a7c15u;
    h ^= (left + 0x632be59bd9b4e019u) * 0xbf58476d1ce4e5b9u;
    h ^= (right + 0x2545f4914f6cdd1du) * 0x94d049bb133111ebu;
    return h ^ (h >> 31);
}

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void fail(const char *what, long thread, unsigned long got, unsigned long want)
{
    if (atomic_fetch_add(&failures, 1) < 10)
        fprintf(stderr, "par_gc_stress: %s (thread=%ld, got=%lu, want=%lu)\n", what, thread,
                got, want);
}

static StgWord value_of(StgClosure *n)
{
    return n == NULL ? 0 : STRATA_WORD(n, F_VALUE);
}

/* One node's fields and era, not its children's. */
static void check_node(StgClosure *n, long thread)
{
    if (n->info != &Node_info) {
        fail("not a node", thread, (unsigned long)(uintptr_t)n->info,
             (unsigned long)(uintptr_t)&Node_info);
        return;
    }
    StgClosure *l = STRATA_FIELD(n, 0), *r = STRATA_FIELD(n, 1);
    if (STRATA_WORD(n, F_CHECK) != mix(STRATA_WORD(n, F_VALUE), value_of(l), value_of(r)))
        fail("node's check word does not match its children", thread,
             (unsigned long)STRATA_WORD(n, F_VALUE), 0);
    StgWord era = (StgWord)heap_object_era(n);
    if (era < STRATA_WORD(n, F_ERA_BEFORE) || era > STRATA_WORD(n, F_ERA_AFTER))
        fail("node in a block of the wrong era", thread, (unsigned long)era,
             (unsigned long)STRATA_WORD(n, F_ERA_BEFORE));
    atomic_fetch_add_explicit(&checked, 1, memory_order_relaxed);
}

static void check_graph(StgClosure *n, long thread)
{
    for (; n != NULL; n = STRATA_FIELD(n, 1)) {
        check_node(n, thread);
        if (STRATA_FIELD(n, 0) != NULL)
            check_graph(STRATA_FIELD(n, 0), thread);
    }
}

static StgWord depth_of(StgClosure *n)
{
    return n == NULL ? 0 : STRATA_WORD(n, F_DEPTH);
}

static void *worker(void *arg)
{
    long id = (long)arg;
    Capability *cap = rts_lock();
    if (cap == NULL) {
        fail("rts_lock returned NULL", id, 0, 1);
        return NULL;
    }
    uint64_t seed = 0x1234567u + (uint64_t)id * 7919u;
    STRATA_ROOTS(r, 2);
    for (long i = 0; i < n_nodes; i++) {
        StgClosure *arr = deRefStablePtr(pool);
        r[0] = strata_mut_array_read(arr, next_random(&seed) % POOL_SIZE);
        r[1] = strata_mut_array_read(arr, next_random(&seed) % POOL_SIZE);
        /* Children too deep are left out, so the live graph stays bounded. */
        if (depth_of(r[0]) >= MAX_DEPTH)
            r[0] = NULL;
        if (depth_of(r[1]) >= MAX_DEPTH)
            r[1] = NULL;
        StgWord before = getUserEra();
        StgClosure *n = strata_alloc_constr(&Node_info);
        StgWord after = getUserEra();
        StgWord value = (StgWord)(id << 40) + (StgWord)i + 1;
        STRATA_FIELD(n, 0) = r[0];
        STRATA_FIELD(n, 1) = r[1];
        StgWord d0 = depth_of(r[0]), d1 = depth_of(r[1]);
        STRATA_WORD(n, F_VALUE) = value;
        STRATA_WORD(n, F_DEPTH) = 1 + (d0 > d1 ? d0 : d1);
        STRATA_WORD(n, F_ERA_BEFORE) = before;
        STRATA_WORD(n, F_ERA_AFTER) = after;
        STRATA_WORD(n, F_CHECK) = mix(value, value_of(r[0]), value_of(r[1]));
        strata_mut_array_write(deRefStablePtr(pool), next_random(&seed) % POOL_SIZE, n);
        r[0] = n;
        if (i % 64 == 0)
            check_graph(r[0], id);
        if (i % ERA_EVERY == ERA_EVERY - 1)
            incrementUserEra(1);
        if (i % GC_EVERY == GC_EVERY - 1)
            strata_perform_gc((i / GC_EVERY) % 2 == 1);
    }
    STRATA_ROOTS_POP(r);
    rts_unlock(cap);
    return NULL;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    n_threads = argc > 1 ? atol(argv[1]) : 4;
    n_nodes = argc > 2 ? atol(argv[2]) : 20000;
    if (n_threads < 1 || n_threads > 64 || n_nodes < 1) {
        fprintf(stderr, "usage: %s THREADS(1-64) NODES_PER_THREAD\n", argv[0]);
        hs_exit();
        return 2;
    }
    pool = getStablePtr(strata_alloc_mut_array(POOL_SIZE));
    pthread_t *ts = calloc((size_t)n_threads, sizeof *ts);
    rts_suspend();   /* joining blocks: hold no capability meanwhile */
    for (long i = 0; i < n_threads; i++)
        if (pthread_create(&ts[i], NULL, worker, (void *)i) != 0) {
            fprintf(stderr, "par_gc_stress: pthread_create failed\n");
            return 1;
        }
    for (long i = 0; i < n_threads; i++)
        pthread_join(ts[i], NULL);
    rts_resume();
    free(ts);
    strata_perform_gc(1);
    for (StgWord i = 0; i < POOL_SIZE; i++) {
        StgClosure *n = strata_mut_array_read(deRefStablePtr(pool), i);
        if (n != NULL)
            check_graph(n, -1);
    }
    int bad = atomic_load(&failures);
    if (bad == 0)
        printf("par_gc_stress: ok threads=%ld nodes=%ld checked=%ld eras=%lu\n", n_threads,
               n_nodes, atomic_load(&checked), (unsigned long)getUserEra());
    freeStablePtr(pool);
    hs_exit();
    return bad == 0 ? 0 : 1;
}
