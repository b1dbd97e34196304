/*
 * utils/debug-client/BoundaryWithoutTree.c -- the era boundary without the
 * heap's dominator tree (Note [A boundary without the dominator tree]):
 * walks from the roots and from each holder label the objects with the
 * holders that dominate them, over a dominator tree of the holders alone.
 * Boundary.c falls back to the heap's tree when the walks grow too long;
 * the groups are BoundaryGroups.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "BoundaryGroups.h"
#include "BoundaryWithoutTree.h"
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
    if (dbg_holder_edges(c, h->r, h->q, cl, &h->e, h->out, &g) != 0)
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

/* Step 1 of Note [A boundary without the dominator tree]: from the roots,
 * not past a holder, marking what no holder dominates and finding the
 * root holders.  0, or -1 on an error. */
static int walk_from_roots(DbgClient *c, const DbgReach *r, Labels *L, AddrStack *s,
                           HolderScan *h)
{
    const DbgRoot *roots;
    size_t n_roots;
    if (dbg_roots(c, &roots, &n_roots) != 0)
        return -1;
    for (size_t i = 0; i < n_roots; i++) {
        if (roots[i].kind == DEBUG_ROOT_REMEMBERED || roots[i].addr == 0)
            continue;
        size_t k = dbg_reach_rank(r, roots[i].addr);
        if (k != SIZE_MAX && step_free(L, k, roots[i].addr, 0) == 1 &&
            stack_push(s, roots[i].addr) != 0)
            return dbg_fail(c, "out of memory for the era boundary");
        if (walk(c, r, L, s, &h->e, step_free, 0) != 0)
            return -1;
    }
    return 0;
}

/* Step 2: the holders' dominator tree into idom, rpo and depth (nh
 * nodes): the virtual root points at the root holders, each holder at the
 * holders it reaches last.  With every holder a root holder it is flat,
 * and needs no walk.  *offp is the holder graph's offsets (nh + 1),
 * freed here once the tree is built.  1 when built, 0 when the walks grew
 * too long (the caller builds the heap's tree), -1 on an error. */
static int holders_tree(DbgClient *c, const DbgReach *r, Labels *L, AddrStack *s,
                        HolderScan *h, uint32_t nh, uint32_t **offp, uint32_t *idom,
                        uint32_t *rpo, uint32_t *depth)
{
    bool flat = true;
    for (size_t i = 0; i < h->n; i++)
        if (L->label[dbg_reach_rank(r, h->addr[i])] != LBL_ROOT)
            flat = false;
    if (flat) {
        for (uint32_t v = 0; v < nh; v++) {
            idom[v] = 0;
            rpo[v] = v;
            depth[v] = v != 0;
        }
        return 1;
    }
    for (size_t i = 0; i < h->n; i++)
        if (L->label[dbg_reach_rank(r, h->addr[i])] == LBL_ROOT) {
            if (GROW_ARRAY_RESERVE_MIN(L->succ, L->cap_succ, L->n_succ + 1, 256) != 0)
                return dbg_fail(c, "out of memory for the era boundary");
            L->succ[L->n_succ++] = (uint32_t)i + 1;
        }
    size_t *offs = calloc((size_t)nh + 1, sizeof *offs);
    if (offs == NULL)
        return dbg_fail(c, "out of memory for the era boundary");
    offs[1] = L->n_succ;
    int w = walk_holders(c, r, L, s, &h->e, step_edges, offs);
    for (uint32_t v = 0; v <= nh; v++)
        (*offp)[v] = (uint32_t)offs[v];
    free(offs);
    if (w != 0)
        return w == WALK_TOO_LONG ? 0 : -1;
    if (L->succ == NULL && (L->succ = malloc(sizeof *L->succ)) == NULL)
        return dbg_fail(c, "out of memory for the era boundary");
    uint32_t n_rpo;
    uint32_t *succ = L->succ;
    L->succ = NULL;
    if (dbg_graph_idom_csr(nh, offp, &succ, idom, rpo, &n_rpo) != 0) {
        free(succ);
        return dbg_fail(c, "out of memory for the era boundary");
    }
    free(succ);
    if (n_rpo != nh)
        return 0;   /* a holder no walk reached: cannot be, but the tree knows */
    depth[0] = 0;
    for (uint32_t k = 1; k < nh; k++)
        depth[rpo[k]] = depth[idom[rpo[k]]] + 1;
    size_t n = dbg_reach_n_ranked(r);
    for (size_t k = 0; k < n; k++)
        if (L->label[k] < LBL_MAX_HOLDERS)
            L->label[k] = LBL_NONE;   /* the stamps of the edge walks */
    L->work = 0;
    return 1;
}

/* Step 4: an old object counts for its label's holder, and so for every
 * holder dominating that one: sums over the holders' tree, then each
 * group's topmost holders, as dbg_boundary does over the whole tree.
 * Frees L->label.  1 when answered into h->out, -1 on an error. */
static int sum_old_bytes(DbgClient *c, const DbgReach *r, HolderScan *h, Labels *L,
                         uint32_t nh, uint32_t *idom, uint32_t *rpo)
{
    size_t n = dbg_reach_n_ranked(r);
    uint64_t *bytes = calloc(nh, sizeof *bytes);
    uint32_t *objs = calloc(nh, sizeof *objs);
    uint32_t *key = malloc((size_t)nh * sizeof *key);
    int st = -1;
    if (bytes == NULL || objs == NULL || key == NULL) {
        dbg_fail(c, "out of memory for the era boundary");
        goto out;
    }
    DbgRankIter it = {0};
    uint64_t addr;
    uint64_t lo = h->q->eras.lo, hi = h->q->eras.hi;
    for (size_t k = 0; k < n && dbg_reach_next(r, &it, &addr); k++) {
        if (L->label[k] >= LBL_MAX_HOLDERS || L->label[k] == 0)
            continue;
        DbgClosure cl;
        if (dbg_reach_closure(c, &it, addr, &cl) != 0)
            goto out;
        if (cl.block == NULL || cl.era < lo || cl.era > hi)
            continue;
        bytes[L->label[k]] += (uint64_t)cl.n_words * 8;
        objs[L->label[k]]++;
    }
    free(L->label);
    L->label = NULL;
    for (uint32_t k = nh; k-- > 1;) {
        bytes[idom[rpo[k]]] += bytes[rpo[k]];
        objs[idom[rpo[k]]] += objs[rpo[k]];
    }
    key[0] = NONE;
    for (uint32_t v = 1; v < nh; v++)
        key[v] = h->group[v - 1];
    DbgDom tree = {.c = c, .n = nh, .idom = idom, .rpo = rpo, .n_rpo = nh};
    BoundaryAdd add = {h->out, bytes, objs};
    if (dbg_dom_topmost(&tree, key, (uint32_t)h->out->n, dbg_boundary_add_holder, &add) != 0)
        goto out;
    st = 1;
out:
    free(key);
    free(bytes);
    free(objs);
    return st;
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
    uint32_t *off = NULL, *idom = NULL, *rpo = NULL, *depth = NULL;
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
    if (walk_from_roots(c, r, &L, &s, h) != 0)
        goto out;
    st = holders_tree(c, r, &L, &s, h, nh, &off, idom, rpo, depth);
    if (st != 1)
        goto out;
    L.idom = idom;
    L.depth = depth;
    /* 3. From each holder, what only holders reach, labelled. */
    int w = walk_holders(c, r, &L, &s, &h->e, step_held, NULL);
    if (w != 0) {
        st = w == WALK_TOO_LONG ? 0 : -1;
        goto out;
    }
    st = sum_old_bytes(c, r, h, &L, nh, idom, rpo);
out:
    free(L.label);
    free(L.edge_stamp);
    free(L.succ);
    free(s.a);
    free(off);
    free(idom);
    free(rpo);
    free(depth);
    return st;
}

/* Finds the holders (the objects of eras after q's pointing at objects q
 * matches, over the blocks of those eras only) and answers the boundary
 * without the dominator tree: 1 when answered into out (unsorted; no
 * holder is an empty answer), 0 when the heap's tree must answer, -1 on
 * an error. */
int dbg_boundary_without_tree(DbgClient *c, const DbgReach *r, const DbgQuery *q,
                              DbgBoundary *out)
{
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
    dbg_edge_scan_free(&h.e);
    return st;
}
