/*
 * utils/debug-client/DebugAnalysis.h -- analyses over a DbgClient (live or
 * snapshot): reachability with one retainer path per object, census,
 * search, fragmentation, thunks, weak pointers, duplicates, GML and
 * snapshots.
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
/* Marks only (Note [Marks only] in Marks.c): the same reachable set,
 * found depth first, in a fraction of the memory; dbg_reach_objects gives
 * nothing and dbg_search finds nothing: read the objects with
 * dbg_reach_for_each_heap.  What a census needs. */
DbgReach *dbg_reach_marks(DbgClient *c);
void dbg_reach_free(DbgReach *r);
/* Reachable objects in discovery order (heap and static); none for a
 * dbg_reach_marks traversal. */
const uint64_t *dbg_reach_objects(const DbgReach *r, size_t *n);
/* How many objects were reached (heap and static), whatever the mode. */
size_t dbg_reach_count(const DbgReach *r);
/* Calls f on every reachable heap object in address order until f returns
 * non-zero, which is returned (-1 if an object cannot be decoded). */
int dbg_reach_for_each_heap(DbgClient *c, const DbgReach *r,
                            int (*f)(DbgClient *c, const DbgClosure *cl, void *env), void *env);
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

/* A run of consecutive closures of a path with the same info table (a
 * linked list of 400,000 SessionEntry nodes is one run).  A static closure
 * is always a run of its own: it is a named variable. */
typedef struct {
    size_t first, n;             /* addrs[first .. first + n) of the path */
    uint64_t first_addr, last_addr;   /* addrs[first], addrs[first + n - 1] */
    const DbgInfo *info;         /* the info table they share */
    bool is_static;
    uint64_t era_lo, era_hi;     /* their eras (0 for a static) */
    uint16_t gen_lo, gen_hi;     /* their blocks' generations */
} DbgPathRun;
/* The runs of p->addrs[from .. p->n) in path order, into *runs (malloc'd,
 * the caller frees it). */
int dbg_path_runs(DbgClient *c, const DbgPath *p, size_t from, DbgPathRun **runs, size_t *n);

/* ----- Census ----- */

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

/* ----- Search ----- */

typedef enum {
    DBG_MATCH_CONSTRUCTOR, DBG_MATCH_INFO, DBG_MATCH_TYPE,
    DBG_MATCH_ANY                /* every heap object (in the eras selected) */
} DbgMatchKind;
typedef struct {
    DbgMatchKind kind;
    const char *name;            /* constructor name or closure type name */
    uint64_t info;               /* DBG_MATCH_INFO */
    DbgEraRange eras;
} DbgQuery;

bool dbg_query_matches(const DbgQuery *q, const DbgClosure *cl);
/* Retainer paths and the first limit heap objects matching q in
 * breadth-first order (dbg_reach_found), what dbg_reach and dbg_search
 * give, without keeping the discovery order (Note [Paths without the
 * order] in Reach.c): dbg_reach_objects gives nothing.  q is read during
 * the call only. */
DbgReach *dbg_reach_search(DbgClient *c, const DbgQuery *q, size_t limit);
const uint64_t *dbg_reach_found(const DbgReach *r, size_t *n);
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

/* ----- Dominators, retained sizes and the era boundary ----- */

/* Immediate dominators of a graph of n nodes in CSR form: node v's
 * successors are succ[off[v] .. off[v + 1]), node 0 is the root.  idom[v]
 * is set for every node reachable from 0 (idom[0] = 0) and is UINT32_MAX
 * for the others.  -1 on out of memory.  See Note [Dominators by Cooper,
 * Harvey and Kennedy] in Idom.c. */
int dbg_graph_idom(uint32_t n, const uint64_t *off, const uint32_t *succ, uint32_t *idom);

/* The dominator tree of the reachable heap, with a virtual root holding
 * every root's closure.  An object's retained size is its own bytes plus
 * those of every object it dominates: what would be freed if it died.
 * Static closures count 0 bytes (they are not in the heap).  r may come
 * from any traversal (the marks of dbg_reach_marks are enough).  Valid
 * while r is; NULL on failure. */
typedef struct DbgDom DbgDom;
DbgDom *dbg_dominators(DbgClient *c, DbgReach *r);
/* The same; with sums false, without the retained sizes (12 bytes an
 * object less): dbg_dom_retained then answers 0, and only dbg_dom_idom and
 * dbg_boundary may be asked. */
DbgDom *dbg_dominators_opts(DbgClient *c, DbgReach *r, bool sums);
void dbg_dom_free(DbgDom *d);
/* An object's retained bytes (0 if not reachable). */
uint64_t dbg_dom_retained(const DbgDom *d, uint64_t addr);
/* Its immediate dominator's address; 0 when only the roots dominate it. */
uint64_t dbg_dom_idom(const DbgDom *d, uint64_t addr);

/* The census of dbg_census with each bucket's retained_bytes: the bytes
 * freed if every object of that label died and nothing else changed, as
 * far as single objects decide it: the union of the dominator subtrees of
 * the label's objects (an object dominated by another of its label counts
 * once, inside it).  Memory kept alive only jointly by two objects of the
 * label (reached through either) is not in it.  Buckets are ordered by
 * retained bytes, largest first. */
int dbg_census_retained(DbgClient *c, const DbgReach *r, const DbgDom *d, DbgCensusBy by,
                        const DbgEraRange *eras, DbgCensus *out);

typedef struct {
    uint64_t addr;
    uint64_t retained_bytes, retained_objects, own_bytes;
    uint64_t idom;               /* its immediate dominator, 0 for the roots */
} DbgDomEntry;
/* The objects that retain the most, largest first, at most cap.  An object
 * whose immediate dominator has the same info table is left out: the head
 * of a linked list stands for the list. */
int dbg_dom_top(DbgClient *c, const DbgDom *d, DbgDomEntry *out, size_t cap, size_t *n);

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
int dbg_boundary(DbgClient *c, const DbgDom *d, const DbgQuery *q, DbgBoundary *out);
/* The same answer from a traversal (any: dbg_reach_marks is enough),
 * without the dominator tree unless a holder is reached only through
 * other holders (Note [A boundary without holders] in Boundary.c, Note
 * [A boundary without the dominator tree] in BoundaryLabels.c). */
int dbg_boundary_reach(DbgClient *c, DbgReach *r, const DbgQuery *q, DbgBoundary *out);
void dbg_boundary_free(DbgBoundary *b);

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
