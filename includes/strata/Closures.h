/*
 * strata/Closures.h -- the layout of every heap object.
 *
 * Word 0 of every closure is its info pointer (.inv.header).  Thunks have
 * one more header word (GHC's SMP thunk header) so that a thunk of any size
 * can be overwritten in place by an indirection.  Payloads hold pointer
 * words first, then non-pointer words (.inv.layout).  A NULL pointer field
 * is allowed everywhere and means "not set yet": allocation zeroes pointer
 * fields, so an object is always safe for the collector to scan
 * (.inv.null-ok).  See docs/design/objects.md.
 */
#ifndef STRATA_CLOSURES_H
#define STRATA_CLOSURES_H

#include "strata/InfoTables.h"

typedef struct StgClosure_ {
    const StgInfoTable *info;
    struct StgClosure_ *payload[];
} StgClosure;

/* THUNK_*: info, one header word, then payload.  Once evaluation starts the
 * thunk becomes a BLACKHOLE (see Note [Blackholes keep their thunk's layout]
 * in rts/Eval.c) and after it a IND, whose indirectee is header word 1. */
typedef struct {
    const StgInfoTable *info;
    StgWord header1;             /* 0 / original thunk info / indirectee */
    StgClosure *payload[];
} StgThunk;

#define THUNK_HEADER_WORDS 2

typedef struct {                 /* IND, IND_STATIC */
    const StgInfoTable *info;
    StgClosure *indirectee;
} StgInd;

typedef struct {                 /* BLACKHOLE: a thunk under evaluation */
    const StgInfoTable *info;
    const StgInfoTable *thunk_info; /* the thunk's own table: its layout */
    StgClosure *payload[];
} StgBlackhole;

typedef struct {                 /* ARR_WORDS: a byte array */
    const StgInfoTable *info;
    StgWord bytes;               /* size of the payload in bytes */
    StgWord payload[];
} StgArrBytes;

typedef struct {                 /* MUT_VAR_CLEAN / MUT_VAR_DIRTY */
    const StgInfoTable *info;
    StgClosure *var;
} StgMutVar;

/* MUT_ARR_PTRS_*: ptrs elements, then a card table of one byte per
 * 2^MUT_ARR_PTRS_CARD_BITS elements, rounded up to words.  A set card means
 * "some element in this range may point into a younger generation". */
typedef struct {
    const StgInfoTable *info;
    StgWord ptrs;                /* number of elements */
    StgWord size;                /* ptrs + card table words */
    StgClosure *payload[];
} StgMutArrPtrs;

#define MUT_ARR_PTRS_CARD_BITS 7

static inline StgWord mut_arr_ptrs_cards(StgWord ptrs)
{
    return (ptrs + ((StgWord)1 << MUT_ARR_PTRS_CARD_BITS) - 1) >> MUT_ARR_PTRS_CARD_BITS;
}

static inline uint8_t *mut_arr_ptrs_card_table(StgMutArrPtrs *a)
{
    return (uint8_t *)&a->payload[a->ptrs];
}

/* PAP: a function applied to fewer arguments than its arity (GHC's
 * StgPAP).  fun is a FUN closure (never another PAP: applying a PAP to
 * more arguments makes a new PAP of the same function); payload holds the
 * n_args arguments given so far; arity is how many are still missing, so
 * fun's own arity is arity + n_args.  See Note [Partial applications] in
 * rts/Eval.c. */
typedef struct {
    const StgInfoTable *info;
    StgHalfWord arity;           /* arguments still missing, >= 1 */
    StgHalfWord n_args;          /* arguments in payload, >= 1 */
    struct StgClosure_ *fun;     /* the FUN closure */
    struct StgClosure_ *payload[];
} StgPAP;

/* AP: an unevaluated application (GHC's StgAP), a thunk: evaluating it
 * applies fun to the n_args arguments.  It carries a thunk's extra header
 * word (header1) so that it can become a BLACKHOLE and then an IND in
 * place; while it is a BLACKHOLE its thunk_info is stg_AP_info and the
 * words after the header keep the AP's layout. */
typedef struct {
    const StgInfoTable *info;
    StgWord header1;             /* 0 / stg_AP_info while a blackhole / indirectee */
    StgHalfWord arity;           /* unused, 0 (GHC's layout) */
    StgHalfWord n_args;          /* arguments in payload */
    struct StgClosure_ *fun;     /* a function, PAP or thunk yielding one */
    struct StgClosure_ *payload[];
} StgAP;

/* WEAK: a weak pointer (GHC's StgWeak).  The collector does not treat key
 * and value as ordinary pointer fields: value is kept alive only while key
 * is reachable from something other than the weak pointers' values (see
 * Note [Weak pointers] in sm/Weak.c).  A weak whose key has died, or that
 * was finalized by hand, has stg_DEAD_WEAK_info, key and value NULL. */
typedef struct StgWeak_ {
    const StgInfoTable *info;    /* stg_WEAK_info or stg_DEAD_WEAK_info */
    struct StgClosure_ *key;     /* the object whose life decides */
    struct StgClosure_ *value;   /* what strata_deref_weak returns */
    StgWord finalizer;           /* void (*)(void *), or 0 for none */
    StgWord env;                 /* the finalizer's argument */
    struct StgWeak_ *link;       /* next weak on its generation's list; the
                                    collector's, meaningless to anyone else */
} StgWeak;

/* A local-root frame: pushed by STRATA_ROOTS in C code, living inside a
 * STACK chunk.  See Note [Local roots live in a STACK] in rts/Roots.c. */
typedef struct {
    const char *func;
    const char *file;
    int line;
} StgRootSite;

typedef struct StgStack_ {       /* STACK: one chunk of local-root frames */
    const StgInfoTable *info;
    struct StgStack_ *prev;      /* older chunk, or NULL */
    StgWord stack_size;          /* words available in stack[] */
    StgPtr sp;                   /* first free word of stack[]; frames below */
    StgWord stack[];             /* whole frames: site, n_slots, slots[n_slots]
                                    (.inv.frames) */
} StgStack;

#define ROOT_FRAME_HEADER_WORDS 2

typedef struct StgTSO_ {         /* TSO: the one thread of the capability */
    const StgInfoTable *info;
    StgStack *stack;             /* current (newest) stack chunk */
    StgStack *spare_stack;       /* an empty chunk kept to avoid thrashing */
    StgWord id;                  /* thread id, 1 for the main thread */
} StgTSO;

#endif /* STRATA_CLOSURES_H */
