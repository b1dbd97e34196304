/*
 * utils/debug-client/HeapLookup.h -- dbg_block_of and dbg_info
 * without the calls, inline, for the traversals: every pointer they
 * follow asks both.  Header only.
 */
#ifndef STRATA_DEBUG_HEAP_LOOKUP_H
#define STRATA_DEBUG_HEAP_LOOKUP_H

#include <stdint.h>

#include "BlockIndex.h"
#include "Client.h"
#include "ClientState.h"

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

#endif /* STRATA_DEBUG_HEAP_LOOKUP_H */
