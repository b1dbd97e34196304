/*
 * base/StrIndex.h -- byte strings numbered 0, 1, 2, ... in the order first
 * seen (interning), for the tools that keep per-string figures in an array
 * beside it: heap profile band labels (the reader's LabelIndex.h), pprof's
 * string table.  Strings are compared by length and content and may hold
 * NULs; the index owns a NUL-terminated copy of each.
 */
#ifndef STRATA_STRINDEX_H
#define STRATA_STRINDEX_H

#include <stddef.h>
#include <stdint.h>

#define STR_INDEX_NONE SIZE_MAX

/* One string of the index: the copy's first byte and its length. */
typedef struct StrView {
    const char *ptr;
    size_t len;
} StrView;

typedef struct StrIndex {
    StrView *strs;      /* [0 .. n): owned, NUL-terminated copies */
    size_t n, cap;
    size_t *hash;       /* open addressing: 1 + string number, 0 = empty */
    size_t hash_cap;    /* a power of two, more than twice n */
} StrIndex;

/* The number of s[0 .. len), or STR_INDEX_NONE if it has none yet. */
size_t str_index_find(const StrIndex *ix, const char *s, size_t len);

/* Numbers a string str_index_find does not know: returns n before the
 * call, or STR_INDEX_NONE when out of memory (ix is then unchanged). */
size_t str_index_add(StrIndex *ix, const char *s, size_t len);

/* The number of s, added if it has none: str_index_find, else
 * str_index_add. */
size_t str_index_intern(StrIndex *ix, const char *s, size_t len);

/* Frees what ix holds and empties it (a zeroed index is empty). */
void str_index_free(StrIndex *ix);

#endif /* STRATA_STRINDEX_H */
