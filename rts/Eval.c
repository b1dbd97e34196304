/*
 * rts/Eval.c -- evaluating thunks and applying functions.
 *
 * Note [Blackholes keep their thunk's layout]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Evaluation overwrites the thunk's info pointer with BLACKHOLE and keeps
 * the thunk's own info table in header word 1, leaving the payload in
 * place: the entry function reads its free variables from the payload
 * (through a rooted slot) after it has started, possibly after a GC has
 * moved the blackhole, so the collector must keep copying and scanning it
 * with the thunk's layout (ClosureSize.h, Scav.c).  GHC instead points a
 * BLACKHOLE at its owning thread and keeps the free variables on the
 * Haskell stack; C entry functions have no such stack.  Entering a
 * BLACKHOLE means the thunk depends on itself: <<loop>>.  When the entry
 * returns, the blackhole becomes an indirection to the value, the words
 * beyond the indirection are zeroed (heap walkers skip zero words), and
 * the update goes through the write barrier because an old thunk may now
 * point at a young value.
 */
#include <stdlib.h>

#include "ClosureSize.h"
#include "Messages.h"
#include "MutList.h"
#include "RtsStartup.h"
#include "strata/Alloc.h"
#include "strata/Api.h"
#include "strata/Roots.h"

static bool is_thunk_type(StgHalfWord t)
{
    return (t >= THUNK && t <= THUNK_0_2) || t == THUNK_STATIC;
}

static bool is_fun_type(StgHalfWord t)
{
    return t >= FUN && t <= FUN_STATIC;
}

_Noreturn static void report_loop(void)
{
    rts_error("<<loop>>");
    rts_shutdown_and_exit(1);
}

static void update_with_indirection(StgClosure *bh, const StgInfoTable *thunk_info,
                                    StgClosure *value)
{
    StgWord size = THUNK_HEADER_WORDS + (StgWord)thunk_info->ptrs + thunk_info->nptrs;
    StgInd *ind = (StgInd *)bh;
    ind->info = thunk_info->type == THUNK_STATIC ? &stg_IND_STATIC_info : &stg_IND_info;
    ind->indirectee = value;
    for (StgWord i = 2; i < size; i++)
        ((StgWord *)bh)[i] = 0;
    mut_list_remember(bh);
}

static StgClosure *eval_thunk(StgClosure *thunk)
{
    const StgInfoTable *info = thunk->info;
    StgThunkEntry entry = (StgThunkEntry)info->entry;
    if (entry == NULL)
        rts_panic("strata_eval: thunk info table %s has no entry function", info->name);
    STRATA_ROOTS(r, 2);
    r[0] = thunk;
    StgBlackhole *bh = (StgBlackhole *)thunk;
    bh->thunk_info = info;
    bh->info = &stg_BLACKHOLE_info;
    r[1] = entry(&r[0]);
    if (r[1] == NULL)
        rts_panic("strata_eval: the entry of thunk %s returned NULL", info->name);
    r[1] = strata_eval(r[1]);   /* an entry may return another thunk */
    StgClosure *value = r[1];
    update_with_indirection(r[0], info, value);
    STRATA_ROOTS_POP(r);
    return value;
}

StgClosure *strata_eval(StgClosure *c)
{
    for (;;) {
        if (c == NULL)
            rts_panic("strata_eval: NULL closure (an unset field?)");
        StgHalfWord t = c->info->type;
        if (t == IND || t == IND_STATIC) {
            c = ((StgInd *)c)->indirectee;
        } else if (is_thunk_type(t)) {
            return eval_thunk(c);
        } else if (t == BLACKHOLE) {
            report_loop();
        } else {
            return c;
        }
    }
}

StgClosure *strata_apply(StgClosure *fun, StgClosure **args, StgWord n_args)
{
    STRATA_ROOTS(r, 1);
    r[0] = strata_eval(fun);
    const StgInfoTable *info = r[0]->info;
    if (!is_fun_type(info->type))
        rts_panic("strata_apply: not a function (closure type %s, table %s)",
                  strata_closure_type_name(info->type), info->name);
    if (info->arity != n_args)
        rts_panic("strata_apply: function %s takes %u arguments, applied to %lu",
                  info->name, (unsigned)info->arity, (unsigned long)n_args);
    StgFunEntry entry = (StgFunEntry)info->entry;
    StgClosure *result = entry(&r[0], args);
    STRATA_ROOTS_POP(r);
    return result;
}
