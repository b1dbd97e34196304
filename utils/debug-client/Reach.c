/*
 * utils/debug-client/Reach.c -- retainer paths over the graph core's
 * traversal (Marks.c): one parent per object, recorded after a
 * breadth-first traversal (Note [Parents by rank, after the traversal]),
 * or with the matches of a search and without the order (Note [Paths
 * without the order]); and the folding of a path into runs of one info
 * table.  Parents are an array by dense rank (Ranks.c).
 */
#include <stdlib.h>
#include <string.h>

#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "GrowArray.h"
#include "HeapLookup.h"
#include "Marks.h"
#include "Ranks.h"
#include "Reach.h"
#include "ReachState.h"
#include "Search.h"
#include "strata/Debug.h"

/* Note [Parents by rank, after the traversal]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A retainer path needs each object's first parent in breadth-first
 * order.  Recording it during the traversal needs a map from address to
 * parent while the set of objects is still growing: a hash map, 16 bytes
 * an object at full load and more with its slack and rehashing (1.5 GB of
 * the 2.8 GB that retainers took on a 1 GB heap, docs/design/debugger.md).
 * Once the traversal is done the marks give every object a dense rank
 * (Note [Ranks from the marks]), so the parents go in a flat array by
 * rank, filled by one more pass: the roots in seed order, then each object
 * in discovery order, each setting the parent of the objects it points to
 * that have none yet.  The discovery order is the BFS queue, so the first
 * setter of each object is the one the traversal visited it from, and the
 * paths are the same shortest ones.
 *
 * A parent is stored as a number, not an address: 0 for none yet, the
 * parent's rank + 1, or n + 1 + i for root i (n the objects ranked).  That
 * fits 32 bits, 4 bytes an object, whenever n + 1 + the number of roots
 * does (a heap of under 4 G objects, about 100 GB); beyond that the same
 * numbers are kept in 64 bits.  A path is walked back through
 * dbg_reach_addr, a binary search per step. */
static uint64_t parent_get(const DbgReach *r, size_t t)
{
    return r->parents32 != NULL ? r->parents32[t] : r->parents64[t];
}

static void parent_set(DbgReach *r, size_t t, uint64_t p)
{
    if (r->parents32 != NULL)
        r->parents32[t] = (uint32_t)p;
    else
        r->parents64[t] = p;
}

/* Ranks the objects and allocates their parents, all 0 (none yet), in 32
 * bits where they fit.  0, or -1 (said). */
static int parents_alloc(DbgClient *c, DbgReach *r, size_t n_roots)
{
    if (dbg_reach_rank_build(r) != 0)
        return -1;
    size_t n = dbg_reach_n_ranked(r);
    r->n_parent_objs = n;
    if ((uint64_t)n + 1 + n_roots <= UINT32_MAX)
        r->parents32 = calloc(n ? n : 1, sizeof *r->parents32);
    else
        r->parents64 = calloc(n ? n : 1, sizeof *r->parents64);
    if (r->parents32 == NULL && r->parents64 == NULL)
        return dbg_fail(c, "out of memory for retainer paths");
    return 0;
}

static int record_parents(DbgClient *c, DbgReach *r, const DbgRoot *roots, size_t n_roots)
{
    if (parents_alloc(c, r, n_roots) != 0)
        return -1;
    size_t n = r->n_parent_objs;
    for (size_t k = 0; k < sizeof dbg_seed_order; k++)
        for (size_t i = 0; i < n_roots; i++) {
            size_t t = roots[i].kind == dbg_seed_order[k] ? dbg_reach_rank(r, roots[i].addr)
                                                       : SIZE_MAX;
            if (t != SIZE_MAX && parent_get(r, t) == 0)
                parent_set(r, t, (uint64_t)n + 1 + i);
        }
    uint64_t *ptrs = NULL;
    size_t cap = 0, np;
    for (size_t q = 0; q < r->n; q++) {
        DbgClosure cl;
        if (dbg_closure(c, r->order[q], &cl) != 0)
            goto fail;
        if (dbg_closure_ptrs_grow(c, &cl, &ptrs, &cap, &np) != 0) {
            dbg_fail(c, "out of memory");
            goto fail;
        }
        uint64_t self = 0;   /* this object's rank + 1, looked up once needed */
        for (size_t i = 0; i < np; i++) {
            size_t t = ptrs[i] != 0 ? dbg_reach_rank(r, ptrs[i]) : SIZE_MAX;
            if (t != SIZE_MAX && parent_get(r, t) == 0) {
                if (self == 0)
                    self = (uint64_t)dbg_reach_rank(r, r->order[q]) + 1;
                parent_set(r, t, self);
            }
        }
    }
    free(ptrs);
    return 0;
fail:
    free(ptrs);
    return -1;
}

/* The traversal, then (paths) the parents. */
static DbgReach *reach(DbgClient *c, bool paths, bool marks_only)
{
    const DbgRoot *roots;
    size_t n_roots;
    DbgReach *r = dbg_reach_traverse(c, marks_only, &roots, &n_roots);
    if (r == NULL)
        return NULL;
    r->paths = paths;
    if (paths && record_parents(c, r, roots, n_roots) != 0) {
        dbg_reach_free(r);
        return NULL;
    }
    return r;
}

/* Note [Paths without the order]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The retainers command needs the parents, and the first matches in
 * breadth-first order, but not the order itself: kept whole it is 8 bytes
 * an object (a third of the live bytes of a heap of small objects), the
 * biggest thing after the heap.  So dbg_reach_search marks first (depth
 * first, Note [Marks only]), ranks the objects (Note [Ranks from the
 * marks]) and then runs the breadth-first traversal once more with the
 * parents as its visited set: an object is discovered when its parent is
 * still 0, as it was when its mark was clear, so the queue holds the same
 * objects in the same order and every object gets the same first parent
 * as in Note [Parents by rank, after the traversal].  Matches are taken
 * as objects leave the queue, which is dbg_search's order.  The queue
 * keeps only the frontier, and each address as the difference from the
 * previous one, in words, zigzag and varint coded: objects found together
 * lie together, so an entry is a byte or two instead of 8 (a binary
 * tree's widest level, half its objects, is in the queue at once).
 * Chunks are freed as they are read. */
typedef struct QChunk {
    struct QChunk *next;
    size_t len;
    uint8_t bytes[];
} QChunk;

#define QCHUNK_BYTES ((size_t)1 << 20)

typedef struct {
    QChunk *head, *tail;
    size_t pos;                  /* read position in head */
    uint64_t last_in, last_out;  /* the addresses the differences are from */
} AddrQueue;

static int queue_push(AddrQueue *q, uint64_t addr)
{
    if (q->tail == NULL || q->tail->len + 10 > QCHUNK_BYTES) {
        QChunk *k = malloc(sizeof *k + QCHUNK_BYTES);
        if (k == NULL)
            return -1;
        k->next = NULL;
        k->len = 0;
        if (q->tail != NULL)
            q->tail->next = k;
        else
            q->head = k;
        q->tail = k;
    }
    int64_t words = (int64_t)(addr - q->last_in) / 8;
    uint64_t z = ((uint64_t)words << 1) ^ (uint64_t)(words >> 63);
    q->last_in = addr;
    uint8_t *out = q->tail->bytes + q->tail->len;
    size_t n = 0;
    while (z >= 0x80) {
        out[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    out[n++] = (uint8_t)z;
    q->tail->len += n;
    return 0;
}

static bool queue_pop(AddrQueue *q, uint64_t *addr)
{
    if (q->head == NULL)
        return false;
    if (q->pos == q->head->len) {
        if (q->head->next == NULL)
            return false;
        QChunk *next = q->head->next;
        free(q->head);
        q->head = next;
        q->pos = 0;
    }
    uint64_t z = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t b = q->head->bytes[q->pos++];
        z |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80)
            break;
    }
    int64_t words = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    q->last_out += (uint64_t)words * 8;
    *addr = q->last_out;
    return true;
}

static void queue_free(AddrQueue *q)
{
    while (q->head != NULL) {
        QChunk *next = q->head->next;
        free(q->head);
        q->head = next;
    }
    q->tail = NULL;
}

/* The breadth-first pass of Note [Paths without the order], after the
 * marks: parents, and the matches of r->query.  Objects go from the queue
 * through a prefetch window as in Note [Prefetching the marks-only
 * traversal], which keeps their order. */
static int search_paths(DbgClient *c, DbgReach *r, const DbgRoot *roots, size_t n_roots)
{
    if (parents_alloc(c, r, n_roots) != 0)
        return -1;
    size_t n = r->n_parent_objs;
    if (r->limit > 0 && (r->found = malloc(r->limit * sizeof *r->found)) == NULL)
        return dbg_fail(c, "out of memory");
    AddrQueue q = {0};
    uint64_t *ptrs = NULL;
    size_t cap = 0, np;
    for (size_t k = 0; k < sizeof dbg_seed_order; k++)
        for (size_t i = 0; i < n_roots; i++) {
            size_t t = roots[i].kind == dbg_seed_order[k] ? dbg_reach_rank(r, roots[i].addr)
                                                       : SIZE_MAX;
            if (t != SIZE_MAX && parent_get(r, t) == 0) {
                parent_set(r, t, (uint64_t)n + 1 + i);
                if (queue_push(&q, roots[i].addr) != 0)
                    goto oom;
            }
        }
    MarkItem win[PREFETCH_WINDOW];
    size_t head = 0, n_win = 0;
    for (;;) {
        uint64_t a;
        while (n_win < PREFETCH_WINDOW && queue_pop(&q, &a)) {
            MarkItem *it = &win[(head + n_win++) % PREFETCH_WINDOW];
            const DbgBlock *b = block_of(c, a);
            *it = (MarkItem){a, b != NULL ? (size_t)(b - c->blocks) : NO_BLOCK, NULL};
            if (b != NULL && b->data != NULL) {
                it->words = (const uint64_t *)(const void *)(b->data + (a - b->start));
                __builtin_prefetch(it->words);
            }
        }
        if (n_win == 0)
            break;
        MarkItem it = win[head];
        head = (head + 1) % PREFETCH_WINDOW;
        n_win--;
        DbgClosure cl;
        const DbgBlock *b = it.block != NO_BLOCK ? &c->blocks[it.block] : NULL;
        if ((b != NULL ? dbg_closure_in(c, b, it.addr, &cl) : dbg_closure(c, it.addr, &cl)) != 0)
            goto fail;
        if (r->n_found < r->limit && dbg_query_matches(&r->query, &cl))
            r->found[r->n_found++] = it.addr;
        if (dbg_closure_ptrs_grow(c, &cl, &ptrs, &cap, &np) != 0)
            goto oom;
        uint64_t self = 0;   /* this object's rank + 1, looked up once needed */
        for (size_t i = 0; i < np; i++) {
            size_t t = dbg_reach_rank(r, ptrs[i]);
            if (t == SIZE_MAX || parent_get(r, t) != 0)
                continue;
            if (self == 0)
                self = (uint64_t)(b != NULL ? rank_in(r, it.block, b, it.addr)
                                            : dbg_reach_rank(r, it.addr)) + 1;
            parent_set(r, t, self);
            if (queue_push(&q, ptrs[i]) != 0)
                goto oom;
        }
    }
    free(ptrs);
    queue_free(&q);
    return 0;
oom:
    dbg_fail(c, "out of memory for the traversal");
fail:
    free(ptrs);
    queue_free(&q);
    return -1;
}

DbgReach *dbg_reach_search(DbgClient *c, const DbgQuery *q, size_t limit)
{
    DbgReach *r = reach(c, false, true);
    if (r == NULL)
        return NULL;
    r->paths = true;
    r->query = *q;
    r->limit = limit;
    const DbgRoot *roots;
    size_t n_roots;
    if (dbg_roots(c, &roots, &n_roots) != 0 || search_paths(c, r, roots, n_roots) != 0) {
        dbg_reach_free(r);
        return NULL;
    }
    return r;
}

const uint64_t *dbg_reach_found(const DbgReach *r, size_t *n)
{
    *n = r->n_found;
    return r->found;
}

DbgReach *dbg_reach(DbgClient *c)
{
    return reach(c, true, false);
}

DbgReach *dbg_reach_opts(DbgClient *c, bool paths)
{
    return reach(c, paths, false);
}

int dbg_retainer_path(DbgClient *c, const DbgReach *r, uint64_t addr, DbgPath *out)
{
    memset(out, 0, sizeof *out);
    if (!r->paths)
        return dbg_fail(c, "retainer paths were not recorded (dbg_reach_opts)");
    size_t cap = 0;
    for (uint64_t a = addr;;) {
        size_t k = dbg_reach_rank(r, a);
        uint64_t p = k != SIZE_MAX ? parent_get(r, k) : 0;
        if (p == 0)
            return dbg_fail(c, "0x%llx is not reachable", (unsigned long long)addr);
        if (GROW_ARRAY_RESERVE(out->addrs, cap, out->n + 1) != 0) {
            dbg_path_free(out);
            return dbg_fail(c, "out of memory");
        }
        out->addrs[out->n++] = a;
        if (p > r->n_parent_objs) {
            out->root = (size_t)(p - r->n_parent_objs - 1);
            return 0;
        }
        a = dbg_reach_addr(r, (size_t)(p - 1));
    }
}

void dbg_path_free(DbgPath *p)
{
    free(p->addrs);
    memset(p, 0, sizeof *p);
}

/* ----------------------------------------------------------------------
 * Compressed retainer paths
 * ---------------------------------------------------------------------- */

int dbg_path_runs(DbgClient *c, const DbgPath *p, size_t from, DbgPathRun **runs, size_t *n)
{
    *runs = NULL;
    *n = 0;
    size_t cap = 0;
    for (size_t i = from; i < p->n; i++) {
        DbgClosure cl;
        if (dbg_closure(c, p->addrs[i], &cl) != 0) {
            free(*runs);
            *runs = NULL;
            return -1;
        }
        bool is_static = cl.block == NULL;
        uint16_t gen = is_static ? 0 : cl.block->gen;
        DbgPathRun *last = *n > 0 ? &(*runs)[*n - 1] : NULL;
        /* A static closure is a named variable: it is never folded into a run. */
        if (last != NULL && !is_static && !last->is_static && last->info == cl.info) {
            last->n++;
            last->last_addr = cl.addr;
            last->era_lo = cl.era < last->era_lo ? cl.era : last->era_lo;
            last->era_hi = cl.era > last->era_hi ? cl.era : last->era_hi;
            last->gen_lo = gen < last->gen_lo ? gen : last->gen_lo;
            last->gen_hi = gen > last->gen_hi ? gen : last->gen_hi;
            continue;
        }
        if (GROW_ARRAY_RESERVE(*runs, cap, *n + 1) != 0) {
            free(*runs);
            *runs = NULL;
            return dbg_fail(c, "out of memory");
        }
        (*runs)[(*n)++] = (DbgPathRun){i, 1, cl.addr, cl.addr, cl.info, is_static,
                                       cl.era, cl.era, gen, gen};
    }
    return 0;
}
