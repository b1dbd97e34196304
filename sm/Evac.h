/*
 * sm/Evac.h -- the inline fast paths of evacuation, for the loops that
 * call it once per pointer field (Scav.c, the roots).
 *
 * Note [The evacuate fast path]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Most calls see one of: NULL or a static closure; an object outside
 * from-space (an old generation in a minor GC, or already copied to
 * to-space); a forwarding pointer; or a small constructor, function or
 * thunk to copy into the current to-space block of its generation and
 * era.  Those are handled here, inline, with the size computed from the
 * info table's layout and the words copied by a loop.  Everything else --
 * large and pinned objects, indirections to short-circuit, blackholes,
 * arrays, stacks, an era or generation needing a new to-space block --
 * goes to the out-of-line slow paths in Evac.c, which keep the general
 * rules.  perf on bintrees showed evacuate's time going to its prologue
 * and epilogue, the size switch's indirect jump and a memcpy call; this
 * fast path cut GC time on bintrees 20 by 15% (3.53 s -> 3.01 s).  Forcing
 * it inline into every caller (always_inline) measured no better, so the
 * compiler decides; what remains is mostly the cache miss on each
 * from-space object.
 */
#ifndef STRATA_EVAC_H
#define STRATA_EVAC_H

#include "ClosureSize.h"
#include "EraRuns.h"
#include "GCPrivate.h"
#include "GCThread.h"
#include "MBlock.h"
#include "Messages.h"

/* The cases the fast path leaves, out of line (Evac.c).  Precondition: *p
 * is a from-space object that is not forwarded, and is large or pinned or
 * not a constructor, function or thunk. */
void evacuate_slow(StgClosure **p);
StgPtr gc_alloc_for_copy_slow(GenWorkspace *ws, uint16_t gen_no, StgWord n_words, uint64_t era);

/* Another GC thread copied the object first: takes back this thread's copy
 * of n_words at to (its latest allocation in generation gen_no). */
void gc_retract_copy(uint16_t gen_no, StgPtr to, StgWord n_words);

/* Puts bd on the scan queue the first time it holds unscanned words (the
 * worklist of Note [Scanning what was copied] in Scav.c).  Only the
 * thread filling bd changes BF_SCANQ on it. */
static inline void gc_note_copy_into(BlockDesc *bd)
{
    if (STRATA_UNLIKELY(!(bd->flags & BF_SCANQ)))
        gc_push_scan_queue(bd);
}

static inline StgPtr gc_alloc_for_copy(StgWord n_words, uint16_t gen_no, uint64_t era)
{
    GenWorkspace *ws = &gct->ws[gen_no];
    BlockDesc *bd = ws->last_dest;
    if (STRATA_LIKELY(bd != NULL && ws->last_era == era &&
                      bd->free + n_words <= ws->last_limit)) {
        StgPtr to = bd->free;
        bd->free += n_words;
        ws->n_words += n_words;
        gc_note_copy_into(bd);
        return to;
    }
    return gc_alloc_for_copy_slow(ws, gen_no, n_words, era);
}

/* A slot may be evacuated by two GC threads at once: a remembered object
 * listed twice, or a TSO or stack chunk that a root source visits while
 * another thread scans it.  Both end up storing the same address (the
 * copy's), so the slot is read and written with relaxed atomics, which
 * are plain moves. */
static inline StgClosure *slot_load(StgClosure **p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}
static inline void slot_store(StgClosure **p, StgClosure *c)
{
    __atomic_store_n(p, c, __ATOMIC_RELAXED);
}

/* Note [Copying in parallel]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Two GC threads may reach one object at once.  Each copies it into its
 * own to-space, then tries to swap the object's header from the info
 * pointer it read to a forwarding pointer to its copy; the swap that
 * succeeds decides, and the other thread takes its copy back (it was that
 * thread's latest allocation, so the free pointer just moves back) and
 * follows the winner's forwarding pointer.  Copying before claiming keeps
 * the object's header readable throughout, so no thread ever waits on
 * another.  With one GC thread the header is simply overwritten. */

/* Copies q (size words, in from-space block bd, header info) to a to-space
 * block of its destination generation and era, leaves a forwarding
 * pointer, and points *p at the copy (or at another thread's copy). */
static inline void evacuate_copy(StgClosure **p, StgClosure *q, const BlockDesc *bd,
                                 const StgInfoTable *info, StgWord size)
{
    GCThread *t = gct;
    ASSERT_INTERNAL(!(bd->flags & BF_EVACUATED) && bd->gen_no <= t->collected_gen);
    ASSERT_EXPENSIVE(closure_sizeW_info(q, info) == size);
    uint16_t to_gen = bd->dest_no < t->evac_gen ? t->evac_gen : bd->dest_no;
    uint64_t era = block_era_at(bd, q);
    StgPtr to = gc_alloc_for_copy(size, to_gen, era);
    /* The copy keeps its era and lands in to-space (.inv.block-era,
     * .inv.tospace in docs/design/gc.md). */
    ASSERT_INTERNAL(block_era_at(Bdescr(to), to) == era && Bdescr(to)->gen_no == to_gen);
    ASSERT_INTERNAL((Bdescr(to)->flags & BF_EVACUATED) || to_gen > t->collected_gen);
    const StgWord *from = (const StgWord *)q;
    to[0] = (StgWord)info;
    for (StgWord i = 1; i < size; i++)
        to[i] = from[i];
    const StgInfoTable *fwd = (const StgInfoTable *)((StgWord)to | 1);
    if (STRATA_LIKELY(!t->parallel)) {
        q->info = fwd;
    } else if (!__atomic_compare_exchange_n(&q->info, &info, fwd, false, __ATOMIC_RELEASE,
                                            __ATOMIC_ACQUIRE)) {
        /* info now holds the winner's forwarding pointer. */
        gc_retract_copy(to_gen, to, size);
        StgClosure *winner = (StgClosure *)((StgWord)info & ~(StgWord)1);
        if (Bdescr(winner)->gen_no < t->evac_gen)
            t->failed_to_evac = true;
        slot_store(p, winner);
        return;
    }
    t->copied_words += size;
    slot_store(p, (StgClosure *)to);
}

static inline void evacuate(StgClosure **p)
{
    StgClosure *q = slot_load(p);
    if (q == NULL || !heap_alloced(q))
        return;   /* unset field, or a static closure (never moves) */
    BlockDesc *bd = Bdescr(q);
    GCThread *t = gct;
    uint16_t flags = bd_flags(bd);
    if (bd_gen_no(bd) > t->collected_gen || (flags & BF_EVACUATED)) {
        if (bd_gen_no(bd) < t->evac_gen)
            t->failed_to_evac = true;
        return;
    }
    const StgInfoTable *info = __atomic_load_n(&q->info, __ATOMIC_ACQUIRE);
    if ((StgWord)info & 1) {   /* forwarded (Note [Forwarding pointers]) */
        StgClosure *to = (StgClosure *)((StgWord)info & ~(StgWord)1);
        ASSERT_INTERNAL(heap_alloced(to));
        ASSERT_INTERNAL(t->parallel || block_era_at(Bdescr(to), to) == block_era_at(bd, q));
        if (Bdescr(to)->gen_no < t->evac_gen)
            t->failed_to_evac = true;
        slot_store(p, to);
        return;
    }
    StgHalfWord type = info->type;
    /* Fixed layouts (constructors, functions, thunks, their _p_n forms) are
     * CONSTR .. THUNK_0_2, with the thunks last. */
    _Static_assert(CONSTR < FUN && FUN < THUNK && THUNK_0_2 == THUNK + 5 &&
                   FUN_STATIC < THUNK, "the fast path relies on GHC's closure type order");
    if (STRATA_UNLIKELY((flags & (BF_LARGE | BF_PINNED)) || type < CONSTR ||
                        type > THUNK_0_2)) {
        evacuate_slow(p);
        return;
    }
    StgWord size = (type >= THUNK ? THUNK_HEADER_WORDS : 1) + (StgWord)info->ptrs + info->nptrs;
    evacuate_copy(p, q, bd, info, size);
}

#endif /* STRATA_EVAC_H */
