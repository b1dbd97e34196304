/*
 * utils/debug-client/Marks.c -- the graph core's traversal: marks what
 * the roots reach, breadth first keeping the discovery order, or depth
 * first keeping only the marks (Note [Marks only]), and reads the marked
 * objects back in address order.  Marks are a bitmap per block (a bit per
 * word), so a heap of N bytes needs N/64 bytes of marks.  The analyses
 * (Reach.c, Analysis.c, Dominators.c, Boundary.c) start from a DbgReach;
 * the dense numbering of what is marked is Ranks.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "BlockIndex.h"
#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "GrowArray.h"
#include "HeapLookup.h"
#include "Marks.h"
#include "ReachState.h"
#include "strata/Debug.h"

void dbg_reach_free(DbgReach *r)
{
    if (r == NULL)
        return;
    if (r->mark_space == NULL)
        for (size_t i = 0; i < r->n_blocks; i++)
            free(r->marks[i]);
    free(r->marks);
    word_map_free(&r->static_marks);
    free(r->parents32);
    free(r->parents64);
    if (r->rank_base != NULL)
        for (size_t i = 0; i < r->n_blocks; i++)
            free(r->rank_base[i]);
    free(r->rank_base);
    word_map_free(&r->static_rank);
    free(r->block_first);
    free(r->static_addrs);
    free(r->order);
    free(r->stack);
    free(r->found);
    free(r->hot);
    free(r->mark_space);
    free(r->held);
    free(r->first_marks);
    word_map_free(&r->later_statics);
    free(r->ptrs);
    free(r);
}

const uint64_t *dbg_reach_objects(const DbgReach *r, size_t *n)
{
    *n = r->marks_only ? 0 : r->n;
    return r->order;
}

size_t dbg_reach_count(const DbgReach *r)
{
    return r->n_reached;
}

uint64_t dbg_reach_dangling(const DbgReach *r)
{
    return r->dangling;
}

/* The mark word and bit of addr, or NULL for a static closure. */
static uint64_t *mark_word(DbgClient *c, DbgReach *r, uint64_t addr, uint64_t *bit, int *err)
{
    const DbgBlock *b = block_of(c, addr);
    if (b == NULL)
        return NULL;
    size_t i = (size_t)(b - c->blocks);
    if (r->marks[i] == NULL) {
        r->marks[i] = calloc((b->used_bytes / 8 + 63) / 64 + 1, sizeof(uint64_t));
        if (r->marks[i] == NULL) {
            *err = dbg_fail(c, "out of memory for marks");
            return NULL;
        }
    }
    uint64_t w = (addr - b->start) / 8;
    *bit = (uint64_t)1 << (w % 64);
    return &r->marks[i][w / 64];
}

bool dbg_reach_has(const DbgReach *r, uint64_t addr)
{
    const DbgBlock *b = block_of(r->c, addr);
    if (b == NULL)
        return word_map_get(&r->static_marks, addr) != NULL;
    const uint64_t *m = r->marks[b - r->c->blocks];
    uint64_t w = (addr - b->start) / 8;
    return m != NULL && (m[w / 64] >> (w % 64) & 1) != 0;
}

/* Visits addr from parent: marks and queues it the first time.  Returns
 * -1 on a fatal error. */
static int visit(DbgClient *c, DbgReach *r, uint64_t addr)
{
    if (addr == 0 || addr % 8 != 0) {
        r->dangling++;
        return 0;
    }
    int err = 0;
    uint64_t bit;
    uint64_t *mw = mark_word(c, r, addr, &bit, &err);
    if (err)
        return -1;
    if (mw != NULL) {
        if (*mw & bit)
            return 0;
        *mw |= bit;
    } else {
        if (word_map_get(&r->static_marks, addr) != NULL)
            return 0;
        DbgClosure cl;
        if (dbg_closure(c, addr, &cl) != 0) {   /* not a static closure */
            r->dangling++;
            return 0;
        }
        if (word_map_put(&r->static_marks, addr, 1) != 0)
            return dbg_fail(c, "out of memory for marks");
    }
    r->n_reached++;
    if (GROW_ARRAY_RESERVE_MIN(r->order, r->cap, r->n + 1, 4096) != 0)
        return dbg_fail(c, "out of memory for the traversal");
    r->order[r->n++] = addr;
    return 0;
}

/* Note [Hot block records]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Marking an object reached by a pointer needs its block's start, end,
 * contents and mark words: in DbgBlock (48 bytes, with fields only the
 * commands read) and in the marks' pointer array, two cache misses per
 * pointer on a heap of a quarter of a million blocks.  The marks-only
 * traversal keeps them together in a record of 32 bytes per block, found
 * with the block index's page table, and all blocks' mark words in one
 * allocation (untouched pages of it cost nothing): one miss.  A block's
 * entry in r->marks is set when its first object is marked, so "no marks"
 * still means "no live object" to everything after the traversal. */
typedef struct HotBlock {
    uint64_t start, end;
    uint64_t *marks;
    const uint8_t *data;
} HotBlock;

static int hot_blocks_build(DbgClient *c, DbgReach *r)
{
    size_t words = 0;
    for (size_t i = 0; i < r->n_blocks; i++)
        words += (c->blocks[i].used_bytes / 8 + 63) / 64 + 1;
    r->hot = malloc((r->n_blocks ? r->n_blocks : 1) * sizeof *r->hot);
    r->mark_space = calloc(words ? words : 1, sizeof *r->mark_space);
    if (r->hot == NULL || r->mark_space == NULL)
        return dbg_fail(c, "out of memory for marks");
    words = 0;
    for (size_t i = 0; i < r->n_blocks; i++) {
        const DbgBlock *b = &c->blocks[i];
        r->hot[i] = (HotBlock){b->start, b->start + b->used_bytes, r->mark_space + words,
                               b->data};
        words += (b->used_bytes / 8 + 63) / 64 + 1;
    }
    r->n_mark_words = words;
    return 0;
}

/* visit for the marks-only traversal: pushes addr on the stack the first
 * time, with what scanning it needs, and asks for its words' cache line. */
static int visit_dfs(DbgClient *c, DbgReach *r, uint64_t addr)
{
    if (addr == 0 || addr % 8 != 0) {
        r->dangling++;
        return 0;
    }
    MarkItem it = {addr, NO_BLOCK, NULL};
    /* block_of's answer, from the hot records where the page table has one. */
    size_t i = NO_BLOCK;
    uint32_t e;
    int k = block_index_entry(&c->block_index, addr, &e);
    if (k > 0 && e != UINT32_MAX) {
        while (e + 1 < r->n_blocks && r->hot[e + 1].start <= addr)
            e++;
        if (addr >= r->hot[e].start && addr < r->hot[e].end)
            i = e;
    } else if (k == 0) {
        const DbgBlock *b = block_of(c, addr);
        if (b != NULL)
            i = (size_t)(b - c->blocks);
    }
    if (i != NO_BLOCK) {
        const HotBlock *h = &r->hot[i];
        uint64_t *m = h->marks;
        uint64_t w = (addr - h->start) / 8, bit = (uint64_t)1 << (w % 64);
        if (m[w / 64] & bit)
            return 0;
        m[w / 64] |= bit;
        r->marks[i] = m;
        it.block = i;
        if (h->data != NULL) {
            it.words = (const uint64_t *)(const void *)(h->data + (addr - h->start));
            __builtin_prefetch(it.words);
        }
    } else {
        /* The static marked last: many objects point at one (every leaf
         * of a tree at its empty constructor), so ask the map less. */
        if (addr == r->last_static || word_map_get(&r->static_marks, addr) != NULL) {
            r->last_static = addr;
            return 0;
        }
        DbgClosure cl;
        if (dbg_closure(c, addr, &cl) != 0) {   /* not a static closure */
            r->dangling++;
            return 0;
        }
        if (word_map_put(&r->static_marks, addr, 1) != 0 ||
            (r->releasing && word_map_put(&r->later_statics, addr, 1) != 0))
            return dbg_fail(c, "out of memory for marks");
        r->last_static = addr;
    }
    r->n_reached++;
    if (GROW_ARRAY_RESERVE_MIN(r->stack, r->cap_stack, r->n_stack + 1, 4096) != 0)
        return dbg_fail(c, "out of memory for the traversal");
    r->stack[r->n_stack++] = it;
    return 0;
}

/* Calls visit_fn on each pointer field of cl.  Inline, so that each
 * traversal's visit is called directly. */
static inline __attribute__((always_inline)) int
visit_fields(DbgClient *c, DbgReach *r, const DbgClosure *cl,
             int (*visit_fn)(DbgClient *c, DbgReach *r, uint64_t addr))
{
    size_t np;
    if (dbg_closure_ptrs_grow(c, cl, &r->ptrs, &r->ptr_cap, &np) != 0)
        return dbg_fail(c, "out of memory");
    const uint64_t *ptrs = r->ptrs;   /* a visit does not change it */
    for (size_t i = 0; i < np; i++)
        if (visit_fn(c, r, ptrs[i]) != 0)
            return -1;
    return 0;
}

static int scan_item(DbgClient *c, DbgReach *r, const MarkItem *it)
{
    DbgClosure cl;
    if (it->block == NO_BLOCK)
        return dbg_closure(c, it->addr, &cl) != 0 ? -1 : visit_fields(c, r, &cl, visit_dfs);
    const DbgBlock *b = &c->blocks[it->block];
    if (r->hold_era != 0 && dbg_object_era(c, b, it->addr) >= r->hold_era) {
        /* Note [Marking in two steps] */
        if (GROW_ARRAY_RESERVE_MIN(r->held, r->cap_held, r->n_held + 1, 64) != 0)
            return dbg_fail(c, "out of memory for the traversal");
        r->held[r->n_held++] = *it;
        return 0;
    }
    if (dbg_closure_in(c, b, it->addr, &cl) != 0 ||
        (r->each != NULL && r->each(c, &cl, r->each_env) != 0))
        return -1;
    return visit_fields(c, r, &cl, visit_dfs);
}

/* Note [Prefetching the marks-only traversal]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Depth first, each object popped is one pushed a moment ago, somewhere
 * else in a heap far bigger than the caches: the traversal waits on
 * memory at every object (most of a census's time on the 1 GB heap of
 * docs/design/debugger.md).  So objects pass from the stack through a
 * small first-in first-out window before they are scanned, and their
 * words are prefetched as they enter it: a dozen misses are under way at
 * once instead of one.  The order changes, the marks and the dangling
 * count do not (every reached object is scanned once either way). */

static int traverse_marks_only(DbgClient *c, DbgReach *r)
{
    MarkItem win[PREFETCH_WINDOW];
    size_t head = 0, n_win = 0;
    while (r->n_stack > 0 || n_win > 0) {
        while (n_win < PREFETCH_WINDOW && r->n_stack > 0) {
            MarkItem *it = &win[(head + n_win++) % PREFETCH_WINDOW];
            *it = r->stack[--r->n_stack];
            if (it->words != NULL) {
                __builtin_prefetch(it->words);
                __builtin_prefetch(&c->blocks[it->block]);
            }
        }
        MarkItem it = win[head];
        head = (head + 1) % PREFETCH_WINDOW;
        n_win--;
        if (scan_item(c, r, &it) != 0)
            return -1;
    }
    return 0;
}

const uint8_t dbg_seed_order[5] = {DEBUG_ROOT_FRAME, DEBUG_ROOT_SAVED, DEBUG_ROOT_STABLE_PTR,
                                    DEBUG_ROOT_STATIC, DEBUG_ROOT_THREAD};

/* Visits every pointer field of the object at addr. */
static int scan(DbgClient *c, DbgReach *r, uint64_t addr)
{
    DbgClosure cl;
    if (dbg_closure(c, addr, &cl) != 0)
        return -1;
    return visit_fields(c, r, &cl, visit);
}

/* Note [Marks only]
 * ~~~~~~~~~~~~~~~~~
 * The breadth-first order is what makes retainer paths shortest and what
 * the listing commands print in; a census needs neither, only the marks.
 * Keeping the order costs 8 bytes an object (270 MB for the 1 GB heap of
 * docs/design/debugger.md, a third of its live bytes), so a census
 * traverses depth first with a stack, which stays as deep as the heap's
 * widest pending fan-out (a few hundred entries for a tree) instead of
 * growing to every object, and then reads the objects back in address
 * order from the marks (dbg_reach_for_each_heap).  The set marked is the
 * same, and so is the dangling count: each reached object's fields are
 * visited once either way.  The dominator tree, the boundary and the
 * retainers' paths (Note [Paths without the order]) start from these
 * marks too. */
DbgReach *dbg_reach_marks(DbgClient *c)
{
    const DbgRoot *roots;
    size_t n_roots;
    return dbg_reach_traverse(c, true, &roots, &n_roots);
}

int dbg_reach_for_each_heap(DbgClient *c, const DbgReach *r,
                            int (*f)(DbgClient *c, const DbgClosure *cl, void *env), void *env)
{
    return dbg_reach_for_each_heap_from(c, r, 0, f, env);
}

int dbg_reach_for_each_heap_from(DbgClient *c, const DbgReach *r, uint64_t min_era,
                                 int (*f)(DbgClient *c, const DbgClosure *cl, void *env),
                                 void *env)
{
    /* A block's objects share its era, unless each carries its own. */
    bool per_object = dbg_eras_in_headers(c) && min_era > 0;
    for (size_t i = 0; i < r->n_blocks; i++) {
        const uint64_t *m = r->marks[i];
        if (m == NULL || (!per_object && c->blocks[i].era < min_era))
            continue;
        size_t nw = (c->blocks[i].used_bytes / 8 + 63) / 64 + 1;
        for (size_t k = 0; k < nw; k++)
            for (uint64_t bits = m[k]; bits != 0; bits &= bits - 1) {
                uint64_t w = (uint64_t)k * 64 + (uint64_t)__builtin_ctzll(bits);
                DbgClosure cl;
                if (dbg_closure_in(c, &c->blocks[i], c->blocks[i].start + w * 8, &cl) != 0)
                    return -1;
                if (per_object && cl.era < min_era)
                    continue;
                int st = f(c, &cl, env);
                if (st != 0)
                    return st;
            }
    }
    return 0;
}

static DbgReach *traverse(DbgClient *c, bool marks_only, const DbgRoot **roots,
                          size_t *n_roots, const DbgReach *hooks)
{
    const DbgBlock *bs;
    size_t n_blocks;
    if (dbg_blocks(c, &bs, &n_blocks) != 0 || dbg_roots(c, roots, n_roots) != 0 ||
        dbg_load_all(c) != 0)
        return NULL;
    DbgReach *r = calloc(1, sizeof *r);
    if (r == NULL || (r->marks = calloc(n_blocks ? n_blocks : 1, sizeof *r->marks)) == NULL) {
        free(r);
        dbg_fail(c, "out of memory");
        return NULL;
    }
    r->n_blocks = n_blocks;
    r->c = c;
    r->marks_only = marks_only;
    r->hold_era = hooks != NULL ? hooks->hold_era : 0;
    r->each = hooks != NULL ? hooks->each : NULL;
    r->each_env = hooks != NULL ? hooks->each_env : NULL;
    if (marks_only && hot_blocks_build(c, r) != 0)
        goto fail;
    for (size_t k = 0; k < sizeof dbg_seed_order; k++)
        for (size_t i = 0; i < *n_roots; i++)
            if ((*roots)[i].kind == dbg_seed_order[k] &&
                (marks_only ? visit_dfs(c, r, (*roots)[i].addr) : visit(c, r, (*roots)[i].addr)) != 0)
                goto fail;
    if (marks_only) {
        /* Depth first (Note [Marks only]), through a prefetch window. */
        if (traverse_marks_only(c, r) != 0)
            goto fail;
        if (r->n_held == 0) {
            free(r->hot);   /* the marks stay in r->mark_space */
            r->hot = NULL;
        }
    } else {
        for (size_t q = 0; q < r->n; q++)
            if (scan(c, r, r->order[q]) != 0)
                goto fail;
    }
    return r;
fail:
    dbg_reach_free(r);
    return NULL;
}

DbgReach *dbg_reach_traverse(DbgClient *c, bool marks_only, const DbgRoot **roots,
                             size_t *n_roots)
{
    return traverse(c, marks_only, roots, n_roots, NULL);
}

/* Note [Marking in two steps]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A diff wants of B a census, the set of objects reachable without
 * passing through a new object, and the new objects met on its edge
 * (Note [Retained by the new objects] in DiffNewObjects.c).  The marks-only
 * traversal gives all three in its one pass over the heap: a callback
 * counts each object as it is scanned (it is in the cache then, and a
 * census needs no second sweep of the marks), and objects of new blocks
 * are marked when met but wait unscanned until the first step is done.
 * Then the marks are copied (a bit per heap word), and the waiting
 * objects and what they reach are scanned.  Each reached object is still
 * scanned once, so the marks and the census are the same as one pass's. */
DbgReach *dbg_reach_marks_with(DbgClient *c, uint64_t hold_era,
                               int (*each)(DbgClient *c, const DbgClosure *cl, void *env),
                               void *env)
{
    DbgReach hooks = {.hold_era = hold_era, .each = each, .each_env = env};
    const DbgRoot *roots;
    size_t n_roots;
    return traverse(c, true, &roots, &n_roots, &hooks);
}

size_t dbg_reach_n_held(const DbgReach *r)
{
    return r->n_held;
}

int dbg_reach_marks_release(DbgReach *r)
{
    if (r->n_held == 0)
        return 0;
    DbgClient *c = r->c;
    r->first_marks = malloc((r->n_mark_words ? r->n_mark_words : 1) * sizeof *r->first_marks);
    if (r->first_marks == NULL ||
        GROW_ARRAY_RESERVE_MIN(r->stack, r->cap_stack, r->n_stack + r->n_held, 4096) != 0)
        return dbg_fail(c, "out of memory for the traversal");
    memcpy(r->first_marks, r->mark_space, r->n_mark_words * sizeof *r->first_marks);
    r->hold_era = 0;
    r->releasing = true;
    for (size_t i = r->n_held; i > 0; i--)   /* the first held is scanned first */
        r->stack[r->n_stack++] = r->held[i - 1];
    int st = traverse_marks_only(c, r);
    free(r->hot);
    r->hot = NULL;
    return st;
}

bool dbg_reach_marked_first(const DbgReach *r, uint64_t addr)
{
    const DbgBlock *b = block_of(r->c, addr);
    if (b == NULL)
        return word_map_get(&r->static_marks, addr) != NULL &&
               (r->first_marks == NULL || word_map_get(&r->later_statics, addr) == NULL);
    const uint64_t *m = r->marks[b - r->c->blocks];
    if (m == NULL)
        return false;
    if (r->first_marks != NULL)
        m = r->first_marks + (m - r->mark_space);
    uint64_t w = (addr - b->start) / 8;
    return (m[w / 64] >> (w % 64) & 1) != 0;
}
