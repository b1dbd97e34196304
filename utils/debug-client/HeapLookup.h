/*
 * utils/debug-client/HeapLookup.h -- dbg_block_of and dbg_info
 * without the calls, inline, for the traversals: every pointer they
 * follow asks both; and an object's era, which they ask before they
 * decode it.  Header only.
 */
#ifndef STRATA_DEBUG_HEAP_LOOKUP_H
#define STRATA_DEBUG_HEAP_LOOKUP_H

#include <stdint.h>

#include "BlockIndex.h"
#include "Client.h"
#include "ClientState.h"
#include "strata/DebugProtocol.h"

static inline const DbgBlock *block_of(const DbgClient *c, uint64_t addr)
{
    return block_index_find(&c->block_index, c->blocks, c->n_blocks, addr);
}

static inline const DbgInfo *info_of(DbgClient *c, uint64_t addr)
{
    if (addr == c->last_info_addr && c->last_info != NULL)
        return c->last_info;   /* neighbours share tables: no probe */
    const uint64_t *v = word_map_get(&c->infos, addr);
    const DbgInfo *in = v != NULL ? (const DbgInfo *)(uintptr_t)*v : dbg_info(c, addr);
    if (in != NULL) {
        c->last_info_addr = addr;
        c->last_info = in;
    }
    return in;
}

/* Whether each object carries its own era (a GHC -prof program run with
 * -he), rather than sharing its block's. */
static inline bool dbg_eras_in_headers(const DbgClient *c)
{
    return (c->target.heap_flags & DEBUG_HEAP_ERAS_IN_HEADERS) != 0;
}

/* The era of the object at addr in block b (the era a decoded closure
 * gets): its block's, or its profiling header's. */
static inline uint64_t dbg_object_era(const DbgClient *c, const DbgBlock *b, uint64_t addr)
{
    if (!dbg_eras_in_headers(c))
        return b->era;
    if (b->data == NULL || addr + 24 > b->start + b->used_bytes)
        return 0;
    return ((const uint64_t *)(const void *)(b->data + (addr - b->start)))[2];
}

#endif /* STRATA_DEBUG_HEAP_LOOKUP_H */
