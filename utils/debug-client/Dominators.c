/*
 * utils/debug-client/Dominators.c -- the dominator tree of the live heap
 * and what it answers: each object's retained size (the bytes that would
 * be freed if it died), the census by retained size and the objects that
 * keep the most.  Nodes are the graph core's ranks (Note [Ranks from the
 * marks] in Ranks.c); the algorithm is Idom.c's.  See docs/strata-debug.md
 * and docs/design/debugger.md.
 */
#include <stdlib.h>
#include <string.h>

#include "Analysis.h"
#include "BlockIndex.h"
#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "Dominators.h"
#include "DomTree.h"
#include "GrowArray.h"
#include "Idom.h"
#include "Marks.h"
#include "Ranks.h"
#include "strata/Debug.h"

/* ----------------------------------------------------------------------
 * The heap's dominator tree
 * ---------------------------------------------------------------------- */

void dbg_dom_free(DbgDom *d)
{
    if (d == NULL)
        return;
    free(d->idom);
    free(d->rpo);
    free(d->retained);
    free(d->retained_objects);
    free(d);
}

/* The address of node v (0 for the virtual root). */
static uint64_t node_addr(const DbgDom *d, uint32_t v)
{
    return v == 0 ? 0 : dbg_reach_addr(d->r, v - 1);
}

/* The graph: every pointer between reachable objects, plus node 0's edges
 * to the roots' closures; and each node's own bytes into d->retained. */
static int build_graph(DbgDom *d, uint32_t **off_out, uint32_t **succ_out)
{
    DbgClient *c = d->c;
    uint32_t *off = malloc(((size_t)d->n + 1) * sizeof *off);
    uint32_t *succ = NULL;
    size_t n_edges = 0, cap = 0;
    uint64_t *ptrs = NULL;
    size_t ptr_cap = 0;
    DbgRankIter it = {0};
    if (off == NULL)
        return dbg_fail(c, "out of memory for the heap graph");
    for (uint32_t v = 0; v < d->n; v++) {
        off[v] = (uint32_t)n_edges;
        size_t np;
        if (v == 0) {
            const DbgRoot *roots;
            if (dbg_roots(c, &roots, &np) != 0)
                goto fail;
            if (np > ptr_cap) {
                uint64_t *g = realloc(ptrs, np * sizeof *g);
                if (g == NULL)
                    goto oom;
                ptrs = g;
                ptr_cap = np;
            }
            for (size_t i = 0; i < np; i++)
                ptrs[i] = roots[i].kind == DEBUG_ROOT_REMEMBERED ? 0 : roots[i].addr;
        } else {
            uint64_t addr;
            DbgClosure cl;
            if (!dbg_reach_next(d->r, &it, &addr)) {
                dbg_fail(c, "dominators: fewer ranked objects than nodes (nodes=%u)", d->n);
                goto fail;
            }
            if (dbg_reach_closure(c, &it, addr, &cl) != 0)
                goto fail;
            if (d->retained != NULL)
                d->retained[v] = cl.block != NULL ? (uint64_t)cl.n_words * 8 : 0;
            if (dbg_closure_ptrs_grow(c, &cl, &ptrs, &ptr_cap, &np) != 0)
                goto oom;
        }
        for (size_t i = 0; i < np; i++) {
            /* A pointer repeated in the next field (both of a leaf's
             * fields at one static, say) adds nothing to dominance. */
            size_t k = ptrs[i] != 0 && (i == 0 || ptrs[i] != ptrs[i - 1])
                           ? dbg_reach_rank(d->r, ptrs[i]) : SIZE_MAX;
            if (k == SIZE_MAX)
                continue;   /* NULL, dangling, the remembered set, or a repeat */
            if (n_edges == cap) {
                if (cap >= NONE) {
                    dbg_fail(c, "dominators: too many pointers (edges=%zu, max=%u)", n_edges,
                             NONE - 1);
                    goto fail;
                }
                cap = cap ? 2 * cap : 4096;
                cap = cap > NONE ? NONE : cap;
                uint32_t *g = realloc(succ, cap * sizeof *g);
                if (g == NULL)
                    goto oom;
                succ = g;
            }
            succ[n_edges++] = (uint32_t)(k + 1);
        }
    }
    off[d->n] = (uint32_t)n_edges;
    free(ptrs);
    if (succ == NULL && (succ = malloc(sizeof *succ)) == NULL)
        goto oom;
    *off_out = off;
    *succ_out = succ;
    return 0;
oom:
    dbg_fail(c, "out of memory for the heap graph");
fail:
    free(off);
    free(succ);
    free(ptrs);
    return -1;
}

DbgDom *dbg_dominators(DbgClient *c, DbgReach *r)
{
    return dbg_dominators_opts(c, r, true);
}

DbgDom *dbg_dominators_opts(DbgClient *c, DbgReach *r, bool sums)
{
    size_t n_objs = dbg_reach_count(r);
    if (n_objs >= NONE - 2) {
        dbg_fail(c, "dominators: too many objects (objects=%zu, max=%u)", n_objs, NONE - 3);
        return NULL;
    }
    if (dbg_reach_rank_build(r) != 0)
        return NULL;
    if (dbg_reach_n_ranked(r) != n_objs) {
        dbg_fail(c, "dominators: objects reached and ranked differ (objects=%zu, ranked=%zu)",
                 n_objs, dbg_reach_n_ranked(r));
        return NULL;
    }
    DbgDom *d = calloc(1, sizeof *d);
    if (d == NULL) {
        dbg_fail(c, "out of memory");
        return NULL;
    }
    d->c = c;
    d->r = r;
    d->n = (uint32_t)n_objs + 1;
    d->retained = sums ? calloc(d->n, sizeof *d->retained) : NULL;
    d->idom = malloc((size_t)d->n * sizeof *d->idom);
    d->rpo = malloc((size_t)d->n * sizeof *d->rpo);
    if ((sums && d->retained == NULL) || d->idom == NULL || d->rpo == NULL) {
        dbg_fail(c, "out of memory for the dominator tree");
        goto fail;
    }
    uint32_t *off = NULL, *succ = NULL;
    if (build_graph(d, &off, &succ) != 0)
        goto fail;
    int st = dbg_graph_idom_csr(d->n, &off, &succ, d->idom, d->rpo, &d->n_rpo);
    free(off);
    free(succ);
    if (st != 0) {
        dbg_fail(c, "out of memory for the dominator tree");
        goto fail;
    }
    if (!sums)
        return d;
    /* Subtree sums, leaves first (retained starts as each node's own bytes). */
    d->retained_objects = malloc((size_t)d->n * sizeof *d->retained_objects);
    if (d->retained_objects == NULL) {
        dbg_fail(c, "out of memory for the dominator tree");
        goto fail;
    }
    for (uint32_t v = 0; v < d->n; v++)
        d->retained_objects[v] = v != 0 && d->retained[v] != 0;
    for (uint32_t k = d->n_rpo; k-- > 1;) {
        uint32_t v = d->rpo[k], p = d->idom[v];
        d->retained[p] += d->retained[v];
        d->retained_objects[p] += d->retained_objects[v];
    }
    return d;
fail:
    dbg_dom_free(d);
    return NULL;
}

/* The node of a reachable object, or NONE. */
static uint32_t node_of(const DbgDom *d, uint64_t addr)
{
    size_t k = dbg_reach_rank(d->r, addr);
    return k == SIZE_MAX ? NONE : (uint32_t)(k + 1);
}

uint64_t dbg_dom_retained(const DbgDom *d, uint64_t addr)
{
    uint32_t v = node_of(d, addr);
    return v == NONE || d->retained == NULL ? 0 : d->retained[v];
}

uint64_t dbg_dom_idom(const DbgDom *d, uint64_t addr)
{
    uint32_t v = node_of(d, addr);
    return v == NONE ? 0 : node_addr(d, d->idom[v]);
}

/* ----------------------------------------------------------------------
 * Topmost objects of a kind
 * ---------------------------------------------------------------------- */

/* Calls f(v, key[v]) for every node v with a key whose dominator-tree
 * ancestors have none of the same key: the objects of a kind that are not
 * already inside the retained set of another of that kind, so that their
 * retained sizes add up without counting anything twice. */
typedef struct {
    uint32_t v, next;   /* a node and its next child to visit */
} TopFrame;

int dbg_dom_topmost(const DbgDom *d, const uint32_t *key, uint32_t n_keys,
                       void (*f)(uint32_t v, uint32_t key, void *env), void *env)
{
    /* The children lists (CSR, 32 bits): counts, then filled from each
     * list's end in reverse rpo so that a list reads in rpo order. */
    uint32_t *active = calloc(n_keys ? n_keys : 1, sizeof *active);
    uint32_t *kid_off = calloc((size_t)d->n + 1, sizeof *kid_off);
    uint32_t *kids = malloc((size_t)d->n * sizeof *kids);
    TopFrame *stack = NULL;   /* grown: as deep as the tree */
    size_t sp = 0, cap = 0;
    int st = -1;
    if (active == NULL || kid_off == NULL || kids == NULL)
        goto out;
    for (uint32_t k = 1; k < d->n_rpo; k++)
        kid_off[d->idom[d->rpo[k]]]++;
    for (uint32_t v = 1; v <= d->n; v++)
        kid_off[v] += kid_off[v - 1];   /* kid_off[v]: end of v's list */
    for (uint32_t k = d->n_rpo; k-- > 1;) {
        uint32_t v = d->rpo[k];
        kids[--kid_off[d->idom[v]]] = v;
    }
    /* kid_off[v] is now the start of v's list. */
    cap = 1024;
    if ((stack = malloc(cap * sizeof *stack)) == NULL)
        goto out;
    stack[sp++] = (TopFrame){0, kid_off[0]};
    while (sp > 0) {
        uint32_t v = stack[sp - 1].v;
        if (stack[sp - 1].next < kid_off[v + 1]) {
            uint32_t w = kids[stack[sp - 1].next++];
            if (key[w] != NONE) {
                if (active[key[w]]++ == 0)
                    f(w, key[w], env);
            }
            if (GROW_ARRAY_RESERVE(stack, cap, sp + 1) != 0)
                goto out;
            stack[sp++] = (TopFrame){w, kid_off[w]};
            continue;
        }
        sp--;
        if (key[v] != NONE)
            active[key[v]]--;
    }
    st = 0;
out:
    free(active);
    free(kid_off);
    free(kids);
    free(stack);
    return st == 0 ? 0 : dbg_fail(d->c, "out of memory for the dominator tree walk");
}

/* ----------------------------------------------------------------------
 * Census by retained size
 * ---------------------------------------------------------------------- */

typedef struct {
    const DbgDom *d;
    DbgCensus *cs;
} RetainedAdd;

static void add_retained(uint32_t v, uint32_t key, void *env)
{
    RetainedAdd *a = env;
    a->cs->buckets[key].retained_bytes += a->d->retained[v];
}

static int retained_cmp(const void *a, const void *b)
{
    const DbgBucket *x = a, *y = b;
    if (x->retained_bytes != y->retained_bytes)
        return x->retained_bytes > y->retained_bytes ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->label, y->label);
}

int dbg_census_retained(DbgClient *c, const DbgReach *r, const DbgDom *d, DbgCensusBy by,
                        const DbgEraRange *eras, DbgCensus *out)
{
    if (d->retained == NULL)
        return dbg_fail(c, "census: the dominator tree was built without retained sizes");
    if (dbg_census(c, r, by, eras, out) != 0)
        return -1;
    uint32_t *key = malloc((size_t)d->n * sizeof *key);
    WordMap index = {0};   /* label hash -> bucket + 1 (labels are distinct) */
    if (key == NULL)
        goto oom;
    for (size_t i = 0; i < out->n; i++) {
        uint64_t h = dbg_label_hash(out->buckets[i].label);
        while (word_map_get(&index, h) != NULL)
            h += 2;
        if (word_map_put(&index, h, i + 1) != 0)
            goto oom;
    }
    key[0] = NONE;
    DbgRankIter it = {0};
    uint64_t addr;
    for (uint32_t v = 1; v < d->n && dbg_reach_next(r, &it, &addr); v++) {
        key[v] = NONE;
        DbgClosure cl;
        if (dbg_reach_closure(c, &it, addr, &cl) != 0)
            goto fail;
        if (!dbg_census_counts(&cl, by, eras))
            continue;
        char buf[32];
        const char *label = dbg_census_label(&cl, by, buf, sizeof buf);
        for (uint64_t h = dbg_label_hash(label);; h += 2) {
            uint64_t *b = word_map_get(&index, h);
            if (b == NULL)
                break;
            if (strcmp(out->buckets[*b - 1].label, label) == 0) {
                key[v] = (uint32_t)(*b - 1);
                break;
            }
        }
    }
    RetainedAdd a = {d, out};
    if (dbg_dom_topmost(d, key, (uint32_t)out->n, add_retained, &a) != 0)
        goto fail;
    if (out->n > 1)
        qsort(out->buckets, out->n, sizeof *out->buckets, retained_cmp);
    free(key);
    word_map_free(&index);
    return 0;
oom:
    dbg_fail(c, "out of memory for the retained census");
fail:
    free(key);
    word_map_free(&index);
    dbg_census_free(out);
    return -1;
}

/* ----------------------------------------------------------------------
 * The objects that keep the most
 * ---------------------------------------------------------------------- */

/* An entry and its depth in the dominator tree.  A dominator whose own
 * bytes are 0 (a static closure) retains exactly what its child does; the
 * depth puts it first on such a tie, so the order does not hang on where
 * the loader placed the static data. */
typedef struct {
    DbgDomEntry e;
    uint32_t depth;
} RankedEntry;

static int entry_cmp(const void *a, const void *b)
{
    const RankedEntry *x = a, *y = b;
    if (x->e.retained_bytes != y->e.retained_bytes)
        return x->e.retained_bytes > y->e.retained_bytes ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->e.addr < y->e.addr ? -1 : x->e.addr > y->e.addr;
}

int dbg_dom_top(DbgClient *c, const DbgDom *d, DbgDomEntry *out, size_t cap, size_t *n)
{
    *n = 0;
    if (cap == 0)
        return 0;
    if (d->retained == NULL)
        return dbg_fail(c, "dominators: the tree was built without retained sizes");
    RankedEntry *all = malloc(((size_t)d->n ? d->n : 1) * sizeof *all);
    uint32_t *depth = calloc((size_t)d->n ? d->n : 1, sizeof *depth);
    if (all == NULL || depth == NULL) {
        free(all);
        free(depth);
        return dbg_fail(c, "out of memory");
    }
    /* A node's immediate dominator comes before it in reverse postorder. */
    for (uint32_t k = 1; k < d->n_rpo; k++) {
        uint32_t v = d->rpo[k];
        depth[v] = depth[d->idom[v]] + 1;
    }
    size_t m = 0;
    DbgRankIter it = {0};
    uint64_t addr;
    for (uint32_t v = 1; v < d->n && dbg_reach_next(d->r, &it, &addr); v++) {
        uint32_t p = d->idom[v];
        if (p == NONE)
            continue;   /* not reached from the virtual root */
        DbgClosure cl, pl;
        if (dbg_reach_closure(c, &it, addr, &cl) != 0) {
            free(all);
            free(depth);
            return -1;
        }
        uint64_t paddr = node_addr(d, p);
        /* The head of a chain of one info table stands for the chain. */
        if (p != 0) {
            if (dbg_closure(c, paddr, &pl) != 0) {
                free(all);
                free(depth);
                return -1;
            }
            if (pl.info == cl.info)
                continue;
        }
        all[m++] = (RankedEntry){{addr, d->retained[v], d->retained_objects[v],
                                  cl.block != NULL ? (uint64_t)cl.n_words * 8 : 0, paddr},
                                 depth[v]};
    }
    free(depth);
    qsort(all, m, sizeof *all, entry_cmp);
    *n = m < cap ? m : cap;
    for (size_t i = 0; i < *n; i++)
        out[i] = all[i].e;
    free(all);
    return 0;
}
