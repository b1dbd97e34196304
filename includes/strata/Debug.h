/*
 * strata/Debug.h -- the heap debugger's stub: its API for programs, and the
 * wire protocol's numbers, the one definition shared by the stub (rts/Debug*)
 * and the client library (utils/debug-client).  docs/debug-protocol.md
 * describes the framing and every field; docs/design/debugger.md the design.
 */
#ifndef STRATA_DEBUG_H
#define STRATA_DEBUG_H

#include "strata/Closures.h"

/* ----------------------------------------------------------------------
 * The API for programs
 * ---------------------------------------------------------------------- */

/* Starts the debug stub: listens on a Unix socket at the path given by
 * +RTS --debug-socket=PATH, else $STRATA_DEBUG_SOCKET, else
 * $XDG_RUNTIME_DIR/strata/debug/<pid>-<program> (else under
 * /tmp/strata-<uid>/debug/).  Returns 0 (also if it already runs) or -1
 * after a message naming what failed.  After hs_init. */
STRATA_API int rts_debug_start(void);

/* Marks c as an object of interest: the debugger lists it among the roots
 * (kind "saved").  Keeps c alive, like a stable pointer, for the rest of the
 * run. */
STRATA_API void rts_debug_save(StgClosure *c);

/* The path the stub listens on, or NULL when it is not running. */
STRATA_API const char *rts_debug_socket_path(void);

/* ----------------------------------------------------------------------
 * The wire protocol (all integers little-endian)
 * ---------------------------------------------------------------------- */

#define DEBUG_PROTOCOL_VERSION 1u

/* A request frame: u32 length (of what follows), u16 command, u16 flags
 * (0), payload.  A response frame: u32 length, u16 status, u16 command,
 * payload. */
#define DEBUG_FRAME_HEADER_BYTES 8u
#define DEBUG_REQUEST_MAX_BYTES (1u << 20)   /* length field of a request */

enum {
    DEBUG_CMD_VERSION = 1,
    DEBUG_CMD_PAUSE = 2,
    DEBUG_CMD_RESUME = 3,
    DEBUG_CMD_ROOTS = 4,
    DEBUG_CMD_SAVED = 5,
    DEBUG_CMD_CLOSURES = 6,
    DEBUG_CMD_INFO = 7,
    DEBUG_CMD_BLOCKS = 8,
    DEBUG_CMD_BLOCK_CONTENTS = 9,
    DEBUG_CMD_SNAPSHOT = 10,
    DEBUG_CMD_NEW_ERA = 11,      /* a new era (and an eventlog marker) on resume */
};

/* Most addresses in one CLOSURES or INFO request. */
#define DEBUG_MAX_BATCH 65536u

enum {
    DEBUG_STATUS_OK = 0,
    DEBUG_STATUS_MORE = 1,             /* a stream item; more frames follow */
    DEBUG_STATUS_UNKNOWN_COMMAND = 16,
    DEBUG_STATUS_BAD_LENGTH = 17,
    DEBUG_STATUS_BAD_ADDRESS = 18,
    DEBUG_STATUS_NOT_PAUSED = 19,
    DEBUG_STATUS_BAD_ARGUMENT = 20,
    DEBUG_STATUS_TIMEOUT = 21,
    DEBUG_STATUS_REFUSED = 22,
    DEBUG_STATUS_BUSY = 23,
    DEBUG_STATUS_RESOURCE = 24,
};

/* Root kinds (ROOTS). */
enum {
    DEBUG_ROOT_FRAME = 1,        /* a slot of a local-root frame */
    DEBUG_ROOT_STABLE_PTR = 2,
    DEBUG_ROOT_STATIC = 3,       /* a static closure pointing into the heap */
    DEBUG_ROOT_SAVED = 4,        /* rts_debug_save */
    DEBUG_ROOT_REMEMBERED = 5,   /* remembered set of an old generation */
    DEBUG_ROOT_THREAD = 6,       /* an attached thread's TSO (index: its id) */
};

/* Block kinds (BLOCKS). */
enum {
    DEBUG_BLOCK_SMALL = 1,       /* small objects of a generation */
    DEBUG_BLOCK_LARGE = 2,       /* one large object */
    DEBUG_BLOCK_PINNED = 3,      /* pinned byte arrays */
    DEBUG_BLOCK_NURSERY = 4,
};

/* Snapshot stream items (SNAPSHOT, first byte of a MORE frame). */
enum {
    DEBUG_ITEM_BLOCKS = 1,
    DEBUG_ITEM_BLOCK_CONTENTS = 2,
    DEBUG_ITEM_ROOTS = 3,
};

/* Where an info table's provenance came from (INFO). */
enum {
    DEBUG_PROV_NONE = 0,
    DEBUG_PROV_EXPLICIT = 1,     /* the table's own StgInfoProv */
    DEBUG_PROV_DERIVED = 2,      /* derived (ELF/DWARF) */
};

/* Bytes of one BLOCKS entry. */
#define DEBUG_BLOCK_ENTRY_BYTES 40u

#endif /* STRATA_DEBUG_H */
