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

/* Applies a function closure to arity arguments, given in rooted slots. */
STRATA_API StgClosure *strata_apply(StgClosure *fun, StgClosure **args, StgWord n_args);

/* Eras (GHC's API, shared/reference §4): the era stamped on new objects.
 * It starts at 1; 0 means "not counted" by -he. */
STRATA_API void setUserEra(StgWord era);
STRATA_API StgWord getUserEra(void);
STRATA_API StgWord incrementUserEra(StgWord by);   /* returns the new era */

#endif /* STRATA_API_H */
