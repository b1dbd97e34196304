/*
 * strata/Api.h -- start-up and shutdown, evaluation, eras, and the other
 * entry points a program calls.  GHC-compatible names where GHC has one.
 */
#ifndef STRATA_API_H
#define STRATA_API_H

#include "strata/Closures.h"

/* Strips +RTS ... -RTS (and reads GHCRTS), parses the flags and starts the
 * runtime.  A bad flag prints a message naming it and exits with status 1.
 * May be called once per process. */
STRATA_API void hs_init(int *argc, char ***argv);

/* Final statistics and flushes; the heap is gone afterwards. */
STRATA_API void hs_exit(void);

/* Weak head normal form: follows indirections and evaluates thunks.
 * Entering a thunk already under evaluation reports <<loop>> and exits. */
STRATA_API StgClosure *strata_eval(StgClosure *c);

/* Applies a function (a FUN or PAP closure, or a thunk evaluating to one)
 * to n_args arguments given in rooted slots args[0..n_args-1], as GHC's
 * generic apply does: with fewer arguments than the function's arity the
 * result is a PAP holding the function and the arguments; with exactly
 * the arity, the function's result; with more, the function is applied to
 * its arity and the result to the rest.  Applying a PAP adds to its
 * arguments.  A non-function applied to arguments is reported. */
STRATA_API StgClosure *strata_apply(StgClosure *fun, StgClosure **args, StgWord n_args);

/* An AP (GHC's): a thunk that, when evaluated, applies fun to n_args
 * arguments (rooted slots args[0..n_args-1], copied in).  fun may be
 * anything strata_apply accepts. */
STRATA_API StgClosure *strata_make_ap(StgClosure *fun, StgClosure **args, StgWord n_args);

/* Capabilities (GHC's RtsAPI names): +RTS -N<n> lets n OS threads mutate
 * the heap at once, each holding a capability.  See docs/api-guide.md. */
typedef struct Capability_ Capability;

/* Attaches the calling OS thread and takes a capability, waiting while all
 * are held.  The thread that called hs_init holds one until hs_exit.
 * Returns NULL (after a message) on misuse. */
STRATA_API Capability *rts_lock(void);
/* Gives back the capability rts_lock returned, and detaches the thread. */
STRATA_API void rts_unlock(Capability *cap);

/* Bracket a blocking C call (I/O, a lock, a sleep, a join): in between the
 * thread holds no capability, a collection does not wait for it, and its
 * C variables must hold no heap pointers (keep them in local roots). */
STRATA_API void rts_suspend(void);
STRATA_API void rts_resume(void);

/* A safe point for a long loop that does not allocate: lets another
 * capability's collection (or a census, the debugger) go ahead. */
STRATA_API void strata_safepoint(void);

/* The number of capabilities (+RTS -N), and the calling thread's strata
 * thread id (the eventlog's; 0 if it is not attached). */
STRATA_API unsigned strata_n_capabilities(void);
STRATA_API uint32_t strata_my_thread_id(void);

/* Eras (GHC's API, docs/reference/heap-profile.md): the era stamped on new objects.
 * It starts at 1; 0 means "not counted" by -he. */
STRATA_API void setUserEra(StgWord era);
STRATA_API StgWord getUserEra(void);
STRATA_API StgWord incrementUserEra(StgWord by);   /* returns the new era */

#endif /* STRATA_API_H */
