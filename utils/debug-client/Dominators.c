/*
 * utils/debug-client/Dominators.c -- the dominator tree of the live heap
 * and what it answers: each object's retained size (the bytes that would
 * be freed if it died), the objects that keep the most memory, and the era
 * boundary (objects of later eras holding objects of older ones, ranked by
 * the old bytes only they keep alive).  Relies on Ranks.c's dense object
 * numbering (Note [Ranks from the marks]).  See docs/strata-debug.md and
 * docs/design/debugger.md.
 */
#include <stdlib.h>
#include <string.h>

#include "ClientPrivate.h"
#include "GrowArray.h"
#include "DebugAnalysis.h"
#include "strata/Debug.h"

#define NONE UINT32_MAX

/* ----------------------------------------------------------------------
 * Immediate dominators of a graph
 * ---------------------------------------------------------------------- */

/* Note [Dominators by Cooper, Harvey and Kennedy]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Node d dominates v when every path from the root to v passes through d;
 * v's immediate dominator is the nearest such d.  If v's immediate
 * dominator died, so would v, which is why the sum of the sizes in v's
 * dominator subtree is what v *retains*.  We use the iterative algorithm of
 * Cooper, Harvey and Kennedy ("A Simple, Fast Dominance Algorithm", 2001):
 * number the nodes in depth-first postorder, then, in reverse postorder,
 * set each node's dominator to the meeting point of its already-processed
 * predecessors' dominators, until nothing changes.  On heap graphs (mostly
 * trees and lists, few back edges) it settles in two or three passes and
 * needs only the postorder numbers and the predecessor lists.  Rejected:
 * Lengauer-Tarjan (near-linear in the worst case, but four more arrays per
 * node and much harder to check); a reachability test per object (the
 * brute force of test_debug_dominators_match_brute_force, quadratic). */

/* Walks up from a and b to their nearest common dominator. */
static uint32_t intersect(const uint32_t *idom, const uint32_t *po, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (po[a] < po[b])
            a = idom[a];
        while (po[b] < po[a])
            b = idom[b];
    }
    return a;
}

/* Note [Stamped intersections]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A node with many predecessors (a static every leaf of a tree points
 * at, a shared constructor) costs one intersect per predecessor per
 * pass, each walking up the tree from the predecessor to the meeting
 * point: tens of steps for each of millions of leaves, most of the
 * dominators' time on the 1 GB heap of docs/design/debugger.md.  While
 * one node's predecessors are folded, every node the walks pass is
 * stamped with a number of that fold: such a node lies below the
 * meeting point found so far (walks only go up to it, and the meeting
 * point only moves up), so a later walk that reaches a stamped node can
 * stop there with the current meeting point as the answer.  Each fold
 * then walks each tree node once at most.  Folds of a few predecessors
 * use the plain walk. */
#define STAMP_MIN_PREDS 8

static uint32_t intersect_stamped(const uint32_t *idom, const uint32_t *po, uint32_t *stamp,
                                  uint32_t token, uint32_t a, uint32_t b)
{
    while (a != b) {
        while (po[a] < po[b]) {
            if (stamp[a] == token)
                return b;   /* a is below b already */
            stamp[a] = token;
            a = idom[a];
        }
        while (po[b] < po[a]) {
            stamp[b] = token;
            b = idom[b];
        }
    }
    return a;
}

/* Note [Dominator memory]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * On a 1 GB heap of 33.5 M objects every byte per object is 33.5 MB, and
 * the first version of the tree took about 85 bytes an object on top of
 * the traversal (3.6 GB for boundary, docs/design/debugger.md).  Now:
 * node numbers and edge offsets are 32 bits (a graph of 2^32 - 1 edges
 * or more is refused with an error: a heap of 32 GB of pointers); the
 * successors are one CSR pair, freed as soon as the predecessor lists
 * (built from them, reachable nodes only) exist; the postorder is written
 * straight into the reverse-postorder array the tree keeps; a node's
 * address is not stored (dbg_reach_addr finds it from its rank, and the
 * passes over every node walk the marks in rank order); a node's own
 * bytes are the initial value of its retained bytes; and the children
 * lists that dom_topmost walks are built there and freed after.  What the
 * tree keeps is 20 bytes a node: idom, rpo, retained bytes (64 bits) and
 * retained objects (32 bits, at most the node count); 8 without the sums
 * (dbg_dominators_opts), which the boundary does not read: it sums its
 * own old-era bytes. */

/* idom as dbg_graph_idom for the CSR graph *offp, *succp, which it frees
 * (and NULLs) once the predecessor lists are built.  rpo (n entries) gets
 * the reachable nodes in reverse postorder, *n_rpo how many. */
static int graph_idom(uint32_t n, uint32_t **offp, uint32_t **succp, uint32_t *idom,
                      uint32_t *rpo, uint32_t *n_rpo)
{
    const uint32_t *off = *offp, *succ = *succp;
    uint32_t *po = malloc((size_t)(n ? n : 1) * sizeof *po);      /* postorder number */
    uint32_t *order = rpo;   /* postorder, reversed in place at the end */
    uint32_t *stack = malloc((size_t)(n ? n : 1) * sizeof *stack);
    uint32_t *cursor = malloc((size_t)(n ? n : 1) * sizeof *cursor);
    uint32_t *pred_off = NULL, *pred = NULL;
    int st = -1;
    if (po == NULL || stack == NULL || cursor == NULL)
        goto out;
    for (uint32_t v = 0; v < n; v++) {
        idom[v] = NONE;
        po[v] = NONE;
    }
    *n_rpo = 0;
    if (n == 0) {
        st = 0;
        goto out;
    }
    /* Depth-first postorder from node 0, with an explicit stack. */
    uint32_t n_order = 0, sp = 0;
    stack[sp++] = 0;
    cursor[0] = off[0];
    po[0] = NONE - 1;   /* on the stack */
    while (sp > 0) {
        uint32_t v = stack[sp - 1];
        if (cursor[v] < off[v + 1]) {
            uint32_t w = succ[cursor[v]++];
            if (po[w] == NONE) {
                po[w] = NONE - 1;
                cursor[w] = off[w];
                stack[sp++] = w;
            }
            continue;
        }
        sp--;
        po[v] = n_order;
        order[n_order++] = v;
    }
    free(stack);
    free(cursor);
    stack = cursor = NULL;
    /* Predecessor lists of the reachable nodes: counts, then each list
     * filled from its end, sources in descending order so that a list
     * reads in ascending order. */
    pred_off = calloc((size_t)n + 1, sizeof *pred_off);
    if (pred_off == NULL)
        goto out;
    for (uint32_t v = 0; v < n; v++)
        if (po[v] != NONE)
            for (uint32_t e = off[v]; e < off[v + 1]; e++)
                pred_off[succ[e]]++;
    for (uint32_t v = 1; v <= n; v++)
        pred_off[v] += pred_off[v - 1];   /* pred_off[v]: end of v's list */
    pred = malloc((size_t)(pred_off[n] ? pred_off[n] : 1) * sizeof *pred);
    if (pred == NULL)
        goto out;
    for (uint32_t v = n; v-- > 0;)
        if (po[v] != NONE)
            for (uint32_t e = off[v + 1]; e-- > off[v];)
                pred[--pred_off[succ[e]]] = v;
    /* pred_off[v] is now the start of v's list, pred_off[n] the total. */
    free(*offp);
    free(*succp);
    *offp = NULL;
    *succp = NULL;
    idom[0] = 0;
    uint32_t *stamp = calloc((size_t)n, sizeof *stamp), token = 0;
    if (stamp == NULL)
        goto out;
    /* A node with one predecessor has it as its DFS parent, set in the
     * first pass and final: later passes skip it. */
    for (bool changed = true, first = true; changed; first = false) {
        changed = false;
        for (uint32_t k = n_order - 1; k-- > 0;) {   /* reverse postorder, root skipped */
            uint32_t v = order[k], best = NONE;
            uint32_t n_pred = pred_off[v + 1] - pred_off[v];
            if (!first && n_pred == 1)
                continue;
            bool stamped = n_pred >= STAMP_MIN_PREDS;
            if (stamped && ++token == 0) {   /* wrapped: old stamps would match */
                memset(stamp, 0, (size_t)n * sizeof *stamp);
                token = 1;
            }
            for (uint32_t e = pred_off[v]; e < pred_off[v + 1]; e++) {
                uint32_t p = pred[e];
                if (idom[p] == NONE)
                    continue;   /* not processed yet */
                best = best == NONE ? p
                       : stamped ? intersect_stamped(idom, po, stamp, token, p, best)
                                 : intersect(idom, po, p, best);
            }
            if (best != idom[v]) {
                idom[v] = best;
                changed = true;
            }
        }
    }
    free(stamp);
    for (uint32_t i = 0, j = n_order - 1; i < j; i++, j--) {
        uint32_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    *n_rpo = n_order;
    st = 0;
out:
    free(po);
    free(stack);
    free(cursor);
    free(pred_off);
    free(pred);
    return st;
}

int dbg_graph_idom(uint32_t n, const uint64_t *off, const uint32_t *succ, uint32_t *idom)
{
    if (off[n] >= NONE)
        return -1;
    uint32_t *off32 = malloc(((size_t)n + 1) * sizeof *off32);
    uint32_t *succ32 = malloc((size_t)(off[n] ? off[n] : 1) * sizeof *succ32);
    uint32_t *rpo = malloc((size_t)(n ? n : 1) * sizeof *rpo), n_rpo;
    int st = -1;
    if (off32 != NULL && succ32 != NULL && rpo != NULL) {
        for (uint32_t v = 0; v <= n; v++)
            off32[v] = (uint32_t)off[v];
        memcpy(succ32, succ, (size_t)off[n] * sizeof *succ32);
        st = graph_idom(n, &off32, &succ32, idom, rpo, &n_rpo);
    }
    free(off32);
    free(succ32);
    free(rpo);
    return st;
}

/* ----------------------------------------------------------------------
 * The heap's dominator tree
 * ---------------------------------------------------------------------- */

/* Node 0 is a virtual root pointing at every root's closure; node k + 1 is
 * the reachable object of rank k (dbg_reach_rank).  See Note [Dominator
 * memory]. */
struct DbgDom {
    DbgClient *c;
    DbgReach *r;
    uint32_t n;                  /* nodes, the virtual root included */
    uint32_t *idom;              /* [n] immediate dominator (node 0: itself) */
    uint32_t *rpo;               /* [n_rpo] reverse postorder: a dominator before
                                  * everything it dominates */
    uint32_t n_rpo;
    uint64_t *retained;          /* [n] bytes in its dominator subtree */
    uint32_t *retained_objects;  /* [n] heap objects in its dominator subtree */
};

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
    int st = graph_idom(d->n, &off, &succ, d->idom, d->rpo, &d->n_rpo);
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

static int dom_topmost(const DbgDom *d, const uint32_t *key, uint32_t n_keys,
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
    if (dom_topmost(d, key, (uint32_t)out->n, add_retained, &a) != 0)
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

static int entry_cmp(const void *a, const void *b)
{
    const DbgDomEntry *x = a, *y = b;
    if (x->retained_bytes != y->retained_bytes)
        return x->retained_bytes > y->retained_bytes ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int dbg_dom_top(DbgClient *c, const DbgDom *d, DbgDomEntry *out, size_t cap, size_t *n)
{
    *n = 0;
    if (cap == 0)
        return 0;
    if (d->retained == NULL)
        return dbg_fail(c, "dominators: the tree was built without retained sizes");
    DbgDomEntry *all = malloc(((size_t)d->n ? d->n : 1) * sizeof *all);
    if (all == NULL)
        return dbg_fail(c, "out of memory");
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
            return -1;
        }
        uint64_t paddr = node_addr(d, p);
        /* The head of a chain of one info table stands for the chain. */
        if (p != 0) {
            if (dbg_closure(c, paddr, &pl) != 0) {
                free(all);
                return -1;
            }
            if (pl.info == cl.info)
                continue;
        }
        all[m++] = (DbgDomEntry){addr, d->retained[v], d->retained_objects[v],
                                 cl.block != NULL ? (uint64_t)cl.n_words * 8 : 0, paddr};
    }
    qsort(all, m, sizeof *all, entry_cmp);
    *n = m < cap ? m : cap;
    memcpy(out, all, *n * sizeof *out);
    free(all);
    return 0;
}

/* ----------------------------------------------------------------------
 * The era boundary
 * ---------------------------------------------------------------------- */

typedef struct {
    DbgBoundary *b;
    const uint64_t *old;         /* [n] old-era bytes in the dominator subtree */
    const uint32_t *old_objects;
} BoundaryAdd;

static void add_holder(uint32_t v, uint32_t key, void *env)
{
    BoundaryAdd *a = env;
    a->b->groups[key].retained_bytes += a->old[v];
    a->b->groups[key].retained_objects += a->old_objects[v];
}

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

/* What dbg_boundary and dbg_boundary_reach share: the groups, built in
 * rank order so that each group's example is the first holder of its info
 * table. */
typedef struct {
    uint64_t *ptrs;
    size_t ptr_cap;
    WordMap groups;   /* holder info table -> group + 1 */
    size_t cap;       /* of out->groups */
} EdgeScan;

static void edge_scan_free(EdgeScan *e)
{
    free(e->ptrs);
    word_map_free(&e->groups);
}

/* Adds cl's pointers at reachable objects that q matches to cl's group in
 * out (created on the first); *group is set to that group, or left as it
 * is when cl points at none.  cl is of an era above q's.  0, or -1 when
 * out of C heap. */
static int holder_edges(DbgClient *c, const DbgReach *r, const DbgQuery *q, const DbgClosure *cl,
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
        if (holder_edges(c, d->r, q, &cl, &e, out, &key[v]) != 0)
            goto oom;
    }
    /* Old bytes per dominator subtree, leaves first. */
    for (uint32_t k = d->n_rpo; k-- > 1;) {
        uint32_t v = d->rpo[k];
        old[d->idom[v]] += old[v];
        old_objects[d->idom[v]] += old_objects[v];
    }
    BoundaryAdd a = {out, old, old_objects};
    if (dom_topmost(d, key, (uint32_t)out->n, add_holder, &a) != 0)
        goto fail;
    if (out->n > 1)
        qsort(out->groups, out->n, sizeof *out->groups, group_cmp);
    free(key);
    free(old);
    free(old_objects);
    edge_scan_free(&e);
    return 0;
oom:
    dbg_fail(c, "out of memory for the era boundary");
fail:
    free(key);
    free(old);
    free(old_objects);
    edge_scan_free(&e);
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

/* Note [A boundary without the dominator tree]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The boundary needs, of the dominator tree, only which holders dominate
 * each old object; the whole tree costs about 32 bytes an object at its
 * peak (2.3x the live heap on docs/design/debugger.md's 1 GB heap, against
 * a target of 1.3x).  Walks over a label per object (4 bytes, by rank)
 * and the dominator tree of the holders alone answer it:
 *
 * 1. From the roots, not going past a holder: what it marks is reachable
 *    without any holder, so no holder dominates it, and it leads only to
 *    marked objects or holders.  The holders it reaches are *root
 *    holders*.  Everything else (S) is reached only through holders, and
 *    a path's part after its last holder lies in S.
 * 2. The holders' dominator tree: the graph whose nodes are a virtual
 *    root and the holders, with an edge from the root to each root holder
 *    and from holder h to each holder h reaches through S alone (one walk
 *    from each holder, each object visited once a walk), by
 *    Cooper-Harvey-Kennedy.  Every path of the heap to a holder passes
 *    the holders of some path of this graph, and back, so a holder
 *    dominates another here exactly when it does in the heap.  With every
 *    holder a root holder the tree is flat and needs no walk.
 * 3. Holder g dominates an object x of S exactly when g dominates (or is)
 *    every holder from which x is reached through S alone (every path to
 *    x leaves the holders last at one of them).  So one walk from each
 *    holder sets each object's label to the nearest common dominator, in
 *    the holders' tree, of the holders that reached it so far (the
 *    virtual root: none dominates it).  A walk stops where the label does
 *    not change: everything below was reached by the same holders at
 *    least, so its label is that one's or above it already.  A label only
 *    moves up, so an object is walked at most once a level.
 * 4. An old object's bytes go to its label's holder; sums over the
 *    holders' tree, then each group's topmost holders (dom_topmost), as
 *    dbg_boundary does over the whole tree.
 *
 * Walks of more than 4 visits an object (many holders reaching one large
 * part of the heap, each walking it whole in step 2) give up for the
 * whole tree (dbg_boundary), which gives the same answers
 * (test_debug_boundary_without_the_tree_matches_it); so do `dominators`
 * and `census --retained`, which need every object's retained size.
 * Rejected: the dominator tree of S alone (S is half the heap where one
 * holder keeps half of it: 16 bytes an object of S at least is still over
 * the target); a reachability test per holder (one walk of S each, and
 * it says what a holder's removal frees, not what it dominates when
 * holders share). */

#define LBL_NONE UINT32_MAX          /* not reached yet */
#define LBL_FREE (UINT32_MAX - 1)    /* reached from the roots without a holder */
#define LBL_HOLDER (UINT32_MAX - 2)  /* a holder not reached so yet */
#define LBL_ROOT (UINT32_MAX - 3)    /* a holder reached so: a root holder */
#define LBL_MAX_HOLDERS (UINT32_MAX - 5)

typedef struct {
    uint64_t *a;
    size_t n, cap;
} AddrStack;

static int stack_push(AddrStack *s, uint64_t a)
{
    if (GROW_ARRAY_RESERVE_MIN(s->a, s->cap, s->n + 1, 4096) != 0)
        return -1;
    s->a[s->n++] = a;
    return 0;
}

typedef struct {
    const DbgReach *r;
    const DbgQuery *q;
    EdgeScan e;
    DbgBoundary *out;
    uint64_t *addr;     /* holders in rank order */
    uint32_t *group;    /* and their groups */
    size_t n, cap;
} HolderScan;

static int scan_holder(DbgClient *c, const DbgClosure *cl, void *env)
{
    HolderScan *h = env;
    uint32_t g = NONE;
    if (holder_edges(c, h->r, h->q, cl, &h->e, h->out, &g) != 0)
        return dbg_fail(c, "out of memory for the era boundary");
    if (g == NONE)
        return 0;
    /* Two arrays of one capacity: each grows from h->cap to the same size. */
    size_t cap_addr = h->cap, cap_group = h->cap;
    if (GROW_ARRAY_RESERVE_MIN(h->addr, cap_addr, h->n + 1, 64) != 0 ||
        GROW_ARRAY_RESERVE_MIN(h->group, cap_group, h->n + 1, 64) != 0)
        return dbg_fail(c, "out of memory for the era boundary");
    h->cap = cap_group;
    h->addr[h->n] = cl->addr;
    h->group[h->n++] = g;
    return 0;
}

/* The holders' index by address (they are in rank order, which is address
 * order among heap objects), or NONE. */
static uint32_t holder_index(const HolderScan *h, uint64_t addr)
{
    size_t lo = 0, hi = h->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->addr[mid] < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < h->n && h->addr[lo] == addr ? (uint32_t)lo : NONE;
}

/* The walks' state.  Holder-tree nodes: 0 the virtual root, i + 1 holder i. */
typedef struct {
    const HolderScan *h;
    uint32_t *label;              /* [ranked objects] */
    size_t work, max_work;        /* objects expanded; past max_work: the tree */
    /* The holder graph, while it is found: */
    uint32_t *edge_stamp;         /* [holders] the last walk that reached it */
    uint32_t *succ;
    size_t n_succ, cap_succ;
    /* The holders' dominator tree, once known: */
    const uint32_t *idom, *depth;
} Labels;

#define WALK_TOO_LONG (-2)

static uint32_t holder_lca(const Labels *L, uint32_t a, uint32_t b)
{
    while (a != b) {
        if (L->depth[a] >= L->depth[b])
            a = L->idom[a];
        else
            b = L->idom[b];
    }
    return a;
}

/* A walk's step as it reaches the object of rank k at addr, carrying a
 * holder-tree node: 1 when the walk goes on below it, 0 when not, -1 when
 * out of C heap, WALK_TOO_LONG past the work allowed. */
typedef int (*LabelStep)(Labels *L, size_t k, uint64_t addr, uint32_t carry);

/* From the roots: mark, stop at holders (root holders). */
static int step_free(Labels *L, size_t k, uint64_t addr, uint32_t carry)
{
    (void)addr;
    (void)carry;
    uint32_t *l = &L->label[k];
    if (*l == LBL_HOLDER)
        *l = LBL_ROOT;
    else if (*l == LBL_NONE) {
        *l = LBL_FREE;
        return 1;
    }
    return 0;
}

/* From holder carry - 1, finding the holders it reaches last (the holder
 * graph's edges); each walk visits its objects once (the label stamped). */
static int step_edges(Labels *L, size_t k, uint64_t addr, uint32_t carry)
{
    uint32_t *l = &L->label[k];
    if (*l == LBL_FREE || *l == carry)
        return 0;
    if (*l == LBL_HOLDER || *l == LBL_ROOT) {
        uint32_t g = holder_index(L->h, addr);
        if (g == NONE || g + 1 == carry || L->edge_stamp[g] == carry)
            return 0;
        L->edge_stamp[g] = carry;
        if (L->n_succ == L->cap_succ) {
            size_t cap = L->cap_succ ? 2 * L->cap_succ : 256;
            uint32_t *s = cap < NONE ? realloc(L->succ, cap * sizeof *s) : NULL;
            if (s == NULL)
                return -1;
            L->succ = s;
            L->cap_succ = cap;
        }
        L->succ[L->n_succ++] = g + 1;
        return 0;
    }
    if (++L->work > L->max_work)
        return WALK_TOO_LONG;
    *l = carry;
    return 1;
}

/* From holder carry - 1, with the holders' tree known: an object's label
 * becomes the nearest common dominator of the holders that reach it last
 * (0: none dominates it). */
static int step_held(Labels *L, size_t k, uint64_t addr, uint32_t carry)
{
    (void)addr;
    uint32_t *l = &L->label[k];
    if (*l == LBL_FREE || *l == LBL_HOLDER || *l == LBL_ROOT)
        return 0;
    uint32_t m = *l == LBL_NONE ? carry : holder_lca(L, *l, carry);
    if (m == *l)
        return 0;   /* so below it already */
    if (++L->work > L->max_work)
        return WALK_TOO_LONG;
    *l = m;
    return 1;
}

/* Pops s until empty, stepping into what each object points at. */
static int walk(DbgClient *c, const DbgReach *r, Labels *L, AddrStack *s, EdgeScan *e,
                LabelStep step, uint32_t carry)
{
    while (s->n > 0) {
        uint64_t a = s->a[--s->n];
        DbgClosure cl;
        size_t np;
        if (dbg_closure(c, a, &cl) != 0)
            return -1;
        if (dbg_closure_ptrs_grow(c, &cl, &e->ptrs, &e->ptr_cap, &np) != 0)
            return dbg_fail(c, "out of memory for the era boundary");
        for (size_t i = 0; i < np; i++) {
            size_t k = e->ptrs[i] != 0 ? dbg_reach_rank(r, e->ptrs[i]) : SIZE_MAX;
            if (k == SIZE_MAX)
                continue;
            int st = step(L, k, e->ptrs[i], carry);
            if (st == 1 && stack_push(s, e->ptrs[i]) != 0)
                st = -1;
            if (st == -1)
                return dbg_fail(c, "out of memory for the era boundary");
            if (st == WALK_TOO_LONG)
                return st;
        }
    }
    return 0;
}

/* One walk from each holder. */
static int walk_holders(DbgClient *c, const DbgReach *r, Labels *L, AddrStack *s, EdgeScan *e,
                        LabelStep step, size_t *off)
{
    for (size_t i = 0; i < L->h->n; i++) {
        if (stack_push(s, L->h->addr[i]) != 0)
            return dbg_fail(c, "out of memory for the era boundary");
        int st = walk(c, r, L, s, e, step, (uint32_t)i + 1);
        if (st != 0)
            return st;
        if (off != NULL)
            off[i + 2] = L->n_succ;
    }
    return 0;
}

/* Note [A boundary without the dominator tree]: 1 when it answered into
 * h->out, 0 when the walks grew too long (the caller builds the tree),
 * -1 on an error. */
static int boundary_by_labels(DbgClient *c, const DbgReach *r, HolderScan *h)
{
    size_t n = dbg_reach_n_ranked(r);
    uint32_t nh = (uint32_t)h->n + 1;   /* holder-tree nodes */
    Labels L = {.h = h, .max_work = 4 * n + 4096};
    AddrStack s = {0};
    uint32_t *off = NULL, *idom = NULL, *rpo = NULL, *depth = NULL, *key = NULL, *objs = NULL;
    uint64_t *bytes = NULL;
    int st = -1;
    L.label = malloc((n ? n : 1) * sizeof *L.label);
    L.edge_stamp = calloc(nh, sizeof *L.edge_stamp);
    off = calloc((size_t)nh + 1, sizeof *off);
    idom = malloc((size_t)nh * sizeof *idom);
    rpo = malloc((size_t)nh * sizeof *rpo);
    depth = malloc((size_t)nh * sizeof *depth);
    if (L.label == NULL || L.edge_stamp == NULL || off == NULL || idom == NULL || rpo == NULL ||
        depth == NULL) {
        dbg_fail(c, "out of memory for the era boundary");
        goto out;
    }
    for (size_t k = 0; k < n; k++)
        L.label[k] = LBL_NONE;
    for (size_t i = 0; i < h->n; i++)
        L.label[dbg_reach_rank(r, h->addr[i])] = LBL_HOLDER;
    /* 1. From the roots, not past a holder. */
    const DbgRoot *roots;
    size_t n_roots;
    if (dbg_roots(c, &roots, &n_roots) != 0)
        goto out;
    for (size_t i = 0; i < n_roots; i++) {
        if (roots[i].kind == DEBUG_ROOT_REMEMBERED || roots[i].addr == 0)
            continue;
        size_t k = dbg_reach_rank(r, roots[i].addr);
        if (k != SIZE_MAX && step_free(&L, k, roots[i].addr, 0) == 1 &&
            stack_push(&s, roots[i].addr) != 0) {
            dbg_fail(c, "out of memory for the era boundary");
            goto out;
        }
        if (walk(c, r, &L, &s, &h->e, step_free, 0) != 0)
            goto out;
    }
    /* 2. The holders' dominator tree: the virtual root points at the root
     * holders, each holder at the holders it reaches last.  With every
     * holder a root holder it is flat, and needs no walk. */
    bool flat = true;
    for (size_t i = 0; i < h->n; i++)
        if (L.label[dbg_reach_rank(r, h->addr[i])] != LBL_ROOT)
            flat = false;
    if (flat) {
        for (uint32_t v = 0; v < nh; v++) {
            idom[v] = 0;
            rpo[v] = v;
            depth[v] = v != 0;
        }
    } else {
        for (size_t i = 0; i < h->n; i++)
            if (L.label[dbg_reach_rank(r, h->addr[i])] == LBL_ROOT) {
                if (GROW_ARRAY_RESERVE_MIN(L.succ, L.cap_succ, L.n_succ + 1, 256) != 0) {
                    dbg_fail(c, "out of memory for the era boundary");
                    goto out;
                }
                L.succ[L.n_succ++] = (uint32_t)i + 1;
            }
        size_t *offs = calloc((size_t)nh + 1, sizeof *offs);
        if (offs == NULL) {
            dbg_fail(c, "out of memory for the era boundary");
            goto out;
        }
        offs[1] = L.n_succ;
        int w = walk_holders(c, r, &L, &s, &h->e, step_edges, offs);
        for (uint32_t v = 0; v <= nh; v++)
            off[v] = (uint32_t)offs[v];
        free(offs);
        if (w != 0) {
            st = w == WALK_TOO_LONG ? 0 : -1;
            goto out;
        }
        if (L.succ == NULL && (L.succ = malloc(sizeof *L.succ)) == NULL) {
            dbg_fail(c, "out of memory for the era boundary");
            goto out;
        }
        uint32_t n_rpo;
        uint32_t *succ = L.succ;
        L.succ = NULL;
        if (graph_idom(nh, &off, &succ, idom, rpo, &n_rpo) != 0) {
            free(succ);
            dbg_fail(c, "out of memory for the era boundary");
            goto out;
        }
        free(succ);
        if (n_rpo != nh) {
            st = 0;   /* a holder no walk reached: cannot be, but the tree knows */
            goto out;
        }
        depth[0] = 0;
        for (uint32_t k = 1; k < nh; k++)
            depth[rpo[k]] = depth[idom[rpo[k]]] + 1;
        for (size_t k = 0; k < n; k++)
            if (L.label[k] < LBL_MAX_HOLDERS)
                L.label[k] = LBL_NONE;   /* the stamps of the edge walks */
        L.work = 0;
    }
    L.idom = idom;
    L.depth = depth;
    /* 3. From each holder, what only holders reach, labelled. */
    int w = walk_holders(c, r, &L, &s, &h->e, step_held, NULL);
    if (w != 0) {
        st = w == WALK_TOO_LONG ? 0 : -1;
        goto out;
    }
    /* 4. An old object counts for its label's holder, and so for every
     * holder dominating that one: sums over the holders' tree, then each
     * group's topmost holders, as dbg_boundary does over the whole tree. */
    bytes = calloc(nh, sizeof *bytes);
    objs = calloc(nh, sizeof *objs);
    key = malloc((size_t)nh * sizeof *key);
    if (bytes == NULL || objs == NULL || key == NULL) {
        dbg_fail(c, "out of memory for the era boundary");
        goto out;
    }
    DbgRankIter it = {0};
    uint64_t addr;
    uint64_t lo = h->q->eras.lo, hi = h->q->eras.hi;
    for (size_t k = 0; k < n && dbg_reach_next(r, &it, &addr); k++) {
        if (L.label[k] >= LBL_MAX_HOLDERS || L.label[k] == 0)
            continue;
        DbgClosure cl;
        if (dbg_reach_closure(c, &it, addr, &cl) != 0)
            goto out;
        if (cl.block == NULL || cl.era < lo || cl.era > hi)
            continue;
        bytes[L.label[k]] += (uint64_t)cl.n_words * 8;
        objs[L.label[k]]++;
    }
    free(L.label);
    L.label = NULL;
    for (uint32_t k = nh; k-- > 1;) {
        bytes[idom[rpo[k]]] += bytes[rpo[k]];
        objs[idom[rpo[k]]] += objs[rpo[k]];
    }
    key[0] = NONE;
    for (uint32_t v = 1; v < nh; v++)
        key[v] = h->group[v - 1];
    DbgDom tree = {.c = c, .n = nh, .idom = idom, .rpo = rpo, .n_rpo = nh};
    BoundaryAdd add = {h->out, bytes, objs};
    if (dom_topmost(&tree, key, (uint32_t)h->out->n, add_holder, &add) != 0)
        goto out;
    st = 1;
out:
    free(L.label);
    free(L.edge_stamp);
    free(L.succ);
    free(s.a);
    free(off);
    free(idom);
    free(rpo);
    free(depth);
    free(key);
    free(bytes);
    free(objs);
    return st;
}

int dbg_boundary_reach(DbgClient *c, DbgReach *r, const DbgQuery *q, DbgBoundary *out)
{
    memset(out, 0, sizeof *out);
    if (!q->eras.on)
        return dbg_fail(c, "boundary: an era range is required");
    if (dbg_reach_rank_build(r) != 0)
        return -1;
    if (q->eras.hi == UINT64_MAX)
        return 0;   /* no era is later: no holder */
    if (dbg_reach_n_ranked(r) >= LBL_MAX_HOLDERS) {
        return dbg_fail(c, "boundary: too many objects (objects=%zu, max=%u)",
                        dbg_reach_n_ranked(r), LBL_MAX_HOLDERS - 1);
    }
    HolderScan h = {.r = r, .q = q, .out = out};
    int st = dbg_reach_for_each_heap_from(c, r, q->eras.hi + 1, scan_holder, &h);
    if (st == 0 && h.n > 0)
        st = boundary_by_labels(c, r, &h);
    else if (st == 0)
        st = 1;   /* no holder: an empty answer */
    free(h.addr);
    free(h.group);
    edge_scan_free(&h.e);
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
