/*
 * testsuite/programs/alloc_shares.c -- three call paths that allocate
 * known shares of the live heap, for allocation sampling's end-to-end
 * test (testsuite/scripts/alloc-sample.sh):
 *
 *     alloc_shares THREADS MEGABYTES +RTS --alloc-sample -l -RTS
 *
 * Each of THREADS threads (rts_lock: run with -N<THREADS>) allocates
 * MEGABYTES/THREADS MiB and keeps all of it, in three kinds of object
 * from three functions: grow_nodes (60% of the bytes: 24-byte list
 * nodes), grow_boxes (30%: 64-byte byte arrays, each in a 24-byte box)
 * and grow_pages (10%: 4000-byte byte arrays, large objects, each in a
 * box).  So `go tool pprof -top -sample_index=inuse_space` of its log
 * should give the three functions 60, 30 and 10% of the live bytes,
 * whatever the objects' sizes.  The calls interleave, 16 KiB a round in
 * those shares, so that no path owns a phase of the run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

STRATA_CONSTR_INFO(Node_info, "Node", 1, 1);   /* next; a word */
STRATA_CONSTR_INFO(Box_info, "Box", 2, 0);     /* contents, next */

#define ROUND_BYTES (16 * 1024)
#define PAGE_BYTES 4000   /* payload; 4016 with the header: a large object */

static long bytes_per_thread;

/* A thread's list, rooted in a stable pointer to a mutable variable. */
static void push(StgStablePtr list, StgClosure *cell, int field)
{
    StgClosure *var = deRefStablePtr(list);
    STRATA_FIELD(cell, field) = STRATA_MUT_VAR_READ(var);
    strata_mut_var_write(var, cell);
}

static long grow_nodes(StgStablePtr list, long bytes)
{
    long done = 0;
    for (; done < bytes; done += 3 * (long)sizeof(StgWord)) {
        StgClosure *n = strata_alloc_constr(&Node_info);
        STRATA_WORD(n, 1) = (StgWord)done;
        push(list, n, 0);
    }
    return done;
}

static long grow_boxes(StgStablePtr list, long bytes)
{
    long done = 0;
    STRATA_ROOTS(r, 1);
    for (; done < bytes; done += 64 + 3 * (long)sizeof(StgWord)) {
        r[0] = strata_alloc_bytes(64 - 2 * sizeof(StgWord));
        StgClosure *box = strata_alloc_constr(&Box_info);
        STRATA_FIELD(box, 0) = r[0];
        push(list, box, 1);
    }
    STRATA_ROOTS_POP(r);
    return done;
}

static long grow_pages(StgStablePtr list, long bytes)
{
    long done = 0;
    STRATA_ROOTS(r, 1);
    for (; done < bytes; done += PAGE_BYTES + 2 * (long)sizeof(StgWord) + 3 * (long)sizeof(StgWord)) {
        r[0] = strata_alloc_bytes(PAGE_BYTES);
        StgClosure *box = strata_alloc_constr(&Box_info);
        STRATA_FIELD(box, 0) = r[0];
        push(list, box, 1);
    }
    STRATA_ROOTS_POP(r);
    return done;
}

static void *worker(void *arg)
{
    (void)arg;
    Capability *cap = rts_lock();
    if (cap == NULL)
        return NULL;
    StgStablePtr list = getStablePtr(strata_alloc_mut_var());
    /* Each path catches up with its share of what the rounds so far
     * called for (a page is bigger than a round's tenth). */
    long a = 0, b = 0, c = 0, called_for = 0;
    while (a + b + c < bytes_per_thread) {
        called_for += ROUND_BYTES;
        a += grow_nodes(list, called_for * 6 / 10 - a);
        b += grow_boxes(list, called_for * 3 / 10 - b);
        c += grow_pages(list, called_for / 10 - c);
    }
    printf("kept %ld bytes: nodes %ld, boxes %ld, pages %ld\n", a + b + c, a, b, c);
    /* The list stays alive until the runtime exits: never freed. */
    rts_unlock(cap);
    return NULL;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long threads = argc > 1 ? atol(argv[1]) : 1;
    long megabytes = argc > 2 ? atol(argv[2]) : 100;
    if (threads < 1 || threads > 64 || megabytes < 1) {
        fprintf(stderr, "usage: %s [THREADS (1-64) [MEGABYTES (>= 1)]]\n", argv[0]);
        hs_exit();
        return 2;
    }
    bytes_per_thread = megabytes * 1024 * 1024 / threads;
    pthread_t t[64];
    rts_suspend();   /* joining blocks: hold no capability meanwhile */
    for (long i = 0; i < threads; i++)
        if (pthread_create(&t[i], NULL, worker, NULL) != 0) {
            fprintf(stderr, "%s: cannot start thread %ld\n", argv[0], i);
            return 1;
        }
    for (long i = 0; i < threads; i++)
        pthread_join(t[i], NULL);
    rts_resume();
    hs_exit();
    return 0;
}
