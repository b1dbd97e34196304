/*
 * examples/bintrees-par.c -- the benchmarks-game binary-trees with the
 * iterations of each depth split over threads, one per capability
 * (+RTS -N): each worker attaches with rts_lock, builds and checks its
 * share of the trees, and gives its capability back.  The output is
 * identical to examples/bintrees.
 *
 *     bintrees-par DEPTH +RTS -N2 -RTS
 *
 * The main thread keeps the long-lived tree and suspends (rts_suspend)
 * while it waits for the workers, so that their collections do not wait
 * for it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

STRATA_CONSTR_INFO(Node_info, "Node", 2, 0);
STRATA_CONSTR_INFO(Nil_info, "Nil", 0, 0);
static StgClosure Nil_closure = {&Nil_info};

#define MIN_DEPTH 4
#define MAX_WORKERS 256

static StgClosure *make(int depth)
{
    if (depth == 0) {
        StgClosure *n = strata_alloc_constr(&Node_info);
        STRATA_FIELD(n, 0) = &Nil_closure;
        STRATA_FIELD(n, 1) = &Nil_closure;
        return n;
    }
    STRATA_ROOTS(r, 2);
    r[0] = make(depth - 1);
    r[1] = make(depth - 1);
    StgClosure *n = strata_alloc_constr(&Node_info);
    STRATA_FIELD(n, 0) = r[0];
    STRATA_FIELD(n, 1) = r[1];
    STRATA_ROOTS_POP(r);
    return n;
}

/* Checking allocates nothing, so raw pointers are safe here. */
static long check(const StgClosure *t)
{
    if (t->info == &Nil_info)
        return 0;
    return 1 + check(STRATA_FIELD(t, 0)) + check(STRATA_FIELD(t, 1));
}

typedef struct {
    int depth;
    long first, count;   /* this worker's iterations */
    long sum;
} Share;

static void *worker(void *arg)
{
    Share *s = arg;
    Capability *cap = rts_lock();
    if (cap == NULL)
        return NULL;
    for (long i = 0; i < s->count; i++)
        s->sum += check(make(s->depth));
    rts_unlock(cap);
    return NULL;
}

/* The iterations of one depth, split evenly over n_workers threads. */
static long run_depth(int depth, long iterations, unsigned n_workers)
{
    pthread_t threads[MAX_WORKERS];
    Share shares[MAX_WORKERS];
    long per = iterations / n_workers, extra = iterations % n_workers, first = 0;
    for (unsigned w = 0; w < n_workers; w++) {
        long count = per + ((long)w < extra);
        shares[w] = (Share){depth, first, count, 0};
        first += count;
        if (pthread_create(&threads[w], NULL, worker, &shares[w]) != 0) {
            fprintf(stderr, "bintrees-par: cannot start worker %u\n", w);
            exit(1);
        }
    }
    long sum = 0;
    for (unsigned w = 0; w < n_workers; w++) {
        pthread_join(threads[w], NULL);
        sum += shares[w].sum;
    }
    return sum;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    int n = argc > 1 ? atoi(argv[1]) : 10;
    if (argc > 2 || n < 0 || n > 30) {
        fprintf(stderr, "usage: %s DEPTH (0..30) [+RTS -N<n> ... -RTS]\n", argv[0]);
        hs_exit();
        return 2;
    }
    unsigned n_workers = strata_n_capabilities();
    int max_depth = n > MIN_DEPTH + 2 ? n : MIN_DEPTH + 2;
    int stretch = max_depth + 1;
    printf("stretch tree of depth %d\t check: %ld\n", stretch, check(make(stretch)));

    STRATA_ROOTS(r, 1);
    r[0] = make(max_depth);
    for (int d = MIN_DEPTH; d <= max_depth; d += 2) {
        long iterations = 1L << (max_depth - d + MIN_DEPTH);
        rts_suspend();   /* the long-lived tree stays rooted in r */
        long sum = run_depth(d, iterations, n_workers);
        rts_resume();
        printf("%ld\t trees of depth %d\t check: %ld\n", iterations, d, sum);
    }
    printf("long lived tree of depth %d\t check: %ld\n", max_depth, check(r[0]));
    STRATA_ROOTS_POP(r);
    hs_exit();
    return 0;
}
