/*
 * strata/InfoTables.h -- info tables: what every heap object's first word
 * points at.
 *
 * An info table gives the closure type (GHC's numbers), the layout of a
 * fixed-size closure (pointer words first, then non-pointer words), a name,
 * the C entry function of a thunk or function, and optional explicit
 * provenance.  Info tables are static data; their addresses are their
 * identity (the -hi census buckets by them).  Unlike GHC there are no
 * tables-next-to-code: the info pointer points at this struct.
 */
#ifndef STRATA_INFOTABLES_H
#define STRATA_INFOTABLES_H

#include "strata/ClosureTypes.h"
#include "strata/Config.h"

struct StgClosure_;

/* Explicit info-table provenance: GHC's InfoProv fields.  Any field may be
 * NULL; the profiler derives what it can for the missing ones. */
typedef struct StgInfoProv_ {
    const char *table_name;    /* symbol-like name, e.g. "Node_con_info" */
    const char *closure_desc;  /* description, e.g. constructor name "Node" */
    const char *ty_desc;       /* type, e.g. "Tree" */
    const char *label;         /* binding name, e.g. "insert" */
    const char *module;        /* module, e.g. "Tree" */
    const char *src_file;      /* e.g. "examples/leak.c" */
    const char *src_span;      /* e.g. "41:5-20" */
} StgInfoProv;

/* A thunk's entry: computes the thunk's value.  *self is a rooted slot
 * holding the (blackholed) thunk; re-read it after any allocation, because
 * the collector may move the thunk. */
typedef struct StgClosure_ *(*StgThunkEntry)(struct StgClosure_ **self);

/* A function's entry: applies the function *self (rooted) to arity
 * arguments held in rooted slots args[0..arity-1]. */
typedef struct StgClosure_ *(*StgFunEntry)(struct StgClosure_ **self,
                                          struct StgClosure_ **args);

typedef struct StgInfoTable_ {
    StgHalfWord type;          /* closure type, ClosureTypes.h */
    uint16_t ptrs;             /* pointer words in the payload (fixed layouts) */
    uint16_t nptrs;            /* non-pointer words after the pointers */
    uint32_t arity;            /* FUN: number of arguments; else 0 */
    const char *name;          /* table name; never NULL for user tables */
    const void *entry;         /* StgThunkEntry / StgFunEntry, or NULL */
    const StgInfoProv *prov;   /* explicit provenance, or NULL */
    uint16_t fixed_words;      /* a constructor's, function's or thunk's size
                                * in words (header, pointers, non-pointers),
                                * set by the STRATA_*_INFO macros; 0 for every
                                * other table, and for one written out by hand,
                                * whose size the collector then works out from
                                * the fields above (Note [A copy's size from
                                * its info table] in sm/Evac.c) */
} StgInfoTable;

/* The closure type a constructor / function / thunk of p pointers and n
 * non-pointers has in GHC (the specialised _p_n types cover p + n <= 2). */
#define STRATA_SPECIALISED_TYPE(base, p, n)                                   \
    ((p) == 1 && (n) == 0 ? (base) + 1 : (p) == 0 && (n) == 1 ? (base) + 2    \
     : (p) == 2 && (n) == 0 ? (base) + 3 : (p) == 1 && (n) == 1 ? (base) + 4  \
     : (p) == 0 && (n) == 2 ? (base) + 5 : (base))

/* The words of a closure of p pointers and n non-pointers: a one-word
 * header, two for a thunk (Closures.h's THUNK_HEADER_WORDS). */
#define STRATA_FIXED_WORDS(base, p, n) (((base) == THUNK ? 2 : 1) + (p) + (n))

/* The most words a closure made by the macros below may have: its size
 * (header, pointers, non-pointers) is kept in the 16-bit fixed_words, and
 * so are ptrs and nptrs. */
#define STRATA_MAX_FIXED_WORDS 65535

/* 0, or a compile-time error saying msg when cond is false: a
 * _Static_assert where only an expression may stand (an initializer; the
 * macros below are also used after `static`). */
#define STRATA_STATIC_CHECK(cond, msg)                                        \
    (0 * sizeof(struct { _Static_assert(cond, msg); char strata_check_; }))

/* p, checked with n: neither negative, and the closure's size in words
 * (STRATA_FIXED_WORDS) at most STRATA_MAX_FIXED_WORDS.  A table that did
 * not fit would compile with its sizes cut to 16 bits, and the collector
 * would copy the wrong number of words. */
#define STRATA_CHECKED_LAYOUT(base, p, n)                                     \
    ((p) + STRATA_STATIC_CHECK((p) >= 0 && (n) >= 0 &&                        \
                                   STRATA_FIXED_WORDS(base, p, n) <= STRATA_MAX_FIXED_WORDS, \
                               "an info table's pointers and non-pointers must be "    \
                               "non-negative and, with the header, fit in "             \
                               "STRATA_MAX_FIXED_WORDS (65535) words"))

/* Define info tables as static data.  name is a string literal; p and n
 * are integer constant expressions (checked by STRATA_CHECKED_LAYOUT). */
#define STRATA_CONSTR_INFO(sym, name_, p, n)                                  \
    const StgInfoTable sym = {STRATA_SPECIALISED_TYPE(CONSTR, p, n),           \
                              STRATA_CHECKED_LAYOUT(CONSTR, p, n), (n),        \
                              0, (name_), NULL, NULL,                          \
                              STRATA_FIXED_WORDS(CONSTR, p, n)}
#define STRATA_CONSTR_INFO_PROV(sym, name_, p, n, prov_)                      \
    const StgInfoTable sym = {STRATA_SPECIALISED_TYPE(CONSTR, p, n),           \
                              STRATA_CHECKED_LAYOUT(CONSTR, p, n), (n),        \
                              0, (name_), NULL, (prov_),                       \
                              STRATA_FIXED_WORDS(CONSTR, p, n)}
#define STRATA_THUNK_INFO(sym, name_, p, n, entry_)                           \
    STRATA_THUNK_INFO_PROV(sym, name_, p, n, entry_, NULL)
#define STRATA_THUNK_INFO_PROV(sym, name_, p, n, entry_, prov_)               \
    const StgInfoTable sym = {STRATA_SPECIALISED_TYPE(THUNK, p, n),            \
                              STRATA_CHECKED_LAYOUT(THUNK, p, n), (n),         \
                              0, (name_), (const void *)(StgThunkEntry)(entry_), (prov_), \
                              STRATA_FIXED_WORDS(THUNK, p, n)}
#define STRATA_FUN_INFO(sym, name_, p, n, arity_, entry_)                     \
    const StgInfoTable sym = {STRATA_SPECIALISED_TYPE(FUN, p, n),              \
                              STRATA_CHECKED_LAYOUT(FUN, p, n), (n),           \
                              (arity_), (name_), (const void *)(StgFunEntry)(entry_), NULL, \
                              STRATA_FIXED_WORDS(FUN, p, n)}

STRATA_API const char *strata_closure_type_name(StgHalfWord type);

/* Info tables the runtime owns (indirections, arrays, stacks, ...). */
STRATA_API extern const StgInfoTable stg_IND_info;
STRATA_API extern const StgInfoTable stg_IND_STATIC_info;
STRATA_API extern const StgInfoTable stg_BLACKHOLE_info;
STRATA_API extern const StgInfoTable stg_ARR_WORDS_info;
STRATA_API extern const StgInfoTable stg_MUT_VAR_CLEAN_info;
STRATA_API extern const StgInfoTable stg_MUT_VAR_DIRTY_info;
STRATA_API extern const StgInfoTable stg_MUT_ARR_PTRS_CLEAN_info;
STRATA_API extern const StgInfoTable stg_MUT_ARR_PTRS_DIRTY_info;
STRATA_API extern const StgInfoTable stg_TSO_info;
STRATA_API extern const StgInfoTable stg_STACK_info;
STRATA_API extern const StgInfoTable stg_PAP_info;
STRATA_API extern const StgInfoTable stg_AP_info;
STRATA_API extern const StgInfoTable stg_WEAK_info;
STRATA_API extern const StgInfoTable stg_DEAD_WEAK_info;

#endif /* STRATA_INFOTABLES_H */
