/*
 * utils/debug-client/Snapshot.h -- snapshot files: the reachable heap
 * of a pause written to a file, and a DbgClient read back from one that
 * answers as the live program did.  The whole API of Snapshot.c.
 */
#ifndef STRATA_DEBUG_SNAPSHOT_H
#define STRATA_DEBUG_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"

/* Opens a snapshot written by dbg_write_snapshot. */
DbgClient *dbg_open_snapshot(const char *file, char *err, size_t err_len);
/* The same from the len bytes of a snapshot file in memory (name is for
 * messages); the client keeps no pointer into data. */
DbgClient *dbg_open_snapshot_bytes(const uint8_t *data, size_t len, const char *name, char *err,
                                   size_t err_len);
/* A snapshot of the reachable heap plus every block's metadata. */
int dbg_write_snapshot(DbgClient *c, const DbgReach *r, const char *file);

/* The checksum that closes a snapshot file, over its first len bytes
 * (Snapshot.c); the snapshot fuzzer fixes it up so that its mutations
 * reach the parser. */
uint64_t dbg_snapshot_checksum(const uint8_t *data, size_t len);

#endif /* STRATA_DEBUG_SNAPSHOT_H */
