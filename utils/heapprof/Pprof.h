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

/* A copy of s (len bytes) that is valid UTF-8 without NULs, as protobuf
 * strings must be: each byte that does not belong to a well-formed
 * character, and each NUL, becomes '?'.  malloc'd; NULL when out of memory. */
char *pprof_utf8_copy(const char *s, size_t len);

/* Bytes in the well-formed UTF-8 character at s (avail > 0 bytes there),
 * or 0 if there is none (a stray or truncated byte, an overlong form, a
 * surrogate, a code point above U+10FFFF, or NUL). */
size_t pprof_utf8_char_len(const unsigned char *s, size_t avail);

#endif /* STRATA_PPROF_H */
