/*
 * utils/debug-client/Decode.h -- closures decoded with their info
 * tables: sizes, pointer fields and every word by closure type, the
 * objects of a block, and the names tools print.  The whole API of
 * Decode.c.
 */
#ifndef STRATA_DEBUG_DECODE_H
#define STRATA_DEBUG_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "DebugTypes.h"

/* Decodes the closure at addr (heap or static). */
int dbg_closure(DbgClient *c, uint64_t addr, DbgClosure *out);
/* The pointer fields of a closure (non-NULL values only), at most cap of
 * them into out; returns how many there are. */
size_t dbg_closure_ptrs(DbgClient *c, const DbgClosure *cl, uint64_t *out, size_t cap);
/* The pointer fields of a closure, all of them, into *ptrs: a buffer of
 * the caller's of *cap entries (NULL and 0 to start; free() it at the
 * end), grown with realloc when the closure has more; *n says how many.
 * Returns 0, or -1 when out of C heap (not said: the caller says what it
 * was doing). */
static inline int dbg_closure_ptrs_grow(DbgClient *c, const DbgClosure *cl, uint64_t **ptrs,
                                        size_t *cap, size_t *n)
{
    /* Inline: the traversals call it for every object. */
    *n = dbg_closure_ptrs(c, cl, *ptrs, *cap);
    if (*n <= *cap)
        return 0;
    uint64_t *g = realloc(*ptrs, *n * sizeof *g);
    if (g == NULL)
        return -1;
    *ptrs = g;
    *cap = *n;
    dbg_closure_ptrs(c, cl, *ptrs, *cap);
    return 0;
}
/* Every word of a closure (word 0 is the info pointer) and whether it is
 * a pointer field, at most cap of them; returns the closure's word count.
 * For the TUI's field view. */
typedef struct {
    uint32_t index;              /* word index in the closure */
    bool is_ptr;
    uint64_t value;
} DbgField;
size_t dbg_closure_fields(DbgClient *c, const DbgClosure *cl, DbgField *out, size_t cap);
/* Calls f on every object in block b, in address order (f returns false to
 * stop).  Returns -1 if the block holds something undecodable. */
int dbg_block_objects(DbgClient *c, const DbgBlock *b,
                      bool (*f)(DbgClient *c, const DbgClosure *cl, void *env), void *env);

/* dbg_closure for an addr known to lie in block b's used area (word
 * aligned). */
int dbg_closure_in(DbgClient *c, const DbgBlock *b, uint64_t addr, DbgClosure *out);

/* ----- Names ----- */
const char *dbg_closure_type_name(uint32_t type);
/* A closure's -hT label: constructors by name, others by closure type. */
const char *dbg_type_label(const DbgInfo *info);
/* Where an info table's code is: ", file:span", ", file", or "" when its
 * provenance names no file (a binding GHC made up, such as sat_s41y). */
const char *dbg_info_site(const DbgInfo *info, char *buf, size_t len);
const char *dbg_root_kind_name(uint8_t kind);
const char *dbg_block_kind_name(uint8_t kind);
/* A closure type by name (e.g. "THUNK_1_0"); -1 if none. */
int dbg_closure_type_by_name(const char *name);
bool dbg_type_is_thunk(uint32_t type);
bool dbg_type_is_constr(uint32_t type);

#endif /* STRATA_DEBUG_DECODE_H */
