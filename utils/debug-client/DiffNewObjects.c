/*
 * utils/debug-client/DiffNewObjects.c -- B's new objects in a diff
 * (DiffTypes.h): one breadth-first walk that counts B (DiffCount.c),
 * records a parent per object (for retainer paths) and finds the part of
 * the heap that only new objects reach, whose dominator tree gives the
 * new objects' retained sizes.  Relies on the ranks of Ranks.c (Note
 * [Ranks from the marks]) and dbg_graph_idom (Idom.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "BlockIndex.h"
#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "DiffCount.h"
#include "DiffNewObjects.h"
#include "DiffTypes.h"
#include "HeapLookup.h"
#include "Idom.h"
#include "Marks.h"
#include "Ranks.h"
#include "Reach.h"
#include "strata/Debug.h"

/* Note [Retained by the new objects]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A group's retained size is what `census --retained` gives a label: the
 * union of the dominator subtrees of its (new) objects.  Building the
 * dominator tree of the whole heap costs 2.6 times the heap's memory, so
 * the walk goes in two phases.  Phase 1 runs breadth first from the roots,
 * in root order, through old objects only, and keeps the new objects it
 * meets (the *entries*) aside.  Everything it reaches stays alive if
 * every new object dies, so no new object dominates it.  Phase 2 goes on
 * breadth first from the entries, in the order they were met, through
 * everything not yet reached: the new objects and the old objects that
 * only new ones reach.  No pointer leads from phase 1's objects into
 * phase 2's but to an entry, so phase 1 and the roots can be contracted
 * into one virtual root whose successors are the entries, and the
 * dominator tree of that small graph is exact for its nodes.  Memory: a
 * parent (4 bytes) an object and the queue, plus some 50 bytes a node of
 * phase 2: the diff of two heaps with little new costs little more than a
 * census.  The parents give each new object a path through old objects
 * first, so it shows where the new data hangs off the old heap. */

/* Note [One walk of B]
 * ~~~~~~~~~~~~~~~~~~~~
 * B is marked in two steps (Note [Marking in two steps] in Marks.c):
 * first what the roots reach through old objects only, holding back the
 * new objects met (phase 1's objects and its entries, as a set), then
 * the rest; B's census is counted as the traversal scans each object.
 * So the walk needs no census and no full phase 1: its only outputs from
 * phase 1 are the entries' order and the parents on the paths to them,
 * all known once the last entry is met, so phase 1 stops there (with new
 * objects hung off roots or shallow mutable cells, at once).  Phase 2
 * tells its objects from phase 1's by the first step's marks.  Which of
 * two info tables sharing a row's key the row shows is the one met last
 * for the first time, so it depends on the order of the count: where that
 * happens (order_matters), B is counted again in the order the diff used
 * before: by address when nothing new is alive, else in the walk, whose
 * phase 1 then runs to the end.  A pointer-by-pointer rank lookup over
 * the whole heap is what phase 1 costs when the last entry lies deep. */

struct DbgDiffNew {
    DbgReach *r;
    uint32_t *par;               /* by rank: 0 unseen, else 1 + a parent's rank or
                                  * 1 + n + root */
    size_t n;
};

#define UNSEEN UINT32_MAX

typedef struct {
    uint64_t *a;
    size_t head, n, cap;
} Queue;

static int push(Queue *q, uint64_t v)
{
    if (q->n == q->cap) {
        if (q->head > q->cap / 2) {   /* reuse what was read */
            memmove(q->a, q->a + q->head, (q->n - q->head) * sizeof *q->a);
            q->n -= q->head;
            q->head = 0;
        } else {
            size_t cap = q->cap ? q->cap * 2 : 4096;
            uint64_t *a = realloc(q->a, cap * sizeof *a);
            if (a == NULL)
                return -1;
            q->a = a;
            q->cap = cap;
        }
    }
    q->a[q->n++] = v;
    return 0;
}

/* Phase 2's graph: node 0 is the virtual root, edges as pairs. */
typedef struct {
    WordMap id_of;               /* rank + 1 -> node */
    uint64_t *bytes;             /* [node] own bytes */
    uint32_t *row;               /* [node] row of a new object, else UNSEEN */
    size_t n, cap;
    uint32_t *edges;             /* from, to */
    size_t n_edges, cap_edges;
} Sub;

typedef struct {
    DbgClient *c;
    DbgDiff *d;
    DbgDiffCount *count;
    bool counting;               /* B counted in the walk (else counted already) */
    size_t n_entries, met;       /* phase 1 stops at n_entries met */
    DbgDiffNew *w;
    Queue q, entries;
    Sub s;
    uint64_t *ptrs;
    size_t cap_ptrs;
} Walk;

static int add_edge(Walk *k, uint32_t from, uint32_t to)
{
    Sub *s = &k->s;
    if (s->n_edges == s->cap_edges) {
        size_t cap = s->cap_edges ? s->cap_edges * 2 : 1024;
        uint32_t *e = realloc(s->edges, cap * 2 * sizeof *e);
        if (e == NULL)
            return -1;
        s->edges = e;
        s->cap_edges = cap;
    }
    s->edges[2 * s->n_edges] = from;
    s->edges[2 * s->n_edges + 1] = to;
    s->n_edges++;
    return 0;
}

/* A node of phase 2 for the object at addr (rank rank); addr 0: the
 * virtual root. */
static int add_node(Walk *k, uint64_t addr, size_t rank, uint32_t *id)
{
    Sub *s = &k->s;
    DbgClosure cl = {0};
    if (addr != 0 && dbg_closure(k->c, addr, &cl) != 0)
        return -1;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1024;
        uint64_t *b = realloc(s->bytes, cap * sizeof *b);
        if (b != NULL)
            s->bytes = b;
        uint32_t *r = b != NULL ? realloc(s->row, cap * sizeof *r) : NULL;
        if (r == NULL)
            return dbg_fail(k->c, "out of memory for the diff's new objects");
        s->row = r;
        s->cap = cap;
    }
    *id = (uint32_t)s->n;
    s->bytes[s->n] = cl.block != NULL ? (uint64_t)cl.n_words * 8 : 0;
    s->row[s->n] = UNSEEN;
    if (cl.block != NULL && cl.era > k->d->a_era) {
        DbgDiffRow *row = dbg_diff_info_row(k->c, k->count, &cl);
        if (row == NULL)
            return -1;
        s->row[s->n] = (uint32_t)(row - k->d->infos.rows);
        if (row->example == 0)
            row->example = addr;
    }
    s->n++;
    if (addr != 0 && word_map_put(&s->id_of, rank + 1, *id) != 0)
        return dbg_fail(k->c, "out of memory for the diff's new objects");
    return 0;
}

static bool is_new(Walk *k, uint64_t addr)
{
    const DbgBlock *b = dbg_block_of(k->c, addr);
    return b != NULL && dbg_object_era(k->c, b, addr) > k->d->a_era;
}

/* addr's block (NULL: a static closure) and rank (SIZE_MAX: not reached),
 * from one lookup: dbg_reach_rank and dbg_block_of together. */
static const DbgBlock *locate(Walk *k, uint64_t addr, size_t *rank)
{
    const DbgReach *r = k->w->r;
    const DbgBlock *b = block_of(k->c, addr);
    if (b == NULL) {
        *rank = dbg_reach_rank(r, addr);
        return NULL;
    }
    size_t i = (size_t)(b - k->c->blocks);
    uint64_t w = (addr - b->start) / 8;
    const uint64_t *m = r->marks[i];
    *rank = addr % 8 != 0 || m == NULL || (m[w / 64] >> (w % 64) & 1) == 0
                ? SIZE_MAX : rank_in(r, i, b, addr);
    return b;
}

/* Phase 1 meets addr from `from` (a parent's rank, or n + root). */
static int meet_old(Walk *k, uint64_t addr, uint32_t from)
{
    size_t rank;
    const DbgBlock *b = locate(k, addr, &rank);
    if (rank == SIZE_MAX || k->w->par[rank] != 0)
        return 0;
    k->w->par[rank] = from + 1;
    bool entry = b != NULL && dbg_object_era(k->c, b, addr) > k->d->a_era;
    k->met += entry;
    if (push(entry ? &k->entries : &k->q, addr) != 0)
        return dbg_fail(k->c, "out of memory for the diff's queue");
    return 0;
}

/* Whether addr (reachable) is phase 2's: new, or reached only through a
 * new object (marked after the first step). */
static bool in_phase2(Walk *k, uint64_t addr)
{
    return is_new(k, addr) || !dbg_reach_marked_first(k->w->r, addr);
}

/* Phase 2 meets addr from node `from` (0: an entry). */
static int meet_new(Walk *k, uint64_t addr, size_t from_rank, uint32_t from)
{
    size_t rank = dbg_reach_rank(k->w->r, addr);
    if (rank == SIZE_MAX)
        return 0;
    uint32_t id;
    if (from == 0 || (k->w->par[rank] == 0 && in_phase2(k, addr))) {
        if (from != 0)
            k->w->par[rank] = (uint32_t)from_rank + 1;
        if (add_node(k, addr, rank, &id) != 0 || push(&k->q, addr) != 0)
            return dbg_fail(k->c, "out of memory for the diff's queue");
    } else {
        const uint64_t *v = word_map_get(&k->s.id_of, rank + 1);
        if (v == NULL)
            return 0;   /* reached in phase 1: no new object dominates it */
        id = (uint32_t)*v;
    }
    return add_edge(k, from, id) == 0 ? 0 : dbg_fail(k->c, "out of memory for the diff");
}

/* Counts the closure at addr (if a heap object: in block b) and puts its
 * pointers in k->ptrs; how many, or SIZE_MAX. */
static size_t count_and_ptrs_of(Walk *k, uint64_t addr, const DbgBlock *b)
{
    DbgClosure cl;
    if ((b != NULL ? dbg_closure_in(k->c, b, addr, &cl) : dbg_closure(k->c, addr, &cl)) != 0)
        return SIZE_MAX;
    if (k->counting && cl.block != NULL && dbg_diff_count(k->c, k->count, &cl) != 0)
        return SIZE_MAX;
    size_t n = dbg_closure_ptrs(k->c, &cl, k->ptrs, k->cap_ptrs);
    if (n > k->cap_ptrs) {
        uint64_t *p = realloc(k->ptrs, n * sizeof *p);
        if (p == NULL) {
            dbg_fail(k->c, "out of memory");
            return SIZE_MAX;
        }
        k->ptrs = p;
        k->cap_ptrs = n;
        n = dbg_closure_ptrs(k->c, &cl, k->ptrs, k->cap_ptrs);
    }
    return n;
}

/* Asks for the words of the object queued PREFETCH_AHEAD after the next:
 * breadth first, each object popped lies far from the last. */
#define PREFETCH_AHEAD 8
static void prefetch_queued(Walk *k)
{
    if (k->q.head + PREFETCH_AHEAD >= k->q.n)
        return;
    uint64_t addr = k->q.a[k->q.head + PREFETCH_AHEAD];
    const DbgBlock *b = block_of(k->c, addr);
    if (b != NULL && b->data != NULL)
        __builtin_prefetch(b->data + (addr - b->start));
}

static int drain(Walk *k, bool phase2)
{
    while (k->q.head < k->q.n && (phase2 || k->met < k->n_entries)) {
        prefetch_queued(k);
        uint64_t addr = k->q.a[k->q.head++];
        size_t rank;
        const DbgBlock *b = locate(k, addr, &rank);
        size_t n = count_and_ptrs_of(k, addr, b);
        if (n == SIZE_MAX)
            return -1;
        uint32_t from = 0;
        if (phase2)
            from = (uint32_t)*word_map_get(&k->s.id_of, rank + 1);
        for (size_t i = 0; i < n; i++)
            if ((phase2 ? meet_new(k, k->ptrs[i], rank, from)
                        : meet_old(k, k->ptrs[i], (uint32_t)rank)) != 0)
                return -1;
    }
    k->q.head = k->q.n = 0;
    return 0;
}

static int walk_phases(Walk *k)
{
    const DbgRoot *roots;
    size_t nr;
    if (dbg_roots(k->c, &roots, &nr) != 0)
        return -1;
    if ((uint64_t)k->w->n + nr >= UINT32_MAX)
        return dbg_fail(k->c, "diff: %zu objects and %zu roots are too many for 32-bit "
                        "parents", k->w->n, nr);
    for (size_t i = 0; i < nr; i++)
        if (roots[i].kind != DEBUG_ROOT_REMEMBERED &&
            meet_old(k, roots[i].addr, (uint32_t)(k->w->n + i)) != 0)
            return -1;
    if (drain(k, false) != 0)
        return -1;
    uint32_t root;
    if (add_node(k, 0, 0, &root) != 0)   /* node 0 */
        return -1;
    for (size_t i = 0; i < k->entries.n; i++)
        if (meet_new(k, k->entries.a[i], SIZE_MAX, 0) != 0)
            return -1;
    return drain(k, true);
}

/* Each row's retained_bytes from the dominator tree of phase 2's graph:
 * depth first, an object whose row no ancestor shares adds its subtree. */
static int retained_sums(Walk *k, const uint32_t *idom)
{
    Sub *s = &k->s;
    size_t n = s->n;
    uint64_t *coff = calloc(n + 1, sizeof *coff), *size = calloc(n, sizeof *size);
    uint32_t *kids = malloc((n ? n : 1) * sizeof *kids), *stack = malloc(n * sizeof *stack);
    uint64_t *cursor = malloc(n * sizeof *cursor);
    uint32_t *open = calloc(k->d->infos.n ? k->d->infos.n : 1, sizeof *open);
    uint8_t *top = calloc(n, 1);
    int st = 0;
    if (!coff || !size || !kids || !stack || !cursor || !open || !top) {
        st = dbg_fail(k->c, "out of memory for the new objects' dominator tree");
        goto out;
    }
    for (size_t v = 1; v < n; v++)
        if (idom[v] != UNSEEN)
            coff[idom[v] + 1]++;
    for (size_t v = 0; v < n; v++)
        coff[v + 1] += coff[v];
    for (size_t v = 1; v < n; v++)
        if (idom[v] != UNSEEN)
            kids[coff[idom[v]]++] = (uint32_t)v;
    for (size_t v = n; v > 0; v--)   /* the fill above moved each offset on */
        coff[v] = coff[v - 1];
    coff[0] = 0;
    size_t depth = 0;
    stack[depth] = 0;
    cursor[0] = coff[0];
    depth++;
    while (depth > 0) {
        uint32_t v = stack[depth - 1];
        if (cursor[v] < coff[v + 1]) {
            uint32_t w = kids[cursor[v]++];
            uint32_t g = s->row[w];
            if (g != UNSEEN && open[g]++ == 0)
                top[w] = 1;
            cursor[w] = coff[w];
            stack[depth++] = w;
            continue;
        }
        size[v] += s->bytes[v];
        depth--;
        if (depth > 0)
            size[stack[depth - 1]] += size[v];
        uint32_t g = s->row[v];
        if (g != UNSEEN) {
            open[g]--;
            if (top[v])
                k->d->infos.rows[g].retained_bytes += size[v];
        }
    }
out:
    free(coff);
    free(size);
    free(kids);
    free(stack);
    free(cursor);
    free(open);
    free(top);
    return st;
}

/* Phase 2's edges in CSR form, then its dominators and the sums. */
static int new_dominators(Walk *k)
{
    Sub *s = &k->s;
    uint64_t *off = calloc(s->n + 1, sizeof *off);
    uint32_t *succ = malloc((s->n_edges ? s->n_edges : 1) * sizeof *succ);
    uint32_t *idom = malloc(s->n * sizeof *idom);
    int st = -1;
    if (off == NULL || succ == NULL || idom == NULL) {
        dbg_fail(k->c, "out of memory for the new objects' dominator tree");
        goto out;
    }
    for (size_t e = 0; e < s->n_edges; e++)
        off[s->edges[2 * e] + 1]++;
    for (size_t v = 0; v < s->n; v++)
        off[v + 1] += off[v];
    for (size_t e = 0; e < s->n_edges; e++)
        succ[off[s->edges[2 * e]]++] = s->edges[2 * e + 1];
    for (size_t v = s->n; v > 0; v--)
        off[v] = off[v - 1];
    off[0] = 0;
    free(s->edges);
    s->edges = NULL;
    if (dbg_graph_idom((uint32_t)s->n, off, succ, idom) != 0) {
        dbg_fail(k->c, "out of memory for the new objects' dominator tree");
        goto out;
    }
    free(succ);
    succ = NULL;
    st = retained_sums(k, idom);
out:
    free(off);
    free(succ);
    free(idom);
    return st;
}

static int count_heap_object(DbgClient *c, const DbgClosure *cl, void *env)
{
    return dbg_diff_count(c, env, cl);
}

static int count_in_cell(DbgClient *c, const DbgClosure *cl, void *env)
{
    return dbg_diff_count_cell(c, env, cl);
}

/* The walk of the two phases over r (marked, ranked), then the sums;
 * counting B if counting, else stopping phase 1 at its n_entries'th entry. */
static int walk(DbgClient *b, DbgDiff *d, DbgDiffCount *count, bool counting,
                size_t n_entries)
{
    DbgDiffNew *w = d->paths;
    w->n = dbg_reach_n_ranked(w->r);
    /* calloc: the pages phase 1 never reaches stay unmapped. */
    w->par = calloc(w->n ? w->n : 1, sizeof *w->par);
    if (w->par == NULL)
        return dbg_fail(b, "out of memory for the diff's parents");
    Walk k = {.c = b, .d = d, .count = count, .counting = counting,
              .n_entries = counting ? SIZE_MAX : n_entries, .w = w};
    int st = walk_phases(&k);
    if (st == 0 && k.s.n >= UNSEEN)
        st = dbg_fail(b, "diff: too many new objects for 32-bit node numbers");
    if (st == 0)
        st = new_dominators(&k);
    free(k.q.a);
    free(k.entries.a);
    free(k.ptrs);
    word_map_free(&k.s.id_of);
    free(k.s.bytes);
    free(k.s.row);
    free(k.s.edges);
    return st;
}

int dbg_diff_new_walk(DbgClient *b, DbgDiff *d, DbgDiffCount *count)
{
    DbgDiffNew *w = calloc(1, sizeof *w);
    if (w == NULL)
        return dbg_fail(b, "out of memory");
    d->paths = w;
    /* See Note [One walk of B]. */
    w->r = dbg_reach_marks_with(b, d->a_era + 1, count_in_cell, count);
    if (w->r == NULL)
        return -1;
    size_t n_entries = dbg_reach_n_held(w->r);
    if (dbg_reach_marks_release(w->r) != 0 || dbg_diff_count_cells_flush(b, count) != 0)
        return -1;
    if (n_entries == 0) {   /* nothing new is alive: no walk */
        if (!count->order_matters)
            return 0;
        dbg_diff_count_reset(count);
        return dbg_reach_for_each_heap(b, w->r, count_heap_object, count) != 0 ? -1 : 0;
    }
    if (dbg_reach_rank_build(w->r) != 0)
        return -1;
    bool again = count->order_matters;
    if (again)
        dbg_diff_count_reset(count);
    return walk(b, d, count, again, n_entries);
}

int dbg_diff_path(DbgClient *b, const DbgDiff *d, uint64_t addr, DbgPath *out)
{
    const DbgDiffNew *w = d->paths;
    size_t rank = w != NULL && w->par != NULL ? dbg_reach_rank(w->r, addr) : SIZE_MAX;
    if (rank == SIZE_MAX || w->par[rank] == 0)
        return dbg_fail(b, "0x%" PRIx64 " is not a reachable object of B", addr);
    *out = (DbgPath){0};
    size_t cap = 0;
    for (;;) {
        if (out->n == cap) {
            cap = cap ? cap * 2 : 64;
            uint64_t *a = realloc(out->addrs, cap * sizeof *a);
            if (a == NULL) {
                dbg_path_free(out);
                return dbg_fail(b, "out of memory for a retainer path");
            }
            out->addrs = a;
        }
        out->addrs[out->n++] = addr;
        uint32_t p = w->par[rank] - 1;
        if (p >= w->n) {
            out->root = p - w->n;
            return 0;
        }
        rank = p;
        addr = dbg_reach_addr(w->r, rank);
    }
}

void dbg_diff_new_free(DbgDiffNew *w)
{
    if (w == NULL)
        return;
    dbg_reach_free(w->r);
    free(w->par);
    free(w);
}
