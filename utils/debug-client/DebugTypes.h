/*
 * utils/debug-client/DebugTypes.h -- the data the heap debugger's client
 * library hands out and takes in, shared by its modules and the tools:
 * the target, blocks, roots, info tables and decoded closures of a heap
 * (Client.h, Decode.h), era ranges and queries (EraRange.h, Search.h),
 * retainer paths (Reach.h), censuses (Analysis.h) and the era boundary
 * (Boundary.h), and the handles of a client, a traversal and a dominator
 * tree.  Types only: each module's functions are in its own header, and
 * DebugClient.h and DebugAnalysis.h gather them for the tools.
 */
#ifndef STRATA_DEBUG_TYPES_H
#define STRATA_DEBUG_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct DbgClient DbgClient;

/* What the program told us (VERSION), or what the snapshot recorded. */
typedef struct {
    uint32_t protocol, word_size, block_size, mblock_size, pid;
    bool paused;
    uint64_t era;                /* current era when paused */
    uint64_t n_mblocks;          /* megablocks held by the block allocator */
    uint64_t paused_at;          /* when the pause began, Unix time in ns (the
                                  * client's clock); 0 when unknown (a
                                  * snapshot of format version 1) */
    uint64_t resumes_in_era;     /* the era the program resumes in, when a
                                  * new era was asked for in this pause
                                  * (dbg_new_era, snapshot --new-era); 0 if
                                  * none was (or a snapshot before version 3) */
    char *program, *strata_version;
    /* Another runtime's heap (protocol version 2, docs/debug-protocol.md):
     * its name, "ghc-9.10.3", or NULL for strata's own. */
    char *heap;
    uint32_t header_words;       /* a closure's header: 1, or 3 in a GHC -prof program */
    uint32_t heap_flags;         /* DEBUG_HEAP_* of strata/DebugProtocol.h */
} DbgTarget;

typedef struct {
    uint64_t start;              /* first byte of the block (group) */
    uint64_t era;
    uint64_t used_bytes;         /* [start, start + used_bytes) holds objects */
    uint32_t n_blocks;           /* blocks in the group */
    uint16_t flags;              /* BF_* of strata/Block.h */
    uint16_t gen;
    uint8_t kind;                /* DEBUG_BLOCK_* of strata/Debug.h */
    /* DEBUG_BLOCK_SEGMENT (a segment of the non-moving generation; 0
     * otherwise): its size class, words per slot, slots, slots in use.
     * Every entry of a segment carries them; count it at its first (the
     * one with n_blocks > 0). */
    uint8_t size_class;
    uint16_t slot_words, n_slots, n_used;
    const uint8_t *data;         /* cached contents, NULL until fetched */
} DbgBlock;

typedef struct {
    uint8_t kind;                /* DEBUG_ROOT_* */
    uint32_t index;              /* frame number (0 = newest), stable ptr, ... */
    uint32_t slot;               /* slot in the frame */
    uint64_t addr;               /* the closure the root holds */
    const char *func, *file;     /* frames: who pushed it; statics: the closure's
                                  * symbol and its definition's file (from the
                                  * program's symbol table); "" otherwise or unknown */
    uint32_t line;
    uint32_t thread;             /* frames: the id of the thread that pushed
                                    them (0 if the stub did not say) */
} DbgRoot;

typedef struct {
    uint64_t addr;
    uint32_t type;               /* closure type (strata/ClosureTypes.h) */
    uint16_t ptrs, nptrs;
    uint32_t arity;
    uint8_t prov_source;         /* DEBUG_PROV_* */
    const char *name;
    const char *table_name, *closure_desc, *ty_desc, *label, *module, *src_file, *src_span;
    /* Protocol version 2 (a GHC heap; 0 and NULL for strata's): */
    uint64_t srt;                /* the static closure the table's SRT names */
    uint32_t bitmap_bits;        /* pointer bitmap: a function's arguments, or */
    const uint8_t *bitmap;       /* the words of a TSO, WEAK, ... (bit set: pointer) */
} DbgInfo;

/* A decoded closure. */
typedef struct {
    uint64_t addr;
    const uint64_t *words;       /* n_words words, word 0 the info pointer */
    uint32_t n_words;
    const DbgInfo *info;
    const DbgBlock *block;       /* NULL for a static closure */
    uint64_t era;                /* the block's era; 0 for statics */
} DbgClosure;

/* A traversal of the reachable heap (Marks.h, Reach.h) and the dominator
 * tree over one (Dominators.h). */
typedef struct DbgReach DbgReach;
typedef struct DbgDom DbgDom;

/* A range of eras (EraRange.h). */
typedef struct {
    bool on;                     /* false: every era (era 0 excluded by --by era) */
    uint64_t lo, hi;             /* inclusive */
} DbgEraRange;

/* A retainer path: addrs[0] is the object, addrs[n-1] the one a root
 * holds; root is that root's index in dbg_roots. */
typedef struct {
    uint64_t *addrs;
    size_t n;
    size_t root;
} DbgPath;

/* What a census counts by (Analysis.h), and what it gives. */
typedef enum { DBG_BY_TYPE, DBG_BY_INFO, DBG_BY_ERA, DBG_BY_MODULE } DbgCensusBy;

typedef struct {
    char *label;
    uint64_t bytes, objects;
    uint64_t retained_bytes;     /* dbg_census_retained only: see there */
} DbgBucket;

typedef struct {
    DbgBucket *buckets;          /* by bytes, largest first; then by label
                                  * (numerically where both are numbers) */
    size_t n;
    uint64_t total_bytes, total_objects;
} DbgCensus;

/* A sampled object's allocation (+RTS --alloc-sample, AllocSites.h): the
 * call stack that allocated it, innermost first, as the program named it. */
typedef struct {
    const char *function, *file; /* either may be "" */
    uint32_t line;               /* 0 if unknown */
} DbgFrame;
typedef struct {
    uint64_t addr;               /* the sampled object */
    uint64_t sample;             /* its number in the eventlog (ALLOC_SAMPLE) */
    uint64_t era;                /* the era it was allocated in */
    uint64_t size_bytes;
    const DbgFrame *frames;      /* innermost first */
    size_t n_frames;
} DbgAllocSite;

/* What a search looks for (Search.h). */
typedef enum {
    DBG_MATCH_CONSTRUCTOR, DBG_MATCH_INFO, DBG_MATCH_TYPE,
    DBG_MATCH_ANY                /* every heap object (in the eras selected) */
} DbgMatchKind;
typedef struct {
    DbgMatchKind kind;
    const char *name;            /* constructor name or closure type name */
    uint64_t info;               /* DBG_MATCH_INFO */
    DbgEraRange eras;
    const void *sampled;         /* non-NULL (dbg_query_sampled_only): only
                                    sampled objects (+RTS --alloc-sample) */
} DbgQuery;

/* The era boundary: pointers from a heap object of an era above q->eras.hi
 * (the holder) to an object that q matches (q->eras is the old range and
 * must be on), grouped by the holder's info table (hence its provenance). */
typedef struct {
    const DbgInfo *holder;       /* the holders' info table */
    uint64_t retained_bytes;     /* old-era bytes (any object of q->eras) that
                                  * these holders alone keep alive: in their
                                  * dominator subtrees, each counted once */
    uint64_t retained_objects;
    uint64_t n_holders, n_edges;
    uint64_t era_lo, era_hi;     /* the holders' eras */
    uint64_t target_era_lo, target_era_hi;
    uint64_t example_holder, example_target;   /* the first edge found */
} DbgBoundaryGroup;
typedef struct {
    DbgBoundaryGroup *groups;    /* by retained bytes, largest first */
    size_t n;
    bool by_tree;                /* dbg_boundary_reach built the dominator tree */
} DbgBoundary;

#endif /* STRATA_DEBUG_TYPES_H */
