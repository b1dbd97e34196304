/*
 * utils/debug-client/Analysis.h -- analyses over the reachable heap:
 * the census (by the profiler's rules), live thunks, duplicate
 * constructors, fragmentation, the GML graph, and the weak pointers of
 * the whole heap.  The whole API of Analysis.c.
 */
#ifndef STRATA_DEBUG_ANALYSIS_H
#define STRATA_DEBUG_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "DebugTypes.h"

/* The live heap by -hT/-hi/-he/-hm labels, totals equal to the profiler's
 * census of the same heap (pinned blocks count whole, as there). */
int dbg_census(DbgClient *c, const DbgReach *r, DbgCensusBy by, const DbgEraRange *eras,
               DbgCensus *out);
/* Live thunks by info table ("name (module, file:span)"). */
int dbg_thunks(DbgClient *c, const DbgReach *r, DbgCensus *out);
/* Identical immutable constructors: per info table, copies beyond the
 * first (objects) and the bytes they take (bytes). */
int dbg_duplicates(DbgClient *c, const DbgReach *r, DbgCensus *out);
void dbg_census_free(DbgCensus *c);

/* ----- Weak pointers ----- */

/* A WEAK closure found in the heap.  See Note [Weak pointers in the
 * debugger] in Analysis.c. */
typedef struct {
    uint64_t addr;               /* the WEAK closure */
    bool dead;                   /* DEAD_WEAK: a GC found its key dead, or it was
                                  * finalized; key, value are 0 then */
    bool reachable;              /* a root holds the weak itself */
    uint64_t key, value;         /* what the weak holds (0 when dead) */
    bool key_alive;              /* key marked by the traversal (reachable not
                                  * through weak values), or static */
    bool has_finalizer;          /* a C finalizer is still to run */
} DbgWeak;
/* Every WEAK closure of every block, in block order then address order,
 * into *out (malloc'd, the caller frees it); r gives the keys' liveness. */
int dbg_weaks(DbgClient *c, const DbgReach *r, DbgWeak **out, size_t *n);

/* The census's rules, shared with the retained census (Analysis.c): a
 * label's hash for lookups, whether a closure is counted, its label (buf
 * holds numbers). */
uint64_t dbg_label_hash(const char *s);
bool dbg_census_counts(const DbgClosure *cl, DbgCensusBy by, const DbgEraRange *eras);
const char *dbg_census_label(const DbgClosure *cl, DbgCensusBy by, char *buf, size_t len);

/* ----- Fragmentation ----- */

typedef struct {
    uint64_t start;
    uint32_t n_blocks;
    uint64_t live_bytes;         /* reachable objects in it */
} DbgPinnedBlock;

/* The segments of one size class of the non-moving generation (+RTS
 * --nonmoving-gc): what they hold against what is live in them. */
typedef struct {
    uint8_t size_class;
    uint32_t slot_bytes;
    uint64_t segments;
    uint64_t held_bytes;         /* the segments' blocks, headers included */
    uint64_t slots, slots_used;  /* used: allocated, live or not yet swept */
    uint64_t live_objects, live_bytes;   /* reachable objects in the slots */
} DbgSegClass;

typedef struct {
    uint64_t n_mblocks;          /* held by the block allocator */
    uint64_t n_mblocks_used;     /* holding at least one block in use */
    uint64_t n_blocks;           /* blocks in use (group members counted) */
    uint64_t n_pinned_blocks;
    uint64_t histogram[10];      /* pinned blocks by utilisation, 10% buckets */
    DbgPinnedBlock *pinned;      /* emptiest first */
    size_t n_pinned;
    DbgSegClass *classes;        /* by slot size; NULL when n_classes is 0 */
    size_t n_classes;
    /* Blocks of the non-moving generation that an older stub listed as
     * small blocks, without their slots (no classes can be given). */
    uint64_t n_unlisted_segment_blocks;
} DbgFrag;

int dbg_fragmentation(DbgClient *c, const DbgReach *r, DbgFrag *out);
/* The segments' lines as strata-debug and its TUI print them: a summary
 * (false when there are no segments), the table's header, and a row. */
bool dbg_segments_summary(const DbgFrag *f, char *buf, size_t len);
const char *dbg_seg_class_header(void);
void dbg_seg_class_row(const DbgSegClass *k, char *buf, size_t len);
void dbg_frag_free(DbgFrag *f);

/* The heap graph in GML (nodes: reachable closures; edges: pointers). */
int dbg_write_gml(DbgClient *c, const DbgReach *r, FILE *f);

#endif /* STRATA_DEBUG_ANALYSIS_H */
