/*
 * strata/Barrier.h -- changing mutable heap objects: the write barrier of
 * mutable variables and arrays (strata/Alloc.h allocates them and includes
 * this header).
 *
 * A write that stores a pointer into a mutable object after its fields
 * were first initialised must go through these: the barrier keeps the
 * remembered sets right, so a minor GC never scans the old generation.
 */
#ifndef STRATA_BARRIER_H
#define STRATA_BARRIER_H

#include "strata/Closures.h"

/* A mutable variable's barriered write, and its read. */
STRATA_API void strata_mut_var_write(StgClosure *mv, StgClosure *value);
#define STRATA_MUT_VAR_READ(mv) __atomic_load_n(&((StgMutVar *)(mv))->var, __ATOMIC_ACQUIRE)

/* A mutable array's barriered write, its read and its length. */
STRATA_API void strata_mut_array_write(StgClosure *arr, StgWord i, StgClosure *value);
STRATA_API StgClosure *strata_mut_array_read(StgClosure *arr, StgWord i);
#define STRATA_MUT_ARRAY_LEN(a) (((StgMutArrPtrs *)(a))->ptrs)

#endif /* STRATA_BARRIER_H */
