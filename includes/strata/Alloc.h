/*
 * strata/Alloc.h -- allocating heap objects from C.
 *
 * Every allocation may run the garbage collector, which moves objects: a
 * StgClosure* held in a C variable is valid only until the next allocation,
 * unless it is kept in a local root (Roots.h) or a stable pointer.  So
 * allocate first, then fill the fields from rooted values.  Pointer fields
 * start out NULL; non-pointer words start out unspecified.
 *
 * Initialising the fields of the object you just allocated needs no write
 * barrier.  Changing a mutable object later must go through
 * strata_mut_var_write / strata_mut_array_write (the barrier keeps the
 * remembered sets right, so a minor GC never scans the old generation).
 */
#ifndef STRATA_ALLOC_H
#define STRATA_ALLOC_H

#include <string.h>

#include "strata/Barrier.h"
#include "strata/Regs.h"

#define STRATA_LARGE_OBJECT_WORDS (LARGE_OBJECT_THRESHOLD / WORD_SIZE)

/* The slow path: a new nursery block, a GC, or a large object. */
STRATA_API StgPtr strata_alloc_slow(StgWord n_words);

/* n_words of uninitialised heap, word aligned.  The caller must write an
 * info pointer and make the object scannable before the next allocation. */
static inline StgPtr strata_alloc_words(StgWord n_words)
{
    /* Compared as integers: hp and hp_lim are NULL on a thread that holds
     * no capability, and hp_lim alone when another thread interrupts. */
    StgPtr p = strata_regs.hp;
    StgWord end = (StgWord)p + n_words * WORD_SIZE;
    if (STRATA_LIKELY(n_words < STRATA_LARGE_OBJECT_WORDS && end <= (StgWord)STRATA_HP_LIM())) {
        strata_regs.hp = (StgPtr)end;
        return p;
    }
    return strata_alloc_slow(n_words);
}

/* A constructor, function or thunk of a fixed layout, pointers NULL. */
static inline StgClosure *strata_alloc_closure_header(const StgInfoTable *info,
                                                      StgWord header_words)
{
    StgWord n = header_words + info->ptrs + info->nptrs;
    StgPtr p = strata_alloc_words(n);
    p[0] = (StgWord)info;
    for (StgWord i = 1; i < header_words + info->ptrs; i++)
        p[i] = 0;
    return (StgClosure *)p;
}

static inline StgClosure *strata_alloc_constr(const StgInfoTable *info)
{
    return strata_alloc_closure_header(info, 1);
}

static inline StgClosure *strata_alloc_fun(const StgInfoTable *info)
{
    return strata_alloc_closure_header(info, 1);
}

static inline StgClosure *strata_alloc_thunk(const StgInfoTable *info)
{
    return strata_alloc_closure_header(info, THUNK_HEADER_WORDS);
}

/* Fields of a fixed-layout closure: pointers are payload[0 .. ptrs-1]; the
 * non-pointer words follow.  Thunk payloads start after the extra header
 * word, so use STRATA_THUNK_FIELD for thunks. */
#define STRATA_FIELD(c, i) (((StgClosure *)(c))->payload[(i)])
#define STRATA_WORD(c, i) (((StgWord *)((char *)(c) + WORD_SIZE))[(i)])
#define STRATA_THUNK_FIELD(c, i) (((StgThunk *)(c))->payload[(i)])
#define STRATA_THUNK_WORD(c, i) \
    (((StgWord *)((char *)(c) + THUNK_HEADER_WORDS * WORD_SIZE))[(i)])

/* An unpinned byte array (ARR_WORDS) of n_bytes, zero-filled. */
STRATA_API StgClosure *strata_alloc_bytes(StgWord n_bytes);
/* A pinned byte array: never moved, its payload address is stable. */
STRATA_API StgClosure *strata_alloc_pinned_bytes(StgWord n_bytes);
#define STRATA_BYTES_PTR(c) ((void *)((StgArrBytes *)(c))->payload)
#define STRATA_BYTES_LEN(c) (((StgArrBytes *)(c))->bytes)

/* A mutable variable holding NULL; its barriered write is in Barrier.h. */
STRATA_API StgClosure *strata_alloc_mut_var(void);

/* A mutable array of n elements, all NULL; its barriered write is in
 * Barrier.h. */
STRATA_API StgClosure *strata_alloc_mut_array(StgWord n);

/* Forces a collection: major if major is nonzero. */
STRATA_API void strata_perform_gc(int major);

#endif /* STRATA_ALLOC_H */
