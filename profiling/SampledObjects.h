/*
 * profiling/SampledObjects.h -- allocation sampling's runtime side
 * (+RTS --alloc-sample): the hook the allocation slow path calls for each
 * sampled object (sm/alloc/AllocSample.h), which takes its call stack
 * (CallStacks.h) and posts an ALLOC_SAMPLE event, and the table of sampled
 * objects still alive, a weak root source of the collector that posts an
 * ALLOC_DEATH event for each one found dead.  The cost is per sampled
 * object, never per heap object: no header bits, no side table of the
 * heap.  See docs/design/alloc-sampling.md and the interface agreed with
 * the non-moving collector (the weak root sources of sm/GC.h).
 */
#ifndef STRATA_SAMPLED_OBJECTS_H
#define STRATA_SAMPLED_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>

#include "strata/Closures.h"

/* Starts sampling one object per rate_bytes on average on every
 * capability (hs_init, after the eventlog and the collector's root sources
 * are set up): posts ALLOC_SAMPLING and registers the table with the
 * collector.  rate_bytes > 0. */
void sampled_objects_start(StgWord rate_bytes);

/* Whether sampling is on. */
bool sampled_objects_on(void);

/* Stops sampling (hs_exit): a last minor GC, so that the log says which
 * young sampled objects were dead at exit (Note [The samples alive at
 * exit] in SampledObjects.c), then no more samples.  The
 * world must be stopped or every other capability free. */
void sampled_objects_stop(void);

/* What the table knows of a sampled object. */
typedef struct {
    uint64_t sample;             /* its number in ALLOC_SAMPLE */
    uint64_t era;                /* the era it was allocated in */
    uint64_t size_bytes;
    uint32_t stack;              /* its call stack (CallStacks.h) */
} SampledObject;

/* Whether obj is a sampled object still alive; *out then describes it.
 * With the world stopped or paused (the debug stub). */
bool sampled_object_find(const StgClosure *obj, SampledObject *out);

/* Calls fn(obj, what, ctx) for every sampled object alive, in no order.
 * With the world stopped or paused (the debug stub). */
typedef void (*SampledObjectFn)(const StgClosure *obj, const SampledObject *what, void *ctx);
void sampled_objects_each(SampledObjectFn fn, void *ctx);

/* Sampled objects alive now. */
StgWord sampled_objects_live(void);

/* Posts ALLOC_SAMPLE again for every sampled object alive now (the same
 * numbers), for an eventlog client that connected after they were
 * sampled (the control command strata 4).  On the mutator. */
void sampled_objects_repost(void);

/* Frees the table and the stacks (hs_exit, after the collector's
 * sources are dropped). */
void sampled_objects_exit(void);

#endif /* STRATA_SAMPLED_OBJECTS_H */
