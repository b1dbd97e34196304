/*
 * sm/Weak.c -- weak pointers in the collector (Weak.h): the per-generation
 * lists of WEAK objects, the liveness pass run to a fixed point with the
 * scavenger, and the queue of finalizers that became due.  Relies on the
 * collector's evacuation (Evac.h) and its state (GCPrivate.h); runs no
 * finalizer itself (rts/Finalizers.c does, after the GC returns).
 * See docs/design/gc.md (Weak pointers).
 *
 * Note [Weak pointers]
 * ~~~~~~~~~~~~~~~~~~~~
 * A weak pointer keeps its value alive while its key is reachable, and
 * says nothing about the key itself.  The scavenger treats a WEAK's key
 * and value as no pointers at all (Scav.c); instead every live weak is on
 * the list of its generation, and a collection works in rounds:
 *
 *   1. weak_gc_begin takes every list as "pending": weaks whose keys are
 *      not yet known to be reachable.
 *   2. The roots are evacuated and scavenged as usual, which finds
 *      everything reachable without going through a weak's value.
 *   3. weak_gc_traverse keeps each pending weak whose key has now been
 *      reached: the weak is evacuated (a weak lives as long as its key, so
 *      that the finalizer can run even if nothing refers to the weak), its
 *      value evacuated, and it goes on its (new) generation's list.  If
 *      any was kept, its value may reach other keys: back to 2.
 *   4. At the fixed point the pending weaks' keys are dead.  weak_gc_end
 *      makes each dead -- the copy, if the weak itself was reached -- and
 *      queues its finalizer.
 *
 * So a key reachable only through its own weak's value (or any chain of
 * weak values) counts as dead, as in GHC: the value is evacuated only
 * once the key has been reached some other way.  A key in a generation
 * this GC does not collect is alive (as every older object is in a minor
 * GC), and so is a static key.  Indirections are followed: a thunk key
 * that has been evaluated lives as long as its value.
 *
 * A collection passes over the lists of the generations it collects and
 * over the remembered weaks (Note [Old weaks that point young]), never
 * over an older generation's whole list: a minor GC costs what is young
 * (Note [A minor GC costs what is young] in GC.c).  The values are
 * evacuated as from generation 0, like roots.
 *
 * Finalizers are C functions with an environment pointer; neither is a
 * heap object, so a dead weak's value is not kept for its finalizer.  The
 * queue lives in the C heap and is emptied by the runtime after the
 * collection, never inside it (a finalizer may allocate and make weaks).
 *
 * Note [Old weaks that point young]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A weak's key and value are not fields to the scavenger, so the write
 * barrier's remembered sets know nothing of them.  A weak can be older
 * than its key or value: one reached first from an old object is promoted
 * eagerly while its key, reached from a root, and its value, evacuated
 * from here as from generation 0, age in generation 0.  A collection that
 * leaves such a weak on an older generation's list than its key or value
 * records it in young_refs (.inv.weak-young: every weak of generation g
 * whose key or value lies in a generation below g is there, checked by
 * the sanity checker); the next collection takes the recorded weaks of
 * the generations it does not collect as pending too, in place: they
 * stay on their lists, a dead key makes them dead where they are, and a
 * live one gets its key's new address and its value evacuated, and is
 * recorded again if either is still younger than the weak.  GHC keeps
 * such weaks on its remembered set; a table of their own keeps the
 * scavenger's WEAK case free of the weak pass's rules.  Dead weaks leave
 * young_refs at the next collection, or at the end of a non-moving mark,
 * before the sweep can free them.
 */
#include "Weak.h"

#include <stdlib.h>

#include "Capability.h"
#include "Evac.h"
#include "GCPrivate.h"
#include "GrowArray.h"
#include "Messages.h"
#include "strata/InfoTables.h"

static StgWeak **lists;          /* [storage_n_gens]: weaks per generation */
static unsigned n_lists;         /* entries of lists; 0 until the first weak */

static StgWeak **pending;        /* GC: weaks whose keys are not yet reached */
static size_t n_pending, cap_pending;

/* Note [Old weaks that point young]: weaks that may hold a key or value
 * in a younger generation than their own (sorted when young_refs_sorted,
 * for the sanity checker's lookups), and, during a GC, those of them in
 * generations not collected whose keys are not yet reached. */
static StgWeak **young_refs;
static size_t n_young_refs, cap_young_refs;
static bool young_refs_sorted;
static StgWeak **old_pending;
static size_t n_old_pending, cap_old_pending;

static WeakFinalizer *due;       /* finalizers due: [due_head, n_due) */
static size_t due_head, n_due, cap_due;

static void lists_ensure(void)
{
    if (n_lists == storage_n_gens)
        return;
    StgWeak **l = calloc(storage_n_gens, sizeof *l);
    if (l == NULL)
        rts_panic("out of C heap for the weak pointer lists (generations=%u)", storage_n_gens);
    free(lists);
    lists = l;
    n_lists = storage_n_gens;
}

static bool weak_is_dead(const StgWeak *w)
{
    return w->info == &stg_DEAD_WEAK_info;
}

/* Mutators on every capability make, take and kill weaks: the lists and
 * the queue are under sm_lock between collections (no allocation inside);
 * the collector works on them with the world stopped. */
void weak_add_new(StgWeak *w)
{
    sm_lock();
    lists_ensure();
    ASSERT(Bdescr(w)->gen_no == 0);
    w->link = lists[0];
    lists[0] = w;
    sm_unlock();
}

void weak_promote_young(unsigned to_gen)
{
    if (n_lists == 0 || lists[0] == NULL)
        return;
    StgWeak *tail = lists[0];
    while (tail->link != NULL)
        tail = tail->link;
    tail->link = lists[to_gen];
    lists[to_gen] = lists[0];
    lists[0] = NULL;
}

bool weak_any(void)
{
    for (unsigned g = 0; g < n_lists; g++)
        if (lists[g] != NULL)
            return true;
    return false;
}

static void queue_finalizer(const StgWeak *w)
{
    if (w->finalizer == 0)
        return;
    if (due_head == n_due)
        due_head = n_due = 0;
    if (GROW_ARRAY_RESERVE_MIN(due, cap_due, n_due + 1, 16) != 0)
        rts_panic("out of C heap queueing a finalizer (due=%lu)", (unsigned long)n_due);
    due[n_due++] = (WeakFinalizer){(void (*)(void *))w->finalizer, (void *)w->env};
}

static void make_dead(StgWeak *w)
{
    w->info = &stg_DEAD_WEAK_info;
    w->key = NULL;
    w->value = NULL;
    w->finalizer = 0;
    w->env = 0;
    w->link = NULL;
}

/* ----------------------------------------------------------------------
 * During a collection
 * ---------------------------------------------------------------------- */

StgClosure *weak_gc_is_alive(StgClosure *p)
{
    for (;;) {
        if (p == NULL)
            return NULL;
        if (!heap_alloced(p))
            return p;   /* static: never dies */
        BlockDesc *bd = Bdescr(p);
        if (bd->gen_no > gct->collected_gen || (bd->flags & BF_EVACUATED))
            return p;   /* not collected, or a live large object or a copy */
        if (closure_is_forwarded(p))
            return closure_forwardee(p);
        if (p->info->type != IND)
            return NULL;
        p = ((StgInd *)p)->indirectee;
    }
}

/* The weak w, or its copy if it has been evacuated (something refers to
 * it). */
static StgWeak *current_copy(StgWeak *w)
{
    StgClosure *c = (StgClosure *)w;
    if (heap_alloced(c) && closure_is_forwarded(c))
        return (StgWeak *)closure_forwardee(c);
    return w;
}

static void push_weak(StgWeak ***array, size_t *n, size_t *cap, StgWeak *w)
{
    if (GROW_ARRAY_RESERVE_MIN(*array, *cap, *n + 1, 64) != 0)
        rts_panic("out of C heap collecting weak pointers (weaks=%lu)", (unsigned long)*n);
    (*array)[(*n)++] = w;
}

static bool younger_than(const StgClosure *p, unsigned gen)
{
    return p != NULL && heap_alloced(p) && Bdescr(p)->gen_no < gen;
}

/* Records w if its key or value is younger than itself (.inv.weak-young). */
static void remember_if_pointing_young(StgWeak *w)
{
    unsigned g = Bdescr(w)->gen_no;
    if (younger_than(w->key, g) || younger_than(w->value, g)) {
        push_weak(&young_refs, &n_young_refs, &cap_young_refs, w);
        young_refs_sorted = false;
    }
}

void weak_gc_begin(void)
{
    unsigned N = gct->collected_gen;
    n_pending = 0;
    n_old_pending = 0;
    for (size_t i = 0; i < n_young_refs; i++) {
        StgWeak *w = young_refs[i];
        gc_bookkeeping_steps++;
        /* A collected generation's weaks are all pending below. */
        if (Bdescr(w)->gen_no > N && !weak_is_dead(w))
            push_weak(&old_pending, &n_old_pending, &cap_old_pending, w);
    }
    n_young_refs = 0;
    for (unsigned g = 0; g <= N && g < n_lists; g++) {
        for (StgWeak *w = lists[g]; w != NULL; w = w->link) {
            gc_bookkeeping_steps++;
            if (weak_is_dead(w))
                continue;   /* finalized by hand since the last GC */
            push_weak(&pending, &n_pending, &cap_pending, w);
        }
        lists[g] = NULL;
    }
}

/* The pending weaks of the collected generations whose keys are reached:
 * each is evacuated with its value and goes on its new generation's
 * list. */
static bool keep_reached_collected(void)
{
    bool kept_any = false;
    for (size_t i = 0; i < n_pending;) {
        StgWeak *w = current_copy(pending[i]);
        StgClosure *key = weak_gc_is_alive(w->key);
        if (key == NULL) {
            i++;
            continue;
        }
        StgClosure *wc = (StgClosure *)w;
        gct->evac_gen = 0;
        evacuate(&wc);
        w = (StgWeak *)wc;
        w->key = key;
        gct->evac_gen = 0;
        evacuate(&w->value);
        unsigned g = Bdescr(w)->gen_no;
        w->link = lists[g];
        lists[g] = w;
        remember_if_pointing_young(w);
        pending[i] = pending[--n_pending];
        kept_any = true;
    }
    return kept_any;
}

/* The remembered weaks of older generations whose keys are reached: they
 * stay where they are, on their lists (Note [Old weaks that point
 * young]). */
static bool keep_reached_old(void)
{
    bool kept_any = false;
    for (size_t i = 0; i < n_old_pending;) {
        StgWeak *w = old_pending[i];
        StgClosure *key = weak_gc_is_alive(w->key);
        if (key == NULL) {
            i++;
            continue;
        }
        w->key = key;
        gct->evac_gen = 0;
        evacuate(&w->value);
        remember_if_pointing_young(w);
        old_pending[i] = old_pending[--n_old_pending];
        kept_any = true;
    }
    return kept_any;
}

bool weak_gc_traverse(void)
{
    bool kept_collected = keep_reached_collected();
    bool kept_old = keep_reached_old();
    return kept_collected || kept_old;
}

void weak_gc_end(void)
{
    for (size_t i = 0; i < n_pending; i++) {
        StgWeak *from = pending[i];
        StgWeak *w = current_copy(from);
        queue_finalizer(w);
        /* A weak something still refers to (it was copied, or it is in a
         * generation not collected) survives, dead; one nothing refers to
         * is garbage and is left in from-space. */
        if (w != from || weak_gc_is_alive((StgClosure *)from) != NULL)
            make_dead(w);
    }
    /* An older generation's weak stays on its list, dead, until that
     * generation is collected. */
    for (size_t i = 0; i < n_old_pending; i++) {
        StgWeak *w = old_pending[i];
        StgWeak *link = w->link;
        queue_finalizer(w);
        make_dead(w);
        w->link = link;
    }
    debug_trace(DEBUG_GC, "gc: weak pointers: %lu keys died, %lu finalizers due",
                (unsigned long)(n_pending + n_old_pending), (unsigned long)(n_due - due_head));
    n_pending = 0;
    n_old_pending = 0;
}

static int compare_addresses(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)*(StgWeak *const *)a, y = (uintptr_t)*(StgWeak *const *)b;
    return (x > y) - (x < y);
}

bool weak_is_remembered(const StgWeak *w)
{
    if (!young_refs_sorted) {
        if (n_young_refs > 0)
            qsort(young_refs, n_young_refs, sizeof *young_refs, compare_addresses);
        young_refs_sorted = true;
    }
    return n_young_refs > 0 &&
           bsearch(&w, young_refs, n_young_refs, sizeof *young_refs, compare_addresses) != NULL;
}

/* ----------------------------------------------------------------------
 * The non-moving generation
 * ---------------------------------------------------------------------- */

/* Note [Weak pointers and the non-moving generation]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A minor collection takes every object of the non-moving generation as
 * alive, as it does any older object, so a weak whose key lies there is
 * decided only at the end of a cycle's mark, by the same rounds as in a
 * copying collection (Note [Weak pointers]), with "reached" meaning
 * "marked": each weak of any generation whose key is marked, or lies
 * outside the generation, keeps its value -- the weak and the value are
 * pushed onto the mark queue and marked, which may mark other keys --
 * until a round keeps none.  The rest have dead keys: each is made dead,
 * its finalizer queued, and it leaves its list (if nothing else marked
 * it, the sweep frees it).  The snapshot's collection does not mark a
 * weak's value (Note [The snapshot] in NonMoving.c), so a value reachable
 * only through its weak dies with the weak's key.  The world is stopped
 * throughout. */

void weak_nonmoving_begin(void)
{
    n_pending = 0;
    for (unsigned g = 0; g < n_lists; g++)
        for (StgWeak *w = lists[g]; w != NULL; w = w->link) {
            if (weak_is_dead(w))
                continue;
            if (GROW_ARRAY_RESERVE_MIN(pending, cap_pending, n_pending + 1, 64) != 0)
                rts_panic("out of C heap settling weak pointers (weaks=%lu)",
                          (unsigned long)n_pending);
            pending[n_pending++] = w;
        }
}

bool weak_nonmoving_traverse(MarkQueue *q)
{
    bool kept_any = false;
    for (size_t i = 0; i < n_pending;) {
        StgWeak *w = pending[i];
        StgClosure *key = nonmoving_alive_or_null(w->key);
        if (key == NULL) {
            i++;
            continue;
        }
        w->key = key;
        mark_queue_push_unmarked(q, (StgClosure *)w);
        if (w->value != NULL)
            mark_queue_push_unmarked(q, w->value);
        pending[i] = pending[--n_pending];
        kept_any = true;
    }
    return kept_any;
}

/* Drops the dead weaks from young_refs: the sweep may free them (Note
 * [Old weaks that point young]). */
static void forget_dead_young_refs(void)
{
    size_t kept = 0;
    for (size_t i = 0; i < n_young_refs; i++)
        if (!weak_is_dead(young_refs[i]))
            young_refs[kept++] = young_refs[i];
    n_young_refs = kept;
}

void weak_nonmoving_end(void)
{
    for (unsigned g = 0; g < n_lists; g++) {
        StgWeak *kept = NULL;
        for (StgWeak *w = lists[g], *next; w != NULL; w = next) {
            next = w->link;
            if (weak_is_dead(w) || nonmoving_alive_or_null(w->key) == NULL)
                continue;
            w->link = kept;
            kept = w;
        }
        lists[g] = kept;
    }
    for (size_t i = 0; i < n_pending; i++) {
        queue_finalizer(pending[i]);
        make_dead(pending[i]);
    }
    forget_dead_young_refs();
    debug_trace(DEBUG_GC, "gc: non-moving weak pointers: %lu keys died, %lu finalizers due",
                (unsigned long)n_pending, (unsigned long)(n_due - due_head));
    n_pending = 0;
}

/* ----------------------------------------------------------------------
 * Between collections
 * ---------------------------------------------------------------------- */

bool weak_take_finalizer(WeakFinalizer *out)
{
    sm_lock();
    bool any = due_head != n_due;
    if (any)
        *out = due[due_head++];
    sm_unlock();
    return any;
}

StgWord weak_n_finalizers_due(void)
{
    sm_lock();
    StgWord n = n_due - due_head;
    sm_unlock();
    return n;
}

bool weak_kill(StgWeak *w, WeakFinalizer *out)
{
    sm_lock();
    if (weak_is_dead(w)) {
        sm_unlock();
        return false;
    }
    bool has = w->finalizer != 0;
    *out = (WeakFinalizer){(void (*)(void *))w->finalizer, (void *)w->env};
    StgWeak *link = w->link;
    make_dead(w);
    w->link = link;   /* stays on its list until the next GC drops it */
    sm_unlock();
    return has;
}

void weak_kill_all(void)
{
    n_young_refs = 0;
    for (unsigned g = 0; g < n_lists; g++) {
        for (StgWeak *w = lists[g], *next; w != NULL; w = next) {
            next = w->link;
            if (!weak_is_dead(w))
                queue_finalizer(w);
            make_dead(w);
        }
        lists[g] = NULL;
    }
}

void weak_for_each(void (*f)(StgWeak *w, unsigned gen, void *env), void *env)
{
    for (unsigned g = 0; g < n_lists; g++)
        for (StgWeak *w = lists[g]; w != NULL; w = w->link)
            f(w, g, env);
}

void weak_exit(void)
{
    free(lists);
    lists = NULL;
    n_lists = 0;
    GROW_ARRAY_FREE(pending, n_pending, cap_pending);
    GROW_ARRAY_FREE(young_refs, n_young_refs, cap_young_refs);
    young_refs_sorted = false;
    GROW_ARRAY_FREE(old_pending, n_old_pending, cap_old_pending);
    GROW_ARRAY_FREE(due, n_due, cap_due);
    due_head = 0;
}
