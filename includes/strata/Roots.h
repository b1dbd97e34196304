/*
 * strata/Roots.h -- keeping heap pointers alive across allocations.
 *
 * Local roots: a function that holds heap pointers across an allocation
 * pushes a frame of n slots, uses the slots as its variables, and pops the
 * frame before it returns (frames nest; pop in reverse order of pushing):
 *
 *     StgClosure *make_pair(void)
 *     {
 *         STRATA_ROOTS(r, 2);            // r[0], r[1] start out NULL
 *         r[0] = make_leaf();
 *         r[1] = make_leaf();
 *         StgClosure *p = strata_alloc_constr(&Pair_info);
 *         STRATA_FIELD(p, 0) = r[0];     // read the slots after allocating
 *         STRATA_FIELD(p, 1) = r[1];
 *         STRATA_ROOTS_POP(r);
 *         return p;
 *     }
 *
 * The slots live in a STACK object on the heap, so the collector updates
 * them like any other pointer, and the heap debugger shows each frame with
 * the function, file and line that pushed it.  See Note [Local roots live in
 * a STACK] in rts/Roots.c.
 *
 * Stable pointers: a handle that keeps an object alive and findable until
 * freed, under GHC's names.
 */
#ifndef STRATA_ROOTS_H
#define STRATA_ROOTS_H

#include "strata/Regs.h"

STRATA_API StgClosure **strata_roots_push_slow(const StgRootSite *site, StgWord n);
STRATA_API void strata_roots_pop_slow(StgPtr frame);

static inline StgClosure **strata_roots_push(const StgRootSite *site, StgWord n)
{
    StgPtr f = strata_regs.sp;
    /* As integers: sp and sp_lim are NULL on a thread not attached. */
    if (STRATA_UNLIKELY((StgWord)f + (ROOT_FRAME_HEADER_WORDS + n) * WORD_SIZE >
                        (StgWord)strata_regs.sp_lim))
        return strata_roots_push_slow(site, n);
    f[0] = (StgWord)site;
    f[1] = n;
    for (StgWord i = 0; i < n; i++)
        f[ROOT_FRAME_HEADER_WORDS + i] = 0;
    strata_regs.sp = f + ROOT_FRAME_HEADER_WORDS + n;
    return (StgClosure **)(f + ROOT_FRAME_HEADER_WORDS);
}

static inline void strata_roots_pop(StgClosure **slots)
{
    StgPtr f = (StgPtr)slots - ROOT_FRAME_HEADER_WORDS;
    /* The frame must be the newest, and not the first of a later chunk. */
    if (STRATA_LIKELY(f + ROOT_FRAME_HEADER_WORDS + f[1] == strata_regs.sp &&
                      f != strata_regs.sp_base))
        strata_regs.sp = f;
    else
        strata_roots_pop_slow(f);
}

#define STRATA_ROOTS(name, n)                                                 \
    static const StgRootSite name##_strata_site = {__func__, __FILE__, __LINE__}; \
    StgClosure **const name = strata_roots_push(&name##_strata_site, (n))

#define STRATA_ROOTS_POP(name) strata_roots_pop(name)

/* Stable pointers (GHC's C API). */
typedef void *StgStablePtr;
STRATA_API StgStablePtr getStablePtr(StgClosure *p);
STRATA_API StgClosure *deRefStablePtr(StgStablePtr sp);
STRATA_API void freeStablePtr(StgStablePtr sp);

#endif /* STRATA_ROOTS_H */
