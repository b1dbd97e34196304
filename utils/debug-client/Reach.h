/*
 * utils/debug-client/Reach.h -- retainer paths over the graph
 * core's traversal: the traversals that record a parent per object (all
 * of them, or with the matches of a search), the path of an object, and
 * the folding of a path into runs of one info table.  The whole API of
 * Reach.c.
 */
#ifndef STRATA_DEBUG_REACH_H
#define STRATA_DEBUG_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"

/* Everything reachable from the roots (all kinds but the remembered set,
 * which holds no object alive by itself), found breadth first in root
 * order (local-root frames, saved objects, stable pointers, statics, the
 * thread), so each object's recorded parent gives one shortest retainer
 * path.  NULL on failure (message in dbg_error). */
DbgReach *dbg_reach(DbgClient *c);
/* The same without recording parents (no retainer paths): a census needs
 * only the marks, and the parents are most of the memory. */
DbgReach *dbg_reach_opts(DbgClient *c, bool paths);
/* Retainer paths and the first limit heap objects matching q in
 * breadth-first order (dbg_reach_found), what dbg_reach and dbg_search
 * give, without keeping the discovery order (Note [Paths without the
 * order] in Reach.c): dbg_reach_objects gives nothing.  q is read during
 * the call only. */
DbgReach *dbg_reach_search(DbgClient *c, const DbgQuery *q, size_t limit);
const uint64_t *dbg_reach_found(const DbgReach *r, size_t *n);
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

#endif /* STRATA_DEBUG_REACH_H */
