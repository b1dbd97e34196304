/*
 * utils/debug-client/Dominators.c -- the dominator tree of the live heap
 * and what it answers: each object's retained size (the bytes that would
 * be freed if it died), the objects that keep the most memory, and the era
 * boundary (objects of later eras holding objects of older ones, ranked by
 * the old bytes only they keep alive).  Relies on Reach.c's dense object
 * numbering (Note [Ranks from the marks]).  See docs/strata-debug.md and
 * docs/design/debugger.md.
 */
#include <stdlib.h>
#include <string.h>

#include "ClientPrivate.h"
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

/* The pointer fields of cl into *ptrs (grown as needed, *cap entries);
 * *n says how many.  Returns 0, or -1 when out of C heap. */
static int closure_ptrs(DbgClient *c, const DbgClosure *cl, uint64_t **ptrs, size_t *cap,
                        size_t *n)
{
    *n = dbg_closure_ptrs(c, cl, *ptrs, *cap);
    if (*n <= *cap)
        return 0;
    uint64_t *g = realloc(*ptrs, *n * sizeof *g);
    if (g == NULL)
        return -1;
    *ptrs = g;
    *cap = *n;
    dbg_closure_ptrs(c, cl, *ptrs, *cap);
    return 0;
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
            if (closure_ptrs(c, &cl, &ptrs, &ptr_cap, &np) != 0)
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
            if (sp == cap) {
                void *g = realloc(stack, 2 * cap * sizeof *stack);
                if (g == NULL)
                    goto out;
                stack = g;
                cap *= 2;
            }
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
    AddrMap index = {0};   /* label hash -> bucket + 1 (labels are distinct) */
    if (key == NULL)
        goto oom;
    for (size_t i = 0; i < out->n; i++) {
        uint64_t h = dbg_label_hash(out->buckets[i].label);
        while (addr_map_get(&index, h) != NULL)
            h += 2;
        if (addr_map_put(&index, h, i + 1) != 0)
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
            uint64_t *b = addr_map_get(&index, h);
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
    addr_map_free(&index);
    return 0;
oom:
    dbg_fail(c, "out of memory for the retained census");
fail:
    free(key);
    addr_map_free(&index);
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

int dbg_boundary(DbgClient *c, const DbgDom *d, const DbgQuery *q, DbgBoundary *out)
{
    memset(out, 0, sizeof *out);
    if (!q->eras.on)
        return dbg_fail(c, "boundary: an era range is required");
    uint64_t lo = q->eras.lo, hi = q->eras.hi;
    uint32_t *key = malloc((size_t)d->n * sizeof *key);
    uint64_t *old = calloc(d->n, sizeof *old);
    uint32_t *old_objects = calloc(d->n, sizeof *old_objects);
    AddrMap groups = {0};   /* holder info table -> group + 1 */
    uint64_t *ptrs = NULL;
    size_t ptr_cap = 0, cap = 0;
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
        size_t np;
        if (closure_ptrs(c, &cl, &ptrs, &ptr_cap, &np) != 0)
            goto oom;
        for (size_t i = 0; i < np; i++) {
            DbgClosure t;
            if (node_of(d, ptrs[i]) == NONE || dbg_closure(c, ptrs[i], &t) != 0 ||
                !dbg_query_matches(q, &t))
                continue;
            uint64_t *gi = addr_map_get(&groups, cl.info->addr);
            if (gi == NULL) {
                if (out->n == cap) {
                    cap = cap ? 2 * cap : 16;
                    DbgBoundaryGroup *g = realloc(out->groups, cap * sizeof *g);
                    if (g == NULL)
                        goto oom;
                    out->groups = g;
                }
                out->groups[out->n] = (DbgBoundaryGroup){
                    .holder = cl.info, .example_holder = cl.addr, .example_target = t.addr,
                    .era_lo = cl.era, .era_hi = cl.era, .target_era_lo = t.era,
                    .target_era_hi = t.era};
                if (addr_map_put(&groups, cl.info->addr, ++out->n) != 0)
                    goto oom;
                gi = addr_map_get(&groups, cl.info->addr);
            }
            DbgBoundaryGroup *g = &out->groups[*gi - 1];
            g->n_edges++;
            if (key[v] == NONE) {
                key[v] = (uint32_t)(*gi - 1);
                g->n_holders++;
                g->era_lo = cl.era < g->era_lo ? cl.era : g->era_lo;
                g->era_hi = cl.era > g->era_hi ? cl.era : g->era_hi;
            }
            g->target_era_lo = t.era < g->target_era_lo ? t.era : g->target_era_lo;
            g->target_era_hi = t.era > g->target_era_hi ? t.era : g->target_era_hi;
        }
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
    free(ptrs);
    addr_map_free(&groups);
    return 0;
oom:
    dbg_fail(c, "out of memory for the era boundary");
fail:
    free(key);
    free(old);
    free(old_objects);
    free(ptrs);
    addr_map_free(&groups);
    dbg_boundary_free(out);
    return -1;
}

/* Note [A boundary without holders]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The dominator tree is most of the boundary's time and memory (Note
 * [Dominator memory]), and it only ranks holders: with none, the answer
 * is empty whatever the tree.  So dbg_boundary_reach first looks for one
 * holder, over the blocks of later eras only (a block's objects share
 * its era), stopping at the first; only then builds the tree.  A heap
 * whose later eras hold nothing old (one era, or the question asked about
 * the newest eras) is answered in one pass over its newer blocks. */

typedef struct {
    const DbgReach *r;
    const DbgQuery *q;
    uint64_t *ptrs;
    size_t cap;
} HolderFind;

/* 1 when cl is a holder (a later era's object pointing at a reachable
 * object that q matches), 0 when not, -1 on an error. */
static int find_holder(DbgClient *c, const DbgClosure *cl, void *env)
{
    HolderFind *h = env;
    size_t np;
    if (closure_ptrs(c, cl, &h->ptrs, &h->cap, &np) != 0)
        return dbg_fail(c, "out of memory for the era boundary");
    for (size_t i = 0; i < np; i++) {
        DbgClosure t;
        if (dbg_reach_rank(h->r, h->ptrs[i]) != SIZE_MAX && dbg_closure(c, h->ptrs[i], &t) == 0 &&
            dbg_query_matches(h->q, &t))
            return 1;
    }
    return 0;
}

int dbg_boundary_reach(DbgClient *c, DbgReach *r, const DbgQuery *q, DbgBoundary *out)
{
    memset(out, 0, sizeof *out);
    if (!q->eras.on)
        return dbg_fail(c, "boundary: an era range is required");
    if (dbg_reach_rank_build(r) != 0)
        return -1;
    int st = 0;
    if (q->eras.hi < UINT64_MAX) {   /* else no era is later */
        HolderFind h = {r, q, NULL, 0};
        st = dbg_reach_for_each_heap_from(c, r, q->eras.hi + 1, find_holder, &h);
        free(h.ptrs);
    }
    if (st <= 0)
        return st;   /* no holder (an empty answer), or an error */
    DbgDom *d = dbg_dominators_opts(c, r, false);   /* the boundary sums its own bytes */
    if (d == NULL)
        return -1;
    st = dbg_boundary(c, d, q, out);
    dbg_dom_free(d);
    return st;
}
