/*
 * sm/heap/Capability.h -- capabilities: the right to mutate the heap, held by
 * one OS thread at a time, with the allocation state that goes with it
 * (a nursery, a pinned block, remembered-set blocks), and the
 * stop-the-world sync that collections and the heap debugger need.  GHC's Capability, less the scheduler.  See docs/design/capabilities.md.
 *
 * .inv.cap-owner: a capability is held by at most one OS thread; only that
 * thread allocates from its nursery and pinned block and writes its
 * remembered-set blocks.  While the world is stopped (a sync), every held
 * capability but the sync's owner is parked at a safe point and its state
 * may be read and changed by the owner.
 */
#ifndef STRATA_CAPABILITY_H
#define STRATA_CAPABILITY_H

#include <stdbool.h>
#include <stdint.h>

#include "strata/Block.h"
#include "strata/Regs.h"
#include "os/Thread.h"

/* The nursery: -A bytes of single blocks per capability, allocated into in
 * order. */
typedef struct {
    BlockDesc *blocks;           /* all nursery blocks, linked by ->link */
    StgWord n_blocks;
    BlockDesc *current;          /* block the bump pointer is in */
    StgWord left_words;          /* what the blocks before current hold
                                    (Note [Counting the nursery]) */
    StgPtr lim;                  /* where allocation into current must stop:
                                    its block_alloc_limit, or hp when it is
                                    retired; hp_lim is this or the next
                                    sample point, whichever comes first
                                    (sm/heap/AllocLimit.h) */
} Nursery;

#define STGWORD_MAX UINTPTR_MAX

typedef struct Capability_ {
    uint32_t no;                 /* 0 .. capabilities_n - 1 */
    /* The registers hp and hp_lim live in: the holder's thread-local
     * strata_regs while held, `saved` while free.  Changed under the
     * scheduler lock (atomic stores); an interrupter reads it without the
     * lock, counted in xinterrupt_seq (Note [Interrupting without the
     * lock]).  Every era change reads it, so it has a cache line of its
     * own: the holder's writes below (a new nursery block every few
     * hundred allocations) would otherwise move the line to the holder's
     * core each time, and each change would wait for it. */
    StgRegs *regs;
    /* The holder's own state, from the next cache line on (capabilities
     * are allocated on line boundaries, each a whole number of lines). */
    _Alignas(OS_CACHE_LINE) StgRegs saved;
    Nursery nursery;
    BlockDesc *pinned_block;     /* pinned byte arrays are bumped into it */
    BlockDesc **mut_lists;       /* [gen]: what this capability's write
                                    barrier remembered since the last GC */
    struct UrsChunk_ *urs;       /* the chunk of the non-moving mark's log
                                    it fills (sm/heap/UpdRemSet.h) */
    StgWord allocated_words_total;  /* nursery words allocated, up to the
                                       last GC (for +RTS -s) */
    StgWord large_bytes_total;   /* large and pinned bytes, all run */
    /* Allocation sampling (+RTS --alloc-sample, sm/alloc/AllocSample.c):
     * the word of this capability's nursery allocation, counted as
     * allocated_words_total plus what the nursery holds, that the next
     * sampled object covers; STGWORD_MAX when not sampling. */
    StgWord sample_at_words;
    uint64_t sample_rng;         /* its random gaps' generator state */
    /* Scheduler state, under the scheduler lock. */
    bool held;
    bool parked;                 /* stopped at a safe point for a sync */
    long holder_tid;             /* kernel id of the holder, 0 if free */
    /* Odd while the holder interrupts others without a lock (written by
     * the holder, read by capability_release). */
    uint32_t xinterrupt_seq;
} Capability;

extern Capability *capabilities;     /* [0 .. capabilities_n - 1] */
extern unsigned capabilities_n;

/* The capability the calling thread holds, or NULL. */
Capability *capability_mine(void);

/* Creates n capabilities (all free), with remembered sets for n_gens
 * generations; their nurseries come after (storage_nursery_create).
 * Returns false after a message if memory cannot be had. */
bool capabilities_init(unsigned n, unsigned n_gens);
void capabilities_exit(void);

/* Copies cap's bump pointer into its current nursery block's free field
 * (before the heap is walked, and when cap parks). */
void capability_sync_nursery(Capability *cap);

/* Takes a free capability for the calling thread, waiting while all are
 * held or a sync is in progress.  The thread must hold none. */
Capability *capability_acquire(void);

/* Gives the calling thread's capability back (its registers are saved). */
void capability_release(void);

/* Number of capabilities held now (any thread). */
unsigned capabilities_held(void);

/* ----------------------------------------------------------------------
 * Stopping the world
 * ---------------------------------------------------------------------- */

/* Stops every other held capability at its next safe point and returns
 * true once all are parked; the caller (which must hold a capability) owns
 * the sync until capability_resume_world.  Nested calls by the owner are
 * counted.  If another capability's sync got there first, the caller parks
 * for it instead and returns false once it is over: the world may have
 * changed (a GC reset the nursery), so the caller looks again. */
bool capability_stop_world(void);
void capability_resume_world(void);

/* As capability_stop_world, but parks for any other sync first and tries
 * again until this caller owns one (a forced GC, a flush of every buffer:
 * another sync cannot stand in for them). */
void capability_stop_world_own(void);

/* As capability_stop_world, for hs_exit when other threads would not let
 * go: gives up after timeout_ms if some held capability has not parked (its
 * thread ended, or is blocked in C), returning false; the caller then owns
 * a sync that never completes, and never resumes it. */
bool capability_stop_world_within(uint32_t timeout_ms);

/* The safe point: parks the calling thread's capability if another one is
 * stopping the world, until it is over.  Cheap when no sync is pending
 * (one atomic load).  Returns true if it parked. */
bool capability_safepoint(void);

/* Forces every held capability into its allocation slow path at its
 * next allocation (hp_lim = NULL); a free one takes the slow path at its
 * next holder's first allocation anyway.  Any thread; no lock when it
 * holds a capability: sequentially consistent loads of each regs and
 * stores of NULL (Note [Interrupting without the lock] in Capability.c). */
void capabilities_interrupt_all(void);

/* The same, but for the caller's own capability (an era change). */
void capabilities_interrupt_others(void);

/* Called (by the thread parking) before a capability parks, to make its
 * thread's state (root stack pointer, ...) visible to the sync owner.  Set
 * by the runtime at start-up; NULL for none. */
extern void (*capability_before_park_hook)(void);

/* ----------------------------------------------------------------------
 * A worker of the collector that runs beside the program
 * ---------------------------------------------------------------------- */

/* The non-moving generation's mark thread (sm/NonMovingThread.c) reads and
 * writes the heap between syncs without holding a capability: while it is
 * active, a sync waits for it to park as it waits for each capability
 * (Note [The mark thread parks] in sm/NonMovingThread.c).  begin waits out
 * a sync in progress; should_park is one atomic load; park returns when
 * the sync is over. */
void capability_worker_begin(void);
void capability_worker_end(void);
bool capability_worker_should_park(void);
void capability_worker_park(void);

/* Statistics of the syncs so far: count, and nanoseconds from a request to
 * every capability parked (sum and worst). */
typedef struct {
    uint64_t syncs;
    uint64_t total_ns;
    uint64_t worst_ns;
    uint64_t samples_ns[1024];   /* the latest latencies, ring buffer */
    uint32_t n_samples;
} SyncStats;
const SyncStats *capability_sync_stats(void);

/* The lock that guards the block allocator and the shared lists of
 * generation 0 (large objects) against mutators on other capabilities.
 * Not needed while the world is stopped.  Never held across an allocation
 * or a safe point (.inv.no-lock-across-alloc). */
void sm_lock(void);
void sm_unlock(void);

#endif /* STRATA_CAPABILITY_H */
