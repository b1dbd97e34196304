/*
 * utils/debug-client/Client.h -- a live program's heap over its
 * debug socket (docs/debug-protocol.md), or a snapshot's
 * (Snapshot.h opens one): the target, control of the pause, and the
 * blocks, roots, info tables and static closures, each fetched once and
 * cached.  The whole API of Client.c.
 *
 * Functions returning int give 0 on success and -1 on failure, with the
 * message in dbg_error(c).  Strings and arrays the library returns stay
 * valid until dbg_close.
 */
#ifndef STRATA_DEBUG_CLIENT_H
#define STRATA_DEBUG_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"
#include "DebugWire.h"

/* ----- Opening and closing ----- */

/* Connects to a live program (then call dbg_pause before reading the heap).
 * NULL on failure, with the message in err. */
DbgClient *dbg_connect(const char *socket_path, char *err, size_t err_len);
/* Closes; a live program we paused is resumed. */
void dbg_close(DbgClient *c);

const char *dbg_error(const DbgClient *c);
bool dbg_is_snapshot(const DbgClient *c);
/* The heap is a GHC program's (served by the GHC stub, docs/strata-debug-ghc.md). */
bool dbg_heap_is_ghc(const DbgClient *c);
/* Its objects have eras: always on strata's heap; on GHC's, in a -prof
 * program run with +RTS -he.  Else *why (if not NULL) says why not. */
bool dbg_heap_has_eras(const DbgClient *c, const char **why);
const DbgTarget *dbg_target(DbgClient *c);

/* ----- Live control (a snapshot is always "paused") ----- */
int dbg_pause(DbgClient *c, uint32_t timeout_ms, uint64_t *latency_ns);
int dbg_resume(DbgClient *c);
/* Asks the paused program to start a new era as it resumes (NEW_ERA; see
 * Note [A new era on resume] in rts/debug/DebugServer.c): everything it
 * allocates from then on is of a later era than dbg_target's.  *era is the
 * era it resumes in.  Refused on a snapshot. */
int dbg_new_era(DbgClient *c, uint64_t *era);

/* ----- The heap ----- */
int dbg_blocks(DbgClient *c, const DbgBlock **blocks, size_t *n);
int dbg_roots(DbgClient *c, const DbgRoot **roots, size_t *n);
/* The static-closure root that names the static closure at addr (its
 * symbol in func), or NULL: not a root, or the program has no symbol for
 * it.  Fetches the roots if need be. */
const DbgRoot *dbg_static_root(DbgClient *c, uint64_t addr);
/* A static root's name for people: "session_cache (examples/leak.c:41)",
 * "sym (file)" or "sym" as far as the symbol table knows; "" for an
 * unnamed static, a root of another kind, or NULL. */
void dbg_static_root_name(const DbgRoot *r, char *buf, size_t len);
/* Fetches every block's contents in one stream (a full analysis calls this
 * first); later reads hit the cache. */
int dbg_load_all(DbgClient *c);
/* The block whose used area holds addr, or NULL. */
const DbgBlock *dbg_block_of(DbgClient *c, uint64_t addr);
/* The contents of a block (fetched once). */
const uint8_t *dbg_block_data(DbgClient *c, const DbgBlock *b);
const DbgInfo *dbg_info(DbgClient *c, uint64_t addr);
/* Sends a request with no payload and reads its one reply: the status
 * (DEBUG_STATUS_*: an error status with the stub's message in dbg_error),
 * or -1 when the connection failed; *reply is the payload, valid until
 * the next request. */
int dbg_request_status(DbgClient *c, uint16_t cmd, DebugCursor *reply);
/* A static closure's words (fetched once); 0, or -1 if the program
 * refused the address. */
int dbg_static_words(DbgClient *c, uint64_t addr, const uint64_t **words, uint32_t *n);
/* The words from addr to the end of its block's used area, or a static
 * closure's (each fetched once), and the block (NULL for a static): what a
 * closure at addr may span.  0, or -1 (said). */
int dbg_words_at(DbgClient *c, uint64_t addr, const uint64_t **words, uint64_t *avail,
                 const DbgBlock **block);

#endif /* STRATA_DEBUG_CLIENT_H */
