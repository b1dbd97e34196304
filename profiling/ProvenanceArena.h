/*
 * profiling/ProvenanceArena.h -- a string arena for the provenance cache:
 * copies of symbol names, file names and compilation-unit names, packed
 * into large chunks that live until the cache is freed.  Strings never
 * move, so the cache can hand out pointers into it.
 */
#ifndef STRATA_PROVENANCE_ARENA_H
#define STRATA_PROVENANCE_ARENA_H

#include <stddef.h>

typedef struct ArenaChunk_ ArenaChunk;

typedef struct {
    ArenaChunk *chunks;   /* newest first; strings are appended to the head */
    size_t bytes;         /* C heap held, chunk headers included */
} StrArena;

/* A copy of the first len bytes of s, NUL-terminated, owned by a. */
const char *str_arena_copy_n(StrArena *a, const char *s, size_t len);
const char *str_arena_copy(StrArena *a, const char *s);

/* Frees every string of a; a is empty (and reusable) afterwards. */
void str_arena_free(StrArena *a);

#endif /* STRATA_PROVENANCE_ARENA_H */
