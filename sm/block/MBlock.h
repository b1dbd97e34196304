/*
 * sm/block/MBlock.h -- megablocks: 1 MiB, 1 MiB-aligned pieces of one large
 * address-space reservation (so heap_alloced is a range check, as in GHC's
 * two-step allocator on 64-bit platforms).
 *
 * Not thread-safe: callers serialise.  The block allocator (BlockAlloc.h)
 * is meant to be the only client of mblock_alloc_group/mblock_free_group
 * (.inv.block-count in docs/design/block-allocator.md relies on it).
 */
#ifndef STRATA_MBLOCK_H
#define STRATA_MBLOCK_H

#include <stdbool.h>

#include "strata/Config.h"

/* The reserved range; set by mblock_init. */
extern char *mblock_heap_base;
extern char *mblock_heap_end;

/* True iff p lies in the heap's reserved range (not a static closure). */
static inline bool heap_alloced(const void *p)
{
    return (StgWord)((const char *)p - mblock_heap_base) <
           (StgWord)(mblock_heap_end - mblock_heap_base);
}

/* Reserves reserve_bytes of address space (rounded up to megablocks).
 * Returns 0 or an errno value (EINVAL for 0 or an absurd size, ENOMEM when
 * the address space cannot be reserved); on failure nothing is set up.
 * Reserving costs no memory, so pick a size well beyond any expected heap.
 * Calling it twice without mblock_exit in between is a bug (panic). */
int mblock_init(StgWord reserve_bytes);

/* Releases the whole reservation, including any megablocks still in use,
 * and forgets all state; mblock_init may be called again afterwards.  A
 * no-op if mblock_init has not succeeded. */
void mblock_exit(void);

/* n >= 1 contiguous committed megablocks, or NULL when the reservation is
 * full or the OS refuses to commit memory (nothing changes then).  First
 * fit from the free list (lowest address), else from never-used address
 * space.  Megablocks never used before, or returned by mblock_return_free,
 * read as zero; megablocks reused straight from the free list keep
 * whatever they held. */
void *mblock_alloc_group(StgWord n);

/* Puts n megablocks starting at mb back on the free megablock list; they
 * stay committed until mblock_return_free gives them back.  Every one of
 * them must be in use (else panic); a group may be freed in pieces. */
void mblock_free_group(void *mb, StgWord n);

/* Decommits free megablocks until at most keep remain committed and free,
 * highest addresses first; returns how many were returned to the OS.  If
 * the OS refuses, it stops early and returns the number done so far. */
StgWord mblock_return_free(StgWord keep);

/* True iff p lies in a megablock the block allocator holds now (so its
 * memory is committed and its block descriptors are meaningful). */
bool mblock_holds(const void *p);

/* The prefault window (Note [Faulting in ahead of the heap] in
 * Prefault.c).  mblock_prefault_start starts the helper thread (0, or an
 * errno value: EAGAIN when no thread can be had); until it runs, the window is ignored.
 * mblock_prefault_window(grow, idle) has the megablocks above the highest
 * one handed out committed and faulted in ahead of use: grow of them from
 * where that is now, and always at least idle of them however far the
 * heap grows.  A smaller window than before keeps what is committed;
 * mblock_return_free decommits the whole window.  Growing the window
 * waits for a populate call in flight only when less than half of it is
 * left: otherwise it grows at a later call (Note [The helper never holds
 * up the program] in Prefault.c).
 * mblock_prefault_bytes: bytes the helper has faulted in so
 * far; mblock_n_window_commits: commit calls made to grow the window;
 * mblock_prefault_ahead: megablocks of the window above the bump index,
 * committed now; mblock_prefault_wanted: megablocks the window is asked
 * to hold above it (what is committed is at least half of that: a
 * populate call in flight may hold the rest back). */
int mblock_prefault_start(void);
void mblock_prefault_stop(void);   /* joins the helper; mblock_exit does too */
void mblock_prefault_window(StgWord grow, StgWord idle);
StgWord mblock_prefault_bytes(void);
StgWord mblock_prefault_ahead(void);
StgWord mblock_prefault_wanted(void);
StgWord mblock_n_window_commits(void);
/* prefault_make_way (Prefault.h), for the storage manager's threads (any
 * thread); mblock_prefault_ways_made counts the calls with true. */
void mblock_prefault_make_way(bool on);
StgWord mblock_prefault_ways_made(void);

StgWord mblock_n_in_use(void);       /* held by the block allocator */
StgWord mblock_n_free(void);         /* committed but free */
StgWord mblock_n_returned_free(void); /* free, decommitted, below the bump index */
StgWord mblock_n_hw(void);           /* high-water mark of in_use + free */
StgWord mblock_n_returned(void);     /* total returned to the OS so far */
/* The most megablocks in use at once since the previous call; then starts
 * a new period from the current count. */
StgWord mblock_take_cycle_peak(void);

/* Panics (rts_panic) if the free megablock list is unsorted, overlapping,
 * uncoalesced or miscounted. */
void mblock_check(void);

#endif /* STRATA_MBLOCK_H */
