/*
 * examples/threads.c -- a worker pool whose workers leak into a shared
 * cache: each worker thread attaches with rts_lock and serves requests;
 * every response is remembered in a cache shared by all workers, and
 * nothing ever leaves it.  Profile it on two capabilities:
 *
 *     threads WORKERS REQUESTS +RTS -N2 -hi -l -RTS
 *
 * and the heap profile shows CacheEntry growing while Request and
 * Response stay flat.
 *
 * The cache is a mutable array of buckets guarded by a pthread mutex.  The
 * mutex is never held across an allocation: a thread blocked on it is not
 * at a safe point, so a collection started by the thread holding it would
 * wait for ever.  Allocate first, then lock, link, unlock (or bracket the
 * wait with rts_suspend/rts_resume).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

STRATA_CONSTR_INFO(Request_info, "Request", 0, 2);       /* worker, number */
STRATA_CONSTR_INFO(Response_info, "Response", 1, 1);     /* body, length */
STRATA_CONSTR_INFO(CacheEntry_info, "CacheEntry", 2, 1); /* response, next, key */

#define BUCKETS 1024

static StgStablePtr cache;   /* mutable array of BUCKETS chains */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static long requests_per_worker;

static StgClosure *serve(long worker, long number)
{
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_constr(&Request_info);
    STRATA_WORD(r[0], 0) = (StgWord)worker;
    STRATA_WORD(r[0], 1) = (StgWord)number;
    StgWord len = 64 + (StgWord)(number % 64);
    r[1] = strata_alloc_bytes(len);   /* rooted: the next allocation may move it */
    StgClosure *response = strata_alloc_constr(&Response_info);
    STRATA_FIELD(response, 0) = r[1];
    STRATA_WORD(response, 1) = len;
    STRATA_ROOTS_POP(r);
    return response;
}

static void remember(StgClosure *response, StgWord key)
{
    STRATA_ROOTS(r, 1);
    r[0] = response;
    StgClosure *e = strata_alloc_constr(&CacheEntry_info);   /* before the lock */
    STRATA_FIELD(e, 0) = r[0];
    STRATA_WORD(e, 2) = key;
    pthread_mutex_lock(&cache_lock);
    StgClosure *buckets = deRefStablePtr(cache);
    STRATA_FIELD(e, 1) = strata_mut_array_read(buckets, key % BUCKETS);
    strata_mut_array_write(buckets, key % BUCKETS, e);
    pthread_mutex_unlock(&cache_lock);
    STRATA_ROOTS_POP(r);
}

static void *worker(void *arg)
{
    long id = (long)arg;
    Capability *cap = rts_lock();
    if (cap == NULL)
        return NULL;
    for (long i = 0; i < requests_per_worker; i++) {
        StgClosure *response = serve(id, i);
        remember(response, (StgWord)(id * requests_per_worker + i));
    }
    rts_unlock(cap);
    return NULL;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long workers = argc > 1 ? atol(argv[1]) : 4;
    requests_per_worker = argc > 2 ? atol(argv[2]) : 100000;
    if (workers < 1 || workers > 256 || requests_per_worker < 1) {
        fprintf(stderr, "usage: %s WORKERS(1-256) REQUESTS [+RTS -N<n> ... -RTS]\n", argv[0]);
        hs_exit();
        return 2;
    }
    cache = getStablePtr(strata_alloc_mut_array(BUCKETS));
    pthread_t *threads = calloc((size_t)workers, sizeof *threads);
    rts_suspend();   /* joining blocks: hold no capability meanwhile */
    for (long w = 0; w < workers; w++)
        if (pthread_create(&threads[w], NULL, worker, (void *)w) != 0) {
            fprintf(stderr, "threads: cannot start worker %ld\n", w);
            return 1;
        }
    for (long w = 0; w < workers; w++)
        pthread_join(threads[w], NULL);
    rts_resume();
    free(threads);
    long cached = 0;
    StgClosure *buckets = deRefStablePtr(cache);
    for (StgWord b = 0; b < BUCKETS; b++)
        for (StgClosure *e = strata_mut_array_read(buckets, b); e != NULL; e = STRATA_FIELD(e, 1))
            cached++;
    printf("threads: %ld workers served %ld requests; %ld responses cached\n", workers,
           workers * requests_per_worker, cached);
    hs_exit();   /* the cache is still alive: the final census shows it all */
    return 0;
}
