/*
 * sm/alloc/AllocSample.h -- allocation sampling (+RTS --alloc-sample): on
 * each capability, one allocated object in every `rate` bytes on average,
 * chosen by exponential gaps over the bytes it allocates (a Poisson
 * process, as Go's and jemalloc's heap profilers choose), is handed to a
 * hook the layers above set.  The allocation fast path does not look:
 * the next sample point is folded into the allocation limit (Note
 * [Sampling through the allocation limit] in sm/heap/AllocLimit.h), so
 * only the slow paths (a new nursery block, a large or pinned object, a
 * sample point) call in here.  See docs/design/alloc-sampling.md.
 */
#ifndef STRATA_ALLOC_SAMPLE_H
#define STRATA_ALLOC_SAMPLE_H

#include <stdbool.h>
#include <stdint.h>

#include "Capability.h"
#include "strata/Closures.h"

/* What a sampled allocation was. */
typedef enum {
    ALLOC_SAMPLE_NURSERY = 0,    /* a small object in a nursery block */
    ALLOC_SAMPLE_LARGE = 1,      /* a large object, a block group of its own */
    ALLOC_SAMPLE_PINNED = 2,     /* a small pinned byte array */
} AllocSampleKind;

/* One sampled object, as the hook is told of it.  The object is not yet
 * initialised: the hook may keep its address (and must follow it across
 * collections, as a weak root) but must not read it. */
typedef struct {
    StgPtr obj;                  /* the object's first word */
    StgWord size_bytes;          /* its size */
    uint64_t era;                /* the era it was allocated in */
    uint32_t cap;                /* the capability that allocated it */
    AllocSampleKind kind;
    const void *caller;          /* the return address into the code that
                                    called the allocation slow path (its
                                    stack starts there), or NULL */
} AllocSampleInfo;

/* Called on the allocating thread, holding its capability, inside the
 * allocation slow path: it must not allocate on the heap or reach a safe
 * point. */
typedef void (*AllocSampleHook)(const AllocSampleInfo *sample);

/* Starts sampling on every capability, one object per rate_bytes on
 * average (rate_bytes > 0), each sample given to hook.  Call from the
 * thread that holds a capability, with every other one free (hs_init);
 * each capability's generator is seeded from its number alone, so a run
 * that allocates the same way samples the same objects. */
void storage_alloc_sample_start(StgWord rate_bytes, AllocSampleHook hook);

/* Stops sampling (hs_exit, with the world stopped or every other
 * capability free). */
void storage_alloc_sample_stop(void);

/* The mean bytes between samples, or 0 when not sampling. */
StgWord storage_alloc_sample_rate(void);

/* The slow path placed n_words at p in cap's current nursery block: if
 * the object covers cap's next sample point (or passed it), it is
 * sampled, and the next point drawn.  caller: the slow path's return
 * address (AllocSampleInfo.caller). */
void alloc_sample_nursery(Capability *cap, StgPtr p, StgWord n_words, const void *caller);

/* cap allocated n_words at p outside its nursery (a large object, a
 * pinned byte array) in era: the object is sampled as if it had been
 * allocated at hp, without moving the nursery's stream.  May change the
 * limit of the current nursery block (the next point moved). */
void alloc_sample_outside(Capability *cap, StgPtr p, StgWord n_words, uint64_t era,
                          AllocSampleKind kind, const void *caller);

/* A random gap of an exponential distribution with mean rate_bytes, in
 * whole words, from state (xorshift64*): exposed for the unit tests. */
StgWord alloc_sample_gap_words(uint64_t *state, StgWord rate_bytes);

#endif /* STRATA_ALLOC_SAMPLE_H */
