/*
 * sm/alloc/Storage.h -- the storage manager's roof: starting and stopping
 * it, and allocation between collections (the slow paths, large and
 * pinned objects, safe points, attention requests), the part that may call
 * the collector.  It includes the floors below (Heap.h, Nursery.h, Era.h,
 * Capability.h), so the layers above sm/ include this header alone.
 * See docs/design/storage.md.
 */
#ifndef STRATA_STORAGE_H
#define STRATA_STORAGE_H

#include <stdbool.h>

#include "strata/Block.h"
#include "strata/Closures.h"
#include "strata/Regs.h"
#include "AllocSample.h"
#include "Capability.h"
#include "Era.h"
#include "Heap.h"
#include "Nursery.h"

/* Sets up megablocks, the block allocator, generations, the capabilities
 * with their nurseries and the GC threads from config (copied).  Returns
 * false (after a message) if memory cannot be had. */
bool storage_init(const StorageConfig *config);
void storage_exit(void);

/* Ends the collector's work beside the program (the non-moving
 * generation's mark thread): later cycles run in their collections'
 * pauses.  hs_exit calls it first, holding a capability, so that nothing
 * runs beside the shutdown. */
void storage_stop_background_gc(void);

/* Before a walk of the heap's blocks, the world stopped (a census, the
 * heap debugger's pause): finishes the non-moving generation's running
 * sweep, so that no block holds an object its cycle found dead, whose
 * fields may point at slots the sweep has freed already. */
void storage_finish_sweep(void);

/* Hook run by an allocation's slow path when attention was asked for
 * (storage_request_attention, the ticker's flag); NULL when nobody asks
 * for attention. */
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
 * a flag, then hp_lim = NULL in every held capability; the next
 * allocation calls storage_attention_handler.  Thread-safe, no lock. */
void storage_request_attention(void);

#endif /* STRATA_STORAGE_H */
