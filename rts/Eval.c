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
 * BLACKHOLE that this thread is evaluating means the thunk depends on
 * itself: <<loop>>.  When the entry returns, the blackhole becomes an
 * indirection to the value, the words beyond the indirection are zeroed
 * (heap walkers skip zero words), and the update goes through the write
 * barrier because an old thunk may now point at a young value.
 *
 * Note [Blackholes between threads]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * With several capabilities two threads may force one thunk.  The first
 * claims it by a compare-and-swap of its info pointer to BLACKHOLE (eager
 * blackholing: the thunk is evaluated once), then writes the thunk's info
 * table into header word 1; nobody reads that word before the next safe
 * point, and every reader of the heap (the collector, the census, the
 * debugger) runs at one.  The update writes the indirectee first and
 * publishes the IND info pointer with a release store; a reader loads the
 * info pointer with acquire.  A thread that finds a BLACKHOLE asks whether
 * one of its own eval frames holds it (the frames are local roots pushed
 * at blackholes_eval_site, so the answer survives a GC moving the blackhole): if so,
 * it is a <<loop>>; if not, another thread is evaluating it, and this one
 * blocks, as GHC's blocking queue does: it gives its capability back (so
 * that the owner can run, even at -N1, and collections need not wait for
 * it), sleeps until an update is announced (or 10 ms pass), takes a
 * capability again and looks at the rooted closure (rts/Blackholes.c).  The
 * eventlog shows the wait as STOP_THREAD "blocked on a black hole".  Threads
 * that wait for each other's blackholes are a <<loop>> too (Note [Cycles
 * of blackhole waits] in Blackholes.c).
 *
 * Note [Partial applications]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * strata_apply is GHC's generic apply for C entry functions.  A FUN of
 * arity a applied to n arguments: n == a calls its entry; n < a builds a
 * PAP holding the function and the n arguments (arity a - n still
 * missing); n > a calls the entry with the first a and applies what it
 * returns (evaluated) to the rest.  A PAP applied to m arguments is its
 * function applied to its own arguments followed by the m: fewer than it
 * misses make a new, longer PAP of the same function (a PAP never holds
 * another PAP), enough call the entry from a local-root frame holding all
 * the arguments.  An AP is the lazy form: a thunk holding a function and
 * arguments, evaluated by strata_apply.  While it is being evaluated it is
 * a BLACKHOLE of two words (its function and arguments moved to a root
 * frame, the rest of it zeroed as slop), so the collector and the tools
 * need no AP-shaped blackhole, and <<loop>> is detected as for thunks.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "Blackholes.h"
#include "ClosureSize.h"
#include "Messages.h"
#include "MutList.h"
#include "Roots.h"
#include "Shutdown.h"
#include "Threads.h"
#include "UpdRemSet.h"
#include "strata/EventLogFormat.h"
#include "strata/Closures.h"
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

/* The layout an AP has while it is a BLACKHOLE (Note [Partial
 * applications]): a thunk of no fields. */
static const StgInfoTable ap_under_evaluation_info = {THUNK, 0, 0, 0, "AP", NULL, NULL, 0};

_Noreturn static void report_loop(void)
{
    rts_error("<<loop>>");
    rts_shutdown_and_exit(1);
}

static const StgInfoTable *info_acquire(const StgClosure *c)
{
    return __atomic_load_n(&c->info, __ATOMIC_ACQUIRE);
}

static void update_with_indirection(StgClosure *bh, const StgInfoTable *thunk_info,
                                    StgClosure *value)
{
    StgWord size = THUNK_HEADER_WORDS + (StgWord)thunk_info->ptrs + thunk_info->nptrs;
    StgInd *ind = (StgInd *)bh;
    ind->indirectee = value;
    /* Atomic: the non-moving mark may be reading the payload (Note
     * [Tracing beside the mutators] in sm/NonMovingMark.c). */
    for (StgWord i = 2; i < size; i++)
        __atomic_store_n(&((StgWord *)bh)[i], 0, __ATOMIC_RELAXED);
    __atomic_store_n(&ind->info,
                     thunk_info->type == THUNK_STATIC ? &stg_IND_STATIC_info : &stg_IND_info,
                     __ATOMIC_RELEASE);
    mut_list_remember(bh);
    blackholes_announce_update();
}

/* Evaluates thunk, whose info table was info when read; returns NULL if
 * another thread claimed it first (the caller looks again). */
static StgClosure *eval_thunk(StgClosure *thunk, const StgInfoTable *info)
{
    StgThunkEntry entry = (StgThunkEntry)info->entry;
    if (entry == NULL)
        rts_panic("strata_eval: thunk info table %s has no entry function", info->name);
    const StgInfoTable *expected = info;
    if (!__atomic_compare_exchange_n(&thunk->info, &expected, &stg_BLACKHOLE_info, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return NULL;
    /* Its update will zero the free variables: the non-moving mark must
     * see them first (Note [The update remembered set] in UpdRemSet.c). */
    if (barrier_logs_overwrites())
        upd_rem_set_log_fields(thunk, ((StgThunk *)thunk)->payload, info->ptrs);
    StgClosure **r = strata_roots_push(&blackholes_eval_site, 2);
    r[0] = thunk;
    StgBlackhole *bh = (StgBlackhole *)thunk;
    bh->thunk_info = info;
    r[1] = entry(&r[0]);
    if (r[1] == NULL)
        rts_panic("strata_eval: the entry of thunk %s returned NULL", info->name);
    r[1] = strata_eval(r[1]);   /* an entry may return another thunk */
    StgClosure *value = r[1];
    update_with_indirection(r[0], info, value);
    strata_roots_pop(r);
    return value;
}

static StgClosure *eval_ap(StgClosure *c, const StgInfoTable *info);

StgClosure *strata_eval(StgClosure *c)
{
    for (;;) {
        if (c == NULL)
            rts_panic("strata_eval: NULL closure (an unset field?)");
        const StgInfoTable *info = info_acquire(c);
        StgHalfWord t = info->type;
        if (t == IND || t == IND_STATIC) {
            c = ((StgInd *)c)->indirectee;
        } else if (is_thunk_type(t)) {
            StgClosure *v = eval_thunk(c, info);
            if (v != NULL)
                return v;   /* else another thread claimed it: look again */
        } else if (t == AP) {
            StgClosure *v = eval_ap(c, info);
            if (v != NULL)
                return v;   /* else another thread claimed it: look again */
        } else if (t == BLACKHOLE) {
            if (roots_frame_holds(&blackholes_eval_site, 0, c))
                report_loop();
            c = blackholes_wait(c);
        } else {
            return c;
        }
    }
}

/* ----------------------------------------------------------------------
 * Application (Note [Partial applications])
 * ---------------------------------------------------------------------- */

/* A PAP of the function in *src (a FUN, or a PAP whose arguments come
 * first) applied to n_args more arguments from rooted slots, with missing
 * arguments still to come.  *src is re-read after the allocation. */
static StgClosure *make_pap(StgClosure **src, StgWord missing, StgClosure **args,
                            StgWord n_args)
{
    StgWord have = (*src)->info->type == PAP ? ((StgPAP *)*src)->n_args : 0;
    StgWord n = have + n_args;
    if (n > UINT32_MAX || missing > UINT32_MAX)
        rts_panic("strata_apply: too many arguments for a partial application (args=%lu)",
                  (unsigned long)n);
    StgPAP *p = (StgPAP *)strata_alloc_words(sizeof(StgPAP) / WORD_SIZE + n);
    StgClosure *s = *src;
    p->info = &stg_PAP_info;
    p->arity = (StgHalfWord)missing;
    p->n_args = (StgHalfWord)n;
    if (s->info->type == PAP) {
        p->fun = ((StgPAP *)s)->fun;
        for (StgWord i = 0; i < have; i++)
            p->payload[i] = ((StgPAP *)s)->payload[i];
    } else {
        p->fun = s;
    }
    for (StgWord i = 0; i < n_args; i++)
        p->payload[have + i] = args[i];
    return (StgClosure *)p;
}

static StgFunEntry fun_entry(const StgInfoTable *info)
{
    if (info->entry == NULL)
        rts_panic("strata_apply: function %s has no entry function", info->name);
    return (StgFunEntry)info->entry;
}

/* Calls the PAP in *pap with its arguments and the (enough) more in args;
 * returns the entry's result.  Its arguments go to a local-root frame. */
static StgClosure *saturate_pap(StgClosure **pap, StgClosure **args)
{
    static const StgRootSite site = {__func__, __FILE__, __LINE__};
    StgPAP *p = (StgPAP *)*pap;
    StgWord have = p->n_args, missing = p->arity;
    StgClosure **a = strata_roots_push(&site, 1 + have + missing);
    p = (StgPAP *)*pap;   /* pushing may have collected */
    a[0] = p->fun;
    for (StgWord i = 0; i < have; i++)
        a[1 + i] = p->payload[i];
    for (StgWord i = 0; i < missing; i++)
        a[1 + have + i] = args[i];
    StgClosure *result = fun_entry(a[0]->info)(&a[0], &a[1]);
    strata_roots_pop(a);
    return result;
}

StgClosure *strata_apply(StgClosure *fun, StgClosure **args, StgWord n_args)
{
    STRATA_ROOTS(r, 1);
    r[0] = strata_eval(fun);
    StgWord done = 0;
    while (done < n_args) {
        if (done > 0)
            r[0] = strata_eval(r[0]);   /* what an over-saturated call returned */
        const StgInfoTable *info = r[0]->info;
        StgWord left = n_args - done, missing;
        if (is_fun_type(info->type) && info->arity > 0) {
            missing = info->arity;
        } else if (info->type == PAP) {
            missing = ((StgPAP *)r[0])->arity;
        } else {
            rts_panic("strata_apply: not a function (closure type %s, table %s, applied to "
                      "%lu arguments)", strata_closure_type_name(info->type), info->name,
                      (unsigned long)left);
        }
        if (left < missing) {
            r[0] = make_pap(&r[0], missing - left, args + done, left);
            break;
        }
        if (info->type == PAP)
            r[0] = saturate_pap(&r[0], args + done);
        else
            r[0] = fun_entry(info)(&r[0], args + done);
        if (r[0] == NULL)
            rts_panic("strata_apply: the entry of function %s returned NULL", info->name);
        done += missing;
    }
    StgClosure *result = r[0];
    STRATA_ROOTS_POP(r);
    return result;
}

StgClosure *strata_make_ap(StgClosure *fun, StgClosure **args, StgWord n_args)
{
    if (n_args > UINT32_MAX)
        rts_panic("strata_make_ap: too many arguments (args=%lu)", (unsigned long)n_args);
    STRATA_ROOTS(r, 1);
    r[0] = fun;
    StgAP *ap = (StgAP *)strata_alloc_words(sizeof(StgAP) / WORD_SIZE + n_args);
    ap->info = &stg_AP_info;
    ap->header1 = 0;
    ap->arity = 0;
    ap->n_args = (StgHalfWord)n_args;
    ap->fun = r[0];
    for (StgWord i = 0; i < n_args; i++)
        ap->payload[i] = args[i];
    STRATA_ROOTS_POP(r);
    return (StgClosure *)ap;
}

/* Evaluates an AP whose info table was info when read: claimed by a
 * compare-and-swap as thunks are (Note [Blackholes between threads]), its
 * function and arguments go to a root frame pushed at blackholes_eval_site (so that
 * entering it again on this thread is a <<loop>>), and the AP becomes a
 * two-word BLACKHOLE, then an IND to the value.  NULL if another thread
 * claimed it first. */
static StgClosure *eval_ap(StgClosure *c, const StgInfoTable *info)
{
    const StgInfoTable *expected = info;
    if (!__atomic_compare_exchange_n(&c->info, &expected, &stg_BLACKHOLE_info, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return NULL;
    StgAP *ap = (StgAP *)c;
    StgWord n = ap->n_args, size = ap_sizeW(ap);
    /* A push never collects (Note [Local roots live in a STACK]), so c
     * and its fields are still valid after it. */
    StgClosure **a = strata_roots_push(&blackholes_eval_site, 2 + n);
    a[0] = c;
    a[1] = ap->fun;
    for (StgWord i = 0; i < n; i++)
        a[2 + i] = ap->payload[i];
    /* The function and arguments move to the frame: the non-moving mark
     * must see them (Note [The update remembered set] in UpdRemSet.c). */
    if (barrier_logs_overwrites())
        upd_rem_set_log_fields(c, &ap->fun, 1 + n);
    StgBlackhole *bh = (StgBlackhole *)c;
    bh->thunk_info = &ap_under_evaluation_info;
    for (StgWord i = THUNK_HEADER_WORDS; i < size; i++)
        __atomic_store_n(&((StgWord *)c)[i], 0, __ATOMIC_RELAXED);
    StgClosure *value = strata_apply(a[1], &a[2], n);
    if (value == NULL)
        rts_panic("strata_eval: an AP's application returned NULL");
    a[1] = value;
    value = strata_eval(a[1]);
    update_with_indirection(a[0], &ap_under_evaluation_info, value);
    strata_roots_pop(a);
    return value;
}
