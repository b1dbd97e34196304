/*
 * utils/heapprof/AllocPprof.h -- a log's sampled allocations as a gzipped
 * pprof profile, as Go's runtime writes its heap profile: four sample
 * types (alloc_objects, alloc_space, inuse_objects, inuse_space) by call
 * stack, each sample labelled with its era.  Shared by `strata-events
 * pprof` and strata-live's /debug/pprof/heap and /debug/pprof/allocs.
 * Note [Samples as Go's heap profile] in AllocPprof.c.
 */
#ifndef STRATA_ALLOCPPROF_H
#define STRATA_ALLOCPPROF_H

#include <stddef.h>
#include <stdint.h>

#include "AllocModel.h"

typedef struct AllocPprofOptions {
    int alloc_default;       /* 1: the default sample type is alloc_space
                                (Go's /debug/pprof/allocs); 0: inuse_space */
    uint64_t era_lo, era_hi; /* only samples of eras lo to hi (0 and
                                UINT64_MAX: all) */
    int64_t time_nanos;      /* the profile's time (Unix ns), or 0 */
    const char *main_binary; /* the program (argv[0]), or NULL: named in
                                the profile's one mapping */
} AllocPprofOptions;

/* Encodes m into *out (malloc'd) of *out_bytes; comments (n_comments
 * strings) go into the profile's comments.  1, or 0 with *why set (a
 * static string). */
int pprof_encode_alloc(const AllocModel *m, const AllocPprofOptions *o,
                       const char *const *comments, size_t n_comments, uint8_t **out,
                       size_t *out_bytes, const char **why);

#endif /* STRATA_ALLOCPPROF_H */
