/*
 * sm/Storage.h -- generations, the nursery, the allocation slow paths and
 * the current era: the storage manager's state between collections.
 * See docs/design/storage.md.
 */
#ifndef STRATA_STORAGE_H
#define STRATA_STORAGE_H

#include <stdbool.h>

#include "strata/Block.h"
#include "strata/Closures.h"
#include "strata/Regs.h"
#include "Capability.h"
#include "EraMap.h"
#include "WordMap.h"

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

/* The era stamped on new blocks (GHC's user_era).  Read freely; change it
 * through storage_set_era. */
extern uint64_t storage_current_era;

/* Makes era the current one: records it for the sanity checker's bound and
 * retires the allocation blocks of the old era (.inv.block-era). */
void storage_set_era(uint64_t era);

/* Adds by to the era, reading and changing it with the world stopped (so
 * that increments from several threads all count), unless that would pass
 * UINT64_MAX: then returns false and changes nothing.  *era_out receives
 * the era afterwards. */
bool storage_advance_era(uint64_t by, uint64_t *era_out);

/* The highest era ever current this run: no block may carry a higher one. */
uint64_t storage_max_era(void);

/* Bytes allocated in large objects and pinned blocks since the last GC, by
 * every capability (under sm_lock while the world runs). */
extern StgWord storage_large_alloc_bytes;

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
} StorageConfig;

/* The configuration storage_init was given (valid until storage_exit). */
extern StorageConfig storage_config;

/* Called when the heap cannot grow (-M exceeded, the OS refuses memory, an
 * object larger than the heap), after the message.  It must not return
 * (the runtime shuts down with exit status 251); if it does, or there is
 * none, the storage manager aborts. */
typedef void (*HeapOverflowHandler)(void);
extern HeapOverflowHandler storage_heap_overflow_handler;

/* Sets up megablocks, the block allocator, generations and the nursery
 * from config (copied).  Returns false (after a message) if memory cannot
 * be had. */
bool storage_init(const StorageConfig *config);
void storage_exit(void);

/* Gives cap a nursery of n_blocks single blocks (capabilities_init). */
bool storage_nursery_create(Capability *cap, StgWord n_blocks);

/* Copies each capability's bump pointer into its current nursery block's
 * free field (before the heap is walked; the world must be stopped). */
void storage_sync_nursery(void);
void storage_sync_nursery_of(Capability *cap);

/* Empties every nursery after a GC and starts allocation at its first
 * block (the world stopped). */
void storage_reset_nursery(void);

/* Bytes allocated in the nurseries (or cap's) since they were last reset. */
StgWord storage_nursery_allocated_bytes(void);
StgWord storage_nursery_allocated_bytes_of(Capability *cap);

/* Blocks in all the nurseries. */
StgWord storage_nursery_blocks(void);

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

/* Hook run when an allocation finds hp_lim == NULL (an attention request
 * from the timer or the debugger); NULL when nobody asks for attention. */
extern void (*storage_attention_handler)(void);

/* A large object (at least LARGE_OBJECT_THRESHOLD bytes) that is never a
 * safe point: no collection runs, so pointers the caller holds stay valid
 * (the local-root stack's chunks: Note [Local roots live in a STACK]).  The
 * bytes count towards the next collection as usual. */
StgPtr storage_alloc_large_no_gc(StgWord n_words);

/* A safe point outside allocation (strata_safepoint): parks for another
 * capability's sync and serves attention requests.  The caller holds a
 * capability. */
void storage_safepoint(void);

/* Asks the mutator for attention from another thread (the heap debugger):
 * its next allocation calls storage_attention_handler.  Thread-safe. */
void storage_request_attention(void);

#endif /* STRATA_STORAGE_H */
