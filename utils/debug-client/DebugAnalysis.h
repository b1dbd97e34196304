/*
 * utils/debug-client/DebugAnalysis.h -- analyses over a DbgClient (live or
 * snapshot): reachability with one retainer path per object, census,
 * search, fragmentation, thunks, duplicates, GML and snapshots.
 * See docs/strata-debug.md.
 */
#ifndef STRATA_DEBUGANALYSIS_H
#define STRATA_DEBUGANALYSIS_H

#include <stdio.h>

#include "DebugClient.h"

typedef struct {
    bool on;                     /* false: every era (era 0 excluded by --by era) */
    uint64_t lo, hi;             /* inclusive */
} DbgEraRange;

/* Parses "LO-HI" or "N"; false on anything else. */
bool dbg_parse_era_range(const char *s, DbgEraRange *out);
bool dbg_era_selected(const DbgEraRange *r, uint64_t era);

/* ----- Reachability ----- */

/* Everything reachable from the roots (all kinds but the remembered set,
 * which holds no object alive by itself), found breadth first in root
 * order (local-root frames, saved objects, stable pointers, statics, the
 * thread), so each object's recorded parent gives one shortest retainer
 * path.  NULL on failure (message in dbg_error). */
typedef struct DbgReach DbgReach;
DbgReach *dbg_reach(DbgClient *c);
/* The same without recording parents (no retainer paths): a census needs
 * only the marks, and the parents are most of the memory. */
DbgReach *dbg_reach_opts(DbgClient *c, bool paths);
void dbg_reach_free(DbgReach *r);
/* Reachable objects in discovery order (heap and static). */
const uint64_t *dbg_reach_objects(const DbgReach *r, size_t *n);
bool dbg_reach_has(const DbgReach *r, uint64_t addr);
/* Pointers that led nowhere (outside every block and not a static). */
uint64_t dbg_reach_dangling(const DbgReach *r);

/* A retainer path: addrs[0] is the object, addrs[n-1] the one a root
 * holds; root is that root's index in dbg_roots. */
typedef struct {
    uint64_t *addrs;
    size_t n;
    size_t root;
} DbgPath;
int dbg_retainer_path(DbgClient *c, const DbgReach *r, uint64_t addr, DbgPath *out);
void dbg_path_free(DbgPath *p);

/* ----- Census ----- */

typedef enum { DBG_BY_TYPE, DBG_BY_INFO, DBG_BY_ERA, DBG_BY_MODULE } DbgCensusBy;

typedef struct {
    char *label;
    uint64_t bytes, objects;
} DbgBucket;

typedef struct {
    DbgBucket *buckets;          /* by bytes, largest first; then by label
                                  * (numerically where both are numbers) */
    size_t n;
    uint64_t total_bytes, total_objects;
} DbgCensus;

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

/* ----- Search ----- */

typedef enum { DBG_MATCH_CONSTRUCTOR, DBG_MATCH_INFO, DBG_MATCH_TYPE } DbgMatchKind;
typedef struct {
    DbgMatchKind kind;
    const char *name;            /* constructor name or closure type name */
    uint64_t info;               /* DBG_MATCH_INFO */
    DbgEraRange eras;
} DbgQuery;

bool dbg_query_matches(const DbgQuery *q, const DbgClosure *cl);
/* Reachable heap objects matching q, in discovery order, at most cap. */
int dbg_search(DbgClient *c, const DbgReach *r, const DbgQuery *q, uint64_t *out, size_t cap,
               size_t *n);

/* A constructor name of the live heap and its edit distance to a query. */
typedef struct {
    const char *name;            /* an info table's name or closure description */
    size_t distance;             /* insertions, deletions, substitutions */
} DbgNameMatch;

/* The distinct names a DBG_MATCH_CONSTRUCTOR query can match among the
 * reachable heap objects, nearest to name first (ties by name), at most
 * cap of them into out; *n is how many there are in all.  Distance 0
 * means some live constructor has exactly that name.  For "did you mean"
 * when a search finds nothing.  Names stay valid until dbg_close. */
int dbg_constructor_names_near(DbgClient *c, const DbgReach *r, const char *name,
                               DbgNameMatch *out, size_t cap, size_t *n);

/* ----- Fragmentation ----- */

typedef struct {
    uint64_t start;
    uint32_t n_blocks;
    uint64_t live_bytes;         /* reachable objects in it */
} DbgPinnedBlock;

typedef struct {
    uint64_t n_mblocks;          /* held by the block allocator */
    uint64_t n_mblocks_used;     /* holding at least one block in use */
    uint64_t n_blocks;           /* blocks in use (group members counted) */
    uint64_t n_pinned_blocks;
    uint64_t histogram[10];      /* pinned blocks by utilisation, 10% buckets */
    DbgPinnedBlock *pinned;      /* emptiest first */
    size_t n_pinned;
} DbgFrag;

int dbg_fragmentation(DbgClient *c, const DbgReach *r, DbgFrag *out);
void dbg_frag_free(DbgFrag *f);

/* ----- Output ----- */

/* The heap graph in GML (nodes: reachable closures; edges: pointers). */
int dbg_write_gml(DbgClient *c, const DbgReach *r, FILE *f);
/* A snapshot of the reachable heap plus every block's metadata. */
int dbg_write_snapshot(DbgClient *c, const DbgReach *r, const char *file);

#endif /* STRATA_DEBUGANALYSIS_H */
