/*
 * utils/debug-client/Reach.c -- reachability from the roots: breadth
 * first, recording one parent per object (its retainer path), or marks
 * only, depth first (Note [Marks only]), or marks and then parents and
 * matches without the order (Note [Paths without the order]); and search
 * (with the constructor names nearest to one that matched nothing).
 * Marks are a bitmap per block (a bit per word), so a heap of N bytes
 * needs N/64 bytes of marks; parents an array by dense rank.  Also the
 * dense numbering of reachable objects that the dominator tree uses
 * (Note [Ranks from the marks]) and the folding of a path into runs of
 * one info table.
 */
#include <stdlib.h>
#include <string.h>

#include "ClientPrivate.h"
#include "GrowArray.h"
#include "DebugAnalysis.h"
#include "strata/Debug.h"


/* Set bits of x.  Without the popcnt instruction (the build's baseline
 * x86-64 lacks it) __builtin_popcountll is a call into libgcc, made for
 * every rank asked (2 % of a boundary); this is the same in a dozen
 * inline instructions. */
static inline uint64_t popcount64(uint64_t x)
{
#ifdef __POPCNT__
    return popcount64(x);
#else
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (x * 0x0101010101010101ull) >> 56;
#endif
}

struct DbgReach {
    DbgClient *c;
    bool paths;                  /* parents recorded */
    bool marks_only;             /* order not kept: see Note [Marks only] */
    size_t n_reached;            /* objects marked (heap and static) */
    uint64_t **marks;            /* per block index, bit per word; lazily */
    WordMap static_marks;        /* static closures reached */
    uint32_t *parents32;         /* by rank (dbg_reach_rank): see Note [Parents by */
    uint64_t *parents64;         /* rank, after the traversal]; one of the two */
    size_t n_parent_objs;        /* parent values above it are roots */
    uint64_t *order;             /* discovery order (also the BFS queue) */
    size_t n, cap;
    struct MarkItem *stack;      /* marks only: the depth-first stack */
    size_t n_stack, cap_stack;
    uint64_t last_static;        /* a static closure marked already, or 0 */
    struct HotBlock *hot;        /* marks only: see Note [Hot block records] */
    uint64_t *mark_space;        /* marks only: every block's marks, in one */
    DbgQuery query;              /* dbg_reach_search: what to look for, */
    size_t limit;                /* how many at most, */
    uint64_t *found;             /* and what was found, in breadth-first order */
    size_t n_found;
    size_t n_blocks;
    uint64_t dangling;
    uint64_t *ptrs;              /* the fields of the object being scanned */
    size_t ptr_cap;
    /* Dense numbering (dbg_reach_rank), built on first use: */
    uint64_t **rank_base;        /* per block, per mark word: marked words before it,
                                  * counted over the whole heap in block order */
    WordMap static_rank;         /* static closure -> rank + 1 */
    size_t n_heap;               /* marked heap objects: ranks below it */
    uint64_t *block_first;       /* per block: rank of its first marked object
                                  * (the running total for a block with none) */
    uint64_t *static_addrs;      /* rank n_heap + i -> static closure */
    size_t n_static;
};

bool dbg_parse_era_range(const char *s, DbgEraRange *out)
{
    char *end;
    if (s == NULL || *s < '0' || *s > '9')
        return false;
    unsigned long long lo = strtoull(s, &end, 10), hi = lo;
    if (*end == '-') {
        const char *h = end + 1;
        if (*h < '0' || *h > '9')
            return false;
        hi = strtoull(h, &end, 10);
    }
    if (*end != '\0' || hi < lo)
        return false;
    *out = (DbgEraRange){true, lo, hi};
    return true;
}

bool dbg_era_selected(const DbgEraRange *r, uint64_t era)
{
    return r == NULL || !r->on || (era >= r->lo && era <= r->hi);
}

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

/* An object waiting to be scanned by the marks-only traversal: its
 * block (NO_BLOCK for a static closure) and where its words are. */
#define NO_BLOCK SIZE_MAX
typedef struct MarkItem {
    uint64_t addr;
    size_t block;
    const uint64_t *words;
} MarkItem;

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
        if (word_map_put(&r->static_marks, addr, 1) != 0)
            return dbg_fail(c, "out of memory for marks");
        r->last_static = addr;
    }
    r->n_reached++;
    if (GROW_ARRAY_RESERVE_MIN(r->stack, r->cap_stack, r->n_stack + 1, 4096) != 0)
        return dbg_fail(c, "out of memory for the traversal");
    r->stack[r->n_stack++] = it;
    return 0;
}

static int scan_item(DbgClient *c, DbgReach *r, const MarkItem *it)
{
    DbgClosure cl;
    if ((it->block != NO_BLOCK ? dbg_closure_in(c, &c->blocks[it->block], it->addr, &cl)
                               : dbg_closure(c, it->addr, &cl)) != 0)
        return -1;
    size_t np;
    if (dbg_closure_ptrs_grow(c, &cl, &r->ptrs, &r->ptr_cap, &np) != 0)
        return dbg_fail(c, "out of memory");
    for (size_t i = 0; i < np; i++)
        if (visit_dfs(c, r, r->ptrs[i]) != 0)
            return -1;
    return 0;
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
#define PREFETCH_WINDOW 16

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

/* Seeds in this order of root kinds, so that a path ends at the most
 * telling root: the frame or saved object rather than the thread. */
static const uint8_t seed_order[] = {DEBUG_ROOT_FRAME, DEBUG_ROOT_SAVED,
                                     DEBUG_ROOT_STABLE_PTR, DEBUG_ROOT_STATIC,
                                     DEBUG_ROOT_THREAD};

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

static int record_parents(DbgClient *c, DbgReach *r, const DbgRoot *roots, size_t n_roots)
{
    if (dbg_reach_rank_build(r) != 0)
        return -1;
    size_t n = dbg_reach_n_ranked(r);
    r->n_parent_objs = n;
    if ((uint64_t)n + 1 + n_roots <= UINT32_MAX)
        r->parents32 = calloc(n ? n : 1, sizeof *r->parents32);   /* 0: none yet */
    else
        r->parents64 = calloc(n ? n : 1, sizeof *r->parents64);
    if (r->parents32 == NULL && r->parents64 == NULL)
        return dbg_fail(c, "out of memory for retainer paths");
    for (size_t k = 0; k < sizeof seed_order; k++)
        for (size_t i = 0; i < n_roots; i++) {
            size_t t = roots[i].kind == seed_order[k] ? dbg_reach_rank(r, roots[i].addr)
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

static DbgReach *reach(DbgClient *c, bool paths, bool marks_only);

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

/* The rank of a marked heap object at addr in block i (b). */
static size_t rank_in(const DbgReach *r, size_t i, const DbgBlock *b, uint64_t addr)
{
    uint64_t w = (addr - b->start) / 8;
    uint64_t below = r->marks[i][w / 64] & (((uint64_t)1 << (w % 64)) - 1);
    return (size_t)(r->rank_base[i][w / 64] + popcount64(below));
}

/* The breadth-first pass of Note [Paths without the order], after the
 * marks: parents, and the matches of r->query.  Objects go from the queue
 * through a prefetch window as in Note [Prefetching the marks-only
 * traversal], which keeps their order. */
static int search_paths(DbgClient *c, DbgReach *r, const DbgRoot *roots, size_t n_roots)
{
    if (dbg_reach_rank_build(r) != 0)
        return -1;
    size_t n = dbg_reach_n_ranked(r);
    r->n_parent_objs = n;
    if ((uint64_t)n + 1 + n_roots <= UINT32_MAX)
        r->parents32 = calloc(n ? n : 1, sizeof *r->parents32);   /* 0: none yet */
    else
        r->parents64 = calloc(n ? n : 1, sizeof *r->parents64);
    if (r->parents32 == NULL && r->parents64 == NULL)
        return dbg_fail(c, "out of memory for retainer paths");
    if (r->limit > 0 && (r->found = malloc(r->limit * sizeof *r->found)) == NULL)
        return dbg_fail(c, "out of memory");
    AddrQueue q = {0};
    uint64_t *ptrs = NULL;
    size_t cap = 0, np;
    for (size_t k = 0; k < sizeof seed_order; k++)
        for (size_t i = 0; i < n_roots; i++) {
            size_t t = roots[i].kind == seed_order[k] ? dbg_reach_rank(r, roots[i].addr)
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

/* Visits every pointer field of the object at addr. */
static int scan(DbgClient *c, DbgReach *r, uint64_t addr)
{
    DbgClosure cl;
    if (dbg_closure(c, addr, &cl) != 0)
        return -1;
    size_t np;
    if (dbg_closure_ptrs_grow(c, &cl, &r->ptrs, &r->ptr_cap, &np) != 0)
        return dbg_fail(c, "out of memory");
    for (size_t i = 0; i < np; i++)
        if (visit(c, r, r->ptrs[i]) != 0)
            return -1;
    return 0;
}

DbgReach *dbg_reach(DbgClient *c)
{
    return reach(c, true, false);
}

DbgReach *dbg_reach_opts(DbgClient *c, bool paths)
{
    return reach(c, paths, false);
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
    return reach(c, false, true);
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
    for (size_t i = 0; i < r->n_blocks; i++) {
        const uint64_t *m = r->marks[i];
        if (m == NULL || c->blocks[i].era < min_era)
            continue;
        size_t nw = (c->blocks[i].used_bytes / 8 + 63) / 64 + 1;
        for (size_t k = 0; k < nw; k++)
            for (uint64_t bits = m[k]; bits != 0; bits &= bits - 1) {
                uint64_t w = (uint64_t)k * 64 + (uint64_t)__builtin_ctzll(bits);
                DbgClosure cl;
                if (dbg_closure_in(c, &c->blocks[i], c->blocks[i].start + w * 8, &cl) != 0)
                    return -1;
                int st = f(c, &cl, env);
                if (st != 0)
                    return st;
            }
    }
    return 0;
}

static DbgReach *reach(DbgClient *c, bool paths, bool marks_only)
{
    const DbgRoot *roots;
    size_t n_roots;
    const DbgBlock *bs;
    size_t n_blocks;
    if (dbg_blocks(c, &bs, &n_blocks) != 0 || dbg_roots(c, &roots, &n_roots) != 0 ||
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
    r->paths = paths;
    r->marks_only = marks_only;
    if (marks_only && hot_blocks_build(c, r) != 0)
        goto fail;
    for (size_t k = 0; k < sizeof seed_order; k++)
        for (size_t i = 0; i < n_roots; i++)
            if (roots[i].kind == seed_order[k] &&
                (marks_only ? visit_dfs(c, r, roots[i].addr) : visit(c, r, roots[i].addr)) != 0)
                goto fail;
    if (marks_only) {
        /* Depth first (Note [Marks only]), through a prefetch window. */
        if (traverse_marks_only(c, r) != 0)
            goto fail;
        free(r->hot);   /* the marks stay in r->mark_space */
        r->hot = NULL;
    } else {
        for (size_t q = 0; q < r->n; q++)
            if (scan(c, r, r->order[q]) != 0)
                goto fail;
    }
    if (paths && record_parents(c, r, roots, n_roots) != 0)
        goto fail;
    return r;
fail:
    dbg_reach_free(r);
    return NULL;
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
 * Dense numbering of the reachable objects
 * ---------------------------------------------------------------------- */

/* Note [Ranks from the marks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The dominator tree and the boundary want an array slot per reachable
 * object.  A hash map from address to index costs 16 bytes an object at
 * full load (more at a usable one); the marks already say which words
 * start a live object, so an object's index is the number of marked words
 * before it: the marks of all earlier blocks, plus those of earlier mark
 * words in its block (a prefix count kept per mark word, 8 bytes per 64
 * heap words), plus a popcount in its own mark word.  Heap objects take
 * ranks [0, n_heap) in address order; the few static closures come after,
 * from a small map. */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The statics of a traversal that kept no order take ranks first + 0, 1,
 * ... in address order. */
static int rank_statics_by_address(DbgReach *r, uint64_t first)
{
    size_t n = r->static_marks.n;
    r->static_addrs = malloc((n ? n : 1) * sizeof *r->static_addrs);
    if (r->static_addrs == NULL)
        return dbg_fail(r->c, "out of memory for object ranks");
    size_t pos = 0;
    uint64_t key, val;
    while (word_map_next(&r->static_marks, &pos, &key, &val))
        r->static_addrs[r->n_static++] = key;
    qsort(r->static_addrs, r->n_static, sizeof *r->static_addrs, cmp_u64);
    for (size_t i = 0; i < r->n_static; i++)
        if (word_map_put(&r->static_rank, r->static_addrs[i], first + i + 1) != 0)
            return dbg_fail(r->c, "out of memory for object ranks");
    return 0;
}

int dbg_reach_rank_build(DbgReach *r)
{
    if (r->rank_base != NULL)
        return 0;
    DbgClient *c = r->c;
    r->rank_base = calloc(r->n_blocks ? r->n_blocks : 1, sizeof *r->rank_base);
    if (r->rank_base == NULL)
        return dbg_fail(c, "out of memory for object ranks");
    r->block_first = malloc((r->n_blocks ? r->n_blocks : 1) * sizeof *r->block_first);
    if (r->block_first == NULL)
        return dbg_fail(c, "out of memory for object ranks");
    uint64_t total = 0;
    for (size_t i = 0; i < r->n_blocks; i++) {
        r->block_first[i] = total;
        if (r->marks[i] == NULL)
            continue;
        size_t nw = (c->blocks[i].used_bytes / 8 + 63) / 64 + 1;
        if ((r->rank_base[i] = malloc(nw * sizeof(uint64_t))) == NULL)
            return dbg_fail(c, "out of memory for object ranks");
        for (size_t k = 0; k < nw; k++) {
            r->rank_base[i][k] = total;
            total += popcount64(r->marks[i][k]);
        }
    }
    r->n_heap = (size_t)total;
    if (r->marks_only)   /* no order: statics by address */
        return rank_statics_by_address(r, total);
    size_t cap = 0;
    for (size_t i = 0; i < r->n; i++) {   /* statics, in discovery order */
        if (dbg_block_of(c, r->order[i]) != NULL)
            continue;
        if (GROW_ARRAY_RESERVE_MIN(r->static_addrs, cap, r->n_static + 1, 64) != 0)
            return dbg_fail(c, "out of memory for object ranks");
        r->static_addrs[r->n_static++] = r->order[i];
        if (word_map_put(&r->static_rank, r->order[i], total++ + 1) != 0)
            return dbg_fail(c, "out of memory for object ranks");
    }
    return 0;
}

size_t dbg_reach_n_ranked(const DbgReach *r)
{
    return r->n_heap + r->n_static;
}

uint64_t dbg_reach_addr(const DbgReach *r, size_t rank)
{
    if (rank >= r->n_heap)
        return rank - r->n_heap < r->n_static ? r->static_addrs[rank - r->n_heap] : 0;
    /* The last block whose first rank is at most rank holds it (a block
     * with no marked object shares its first rank with the next one). */
    size_t lo = 0, hi = r->n_blocks;   /* block_first[lo] <= rank < block_first[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->block_first[mid] <= rank)
            lo = mid;
        else
            hi = mid;
    }
    const DbgBlock *b = &r->c->blocks[lo];
    const uint64_t *base = r->rank_base[lo], *m = r->marks[lo];
    size_t nw = (b->used_bytes / 8 + 63) / 64 + 1, wlo = 0, whi = nw;
    while (whi - wlo > 1) {
        size_t mid = wlo + (whi - wlo) / 2;
        if (base[mid] <= rank)
            wlo = mid;
        else
            whi = mid;
    }
    uint64_t bits = m[wlo];
    for (uint64_t k = rank - base[wlo]; k > 0; k--)
        bits &= bits - 1;
    return b->start + ((uint64_t)wlo * 64 + (uint64_t)__builtin_ctzll(bits)) * 8;
}

bool dbg_reach_next(const DbgReach *r, DbgRankIter *it, uint64_t *addr)
{
    while (it->bits == 0) {
        if (it->block >= r->n_blocks) {
            size_t s = it->rank - r->n_heap;
            if (s >= r->n_static)
                return false;
            *addr = r->static_addrs[s];
            it->rank++;
            return true;
        }
        const uint64_t *m = r->marks[it->block];
        size_t nw = m == NULL ? 0 : (r->c->blocks[it->block].used_bytes / 8 + 63) / 64 + 1;
        if (it->word < nw) {
            it->base = it->word;
            it->bits = m[it->word++];
        } else {
            it->block++;
            it->word = 0;
        }
    }
    uint64_t w = (uint64_t)it->base * 64 + (uint64_t)__builtin_ctzll(it->bits);
    it->bits &= it->bits - 1;
    *addr = r->c->blocks[it->block].start + w * 8;
    it->rank++;
    return true;
}

size_t dbg_reach_rank(const DbgReach *r, uint64_t addr)
{
    const DbgBlock *b = block_of(r->c, addr);
    if (b == NULL) {
        uint64_t *v = word_map_get(&r->static_rank, addr);
        return v != NULL ? (size_t)(*v - 1) : SIZE_MAX;
    }
    size_t i = (size_t)(b - r->c->blocks);
    const uint64_t *m = r->marks[i];
    uint64_t w = (addr - b->start) / 8;
    if (addr % 8 != 0 || m == NULL || (m[w / 64] >> (w % 64) & 1) == 0)
        return SIZE_MAX;
    uint64_t below = m[w / 64] & (((uint64_t)1 << (w % 64)) - 1);
    return (size_t)(r->rank_base[i][w / 64] + popcount64(below));
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

/* ----------------------------------------------------------------------
 * Search
 * ---------------------------------------------------------------------- */

bool dbg_query_matches(const DbgQuery *q, const DbgClosure *cl)
{
    if (cl->block == NULL || !dbg_era_selected(&q->eras, cl->era))
        return false;
    switch (q->kind) {
    case DBG_MATCH_ANY:
        return true;
    case DBG_MATCH_CONSTRUCTOR:
        return dbg_type_is_constr(cl->info->type) &&
               (strcmp(cl->info->name, q->name) == 0 ||
                strcmp(cl->info->closure_desc, q->name) == 0);
    case DBG_MATCH_INFO:
        return cl->info->addr == q->info;
    case DBG_MATCH_TYPE:
        return strcmp(dbg_closure_type_name(cl->info->type), q->name) == 0;
    }
    return false;
}

int dbg_search(DbgClient *c, const DbgReach *r, const DbgQuery *q, uint64_t *out, size_t cap,
               size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < r->n && *n < cap; i++) {
        DbgClosure cl;
        if (dbg_closure(c, r->order[i], &cl) != 0)
            return -1;
        if (dbg_query_matches(q, &cl))
            out[(*n)++] = r->order[i];
    }
    return 0;
}

/* ----------------------------------------------------------------------
 * Constructor names near a misspelt one
 * ---------------------------------------------------------------------- */

/* Names longer than this are compared by their first NAME_CMP_MAX bytes. */
#define NAME_CMP_MAX 255

/* Levenshtein distance: insertions, deletions and substitutions, one each. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strnlen(a, NAME_CMP_MAX), lb = strnlen(b, NAME_CMP_MAX);
    size_t row[NAME_CMP_MAX + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];   /* row[i-1][j-1] */
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int name_match_cmp(const void *a, const void *b)
{
    const DbgNameMatch *x = a, *y = b;
    if (x->distance != y->distance)
        return x->distance < y->distance ? -1 : 1;
    return strcmp(x->name, y->name);
}

typedef struct {
    WordMap seen;                /* info tables already looked at */
    const char *name;
    DbgNameMatch *all;
    size_t n_all, cap_all;
} NamesNear;

static int name_near(DbgClient *c, const DbgClosure *cl, void *env)
{
    NamesNear *w = env;
    const DbgInfo *in = cl->info;
    if (!dbg_type_is_constr(in->type) || word_map_get(&w->seen, in->addr) != NULL)
        return 0;
    if (word_map_put(&w->seen, in->addr, 1) != 0)
        return dbg_fail(c, "out of memory");
    /* A query matches the table's name or its closure description. */
    const char *names[2] = {in->name, in->closure_desc};
    for (int k = 0; k < 2; k++) {
        if (names[k][0] == '\0' || (k == 1 && strcmp(names[1], names[0]) == 0))
            continue;
        if (GROW_ARRAY_RESERVE_MIN(w->all, w->cap_all, w->n_all + 1, 64) != 0)
            return dbg_fail(c, "out of memory");
        w->all[w->n_all++] = (DbgNameMatch){names[k], edit_distance(w->name, names[k])};
    }
    return 0;
}

/* Over the heap objects in address order: the answer is a set of names,
 * sorted, so any order of the objects gives it, and traversals that kept
 * no order (dbg_reach_search) have this one. */
int dbg_constructor_names_near(DbgClient *c, const DbgReach *r, const char *name,
                               DbgNameMatch *out, size_t cap, size_t *n)
{
    *n = 0;
    NamesNear w = {{0}, name, NULL, 0, 0};
    int st = dbg_reach_for_each_heap(c, r, name_near, &w) != 0 ? -1 : 0;
    word_map_free(&w.seen);
    if (st == 0 && w.n_all > 0) {
        qsort(w.all, w.n_all, sizeof *w.all, name_match_cmp);
        size_t u = 0;   /* two tables may share a name: keep one */
        for (size_t i = 0; i < w.n_all; i++)
            if (u == 0 || strcmp(w.all[u - 1].name, w.all[i].name) != 0)
                w.all[u++] = w.all[i];
        for (size_t i = 0; i < u && i < cap; i++)
            out[i] = w.all[i];
        *n = u;
    }
    free(w.all);
    return st;
}
