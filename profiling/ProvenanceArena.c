/*
 * profiling/ProvenanceArena.c -- the string arena of ProvenanceArena.h.
 * Chunks of ARENA_CHUNK_BYTES; a string longer than that gets a chunk of
 * its own.
 */
#include "ProvenanceArena.h"

#include <stdlib.h>
#include <string.h>

#include "Messages.h"

#define ARENA_CHUNK_BYTES 16384

struct ArenaChunk_ {
    ArenaChunk *next;
    size_t used, capacity;   /* bytes of data[] in use / available */
    char data[];
};

const char *str_arena_copy_n(StrArena *a, const char *s, size_t len)
{
    ArenaChunk *c = a->chunks;
    if (c == NULL || c->capacity - c->used < len + 1) {
        size_t cap = len + 1 > ARENA_CHUNK_BYTES ? len + 1 : ARENA_CHUNK_BYTES;
        c = malloc(sizeof *c + cap);
        if (c == NULL)
            rts_panic("provenance: out of C heap (string of %zu bytes)", len);
        c->used = 0;
        c->capacity = cap;
        c->next = a->chunks;
        a->chunks = c;
        a->bytes += sizeof *c + cap;
    }
    char *p = c->data + c->used;
    memcpy(p, s, len);
    p[len] = '\0';
    c->used += len + 1;
    return p;
}

const char *str_arena_copy(StrArena *a, const char *s)
{
    return str_arena_copy_n(a, s, strlen(s));
}

void str_arena_free(StrArena *a)
{
    ArenaChunk *c = a->chunks;
    while (c != NULL) {
        ArenaChunk *next = c->next;
        free(c);
        c = next;
    }
    a->chunks = NULL;
    a->bytes = 0;
}
