/*
 * utils/debug-client/BoundaryGroups.c -- the era boundary's groups, as
 * both ways of finding the boundary build them (Boundary.c over the
 * heap's dominator tree, BoundaryWithoutTree.c without it): the pointers
 * from a holder of a later era to the old objects a query matches,
 * grouped by the holder's info table in rank order (so each group's
 * example is its first holder), and the old bytes of each group summed
 * over its topmost holders.
 */
#include <stdlib.h>
#include <string.h>

#include "BlockIndex.h"
#include "BoundaryGroups.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "GrowArray.h"
#include "Idom.h"
#include "Ranks.h"
#include "Search.h"

void dbg_boundary_add_holder(uint32_t v, uint32_t key, void *env)
{
    BoundaryAdd *a = env;
    a->b->groups[key].retained_bytes += a->old[v];
    a->b->groups[key].retained_objects += a->old_objects[v];
}

void dbg_edge_scan_free(EdgeScan *e)
{
    free(e->ptrs);
    word_map_free(&e->groups);
}

/* Adds cl's pointers at reachable objects that q matches to cl's group in
 * out (created on the first); *group is set to that group, or left as it
 * is when cl points at none.  cl is of an era above q's.  0, or -1 when
 * out of C heap. */
int dbg_holder_edges(DbgClient *c, const DbgReach *r, const DbgQuery *q, const DbgClosure *cl,
                     EdgeScan *e, DbgBoundary *out, uint32_t *group)
{
    size_t np;
    if (dbg_closure_ptrs_grow(c, cl, &e->ptrs, &e->ptr_cap, &np) != 0)
        return -1;
    for (size_t i = 0; i < np; i++) {
        DbgClosure t;
        if (dbg_reach_rank(r, e->ptrs[i]) == SIZE_MAX || dbg_closure(c, e->ptrs[i], &t) != 0 ||
            !dbg_query_matches(q, &t))
            continue;
        uint64_t *gi = word_map_get(&e->groups, cl->info->addr);
        if (gi == NULL) {
            if (GROW_ARRAY_RESERVE(out->groups, e->cap, out->n + 1) != 0)
                return -1;
            out->groups[out->n] = (DbgBoundaryGroup){
                .holder = cl->info, .example_holder = cl->addr, .example_target = t.addr,
                .era_lo = cl->era, .era_hi = cl->era, .target_era_lo = t.era,
                .target_era_hi = t.era};
            if (word_map_put(&e->groups, cl->info->addr, ++out->n) != 0)
                return -1;
            gi = word_map_get(&e->groups, cl->info->addr);
        }
        DbgBoundaryGroup *g = &out->groups[*gi - 1];
        g->n_edges++;
        if (*group == NONE) {
            *group = (uint32_t)(*gi - 1);
            g->n_holders++;
            g->era_lo = cl->era < g->era_lo ? cl->era : g->era_lo;
            g->era_hi = cl->era > g->era_hi ? cl->era : g->era_hi;
        }
        g->target_era_lo = t.era < g->target_era_lo ? t.era : g->target_era_lo;
        g->target_era_hi = t.era > g->target_era_hi ? t.era : g->target_era_hi;
    }
    return 0;
}
