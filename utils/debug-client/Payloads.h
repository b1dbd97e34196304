/*
 * utils/debug-client/Payloads.h -- the wire payloads' decoders
 * (docs/debug-protocol.md), shared by the socket (Client.c) and the
 * snapshot reader (Snapshot.c).  The whole API of Payloads.c.
 */
#ifndef STRATA_DEBUG_PAYLOADS_H
#define STRATA_DEBUG_PAYLOADS_H

#include <stdint.h>

#include "ClientState.h"
#include "DebugWire.h"

/* Each decodes its payload into c's state; 0, or -1 (said through
 * dbg_fail). */
int dbg_parse_target(DbgClient *c, DebugCursor *cur);
/* Sorted by start and checked disjoint, then indexed (BlockIndex.h). */
int dbg_parse_blocks(DbgClient *c, DebugCursor *cur);
int dbg_parse_roots(DbgClient *c, DebugCursor *cur);
int dbg_parse_infos(DbgClient *c, DebugCursor *cur);
/* The ALLOC_SITES reply (docs/debug-protocol.md, command 12); the sites
 * are freed with the pause (dbg_free_alloc_sites). */
int dbg_parse_alloc_sites(DbgClient *c, DebugCursor *cur);
void dbg_free_alloc_sites(DbgClient *c);
/* Stores a static closure's words (copied). */
int dbg_add_static(DbgClient *c, uint64_t addr, const uint8_t *words, uint32_t n_words);
/* Frees everything the decoders filled in. */
void dbg_free_state(DbgClient *c);
/* Frees the roots, or the static closures, of the last pause. */
void dbg_free_roots(DbgClient *c);
void dbg_free_statics(DbgClient *c);

#endif /* STRATA_DEBUG_PAYLOADS_H */
