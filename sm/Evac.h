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
 * era.  The first is tested here, inline in the scanning loops (so the
 * leaves of a tree, which point at static closures, cost no call); the
 * others in evacuate_heap and evacuate_copy (Evac.c), with the size
 * read from the info table (Note [A copy's size from its info table]).
 * Everything else -- large and pinned objects, indirections to
 * short-circuit, blackholes, arrays, stacks, an era or generation needing
 * a new to-space block, the claim when other GC threads run -- goes to
 * the slow paths, which keep the general rules.  perf on bintrees showed
 * evacuate's time going to its prologue and epilogue, the size switch's
 * indirect jump and a memcpy call, which the fast path avoids
 * (bench/optimisations.md, row 7f9cef6).  Splitting off the NULL/static
 * test took back most of what the parallel collector had added to one
 * thread's collections (rows 7ca340f and e3c467d).  What remains is
 * mostly the cache miss on each from-space object.
 */
#ifndef STRATA_EVAC_H
#define STRATA_EVAC_H

#include "BlockAlloc.h"
#include "ClosureSize.h"
#include "EraRuns.h"
#include "GCPrivate.h"
#include "GCThread.h"
#include "MBlock.h"
#include "Messages.h"

/* The cases the fast path leaves, out of line (Evac.c).  Precondition: *p
 * is a from-space object that is not forwarded, and is large or pinned or
 * has an info table without fixed_words. */
void evacuate_slow(StgClosure **p);
StgPtr gc_alloc_for_copy_slow(GenWorkspace *ws, uint16_t gen_no, StgWord n_words, uint64_t era);

/* The end of a copy when other GC threads run (Note [Copying in
 * parallel]): claims q for the copy at to, or takes the copy back and
 * follows the winner's. */
void evacuate_claim(StgClosure **p, StgClosure *q, const StgInfoTable *info, StgPtr to,
                    StgWord size);

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
 * another.  With one GC thread, or one that copies alone (Note [Copying
 * alone] in GCThread.c), the header is simply overwritten; so is a
 * constructor's or function's (Note [Immutable copies without a claim] in
 * Evac.c). */

/* Evacuates *p, a heap object (Evac.c: the copy, the forwarding pointer,
 * the slow paths). */
void evacuate_heap(StgClosure **p, StgClosure *q);

/* The heap's reserved range (heap_alloced), for a scanning loop to keep
 * in registers: its bounds are globals, which every store through a
 * pointer or call would make the compiler load again.  One compare also
 * rules out NULL (0 - base wraps above any span).  In a minor GC it also
 * carries the young-group map (Note [Old objects by their megablock]). */
typedef struct {
    const char *base;
    StgWord span;
    StgWord old_map;   /* block_young_map_biased, or 0 */
} HeapRange;

/* Note [Old objects by their megablock]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Most pointers a minor GC follows out of what it copies lead into the
 * old generation (map-churn: a new path's siblings), and learning that
 * from the target's block descriptor costs a cache miss on a large heap,
 * where perf put most of evacuate_heap's samples (bench/optimisations.md,
 * row a3bd700).  The young-group map (Note [The young-group map] in BlockAlloc.h)
 * answers from one byte per megablock, which stays in cache: a megablock
 * holding no group of generation 0 holds only objects of generation 1 or
 * older, which a collection of generation 0 leaves where they are, and
 * which need no remembering while evac_gen is at most 1.  The scanning
 * loops make that test inline, before the call; anything else takes the
 * descriptor's test in evacuate_heap.  A major GC's range has no map, so
 * its loops pay one test of a register; neither has a non-moving
 * snapshot's collection, which must see the old objects it meets (Note
 * [The snapshot] in NonMoving.c). */
static inline HeapRange heap_range(const GCThread *t)
{
    return (HeapRange){mblock_heap_base, (StgWord)(mblock_heap_end - mblock_heap_base),
                       t->evac_gen <= 1 ? t->young_map : 0};
}

/* True if q (in the heap) is surely older than the collected generation
 * and needs no remembering. */
static inline bool heap_range_surely_old(HeapRange h, const StgClosure *q)
{
    return h.old_map != 0 &&
           __atomic_load_n(block_young_count_at(h.old_map, q), __ATOMIC_RELAXED) == 0;
}

/* evacuate(p) with the range in hand. */
static inline void evacuate_in(HeapRange h, StgClosure **p)
{
    StgClosure *q = slot_load(p);
    if ((StgWord)((const char *)q - h.base) < h.span && !heap_range_surely_old(h, q))
        evacuate_heap(p, q);
}

/* The same for q in from-space (block bd, neither older than the
 * collected generations nor BF_EVACUATED), whose caller has tested that. */
void evacuate_from_space(StgClosure **p, StgClosure *q, const BlockDesc *bd);

/* Most fields hold NULL or a static closure (a constructor without fields,
 * a top-level function): those cost a compare here, inline in the scanning
 * loops, without the call. */
static inline void evacuate(StgClosure **p)
{
    StgClosure *q = slot_load(p);
    if (q == NULL || !heap_alloced(q))
        return;   /* unset field, or a static closure (never moves) */
    evacuate_heap(p, q);
}

#endif /* STRATA_EVAC_H */
