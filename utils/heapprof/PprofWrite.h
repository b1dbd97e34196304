/*
 * utils/heapprof/PprofWrite.h -- what every pprof profile the tools write
 * needs, whatever its samples are (a heap census: Pprof.c; sampled
 * allocations: AllocPprof.c): the interned string table, whose strings
 * are written as text for a person (pprof_string: valid UTF-8, as proto3
 * requires), and the packing of a filled-in
 * Profile message with protobuf-c, gzipped with zlib as pprof expects.
 */
#ifndef STRATA_PPROFWRITE_H
#define STRATA_PPROFWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "LabelIndex.h"
#include "profile.pb-c.h"

/* The string table: string k is evr_label(&ix, k); intern "" first, so
 * that it is string 0. */
typedef struct PprofStrings {
    EvrLabelIndex ix;
    int failed;             /* out of memory: indices are then 0 */
} PprofStrings;

/* s (len bytes) as the string table holds it: text for a person (Note
 * [One way to write a string] in wire/TextOut.c), so valid UTF-8 without
 * NULs, as protobuf strings must be.  malloc'd, *out_len bytes and a NUL;
 * NULL when out of memory. */
char *pprof_string(const char *s, size_t len, size_t *out_len);

/* The index of s[0 .. len) (as pprof_string writes it), added if new. */
int64_t pprof_intern(PprofStrings *st, const char *s, size_t len);
int64_t pprof_intern_cstr(PprofStrings *st, const char *s);
void pprof_strings_free(PprofStrings *st);

/* Packs prof, its string table set from st, and gzips it into *out
 * (malloc'd) of *out_bytes.  1, or 0 with *why set (a static string). */
int pprof_pack_gzip(Perftools__Profiles__Profile *prof, const PprofStrings *st, uint8_t **out,
                    size_t *out_bytes, const char **why);

#endif /* STRATA_PPROFWRITE_H */
