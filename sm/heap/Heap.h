/*
 * sm/heap/Heap.h -- the heap floor: generations and their block lists, what
 * the storage manager is configured with, heap accounting and heap
 * overflow.  Everything in sm/ above it reads these; nothing here
 * allocates objects or collects.  See docs/design/storage.md.
 */
#ifndef STRATA_HEAP_H
#define STRATA_HEAP_H

#include <stdbool.h>

#include "strata/Block.h"
#include "strata/Closures.h"
#include "Capability.h"

typedef struct Generation_ {
    uint16_t no;                 /* 0 = youngest */
    uint16_t promote_to;         /* generation survivors of this one go to */
    BlockDesc *blocks;           /* small-object blocks, linked by ->link */
    StgWord n_blocks;            /* blocks on that list */
    StgWord n_words;             /* words of objects in them (after a GC:
                                    live; between GCs: an upper bound) */
    BlockDesc *large_objects;    /* large and pinned groups, doubly linked
                                    through ->link / ->u.back */
    StgWord n_large_blocks;      /* blocks in those groups */
    StgWord n_large_words;       /* words of objects in them */
    BlockDesc *segments;         /* the non-moving generation's segments,
                                    their heads doubly linked through ->link
                                    / ->u.back (Note [Segments] in
                                    Segment.h); their blocks are counted in
                                    n_blocks */
    BlockDesc *mut_list;         /* remembered set: blocks of StgClosure* */
    StgWord max_blocks;          /* collect this generation when its
                                    blocks exceed this */
    StgWord collections;         /* times collected */
    /* Where a collection's copies go is each GC thread's own
     * (GenWorkspace in GCThread.h). */

    /* Valid during a GC that collects this generation only. */
    BlockDesc *old_blocks;       /* from-space small-object blocks */
    StgWord n_old_blocks;
    BlockDesc *old_large;        /* large groups not (yet) found live */
    BlockDesc *old_mut_list;     /* remembered set being scanned */
} Generation;

extern Generation *storage_gens;     /* [0 .. storage_n_gens-1] */
extern unsigned storage_n_gens;
#define oldest_gen (&storage_gens[storage_n_gens - 1])

/* Bytes allocated in large objects and pinned blocks since the last GC, by
 * every capability (under sm_lock while the world runs). */
extern StgWord storage_large_alloc_bytes;

/* --promote-in-place: when a minor GC may promote generation 0 without
 * copying it (Note [Promoting the nursery in place] in
 * sm/PromoteInPlace.h). */
typedef enum {
    PROMOTE_IN_PLACE_AUTO = 0,   /* when the last copying GC's survival says so */
    PROMOTE_IN_PLACE_ALWAYS,     /* at every minor GC that can */
    PROMOTE_IN_PLACE_NEVER,
} PromoteInPlaceMode;

/* What the storage manager is configured with (from the RTS flags; the
 * runtime fills it in, sm/ never reads flags). */
typedef struct {
    unsigned generations;        /* -G: at least 1 */
    StgWord nursery_bytes;       /* -A: each capability's nursery, and the
                                    large-object allocation that triggers
                                    a GC */
    unsigned capabilities;       /* -N: at least 1 */
    unsigned gc_threads;         /* -qn: GC threads, at most one per
                                    capability; 0: one per capability */
    unsigned par_gc_from_gen;    /* -qg: collections of this generation and
                                    older are parallel (0: all); UINT_MAX:
                                    none */
    StgWord max_heap_bytes;      /* -M: 0 = unlimited */
    double oldgen_factor;        /* -F: an old generation's budget is its
                                    live size times this */
    bool automatic_era_increment; /* --automatic-era-increment: the era
                                    advances after each major GC (Era.h) */
    bool prefault;               /* run the prefault helper (the runtime
                                    decides from --prefault and the
                                    processors: sm/block/Prefault.c) */
    PromoteInPlaceMode promote_in_place;  /* --promote-in-place */
    bool nonmoving;              /* --nonmoving-gc: the oldest generation is
                                    marked and swept, never copied
                                    (sm/NonMoving.h) */
} StorageConfig;

/* The configuration storage_init was given (valid until storage_exit). */
extern StorageConfig storage_config;

/* Called when the heap cannot grow (-M exceeded, the OS refuses memory, an
 * object larger than the heap), after the message.  It must not return
 * (the runtime shuts down with exit status 251); if it does, or there is
 * none, the storage manager aborts. */
typedef void (*HeapOverflowHandler)(void);
extern HeapOverflowHandler storage_heap_overflow_handler;

/* Reserves the heap's address space, starts the block allocator and makes
 * the generations, from config (copied into storage_config).  Returns
 * false (after a message) if memory cannot be had. */
bool heap_init(const StorageConfig *config);

/* Frees the generations and gives the reservation back. */
void heap_exit(void);

/* Moves cap's (every capability's) pinned block being filled onto
 * generation 0's large-object list. */
void storage_retire_pinned_block_of(Capability *cap);
void storage_retire_pinned_blocks(void);

/* Blocks held by the heap: every generation's lists plus the nursery. */
StgWord storage_heap_blocks(void);

/* Doubly linked lists of groups (large objects). */
void dbl_link_onto(BlockDesc *bd, BlockDesc **list);
void dbl_link_remove(BlockDesc *bd, BlockDesc **list);

/* Reports "heap overflow" (+RTS -M exceeded, or the OS refused memory)
 * and calls storage_heap_overflow_handler. */
_Noreturn void storage_heap_overflow(StgWord needed_bytes);

/* The largest object the heap's reservation could hold, in words, and the
 * report (exit 251) for a request above it: what ("a byte array"), the
 * size asked for and its unit.  See Note [Object sizes are checked]. */
StgWord storage_max_object_words(void);
_Noreturn void storage_alloc_too_large(const char *what, StgWord n, const char *unit);

#endif /* STRATA_HEAP_H */
