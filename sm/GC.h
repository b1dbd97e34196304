/*
 * sm/GC.h -- the generational copying collector's entry point, and what
 * the layers above plug into it: the sources of roots (visited with an
 * evacuate function, as GHC's markStablePtrTable(evac_fn) is), an
 * observer told of each collection's phases and details (statistics, the
 * eventlog), and hooks run after each collection (the census, eras).  The
 * collector itself knows none of them.  docs/design/layers.md.
 */
#ifndef STRATA_GC_H
#define STRATA_GC_H

#include <signal.h>
#include <stdbool.h>

#include "LiveTally.h"
#include "Policy.h"
#include "strata/Closures.h"

/* Nonzero while a collection runs (the world stopped): the fatal-signal
 * handler reads it to say whether a crash came in the collector (Note [A
 * crash says what to do next] in support/os/Crash.c). */
extern volatile sig_atomic_t gc_collecting;

/* Collects generation 0, or the oldest generation that has outgrown its
 * budget (and all younger ones), or everything when major is true. */
void gc_collect(bool major);

/* As gc_collect, but a collection by another capability that got there
 * first does not count: this one collects too (Note [Who collects]). */
void gc_collect_forced(bool major);


/* Makes the next major collection count its survivors by info table into
 * t (blocks of t's eras only), set t->filled, and forget the request;
 * t must stay valid until then.  NULL withdraws a request.  With the
 * non-moving generation, a major collection that leaves its cycle's mark
 * to the mark thread sets t->counting instead: the mark goes on counting
 * into t, and when the cycle's mark ends (its sync) t is filled with the
 * snapshot's census and the census hook is called (nonmoving_set_census_hook,
 * Note [A census from the snapshot] in NonMoving.c); t must stay valid
 * until then. */
void gc_request_tally(LiveTally *t);

/* ----------------------------------------------------------------------
 * Roots
 * ---------------------------------------------------------------------- */

/* Called on each root slot: the collector evacuates *slot (and updates
 * it), the sanity checker checks it.  ctx is the caller's. */
typedef void (*RootEvacFn)(StgClosure **slot, void *ctx);

/* A source of roots (local-root frames, stable pointers, the debugger's
 * saved objects, ...): calls evac on every root slot it holds.  It may
 * read its own objects (they are valid until evac moves them; re-read a
 * field after evacuating the object holding it).  Must not allocate. */
typedef void (*RootSource)(RootEvacFn evac, void *ctx);

/* Registers a source, at start-up (at most a few). */
void gc_add_root_source(RootSource source);

/* Registers a source of weak roots (the stable name table): slots that
 * must not keep their objects alive.  After each collection has found
 * everything reachable it calls the source with an evac that sets *slot
 * to the object's new address, or to NULL if the object died.  Not
 * visited by gc_visit_roots.  held says how many slots it has now: while
 * any has one, every copy is claimed (Note [Immutable copies without a
 * claim] in Evac.c). */
void gc_add_weak_root_source(RootSource source, StgWord (*held)(void));

/* Calls every weak root source with evac (the non-moving generation's
 * cycle, at the end of its mark). */
void gc_visit_weak_roots(RootEvacFn evac, void *ctx);

/* Whether a parallel collection must claim every copy, constructors and
 * functions too: it counts a census, or a weak pointer or a weak root
 * source's slot (a stable name) holds an object by identity (Note
 * [Immutable copies without a claim] in Evac.c).  World stopped. */
bool gc_copies_unique(bool census);

/* Calls every registered source with evac: the collector at each GC, the
 * sanity checker, the heap debugger. */
void gc_visit_roots(RootEvacFn evac, void *ctx);

/* ----------------------------------------------------------------------
 * What a collection reports
 * ---------------------------------------------------------------------- */

typedef struct {
    unsigned gen;                 /* oldest generation collected */
    bool major;                   /* gen is the oldest generation */
    StgWord allocated_bytes;      /* allocated since the previous GC */
    StgWord copied_bytes;         /* bytes copied by this GC */
    bool in_place;                /* promoted generation 0 in place */
    StgWord promoted_in_place_bytes;  /* bytes promoted without a copy
                                         (Note [Promoting the nursery in
                                         place] in PromoteInPlace.h) */
    StgWord live_bytes;           /* live data in the heap after this GC */
    StgWord large_live_bytes;     /* ... of which in large and pinned groups */
    StgWord slop_bytes;           /* heap blocks' bytes after this GC that hold
                                     no live data */
    StgWord mem_in_use_bytes;     /* peak megablocks held from the OS x MBLOCK_SIZE */
    StgWord returned_mblocks;     /* megablocks returned to the OS by this GC */
    StgWord kept_mblocks;         /* megablocks the heap holds after this GC */
    StgWord heap_blocks;          /* blocks the heap holds after this GC */
    uint64_t elapsed_ns;          /* how long the collection took (wall) */
    unsigned gc_threads;          /* GC threads that copied (1: sequential) */
    StgWord par_max_copied_bytes; /* the most one GC thread copied */
    StgWord par_balanced_copied_bytes;  /* GHC's balanced figure: copied_bytes
                                           when every thread copied its share,
                                           0 when one thread copied it all */
    const StgWord *thread_copied_bytes; /* [gc_threads]: each thread's bytes;
                                           valid until the next collection */
    StgWord bookkeeping_steps;    /* entries of block, remembered-set and weak
                                     lists walked outside the scan: what a
                                     minor GC must never owe the old
                                     generation (Note [A minor GC costs what
                                     is young] in GC.c) */
} GCDetails;

/* The details of the most recent collection (all zero before the first). */
const GCDetails *gc_last_details(void);

/* The phases an observer hears of, in GHC's eventlog order. */
typedef enum {
    GC_PHASE_START,               /* before anything is collected */
    GC_PHASE_WORK,                /* a GC thread starts or resumes copying */
    GC_PHASE_IDLE,                /* a GC thread has nothing to copy */
    GC_PHASE_DONE,                /* a GC thread is done */
} GCPhase;

/* The non-moving generation's cycle (Note [The non-moving collector] in
 * NonMoving.c), as GHC's eventlog tells it: the mark beside the program,
 * the sync pause, the sweep. */
typedef enum {
    NONMOVING_EVENT_MARK_BEGIN,
    NONMOVING_EVENT_MARK_END,     /* with the objects marked so far */
    NONMOVING_EVENT_SYNC_BEGIN,
    NONMOVING_EVENT_SYNC_END,
    NONMOVING_EVENT_SWEEP_BEGIN,
    NONMOVING_EVENT_SWEEP_END,
} NonMovingEvent;

/* Told of each collection (the runtime's statistics and eventlog): start
 * once, with the number of GC threads, before anything is collected;
 * thread_phase by each GC thread, with the capability it works for
 * (WORK, IDLE, WORK again ..., then DONE); end with the details after the
 * collection, before the post-GC hooks.  Any may be NULL. */
typedef struct {
    void (*start)(unsigned gc_threads);
    void (*thread_phase)(unsigned cap, GCPhase phase);
    void (*end)(const GCDetails *details);
    /* Each step of a non-moving cycle, from the thread that takes it (the
     * mark thread, or one that stopped the world); marked: the objects
     * marked so far (NONMOVING_EVENT_MARK_END), else 0. */
    void (*nonmoving)(NonMovingEvent event, uint64_t marked);
} GCObserver;

/* Sets the observer (one; NULL for none). */
void gc_set_observer(const GCObserver *observer);

/* Tells the observer of a step of the non-moving cycle. */
void gc_observe_nonmoving(NonMovingEvent event, uint64_t marked);

/* Hooks run after every collection (the profiler's census, the era
 * auto-increment); at most a few, registered at start-up. */
typedef void (*GCHook)(unsigned collected_gen, bool major);
void gc_add_post_hook(GCHook hook);

/* Drops the hooks, sources and observer and frees the collector's own
 * C-heap state (hs_exit). */
void gc_exit(void);

#endif /* STRATA_GC_H */
