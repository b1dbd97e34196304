/*
 * utils/heapprof/Pprof.h -- one heap census as a pprof profile (the
 * profile.proto format, gzipped), as `go tool pprof`, Parca and Pyroscope
 * read it: the whole API of the heapprof module's encoder.  Shared by
 * `strata-events pprof` and strata-live's /debug/pprof/heap.  The mapping
 * from bands to samples is Note [A census as a pprof profile] in Pprof.c.
 */
#ifndef STRATA_PPROF_H
#define STRATA_PPROF_H

#include <stddef.h>
#include <stdint.h>

#include "HeapModel.h"

/* Encodes census c of m as a gzipped profile.proto into *out (malloc'd;
 * the caller frees it) of *out_bytes bytes.  comments (n_comments
 * NUL-terminated strings, may be 0) go into the profile's comments.
 * Returns 1, or 0 with *why set (a static string) when out of memory or
 * when zlib or protobuf-c fail. */
int pprof_encode_census(const HeapModel *m, const HmCensus *c, const char *const *comments,
                        size_t n_comments, uint8_t **out, size_t *out_bytes, const char **why);


#endif /* STRATA_PPROF_H */
