/*
 * strata/DebugProtocol.h -- the debug protocol's numbers, the one
 * definition shared by strata's stub (rts/debug/), the GHC stub (ghc/stub/,
 * compiled into Haskell programs against GHC's own headers, so this file
 * includes nothing) and the client library (utils/debug-client).
 * docs/debug-protocol.md describes the framing and every field.
 */
#ifndef STRATA_DEBUGPROTOCOL_H
#define STRATA_DEBUGPROTOCOL_H

/* ----------------------------------------------------------------------
 * The wire protocol (all integers little-endian)
 * ---------------------------------------------------------------------- */

/* Version 1 is strata's own heap.  Version 2 adds, after version 1's
 * fields, what a client needs to read a heap whose layout is not strata's
 * (the GHC stub's): VERSION ends with the heap's name, its header words and
 * DEBUG_HEAP_* flags, and every INFO record with the table's SRT and
 * pointer bitmap (docs/debug-protocol.md, "Version 2"). */
#define DEBUG_PROTOCOL_VERSION 1u
#define DEBUG_PROTOCOL_VERSION_HEAP 2u

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
    DEBUG_CMD_ALLOC_SITES = 12,  /* the sampled objects alive and their call stacks */
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
    DEBUG_STATUS_UNSUPPORTED = 25,     /* this program's stub cannot do it (says why) */
};

/* Root kinds (ROOTS). */
enum {
    DEBUG_ROOT_FRAME = 1,        /* a slot of a local-root frame */
    DEBUG_ROOT_STABLE_PTR = 2,
    DEBUG_ROOT_STATIC = 3,       /* a static closure pointing into the heap */
    DEBUG_ROOT_SAVED = 4,        /* rts_debug_save */
    DEBUG_ROOT_REMEMBERED = 5,   /* remembered set of an old generation */
    DEBUG_ROOT_THREAD = 6,       /* an attached thread's TSO (index: its id) */
    DEBUG_ROOT_WEAK = 7,         /* a weak pointer on its generation's list; it
                                  * keeps nothing alive by itself */
};

/* Block kinds (BLOCKS). */
enum {
    DEBUG_BLOCK_SMALL = 1,       /* small objects of a generation */
    DEBUG_BLOCK_LARGE = 2,       /* one large object */
    DEBUG_BLOCK_PINNED = 3,      /* pinned byte arrays */
    DEBUG_BLOCK_NURSERY = 4,
    DEBUG_BLOCK_COMPACT = 5,     /* a block of a compact region (GHC) */
    DEBUG_BLOCK_SEGMENT = 6,     /* a segment of the non-moving generation: its
                                  * entry's last 7 bytes say its slots */
};

/* VERSION's heap flags (version 2). */
enum {
    DEBUG_HEAP_ERAS_IN_HEADERS = 1,  /* an object's era is the second word of its
                                      * profiling header, not its block's */
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

#endif /* STRATA_DEBUGPROTOCOL_H */
