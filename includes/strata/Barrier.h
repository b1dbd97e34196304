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

/* Note [Inline barriers]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * The common write -- to a mutable object that is already dirty (on its
 * generation's remembered set), at an index in range -- is a store and,
 * for an array, a card mark: inline here, as GHC's writeMutVar# and
 * writeArray# are in compiled code.  Everything else goes to the _slow
 * functions (sm/heap/MutList.c), which check again from the start
 * (among them every write while the non-moving mark runs, which the
 * slow path logs: one load of strata_nonmoving_marking here): a
 * clean object becomes dirty and is remembered; NULL, an object of
 * another type or an index out of range is reported there, naming the
 * call.  An array read likewise keeps only its bounds check inline.  Out
 * of line, the two calls of each step cost mutarray 2000000 about 30% of
 * its mutator time (1.27 -> 0.89 s, no GC run): each call's return waits
 * on a load that misses the cache. */
STRATA_API void strata_mut_var_write_slow(StgClosure *mv, StgClosure *value);

/* Nonzero while the non-moving generation's concurrent mark runs
 * (+RTS --nonmoving-gc): every barriered write then takes its slow path,
 * which logs the value it overwrites (Note [The update remembered set] in
 * sm/heap/UpdRemSet.c).  Changed only with the world stopped. */
STRATA_API extern uint8_t strata_nonmoving_marking;

static inline int strata_barrier_plain(void)
{
    return !__atomic_load_n(&strata_nonmoving_marking, __ATOMIC_RELAXED);
}
STRATA_API void strata_mut_array_write_slow(StgClosure *arr, StgWord i, StgClosure *value);
STRATA_API StgClosure *strata_mut_array_read_slow(StgClosure *arr, StgWord i);

/* A mutable variable's barriered write, and its read. */
static inline void strata_mut_var_write(StgClosure *mv, StgClosure *value)
{
    if (STRATA_LIKELY(mv != NULL &&
                      __atomic_load_n(&mv->info, __ATOMIC_RELAXED) == &stg_MUT_VAR_DIRTY_info &&
                      strata_barrier_plain())) {
        __atomic_store_n(&((StgMutVar *)mv)->var, value, __ATOMIC_RELEASE);
        return;
    }
    strata_mut_var_write_slow(mv, value);
}
#define STRATA_MUT_VAR_READ(mv) __atomic_load_n(&((StgMutVar *)(mv))->var, __ATOMIC_ACQUIRE)

/* A mutable array's barriered write, its read and its length. */
static inline void strata_mut_array_write(StgClosure *arr, StgWord i, StgClosure *value)
{
    StgMutArrPtrs *a = (StgMutArrPtrs *)arr;
    if (STRATA_LIKELY(arr != NULL &&
                      __atomic_load_n(&arr->info, __ATOMIC_RELAXED) ==
                          &stg_MUT_ARR_PTRS_DIRTY_info &&
                      i < a->ptrs && strata_barrier_plain())) {
        __atomic_store_n(&a->payload[i], value, __ATOMIC_RELEASE);
        __atomic_store_n(&mut_arr_ptrs_card_table(a)[i >> MUT_ARR_PTRS_CARD_BITS], (uint8_t)1,
                         __ATOMIC_RELAXED);
        return;
    }
    strata_mut_array_write_slow(arr, i, value);
}

static inline StgClosure *strata_mut_array_read(StgClosure *arr, StgWord i)
{
    StgMutArrPtrs *a = (StgMutArrPtrs *)arr;
    if (STRATA_LIKELY(arr != NULL && i < a->ptrs))
        return __atomic_load_n(&a->payload[i], __ATOMIC_ACQUIRE);
    return strata_mut_array_read_slow(arr, i);
}
#define STRATA_MUT_ARRAY_LEN(a) (((StgMutArrPtrs *)(a))->ptrs)

#endif /* STRATA_BARRIER_H */
