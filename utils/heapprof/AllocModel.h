/*
 * utils/heapprof/AllocModel.h -- the tools' model of a log's sampled
 * allocations (+RTS --alloc-sample): the sampling rate, the frames and
 * call stacks, and per (stack, era) how many objects and bytes were
 * allocated and are still alive, each sample scaled by 1 / (1 -
 * e^(-size/rate)) into an estimate of what was allocated (Note [Scaling a
 * sample] in AllocModel.c).  strata-events (pprof, summary) and strata-live
 * (/debug/pprof/heap, /debug/pprof/allocs, the allocation-sites view)
 * read samples from here and nowhere else.  A sample counts in use from
 * the first collection that ends after it (Note [In use as of the last
 * collection] in AllocModel.c).  Memory: the frames, the stacks, one
 * bucket per (stack, era), one record per sample still alive and one per
 * sample allocated since the last collection, whatever the log's length.
 * docs/design/alloc-sampling.md.
 */
#ifndef STRATA_ALLOCMODEL_H
#define STRATA_ALLOCMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "EventLogReader.h"
#include "StrIndex.h"
#include "WordMap.h"

/* One frame: a function, file and line; any may be unknown ("", 0). */
typedef struct AmFrame {
    char *function;         /* owned; NULL while the frame is not defined */
    char *file;             /* owned */
    uint32_t line;
} AmFrame;

/* One call stack: its frame numbers, innermost first. */
typedef struct AmStack {
    uint32_t *frames;       /* owned; NULL while the stack is not defined */
    uint8_t depth;
} AmStack;

/* What was sampled at one (stack, era): raw counts and scaled estimates. */
typedef struct AmBucket {
    uint32_t stack;
    uint64_t era;
    uint64_t samples;           /* sampled objects */
    uint64_t live_samples;      /* of which counted in use */
    double alloc_objects;       /* estimates: objects allocated ... */
    double alloc_bytes;         /* ... and their bytes */
    double inuse_objects;       /* ... in use as of the last collection */
    double inuse_bytes;
} AmBucket;

typedef struct AllocModel {
    int have_sampling;      /* an ALLOC_SAMPLING event was read */
    uint64_t rate_bytes;    /* its rate (the first) */
    AmFrame *frames;        /* by number: n_frames slots */
    size_t n_frames;
    AmStack *stacks;        /* by number: n_stacks slots */
    size_t n_stacks;
    StrIndex bucket_keys;   /* (stack, era) -> bucket number */
    AmBucket *buckets;      /* [bucket_keys.n] */
    size_t cap_buckets;
    WordMap live;           /* sample -> its record's index + 1, or
                               AM_PENDING_TAG | its pending index */
    struct AmLive {
        uint64_t sample;
        uint32_t bucket;
        uint64_t size_bytes;
    } *live_samples;        /* [n_records]: counted in use */
    size_t n_records, cap_live;
    /* Samples not yet followed by the end of a collection, in the order
     * read: pending[pending_head .. n_pending_slots). */
    struct AmPending {
        uint64_t sample;
        uint64_t size_bytes;
        uint64_t time_ns;   /* when it was allocated */
        uint32_t bucket;
        uint32_t state;     /* AM_WAITING, AM_COUNTED_EARLY or AM_DEAD */
    } *pending;
    size_t pending_head, n_pending_slots, cap_pending, n_pending_dead;
    size_t n_live;          /* samples counted in use */
    size_t n_pending;       /* samples pending (allocated since the last
                               collection read), alive so far */
    int have_gc_end;        /* a GC_END was read */
    uint64_t last_gc_end_ns;    /* the latest GC_END's time */
    uint64_t n_samples;     /* samples read (repeats not counted) */
    uint64_t n_deaths;      /* deaths of samples the model knew */
    uint64_t last_time_ns;  /* of the latest event read */
    int out_of_memory;      /* sticky; the figures are then incomplete */
} AllocModel;

/* Frames and stacks past these numbers are refused as corrupt (a
 * program has a few thousand). */
#define AM_MAX_FRAME_ID (1u << 24)
#define AM_MAX_STACK_ID (1u << 24)

#define AM_PENDING_TAG (UINT64_C(1) << 63)
enum { AM_WAITING, AM_COUNTED_EARLY, AM_DEAD };

void alloc_model_init(AllocModel *m);
void alloc_model_free(AllocModel *m);

/* Folds one event into m: 1 if it was one of allocation sampling's
 * events, 0 for any other (GC_END, which ends samples' pending, is
 * read and 0 returned: the caller has its own use for it).  A sample
 * read twice (an eventlog client that connected late is sent the live
 * ones again) counts once; a death of a sample never read is ignored. */
int alloc_model_add(AllocModel *m, const EvrEvent *ev);

/* The estimate one sampled object of size_bytes stands for (objects);
 * its bytes are size_bytes times that.  1 without a rate. */
double alloc_model_scale(const AllocModel *m, uint64_t size_bytes);

/* Frame f, or NULL if it was never defined. */
const AmFrame *alloc_model_frame(const AllocModel *m, uint32_t f);

/* Stack s, or NULL if it was never defined. */
const AmStack *alloc_model_stack(const AllocModel *m, uint32_t s);

/* "function (file:line)" for frame f into buf (as pprof and the pages
 * print it; "frame N" for an undefined one, "0x..." addresses as they
 * are). */
void alloc_model_frame_name(const AllocModel *m, uint32_t f, char *buf, size_t len);

#endif /* STRATA_ALLOCMODEL_H */
