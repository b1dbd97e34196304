/*
 * utils/debug-client/Boundary.c -- the era boundary: objects of later eras
 * holding objects of older ones, grouped by the holder's info table and
 * ranked by the old bytes only they keep alive, over the heap's dominator
 * tree (dbg_boundary) or, where it can, without it (dbg_boundary_reach;
 * BoundaryWithoutTree.c).  The groups themselves are BoundaryGroups.c's.
 * See docs/strata-debug.md and docs/design/debugger.md.
 */
#include <stdlib.h>
#include <string.h>

#include "Boundary.h"
#include "BoundaryGroups.h"
#include "BoundaryWithoutTree.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Dominators.h"
#include "DomTree.h"
#include "Idom.h"
#include "Ranks.h"

/* ----------------------------------------------------------------------
 * The era boundary
 * ---------------------------------------------------------------------- */

static int group_cmp(const void *a, const void *b)
{
    const DbgBoundaryGroup *x = a, *y = b;
    if (x->retained_bytes != y->retained_bytes)
        return x->retained_bytes > y->retained_bytes ? -1 : 1;
    if (x->n_edges != y->n_edges)
        return x->n_edges > y->n_edges ? -1 : 1;
    return x->holder->addr < y->holder->addr ? -1 : x->holder->addr > y->holder->addr;
}

void dbg_boundary_free(DbgBoundary *b)
{
    free(b->groups);
    memset(b, 0, sizeof *b);
}

int dbg_boundary(DbgClient *c, const DbgDom *d, const DbgQuery *q, DbgBoundary *out)
{
    memset(out, 0, sizeof *out);
    if (!q->eras.on)
        return dbg_fail(c, "boundary: an era range is required");
    uint64_t lo = q->eras.lo, hi = q->eras.hi;
    uint32_t *key = malloc((size_t)d->n * sizeof *key);
    uint64_t *old = calloc(d->n, sizeof *old);
    uint32_t *old_objects = calloc(d->n, sizeof *old_objects);
    EdgeScan e = {0};
    if (key == NULL || old == NULL || old_objects == NULL)
        goto oom;
    key[0] = NONE;
    DbgRankIter it = {0};
    uint64_t addr;
    for (uint32_t v = 1; v < d->n && dbg_reach_next(d->r, &it, &addr); v++) {
        key[v] = NONE;
        DbgClosure cl;
        if (dbg_reach_closure(c, &it, addr, &cl) != 0)
            goto fail;
        if (cl.block == NULL)
            continue;   /* statics have no era */
        if (cl.era >= lo && cl.era <= hi) {
            old[v] = (uint64_t)cl.n_words * 8;
            old_objects[v] = 1;
        }
        if (cl.era <= hi)
            continue;   /* a holder is of a later era */
        if (dbg_holder_edges(c, d->r, q, &cl, &e, out, &key[v]) != 0)
            goto oom;
    }
    /* Old bytes per dominator subtree, leaves first. */
    for (uint32_t k = d->n_rpo; k-- > 1;) {
        uint32_t v = d->rpo[k];
        old[d->idom[v]] += old[v];
        old_objects[d->idom[v]] += old_objects[v];
    }
    BoundaryAdd a = {out, old, old_objects};
    if (dbg_dom_topmost(d, key, (uint32_t)out->n, dbg_boundary_add_holder, &a) != 0)
        goto fail;
    if (out->n > 1)
        qsort(out->groups, out->n, sizeof *out->groups, group_cmp);
    free(key);
    free(old);
    free(old_objects);
    dbg_edge_scan_free(&e);
    return 0;
oom:
    dbg_fail(c, "out of memory for the era boundary");
fail:
    free(key);
    free(old);
    free(old_objects);
    dbg_edge_scan_free(&e);
    dbg_boundary_free(out);
    return -1;
}

/* Note [A boundary without holders]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The dominator tree is most of the boundary's time and memory (Note
 * [Dominator memory]), and it only ranks holders: with none, the answer
 * is empty whatever the tree.  So dbg_boundary_reach first finds the
 * holders, over the blocks of later eras only (a block's objects share
 * its era); a heap whose later eras hold nothing old (one era, or the
 * question asked about the newest eras) is answered in one pass over its
 * newer blocks. */

int dbg_boundary_reach(DbgClient *c, DbgReach *r, const DbgQuery *q, DbgBoundary *out)
{
    memset(out, 0, sizeof *out);
    if (!q->eras.on)
        return dbg_fail(c, "boundary: an era range is required");
    if (dbg_reach_rank_build(r) != 0)
        return -1;
    if (q->eras.hi == UINT64_MAX)
        return 0;   /* no era is later: no holder */
    int st = dbg_boundary_without_tree(c, r, q, out);
    if (st == 1) {
        if (out->n > 1)
            qsort(out->groups, out->n, sizeof *out->groups, group_cmp);
        return 0;
    }
    dbg_boundary_free(out);
    if (st < 0)
        return -1;
    DbgDom *d = dbg_dominators_opts(c, r, false);   /* the boundary sums its own bytes */
    if (d == NULL)
        return -1;
    st = dbg_boundary(c, d, q, out);
    out->by_tree = st == 0;
    dbg_dom_free(d);
    return st;
}
