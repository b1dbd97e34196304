/*
 * utils/debug-client/ClientState.h -- the state of a DbgClient, live or
 * a snapshot: its connection, the block list and the cached contents, the
 * roots, info tables, static closures and allocation sites; and dbg_fail, which every
 * module reports through.  Filled by Payloads.c and BlockStore.c, read by
 * the modules above them; the tools never look inside.
 */
#ifndef STRATA_DEBUG_CLIENT_STATE_H
#define STRATA_DEBUG_CLIENT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "BlockIndex.h"
#include "DebugTypes.h"
#include "DebugWire.h"
#include "WordMap.h"

/* A static closure's words, fetched once (Client.c) or read from a
 * snapshot. */
typedef struct {
    uint64_t addr;
    uint32_t n_words;
    uint64_t *words;
} StaticObj;

struct DbgClient {
    int fd;                      /* live socket, or -1 for a snapshot */
    bool snapshot;
    bool paused_by_us;
    char err[512];
    DbgTarget target;
    bool have_target;

    DbgBlock *blocks;            /* sorted by start */
    size_t n_blocks;
    bool have_blocks;
    BlockIndex block_index;      /* over blocks; rebuilt with them */
    uint8_t **block_data;        /* [n_blocks], copies in chunks (below) */
    uint8_t **chunks;            /* [n_chunks] mappings holding the copies; see
                                  * Note [Block contents in chunks] in BlockStore.c */
    size_t *chunk_bytes;         /* [n_chunks] their sizes */
    size_t n_chunks, cap_chunks;
    size_t chunk_used;           /* bytes handed out of the last chunk */
    size_t chunk_populated;      /* bytes of it faulted in ahead (madvise) */

    DbgRoot *roots;
    size_t n_roots;
    bool have_roots;
    WordMap named_statics;       /* static closure -> index + 1 of the root naming it */

    DbgAllocSite *sites;         /* the sampled objects alive (ALLOC_SITES) */
    size_t n_sites;
    bool have_sites;
    WordMap site_of;             /* a sampled object's address -> index + 1 */
    DbgFrame *site_frames;       /* every site's frames, in turn */
    char *site_strings;          /* their strings, NUL-terminated, in turn */

    WordMap infos;               /* addr -> DbgInfo * */
    uint64_t last_info_addr;     /* the info table info_of found last */
    const DbgInfo *last_info;
    WordMap statics;             /* addr -> StaticObj * */
    WordMap bad_statics;         /* addresses the stub refused */

    DebugBuf resp;               /* last response payload */
};

/* Sets c's message (dbg_error) and returns -1. */
int dbg_fail(DbgClient *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* STRATA_DEBUG_CLIENT_STATE_H */
