/*
 * wire/ClosureTypeNames.c -- the printable name of every closure type, used
 * by -hT labels, the sanity checker's messages and the tools.
 */
#include "strata/ClosureTypes.h"
#include "strata/InfoTables.h"

static const char *const closure_type_names[N_CLOSURE_TYPES] = {
    [INVALID_OBJECT] = "INVALID_OBJECT",
    [CONSTR] = "CONSTR",
    [CONSTR_1_0] = "CONSTR_1_0",
    [CONSTR_0_1] = "CONSTR_0_1",
    [CONSTR_2_0] = "CONSTR_2_0",
    [CONSTR_1_1] = "CONSTR_1_1",
    [CONSTR_0_2] = "CONSTR_0_2",
    [CONSTR_NOCAF] = "CONSTR_NOCAF",
    [FUN] = "FUN",
    [FUN_1_0] = "FUN_1_0",
    [FUN_0_1] = "FUN_0_1",
    [FUN_2_0] = "FUN_2_0",
    [FUN_1_1] = "FUN_1_1",
    [FUN_0_2] = "FUN_0_2",
    [FUN_STATIC] = "FUN_STATIC",
    [THUNK] = "THUNK",
    [THUNK_1_0] = "THUNK_1_0",
    [THUNK_0_1] = "THUNK_0_1",
    [THUNK_2_0] = "THUNK_2_0",
    [THUNK_1_1] = "THUNK_1_1",
    [THUNK_0_2] = "THUNK_0_2",
    [THUNK_STATIC] = "THUNK_STATIC",
    [THUNK_SELECTOR] = "THUNK_SELECTOR",
    [BCO] = "BCO",
    [AP] = "AP",
    [PAP] = "PAP",
    [AP_STACK] = "AP_STACK",
    [IND] = "IND",
    [IND_STATIC] = "IND_STATIC",
    [RET_BCO] = "RET_BCO",
    [RET_SMALL] = "RET_SMALL",
    [RET_BIG] = "RET_BIG",
    [RET_FUN] = "RET_FUN",
    [UPDATE_FRAME] = "UPDATE_FRAME",
    [CATCH_FRAME] = "CATCH_FRAME",
    [UNDERFLOW_FRAME] = "UNDERFLOW_FRAME",
    [STOP_FRAME] = "STOP_FRAME",
    [BLOCKING_QUEUE] = "BLOCKING_QUEUE",
    [BLACKHOLE] = "BLACKHOLE",
    [MVAR_CLEAN] = "MVAR_CLEAN",
    [MVAR_DIRTY] = "MVAR_DIRTY",
    [TVAR] = "TVAR",
    [ARR_WORDS] = "ARR_WORDS",
    [MUT_ARR_PTRS_CLEAN] = "MUT_ARR_PTRS_CLEAN",
    [MUT_ARR_PTRS_DIRTY] = "MUT_ARR_PTRS_DIRTY",
    [MUT_ARR_PTRS_FROZEN_DIRTY] = "MUT_ARR_PTRS_FROZEN_DIRTY",
    [MUT_ARR_PTRS_FROZEN_CLEAN] = "MUT_ARR_PTRS_FROZEN_CLEAN",
    [MUT_VAR_CLEAN] = "MUT_VAR_CLEAN",
    [MUT_VAR_DIRTY] = "MUT_VAR_DIRTY",
    [WEAK] = "WEAK",
    [PRIM] = "PRIM",
    [MUT_PRIM] = "MUT_PRIM",
    [TSO] = "TSO",
    [STACK] = "STACK",
    [TREC_CHUNK] = "TREC_CHUNK",
    [ATOMICALLY_FRAME] = "ATOMICALLY_FRAME",
    [CATCH_RETRY_FRAME] = "CATCH_RETRY_FRAME",
    [CATCH_STM_FRAME] = "CATCH_STM_FRAME",
    [WHITEHOLE] = "WHITEHOLE",
    [SMALL_MUT_ARR_PTRS_CLEAN] = "SMALL_MUT_ARR_PTRS_CLEAN",
    [SMALL_MUT_ARR_PTRS_DIRTY] = "SMALL_MUT_ARR_PTRS_DIRTY",
    [SMALL_MUT_ARR_PTRS_FROZEN_DIRTY] = "SMALL_MUT_ARR_PTRS_FROZEN_DIRTY",
    [SMALL_MUT_ARR_PTRS_FROZEN_CLEAN] = "SMALL_MUT_ARR_PTRS_FROZEN_CLEAN",
    [COMPACT_NFDATA] = "COMPACT_NFDATA",
    [CONTINUATION] = "CONTINUATION",
};

const char *strata_closure_type_name(StgHalfWord type)
{
    if (type >= N_CLOSURE_TYPES)
        return "UNKNOWN_CLOSURE_TYPE";
    return closure_type_names[type];
}
