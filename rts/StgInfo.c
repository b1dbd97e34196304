/*
 * rts/StgInfo.c -- the info tables the runtime itself owns.  Their layout
 * fields are unused and fixed_words is 0 (these closure types have variable
 * or special layouts that ClosureSize.h knows); their names are what -hT
 * and the tools print.
 */
#include "strata/Closures.h"
#include "strata/InfoTables.h"

/* STRATA_FIXED_WORDS spells the thunk header out (InfoTables.h comes
 * before Closures.h); the collector copies by it. */
_Static_assert(STRATA_FIXED_WORDS(THUNK, 0, 0) == THUNK_HEADER_WORDS &&
                   STRATA_FIXED_WORDS(CONSTR, 2, 1) == 4,
               "STRATA_FIXED_WORDS disagrees with the closure layouts");

#define RTS_INFO(sym, type_, name_) \
    const StgInfoTable sym = {(type_), 0, 0, 0, (name_), NULL, NULL, 0}

RTS_INFO(stg_IND_info, IND, "IND");
RTS_INFO(stg_IND_STATIC_info, IND_STATIC, "IND_STATIC");
RTS_INFO(stg_BLACKHOLE_info, BLACKHOLE, "BLACKHOLE");
RTS_INFO(stg_ARR_WORDS_info, ARR_WORDS, "ARR_WORDS");
RTS_INFO(stg_MUT_VAR_CLEAN_info, MUT_VAR_CLEAN, "MUT_VAR_CLEAN");
RTS_INFO(stg_MUT_VAR_DIRTY_info, MUT_VAR_DIRTY, "MUT_VAR_DIRTY");
RTS_INFO(stg_MUT_ARR_PTRS_CLEAN_info, MUT_ARR_PTRS_CLEAN, "MUT_ARR_PTRS_CLEAN");
RTS_INFO(stg_MUT_ARR_PTRS_DIRTY_info, MUT_ARR_PTRS_DIRTY, "MUT_ARR_PTRS_DIRTY");
RTS_INFO(stg_TSO_info, TSO, "TSO");
RTS_INFO(stg_STACK_info, STACK, "STACK");
RTS_INFO(stg_PAP_info, PAP, "PAP");
RTS_INFO(stg_AP_info, AP, "AP");
RTS_INFO(stg_WEAK_info, WEAK, "WEAK");
/* GHC's DEAD_WEAK is a constructor; ours keeps the closure type WEAK (the
 * collector and the tools size it as one) under its own name. */
RTS_INFO(stg_DEAD_WEAK_info, WEAK, "DEAD_WEAK");
