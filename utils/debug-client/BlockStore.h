/*
 * utils/debug-client/BlockStore.h -- the blocks' cached contents, cut
 * from large mappings (Note [Block contents in chunks] in BlockStore.c).
 * The whole API of BlockStore.c.
 */
#ifndef STRATA_DEBUG_BLOCK_STORE_H
#define STRATA_DEBUG_BLOCK_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "ClientState.h"

/* Room for len bytes of block contents (8-aligned, zeroed), freed with the
 * blocks; NULL when out of memory. */
uint8_t *dbg_block_space(DbgClient *c, uint64_t len);
/* Stores a block's contents (copied) for block index i. */
int dbg_set_block_data(DbgClient *c, size_t i, const uint8_t *data, uint64_t len);
/* Frees the block list, its index and every block's contents. */
void dbg_drop_blocks(DbgClient *c);

#endif /* STRATA_DEBUG_BLOCK_STORE_H */
