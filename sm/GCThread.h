/*
 * sm/GCThread.h -- the collector's threads: what each one owns during a
 * collection (its to-space cursors per generation and era, its scan
 * queue, its work-stealing deque, its counts), and the pool of OS threads
 * that run the parallel phases.  See docs/design/gc.md, "The parallel
 * collector".
 *
 * .inv.gc-owner: during a collection every to-space block is written by
 * one GC thread only -- the one whose cursor it is, or, once that thread
 * has given it up onto its deque, the one that took it from there.  The
 * shared structures (the block allocator, the from-space large-object
 * lists) are taken under a lock; everything else a GC thread adds (blocks,
 * remembered objects, live large objects, census counts) is its own until
 * the collection merges it at the end, with every GC thread stopped.
 */
#ifndef STRATA_GCTHREAD_H
#define STRATA_GCTHREAD_H

#include <stdbool.h>

#include "EraMap.h"
#include "LiveTally.h"
#include "Heap.h"
#include "WSDeque.h"

/* The most GC threads (-qn). */
#define GC_THREADS_MAX 256

/* What one GC thread has of one generation: where its copies go (Note
 * [Where a copy goes] in Evac.c), and what it adds to the generation,
 * merged at the end of the collection. */
typedef struct {
    EraMap dests;                /* era -> the era's own block (a BlockDesc *)
                                    or, tagged (words << 1) | 1, what it has
                                    copied into the shared block so far.  It
                                    outlives a collection: a generation not
                                    collected keeps filling its partly used
                                    blocks in the next one */
    BlockDesc *shared_dest;      /* the block the small eras share, in runs */
    BlockDesc *last_dest;        /* the block last copied into (skips the map) */
    uint64_t last_era;           /* the era copied into last_dest */
    StgPtr last_limit;           /* where copies into last_dest must end: the
                                    block's end, or the next work unit's */
    /* Added in this collection, merged into the generation at its end. */
    BlockDesc *blocks, *blocks_tail;   /* to-space blocks opened (->link) */
    StgWord n_blocks;
    StgWord n_words;             /* words copied into this generation */
    BlockDesc *mut_list;         /* objects that failed to evacuate */
    BlockDesc *large_objects;    /* live large groups scanned (->link/u.back) */
    StgWord n_large_blocks, n_large_words;
} GenWorkspace;

/* The run of a from-space block of several eras that the last copy's era
 * lookup found (era_of_from_space in Evac.c, Note [Finding a copy's era]):
 * its block, where the run starts and ends (word offsets), its era, and its
 * index + 1 (0: the block's first era, before any run).  Forgotten at the
 * start of each collection, when blocks may have been freed and reused. */
typedef struct {
    const BlockDesc *bd;
    StgWord lo, hi;
    uint64_t era;
    uint32_t run;
} EraFinger;

struct NonMovingThread_;

typedef struct {
    unsigned index;              /* 0: the thread that stopped the world */
    bool parallel;               /* other GC threads run in this collection */
    bool claim;                  /* copies are claimed: another GC thread may
                                    copy now (Note [Copying alone]) */
    bool unique_copies;          /* claim immutable copies too (Note
                                    [Immutable copies without a claim]) */
    unsigned collected_gen;      /* N: generations 0..N are collected */
    StgWord young_map;           /* block_young_map_biased when generation
                                    0 alone is collected and no snapshot is
                                    taken, else 0: old objects may be told
                                    by their megablock (Note [Old objects by
                                    their megablock] in Evac.h) */
    bool nm_push;                /* a non-moving snapshot's collection: the
                                    generation's objects met are queued
                                    for the mark (Note [The snapshot] in
                                    NonMoving.c) */
    struct NonMovingThread_ *nm; /* the non-moving generation's state, or
                                    NULL without --nonmoving-gc */
    uint16_t evac_gen;           /* survivors go at least this old */
    bool failed_to_evac;         /* an object stayed younger than evac_gen */
    EraFinger era_finger;        /* the era run the last lookup found */
    StgWord copied_words;        /* words this thread copied in this GC: its
                                    workspaces' n_words, summed at their merge */
    StgWord aged_promoted_words; /* words it copied out of generation 0's
                                    aging blocks into the non-moving
                                    generation (Note [A probe that ages a
                                    sample] in Tenure.c) */
    BlockDesc *todo_large;       /* large groups found live, not yet scanned
                                    (linked by ->link) */
    BlockDesc **scan_queue;      /* to-space blocks this thread is filling
                                    that hold unscanned words (BF_SCANQ) */
    StgWord scan_queue_len, scan_queue_cap;
    BlockDesc *scanning;         /* the block being scanned, never given away */
    WSDeque deque;               /* blocks given up for any thread to scan */
    BlockDesc *spare_blocks;     /* taken for this thread's copies, not yet
                                    used (->link; Note [Blocks in batches]) */
    LiveTally *tally;            /* a census is due: count survivors here */
    LiveTally own_tally;         /* threads other than 0 count here */
    uint64_t steals;             /* blocks taken from other threads */
    bool worked;                 /* joined a phase of this collection */
    uint32_t phase;              /* the phase it joined last */
    GenWorkspace ws[];           /* [storage_n_gens], in the same allocation:
                                    the copy path finds its cursor without
                                    loading a pointer first */
} GCThread;

/* Gives the blocks the GC threads took and did not use back to the block
 * allocator (Note [Blocks in batches] in GCThread.c).  After the scan,
 * before anything counts the heap's blocks. */
void gc_return_spare_blocks(void);

/* The calling thread's GC state, set while it collects (GHC's gct). */
extern _Thread_local GCThread *gct __attribute__((tls_model("initial-exec")));

/* The state of each GC thread (0 .. gc_threads_max - 1), kept between
 * collections; gc_n_threads of them run in the current one. */
extern GCThread **gc_threads;
extern unsigned gc_threads_max;
extern unsigned gc_n_threads;

/* Sets up n_threads GC threads' state for n_gens generations; the OS
 * threads start at the first parallel collection.  False after a message
 * when the C heap is exhausted. */
bool gc_threads_init(unsigned n_threads, unsigned n_gens);

/* Stops and joins the OS threads and frees every GC thread's state. */
void gc_threads_exit(void);

/* How many of n GC threads can run: starts the OS threads of those not
 * yet started (at the first parallel collection). */
unsigned gc_threads_available(unsigned n);

/* Runs work on the calling thread as GC thread 0 (gct set) and, when n >
 * 1, wakes GC threads 1 .. n-1 to join it (Note [Joining a parallel
 * phase]).  Returns when thread 0's work returns: work must end with a
 * scan that ends only when no thread is busy. */
void gc_run_threads(unsigned n, void (*work)(void));

/* A single to-space or remembered-set block for the collector: under the
 * storage manager's lock when other GC threads run. */
BlockDesc *gc_alloc_block(void);

/* The same for a block of pointers (a remembered set's, a list of copies
 * to scan), which does not count as young (BLOCK_GEN_NO_POINTERS, Note
 * [The young-group map] in BlockAlloc.h). */
BlockDesc *gc_alloc_pointer_block(void);

/* Termination of a parallel scan (Note [Sharing work] in Evac.c). */
void gc_work_begin(void);            /* a phase: thread 0 busy, others may join */
void gc_set_n_threads(unsigned n);   /* GC threads in this collection */
bool gc_work_idle_wait(void);        /* true: found work again (counted busy) */
bool gc_work_wanted(void);           /* some thread is idle */
void gc_work_pushed(void);           /* after a push: wakes idle threads */

/* Gives bd (a to-space block with unscanned words, a live large group, a
 * list of copies to scan) to whichever thread takes it: onto this
 * thread's deque, claiming its copies from now on (Note [Copying alone]
 * in GCThread.c), and wakes an idle thread. */
void gc_share_block(BlockDesc *bd);

/* Whether this thread can copy without claims until it next pushes work
 * onto its deque (Note [Copying alone] in GCThread.c); and the phase's
 * start, where it claims again. */
bool gc_copying_alone(void);
static inline void gc_claim_copies(void)
{
    gct->claim = gct->parallel;
}

/* A block with unscanned words taken from another thread's deque, or NULL. */
BlockDesc *gc_steal_block(void);

#endif /* STRATA_GCTHREAD_H */
