/*
 * utils/debug-client/ClientPrivate.h -- the client library's internals,
 * shared by its files (the transport, the decoder, snapshots, analyses).
 */
#ifndef STRATA_CLIENTPRIVATE_H
#define STRATA_CLIENTPRIVATE_H

#include "DebugAnalysis.h"
#include "DebugClient.h"
#include "DebugWire.h"
#include "WordMap.h"

/* Which block holds an address (BlockIndex.c, Note [Block index]): a
 * table of 4 KB pages per megablock where a block starts. */
typedef struct {
    bool on;                     /* false: every lookup binary-searches */
    uint64_t lo, hi;             /* lowest start, highest end of a non-empty block */
    WordMap mblocks;             /* megablock number + 1 -> index in tables */
    uint32_t *flat;              /* or [n_flat] by megablock number - flat_base:
                                  * index in tables or UINT32_MAX (see the Note) */
    uint64_t flat_base;
    size_t n_flat;
    uint32_t (*tables)[256];     /* [n_tables] per page: the first block that
                                  * reaches into it, or UINT32_MAX */
    uint64_t *mblock_of;         /* [n_tables] megablock number, ascending */
    size_t n_tables;
} BlockIndex;

/* Builds the index of bs[0 .. n) (sorted by start, disjoint, as
 * dbg_parse_blocks leaves them); -1 on out of memory. */
int block_index_build(BlockIndex *ix, const DbgBlock *bs, size_t n);
/* The binary search the index stands in for. */
const DbgBlock *block_index_search(const DbgBlock *bs, size_t n, uint64_t addr);
/* The block of bs whose used area holds addr, or NULL: the same answer as
 * a binary search over bs.  Inline: every pointer followed asks it. */
/* The first step of block_index_find: 1 with *i the page table's entry
 * for addr (UINT32_MAX: in no block), -1 when addr is in no block for
 * sure, 0 when only the binary search can tell. */
static inline int block_index_entry(const BlockIndex *ix, uint64_t addr, uint32_t *i)
{
    if (!ix->on)
        return 0;
    if (addr < ix->lo || addr >= ix->hi)
        return -1;   /* no block reaches there: a static closure, say */
    uint64_t mb = addr >> 20;
    size_t k;
    if (ix->flat != NULL) {
        if (mb - ix->flat_base >= ix->n_flat || ix->flat[mb - ix->flat_base] == UINT32_MAX)
            return 0;
        k = ix->flat[mb - ix->flat_base];
    } else {
        const uint64_t *v = word_map_get(&ix->mblocks, mb + 1);
        if (v == NULL)
            return 0;
        k = (size_t)*v;
    }
    *i = ix->tables[k][(addr >> 12) & 255];
    return 1;
}

static inline const DbgBlock *block_index_find(const BlockIndex *ix, const DbgBlock *bs,
                                               size_t n, uint64_t addr)
{
    uint32_t i;
    int e = block_index_entry(ix, addr, &i);
    if (e == 0)
        return block_index_search(bs, n, addr);
    if (e < 0 || i == UINT32_MAX)
        return NULL;
    while (i + 1 < n && bs[i + 1].start <= addr)
        i++;
    const DbgBlock *b = &bs[i];
    return addr >= b->start && addr < b->start + b->used_bytes ? b : NULL;
}
void block_index_free(BlockIndex *ix);
/* Every table entry recomputed from its definition: 0 if right, else -1. */
int block_index_check(const BlockIndex *ix, const DbgBlock *bs, size_t n);

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
                                  * Note [Block contents in chunks] in Client.c */
    size_t *chunk_bytes;         /* [n_chunks] their sizes */
    size_t n_chunks, cap_chunks;
    size_t chunk_used;           /* bytes handed out of the last chunk */
    size_t chunk_populated;      /* bytes of it faulted in ahead (madvise) */

    DbgRoot *roots;
    size_t n_roots;
    bool have_roots;
    WordMap named_statics;       /* static closure -> index + 1 of the root naming it */

    WordMap infos;               /* addr -> DbgInfo * */
    uint64_t last_info_addr;     /* the info table info_of found last */
    const DbgInfo *last_info;
    WordMap statics;             /* addr -> StaticObj * */
    WordMap bad_statics;         /* addresses the stub refused */

    DebugBuf resp;               /* last response payload */
};

/* dbg_block_of and dbg_info without the calls, for the traversals. */
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

/* dbg_closure for an addr known to lie in block b's used area (word
 * aligned). */
int dbg_closure_in(DbgClient *c, const DbgBlock *b, uint64_t addr, DbgClosure *out);

int dbg_fail(DbgClient *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Wire payload decoders, shared by the socket and the snapshot reader
 * (Payloads.c). */
int dbg_parse_target(DbgClient *c, DebugCursor *cur);
int dbg_parse_blocks(DbgClient *c, DebugCursor *cur);
int dbg_parse_roots(DbgClient *c, DebugCursor *cur);
int dbg_parse_infos(DbgClient *c, DebugCursor *cur);
/* Stores a static closure's words (copied). */
int dbg_add_static(DbgClient *c, uint64_t addr, const uint8_t *words, uint32_t n_words);
/* Room for len bytes of block contents (8-aligned, zeroed), freed with the
 * blocks; NULL when out of memory. */
uint8_t *dbg_block_space(DbgClient *c, uint64_t len);
/* Frees the block list, its index and every block's contents. */
void dbg_drop_blocks(DbgClient *c);
/* Stores a block's contents (copied) for block index i. */
int dbg_set_block_data(DbgClient *c, size_t i, const uint8_t *data, uint64_t len);
/* Frees everything the decoders filled in (Payloads.c). */
void dbg_free_state(DbgClient *c);
/* Frees the roots, or the static closures, of the last pause. */
void dbg_free_roots(DbgClient *c);
void dbg_free_statics(DbgClient *c);
/* The checksum that closes a snapshot file, over its first len bytes
 * (Snapshot.c); the snapshot fuzzer fixes it up so that its mutations
 * reach the parser. */
uint64_t dbg_snapshot_checksum(const uint8_t *data, size_t len);

/* The census's rules, shared with the retained census (Analysis.c): a
 * label's hash for lookups, whether a closure is counted, its label (buf
 * holds numbers). */
uint64_t dbg_label_hash(const char *s);
bool dbg_census_counts(const DbgClosure *cl, DbgCensusBy by, const DbgEraRange *eras);
const char *dbg_census_label(const DbgClosure *cl, DbgCensusBy by, char *buf, size_t len);

/* dbg_reach_for_each_heap over the blocks of era min_era or later only
 * (a block's objects share its era). */
int dbg_reach_for_each_heap_from(DbgClient *c, const DbgReach *r, uint64_t min_era,
                                 int (*f)(DbgClient *c, const DbgClosure *cl, void *env),
                                 void *env);

/* Dense numbering of a traversal's reachable objects, 0 .. n-1 (heap
 * objects in address order, then statics); see Note [Ranks from the marks]
 * in Ranks.c.  Build once, then dbg_reach_rank gives SIZE_MAX for an
 * address that is not a reachable object. */
int dbg_reach_rank_build(DbgReach *r);
size_t dbg_reach_rank(const DbgReach *r, uint64_t addr);
/* Ranked objects (heap and static), and the address of rank k (binary
 * search over the blocks' first ranks, then the block's mark words; 0
 * past the end). */
size_t dbg_reach_n_ranked(const DbgReach *r);
uint64_t dbg_reach_addr(const DbgReach *r, size_t rank);
/* The reachable objects in rank order: heap objects in address order,
 * then statics.  Start from a zeroed iterator; false when done. */
typedef struct {
    size_t block, word, base, rank;
    uint64_t bits;
} DbgRankIter;
bool dbg_reach_next(const DbgReach *r, DbgRankIter *it, uint64_t *addr);
/* dbg_closure of the object dbg_reach_next just gave, without looking
 * its block up again: the iterator is in it (a static past the blocks). */
static inline int dbg_reach_closure(DbgClient *c, const DbgRankIter *it, uint64_t addr,
                                    DbgClosure *out)
{
    return it->block < c->n_blocks ? dbg_closure_in(c, &c->blocks[it->block], addr, out)
                                   : dbg_closure(c, addr, out);
}

#endif /* STRATA_CLIENTPRIVATE_H */
