/*
 * utils/debug-client/ReachState.h -- a traversal's state, shared by
 * the graph core (Marks.c: marking what the roots reach; Ranks.c: the
 * dense numbering of what was marked) and the analyses that extend it
 * (Reach.c: parents and retainer paths; Search.c; the diff's DiffCount.c
 * and DiffNewObjects.c: marks in two steps, and a rank and a block in one
 * lookup).  Nothing outside those files looks inside a DbgReach.  Types
 * only.
 */
#ifndef STRATA_DEBUG_REACH_STATE_H
#define STRATA_DEBUG_REACH_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"
#include "WordMap.h"

/* Set bits of x.  Without the popcnt instruction (the build's baseline
 * x86-64 lacks it) __builtin_popcountll is a call into libgcc, made for
 * every rank asked (2 % of a boundary); this is the same in a dozen
 * inline instructions. */
static inline uint64_t popcount64(uint64_t x)
{
#ifdef __POPCNT__
    return (uint64_t)__builtin_popcountll(x);
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
    size_t n_mark_words;         /* ... its length */
    /* Marks only, optionally: Note [Marking in two steps] in Marks.c. */
    int (*each)(DbgClient *c, const DbgClosure *cl, void *env);   /* per heap object */
    void *each_env;
    uint64_t hold_era;           /* objects of blocks of this era or later wait
                                  * (0: none) */
    struct MarkItem *held;       /* the objects waiting, unscanned */
    size_t n_held, cap_held;
    uint64_t *first_marks;       /* the mark words before the held were scanned */
    WordMap later_statics;       /* static closures marked after that */
    bool releasing;
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

/* An object waiting to be scanned by the marks-only traversal: its
 * block (NO_BLOCK for a static closure) and where its words are. */
#define NO_BLOCK SIZE_MAX
typedef struct MarkItem {
    uint64_t addr;
    size_t block;
    const uint64_t *words;
} MarkItem;

/* Objects pass through a window of this many, their words prefetched as
 * they enter it: Note [Prefetching the marks-only traversal] in Marks.c. */
#define PREFETCH_WINDOW 16

#endif /* STRATA_DEBUG_REACH_STATE_H */
