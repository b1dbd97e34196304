/*
 * sm/Weak.h -- weak pointers in the collector: the per-generation lists of
 * live WEAK objects, the pass that decides which keys are alive (to a fixed
 * point with the scavenger), and the queue of finalizers that became due.
 * The storage manager never runs a finalizer: the runtime (rts/Finalizers.c)
 * takes them from the queue after the collection has returned.  See
 * Note [Weak pointers] in Weak.c and docs/design/gc.md.
 */
#ifndef STRATA_WEAK_H
#define STRATA_WEAK_H

#include <stdbool.h>

#include "NonMovingMark.h"
#include "strata/Closures.h"

/* A finalizer taken off a weak pointer: call fn(env) once. */
typedef struct {
    void (*fn)(void *env);
    void *env;
} WeakFinalizer;

/* Puts a newly made weak (fields set, in the nursery) on generation 0's
 * list.  Not during a GC. */
void weak_add_new(StgWeak *w);

/* Whether any generation's list holds a weak (live or dead, not yet
 * collected).  With the world stopped. */
bool weak_any(void);

/* Moves generation 0's weaks onto to_gen's list: their objects have been
 * promoted in place (Note [Promoting the nursery in place] in
 * PromoteInPlace.h), keys and all, so none has died.  The world is
 * stopped. */
void weak_promote_young(unsigned to_gen);

/* ----------------------------------------------------------------------
 * During a collection (GC.c calls these in this order)
 * ---------------------------------------------------------------------- */

/* Takes the collected generations' lists, and the remembered weaks of the
 * older ones (Note [Old weaks that point young] in Weak.c), as the weaks
 * whose keys are not yet known to be alive; drops the collected
 * generations' dead ones. */
void weak_gc_begin(void);

/* One pass over those weaks: each whose key has been found reachable is
 * kept (evacuated if collected, its value evacuated, on its generation's
 * list).  Returns true if it kept any, i.e. the scavenger has more to do. */
bool weak_gc_traverse(void);

/* After the last pass: the weaks left have dead keys.  Each is made dead
 * (if it survives at all) and its finalizer queued. */
void weak_gc_end(void);

/* .inv.weak-young: whether w is among the weaks recorded as holding a key
 * or value in a younger generation than their own.  Outside a GC (the
 * sanity checker). */
bool weak_is_remembered(const StgWeak *w);

/* The address of p after this collection if it is alive so far, NULL if
 * not (yet) reached.  Follows indirections.  During a GC only. */
StgClosure *weak_gc_is_alive(StgClosure *p);

/* ----------------------------------------------------------------------
 * At the end of a non-moving cycle's mark (NonMoving.c calls these in
 * this order, the world stopped; Note [Weak pointers and the non-moving
 * generation] in Weak.c)
 * ---------------------------------------------------------------------- */

/* Takes every live weak of every generation as undecided. */
void weak_nonmoving_begin(void);

/* Keeps each undecided weak whose key is alive after the mark: pushes the
 * weak and its value onto q.  True if it kept any (q must be marked, and
 * this called again). */
bool weak_nonmoving_traverse(MarkQueue *q);

/* The weaks left have dead keys: each is made dead and its finalizer
 * queued; the lists keep the live weaks only. */
void weak_nonmoving_end(void);

/* ----------------------------------------------------------------------
 * Between collections
 * ---------------------------------------------------------------------- */

/* Takes the oldest due finalizer into *out; false if none is due. */
bool weak_take_finalizer(WeakFinalizer *out);

/* Finalizers due and not yet taken. */
StgWord weak_n_finalizers_due(void);

/* Makes w dead now (strata_finalize_weak); returns its finalizer in *out
 * and true if it had one and was alive. */
bool weak_kill(StgWeak *w, WeakFinalizer *out);

/* Makes every live weak dead, queueing the finalizers (hs_exit). */
void weak_kill_all(void);

/* Calls f on every weak on generation gen's list, youngest generation
 * first (outside a GC).  A weak made dead (by strata_finalize_weak, or
 * by a collection of a younger generation than its own that found its key
 * dead) stays on its list, with stg_DEAD_WEAK_info, until its generation
 * is collected.  f must not
 * allocate.  .inv.weak-lists: every weak on generation g's list is a WEAK
 * object in a block of generation g (the sanity checker checks it). */
void weak_for_each(void (*f)(StgWeak *w, unsigned gen, void *env), void *env);

/* Frees the lists and the queue (hs_exit, after the last finalizer). */
void weak_exit(void);

#endif /* STRATA_WEAK_H */
