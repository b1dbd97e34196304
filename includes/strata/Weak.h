/*
 * strata/Weak.h -- references that do not keep an object alive: weak
 * pointers with C finalizers (GHC's mkWeak, deRefWeak, finalizeWeak) and
 * stable names (GHC's makeStableName).  See docs/api-guide.md.
 */
#ifndef STRATA_WEAK_API_H
#define STRATA_WEAK_API_H

#include "strata/Closures.h"

/* A C finalizer: called once with the env given to strata_mk_weak. */
typedef void (*StrataFinalizer)(void *env);

/* A weak pointer (a WEAK heap object) that keeps value alive while key is
 * reachable -- reachable other than through weak pointers' values.  When
 * a collection finds key dead, the weak dies (strata_deref_weak gives
 * NULL from then on) and finalizer(env), if finalizer is not NULL, runs
 * once after that collection has returned: at the mutator's next
 * allocation slow path, or before strata_perform_gc returns.  Weaks still
 * alive at hs_exit have their finalizers run there.  key and value may be
 * plain pointers just read from roots (the call roots them across its own
 * allocation); key must not be NULL.  The result is an ordinary heap
 * pointer: root it to keep using it. */
STRATA_API StgClosure *strata_mk_weak(StgClosure *key, StgClosure *value,
                                      StrataFinalizer finalizer, void *env);

/* The value of weak w, or NULL once its key has died or it was finalized. */
STRATA_API StgClosure *strata_deref_weak(StgClosure *w);

/* Kills w now and runs its finalizer (if any, and if w was alive): the
 * finalizer then never runs again. */
STRATA_API void strata_finalize_weak(StgClosure *w);

/* A stable name for obj (GHC's makeStableName, hashStableName): the same
 * number every time it is asked for the same object, across collections,
 * and different numbers for different live objects.  Indirections are
 * followed first (an evaluated thunk names its value).  Numbers start at
 * 1; one whose object has died may be given to a new object.  obj must not
 * be NULL. */
STRATA_API StgWord strata_make_stable_name(StgClosure *obj);

#endif /* STRATA_WEAK_API_H */
