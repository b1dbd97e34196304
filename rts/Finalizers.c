/*
 * rts/Finalizers.c -- weak pointers for the program (strata/Weak.h):
 * making, dereferencing and finalizing them, and running the finalizers
 * the collector queues (sm/Weak.h) after the collection has returned.
 * Relies on the allocator (a WEAK is an ordinary nursery object), the
 * attention request of the allocation slow path (Note [The allocation
 * limit] in sm/alloc/Storage.c) and the post-GC hooks (sm/GC.h).
 * See Note [Weak pointers] in sm/Weak.c and docs/api-guide.md.
 *
 * Note [When finalizers run]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A finalizer is C code that may allocate, make new weak pointers and so
 * start another collection, so it cannot run inside the collection that
 * found its key dead: the collector queues it (sm/Weak.c) and returns.
 * Our post-GC hook then asks for the mutator's attention, as the
 * profiling timer does, and the queue is emptied at the mutator's next
 * allocation slow path (the runtime's attention handler calls
 * finalizers_run_due), or before strata_perform_gc returns, or at
 * hs_exit.  There the mutator is at an allocation, the point where a GC
 * may happen anyway: every pointer its caller holds is rooted, so running
 * a finalizer there is no more visible to the program than a collection.
 * GHC runs C finalizers from its scheduler instead; we have no scheduler.
 * A collection inside a finalizer may queue more: the outermost
 * finalizers_run_due keeps going until the queue is empty, and the calls
 * nested in a finalizer's own allocations return at once, so finalizers
 * never nest.  Each runs exactly once: it is taken off the weak when
 * queued (the weak is dead from then on) and off the queue when run.
 */
#include "Finalizers.h"

#include <stdlib.h>

#include "GC.h"
#include "Messages.h"
#include "MutList.h"
#include "Storage.h"
#include "UpdRemSet.h"
#include "Weak.h"
#include "strata/Alloc.h"
#include "strata/Roots.h"
#include "strata/Weak.h"

/* finalizers_run_due is on this thread's stack (threads on other
 * capabilities run finalizers of their own; the queue is sm/'s, locked). */
static _Thread_local bool running;

/* ----------------------------------------------------------------------
 * The API
 * ---------------------------------------------------------------------- */

/* w as a weak pointer, or a report naming what it was. */
static StgWeak *checked_weak(StgClosure *w, const char *who)
{
    if (w == NULL || w->info->type != WEAK) {
        rts_error("%s: not a weak pointer (closure=%p, closure type %s)", who, (void *)w,
                  w == NULL ? "NULL" : strata_closure_type_name(w->info->type));
        abort();
    }
    return (StgWeak *)w;
}

StgClosure *strata_mk_weak(StgClosure *key, StgClosure *value, StrataFinalizer finalizer,
                           void *env)
{
    if (key == NULL) {
        rts_error("strata_mk_weak: the key is NULL (a weak pointer needs an object whose "
                  "life keeps the value alive)");
        abort();
    }
    STRATA_ROOTS(r, 2);
    r[0] = key;
    r[1] = value;
    StgWeak *w = (StgWeak *)strata_alloc_words(sizeof(StgWeak) / WORD_SIZE);
    w->info = &stg_WEAK_info;
    w->key = r[0];
    w->value = r[1];
    w->finalizer = (StgWord)finalizer;
    w->env = (StgWord)env;
    w->link = NULL;
    weak_add_new(w);
    STRATA_ROOTS_POP(r);
    return (StgClosure *)w;
}

StgClosure *strata_deref_weak(StgClosure *w)
{
    StgClosure *v = checked_weak(w, "strata_deref_weak")->value;   /* NULL once dead */
    /* What the program reads out of a weak it keeps, even if the mark
     * finds the key dead (Note [The update remembered set] in UpdRemSet.c). */
    if (v != NULL && barrier_logs_overwrites())
        upd_rem_set_log_value(v);
    return v;
}

void strata_finalize_weak(StgClosure *w)
{
    WeakFinalizer f;
    if (weak_kill(checked_weak(w, "strata_finalize_weak"), &f))
        f.fn(f.env);
}

/* The public collection entry point is the runtime's, not the collector's:
 * it returns at a safe point of the mutator, so the finalizers the
 * collection queued run before it returns. */
void strata_perform_gc(int major)
{
    gc_collect_forced(major != 0);
    finalizers_run_due();
}

/* ----------------------------------------------------------------------
 * Running finalizers (Note [When finalizers run])
 * ---------------------------------------------------------------------- */

void finalizers_after_gc(unsigned collected_gen, bool major)
{
    (void)collected_gen;
    (void)major;
    if (weak_n_finalizers_due() > 0 && !running)
        storage_request_attention();
}

void finalizers_run_due(void)
{
    if (running)
        return;
    running = true;
    WeakFinalizer f;
    while (weak_take_finalizer(&f))
        f.fn(f.env);
    running = false;
}

void finalizers_exit(void)
{
    finalizers_run_due();
    /* A finalizer run here may make new weaks: they are finalized in the
     * next round. */
    for (;;) {
        weak_kill_all();
        if (weak_n_finalizers_due() == 0)
            break;
        finalizers_run_due();
    }
}
