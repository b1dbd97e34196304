/*
 * sm/heap/ClosureSize.h -- the size of a closure in words, from its info table.
 * Used by the collector (copy), the sanity checker and heap walkers.
 */
#ifndef STRATA_CLOSURESIZE_H
#define STRATA_CLOSURESIZE_H

#include "strata/Closures.h"

/* Header words of a closure of this type (thunks carry one extra). */
static inline StgWord closure_header_words(StgHalfWord type)
{
    _Static_assert(THUNK < THUNK_0_2 && THUNK_0_2 < THUNK_STATIC &&
                   THUNK_STATIC < THUNK_SELECTOR && THUNK_SELECTOR == THUNK + 7,
                   "thunk types are THUNK .. THUNK_SELECTOR, in GHC's order");
    return (type >= THUNK && type <= THUNK_SELECTOR) ? THUNK_HEADER_WORDS : 1;
}

/* Variable-size layouts: the header words, then the payload. */
static inline StgWord pap_sizeW(const StgPAP *p)
{
    return sizeof(StgPAP) / WORD_SIZE + p->n_args;
}

static inline StgWord ap_sizeW(const StgAP *a)
{
    return sizeof(StgAP) / WORD_SIZE + a->n_args;
}

static inline StgWord closure_sizeW_info(const StgClosure *c, const StgInfoTable *info)
{
    switch (info->type) {
    case CONSTR: case CONSTR_1_0: case CONSTR_0_1: case CONSTR_2_0:
    case CONSTR_1_1: case CONSTR_0_2: case CONSTR_NOCAF:
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1:
    case FUN_0_2: case FUN_STATIC:
        return 1 + (StgWord)info->ptrs + info->nptrs;
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0:
    case THUNK_1_1: case THUNK_0_2: case THUNK_STATIC:
        return THUNK_HEADER_WORDS + (StgWord)info->ptrs + info->nptrs;
    case BLACKHOLE: {
        const StgInfoTable *t = ((const StgBlackhole *)c)->thunk_info;
        return THUNK_HEADER_WORDS + (StgWord)t->ptrs + t->nptrs;
    }
    case IND: case IND_STATIC:
        return 2;
    case ARR_WORDS:
        return 2 + ROUND_UP_WORDS(((const StgArrBytes *)c)->bytes);
    case MUT_VAR_CLEAN: case MUT_VAR_DIRTY:
        return 2;
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
        return 3 + ((const StgMutArrPtrs *)c)->size;
    case PAP:
        return pap_sizeW((const StgPAP *)c);
    case AP:
        return ap_sizeW((const StgAP *)c);
    case WEAK:
        return sizeof(StgWeak) / WORD_SIZE;
    case TSO:
        return sizeof(StgTSO) / WORD_SIZE;
    case STACK:
        return sizeof(StgStack) / WORD_SIZE + ((const StgStack *)c)->stack_size;
    default:
        return 0;   /* not a heap object strata creates */
    }
}

static inline StgWord closure_sizeW(const StgClosure *c)
{
    return closure_sizeW_info(c, c->info);
}

/* Note [Forwarding pointers]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Once a closure has been copied to to-space, its from-space header word
 * (the info pointer) holds the address of the copy with bit 0 set.  Info
 * tables are word aligned, so a real info pointer never has that bit, and
 * one load tells "not yet copied" from "copied, here is where".  Every
 * later visit of the old address (evacuate, the scavenger, the weak pointer
 * pass) follows it instead of copying again, which is what keeps sharing
 * shared.  The copy itself keeps the original info pointer.
 *
 * With several GC threads, a thread copies first and then installs the
 * forwarding word with a compare-and-swap on the header (evacuate_claim in
 * Evac.c; a plain store while no other thread can copy, Note [Copying
 * alone] in GCThread.c): the winner's copy is the one, a loser takes back
 * its own copy and follows the winner's pointer, so no thunk or mutable
 * closure is ever copied twice.  Constructors and functions may be
 * (Note [Immutable copies without a claim] in Evac.c), except in a GC
 * that counts a census or while weak pointers or stable names exist.  Forwarding words live only during a collection:
 * from-space is freed at its end, so nothing outside the collector (and
 * the sanity checker, which runs inside it) ever sees one. */
static inline int closure_is_forwarded(const StgClosure *c)
{
    return ((StgWord)c->info & 1) != 0;
}
static inline StgClosure *closure_forwardee(const StgClosure *c)
{
    return (StgClosure *)((StgWord)c->info & ~(StgWord)1);
}

#endif /* STRATA_CLOSURESIZE_H */
