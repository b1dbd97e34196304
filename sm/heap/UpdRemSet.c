/*
 * sm/heap/UpdRemSet.c -- the update remembered set (UpdRemSet.h): each
 * capability's chunk of logged values, the list of full chunks the mark
 * thread takes, and the flag the inline write barrier reads.  Relies on
 * the capabilities (Capability.h) and the block descriptors' flags.
 */
#include "UpdRemSet.h"

#include <stdlib.h>

#include "MBlock.h"
#include "Messages.h"
#include "os/Thread.h"

/* Note [The update remembered set]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The concurrent mark must mark everything reachable at the snapshot
 * (Note [The snapshot] in sm/NonMoving.c): a snapshot-at-the-beginning
 * barrier, as Yuasa's.  An object reachable at the snapshot stays
 * reachable through the snapshot's edges until some write cuts the last
 * of them, so while a cycle marks, a write that overwrites a pointer in
 * an object of the non-moving generation logs the value it overwrites,
 * and the mark marks that too (it may be garbage by then: it lives one
 * cycle more).  What is logged, and where:
 *   - a mutable variable's or array's old value (sm/heap/MutList.c): the
 *     inline barrier (strata/Barrier.h) takes its slow path while
 *     strata_nonmoving_marking is set (barrier_set_logging, MutList.h);
 *   - a thunk's free variables as it is blackholed, which its update will
 *     zero, and an AP's function and arguments, which move to a root frame
 *     at once (rts/Eval.c): the concurrent mark does not read a BLACKHOLE
 *     (Note [Tracing beside the mutators] in sm/NonMovingMark.c);
 *   - a weak pointer's value as the program reads it (rts/Finalizers.c):
 *     once its key is found dead the value is reachable through the weak
 *     no more, but the program may hold what it read (GHC's read barrier
 *     on deRefWeak#).
 * Writes into young objects are not logged: nothing young existed at the
 * snapshot.  Nor are writes into roots (local-root frames, stable
 * pointers, static closures): the snapshot's collection queued everything
 * they held then, and a root cannot make an unreachable object reachable
 * again.  A value outside the generation needs no log either: a young one
 * is new, a static one never dies.
 *
 * Each capability logs into a chunk of its own, with no lock; a full chunk
 * goes onto a list under a lock and the mark thread is told, so that the
 * sync pause, which takes the partly filled chunks, has little left. */

static OsMutex chunks_lock = OS_MUTEX_INIT;
static UrsChunk *full;           /* under chunks_lock: full, not yet taken */
static UrsChunk *spare;          /* under chunks_lock: emptied chunks */

static UrsChunk *new_chunk(void)
{
    os_mutex_lock(&chunks_lock);
    UrsChunk *c = spare;
    if (c != NULL)
        spare = c->next;
    os_mutex_unlock(&chunks_lock);
    if (c == NULL && (c = malloc(sizeof *c)) == NULL)
        rts_panic("out of C heap for the non-moving write barrier's log");
    c->n = 0;
    c->next = NULL;
    return c;
}

static void push(StgClosure *v)
{
    Capability *cap = capability_mine();
    if (cap == NULL)
        rts_panic("non-moving write barrier on a thread that holds no capability (value=%p); "
                  "call rts_lock() first, or rts_resume() after rts_suspend()", (void *)v);
    UrsChunk *c = cap->urs;
    if (c == NULL)
        c = cap->urs = new_chunk();
    c->e[c->n++] = v;
    if (c->n < URS_CHUNK_ENTRIES)
        return;
    cap->urs = NULL;
    os_mutex_lock(&chunks_lock);
    c->next = full;
    full = c;
    os_mutex_unlock(&chunks_lock);
}

static inline bool in_generation(const StgClosure *p)
{
    return p != NULL && heap_alloced(p) &&
           (__atomic_load_n(&Bdescr(p)->flags, __ATOMIC_RELAXED) & BF_NONMOVING) != 0;
}

void upd_rem_set_log_overwrite(const StgClosure *obj, StgClosure *old)
{
    if (in_generation(obj) && in_generation(old))
        push(old);
}

void upd_rem_set_log_fields(const StgClosure *obj, StgClosure *const *fields, StgWord n)
{
    if (!in_generation(obj))
        return;
    for (StgWord i = 0; i < n; i++) {
        StgClosure *v = __atomic_load_n((StgClosure **)&fields[i], __ATOMIC_RELAXED);
        if (in_generation(v))
            push(v);
    }
}

void upd_rem_set_log_value(StgClosure *v)
{
    if (in_generation(v))
        push(v);
}

UrsChunk *upd_rem_set_take_full(void)
{
    os_mutex_lock(&chunks_lock);
    UrsChunk *c = full;
    full = NULL;
    os_mutex_unlock(&chunks_lock);
    return c;
}

UrsChunk *upd_rem_set_take_all_stw(void)
{
    UrsChunk *all = upd_rem_set_take_full();
    for (unsigned i = 0; i < capabilities_n; i++) {
        UrsChunk *c = capabilities[i].urs;
        if (c == NULL)
            continue;
        capabilities[i].urs = NULL;
        c->next = all;
        all = c;
    }
    return all;
}

static void chain_for_each(const UrsChunk *c, void (*fn)(StgClosure *v, void *ctx), void *ctx)
{
    for (; c != NULL; c = c->next)
        for (StgWord i = 0; i < c->n; i++)
            fn(c->e[i], ctx);
}

void upd_rem_set_for_each_stw(void (*fn)(StgClosure *v, void *ctx), void *ctx)
{
    os_mutex_lock(&chunks_lock);
    const UrsChunk *f = full;
    os_mutex_unlock(&chunks_lock);
    chain_for_each(f, fn, ctx);
    for (unsigned i = 0; i < capabilities_n; i++)
        chain_for_each(capabilities[i].urs, fn, ctx);
}

void upd_rem_set_release(UrsChunk *c)
{
    os_mutex_lock(&chunks_lock);
    c->next = spare;
    spare = c;
    os_mutex_unlock(&chunks_lock);
}

static void free_chain(UrsChunk *c)
{
    for (UrsChunk *next; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
}

void upd_rem_set_exit(void)
{
    free_chain(upd_rem_set_take_all_stw());
    free_chain(spare);
    spare = NULL;
}
