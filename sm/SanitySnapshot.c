/*
 * sm/SanitySnapshot.c -- the sanity checker's check of the non-moving
 * mark's snapshot invariant (+RTS -DS --nonmoving-gc), while a cycle
 * marks beside the program: Note [Checking the snapshot invariant].
 * Relies on the mark's queue and marks (NonMovingMark.h), the barrier's
 * log (UpdRemSet.h), the roots (GC.h) and the pointer fields Sanity.c
 * reads (SanityPrivate.h).
 *
 * Note [Checking the snapshot invariant]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The concurrent mark is sound when, at every stop of the world while it
 * marks, each object of the generation the program can still reach is
 * marked, or is reachable from the mark's grey set -- its queue and the
 * values the barrier logged -- through objects of the generation that
 * are not marked yet: then the mark, which follows exactly those
 * pointers, reaches it (Note [The update remembered set] in
 * sm/heap/UpdRemSet.c).  With -DS the checker tests that before and
 * after each collection in phases MARKING and SYNC_WANTED, and as the
 * sync begins (check_at_sync in NonMoving.c).  It walks the grey set first, through unmarked objects of
 * the generation and along the pointers the concurrent mark reads (not a
 * BLACKHOLE's, TSO's or STACK's, nor a weak pointer's key or value:
 * Note [Tracing beside the mutators] in NonMovingMark.c); then it walks
 * everything reachable from the roots, young objects too, along every
 * pointer but a weak pointer's key and value (the sync settles those),
 * and fails on an object of the generation in neither.  A write into the
 * generation that skipped the barrier, or a value the barrier did not
 * log, fails here at the next collection, long before the sweep frees an
 * object the program holds.  It costs a walk of the live heap, with a
 * hash set, per check.
 */
#include <stdlib.h>

#include "GC.h"
#include "GrowArray.h"
#include "MutList.h"
#include "NonMovingPrivate.h"
#include "SanityPrivate.h"
#include "UpdRemSet.h"
#include "WordMapOrPanic.h"

#define fail sanity_fail

typedef struct {
    const StgClosure *obj;
    const StgClosure *from;      /* what pointed at it (NULL: a root) */
} WalkEntry;

typedef struct {
    WordMap seen;
    WalkEntry *stack;
    size_t n, cap;
    bool grey;                   /* walking the grey set, else the roots */
} Walk;

static WordMap grey_set;         /* objects reachable from the grey set */

static void push(Walk *w, const StgClosure *p, const StgClosure *from)
{
    if (p == NULL || !heap_alloced(p))
        return;   /* a static closure's fields are roots (static_roots) */
    if (w->grey && (!nonmoving_holds(p) || nonmoving_is_marked(p)))
        return;
    bool found;
    (void)word_map_slot_or_panic(&w->seen, (uint64_t)(uintptr_t)p, &found);
    if (found)
        return;
    if (GROW_ARRAY_RESERVE_MIN(w->stack, w->cap, w->n + 1, 1024) != 0)
        rts_panic("out of C heap checking the non-moving snapshot (objects=%zu)", w->n);
    w->stack[w->n++] = (WalkEntry){p, from};
}

/* Pushes the objects c points at that the walk follows. */
static void push_fields(Walk *w, const StgClosure *c)
{
    StgHalfWord type = c->info->type;
    if (type == WEAK)
        return;
    if (w->grey && (type == BLACKHOLE || type == TSO || type == STACK))
        return;
    StgWord first, n;
    sanity_pointer_fields(c, &first, &n);
    const StgWord *words = (const StgWord *)c;
    for (StgWord i = first; i < first + n; i++)
        push(w, (const StgClosure *)words[i], c);
}

static void drain(Walk *w)
{
    while (w->n > 0) {
        WalkEntry e = w->stack[--w->n];
        if (!w->grey && nonmoving_holds(e.obj) && !nonmoving_is_marked(e.obj) &&
            word_map_get(&grey_set, (uint64_t)(uintptr_t)e.obj) == NULL)
            fail("object of the non-moving generation reachable from the roots is neither "
                 "marked nor reachable from the mark's queue or the barrier's log (object=%p "
                 "%s, from=%p %s): a write into the generation that skipped the barrier, or "
                 "a value the barrier did not log (Note [Checking the snapshot invariant])",
                 (void *)e.obj, strata_closure_type_name(e.obj->info->type), (void *)e.from,
                 e.from != NULL ? strata_closure_type_name(e.from->info->type) : "(root)");
        push_fields(w, e.obj);
    }
}

static void grey_logged(StgClosure *v, void *ctx)
{
    push(ctx, v, NULL);
}

static void grey_queue(Walk *w, const MarkQueue *q)
{
    for (const MarkChunk *c = q->top; c != NULL; c = c->next)
        for (StgWord i = 0; i < c->n; i++) {
            const MarkEntry *e = &c->e[i];
            if (e->from == 0) {
                push(w, e->p, NULL);
                continue;
            }
            /* The rest of an array the mark has marked: its elements from
             * e->from on are still to be traced. */
            const StgMutArrPtrs *a = (const StgMutArrPtrs *)e->p;
            for (StgWord k = e->from; k < a->ptrs; k++)
                push(w, a->payload[k], e->p);
        }
}

static void root_slot(StgClosure **slot, void *ctx)
{
    push(ctx, *slot, NULL);
}

void sanity_check_snapshot(void)
{
    NonMovingPhase phase = nonmoving_phase_now();
    if (phase != NONMOVING_MARKING && phase != NONMOVING_SYNC_WANTED)
        return;
    Walk w = {.grey = true};
    grey_queue(&w, &nonmoving_queue);
    upd_rem_set_for_each_stw(grey_logged, &w);
    drain(&w);
    grey_set = w.seen;

    w = (Walk){.stack = w.stack, .cap = w.cap, .grey = false};
    for (StgWord i = 0; i < static_roots_count; i++)
        push_fields(&w, static_roots[i]);
    gc_visit_roots(root_slot, &w);
    drain(&w);
    word_map_free(&w.seen);
    word_map_free(&grey_set);
    free(w.stack);
}
