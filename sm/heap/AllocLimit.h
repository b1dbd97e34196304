/*
 * sm/heap/AllocLimit.h -- where a capability's allocation leaves the
 * inline fast path: the end of its nursery block (or hp, when the block is
 * retired), or the next sampled object's word (+RTS --alloc-sample),
 * whichever comes first.  Every store of a non-NULL hp_lim by the holder
 * computes it here (.inv.sample-point in docs/design/alloc-sampling.md).
 * See Note [Sampling through the allocation limit].
 */
#ifndef STRATA_ALLOC_LIMIT_H
#define STRATA_ALLOC_LIMIT_H

#include "Capability.h"

/* Note [Sampling through the allocation limit]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An allocation sampler must look at every allocation, and the fast path
 * (strata_alloc_words: a compare and a bump) cannot afford a look.  So the
 * sample point is folded into the limit the fast path already compares
 * against, as an era change folds into it by clearing it: each capability
 * counts the words it allocates in its nursery as one stream (the words
 * accounted at past GCs, allocated_words_total, plus what its nursery
 * holds now, left_words and the current block's), and sample_at_words is
 * the word of that stream the next sampled object covers.  When that word
 * lies in the current block, hp_lim is its address instead of the block's
 * end: the object that covers it does not fit, takes the slow path, and
 * the slow path samples it (sm/alloc/AllocSample.c) and draws the next
 * point.  With sampling off sample_at_words is STGWORD_MAX and no limit
 * is ever lowered; the fast path is the same instructions either way.
 *
 * The limit without the sample point is kept in nursery.lim, so that the
 * slow path can tell a sample (the object fits below nursery.lim) from a
 * full block.  Interrupts (an era change, a request, a sync) still store
 * NULL into hp_lim and never touch nursery.lim: the holder's next store of
 * a limit recomputes both. */

/* The word of cap's sampled stream that current's start is. */
static inline StgWord alloc_limit_block_start_words(const Capability *cap)
{
    return cap->allocated_words_total + cap->nursery.left_words;
}

/* Records lim (the current block's limit, or hp for a retired block) as
 * cap's nursery.lim and returns what hp_lim must be: lim, or the address
 * of the next sampled word if that comes first (at most the block's
 * start, when the word was passed: the next allocation then samples).
 * The caller stores the result with the ordering it needs. */
static inline StgPtr alloc_limit_clamp(Capability *cap, StgPtr lim)
{
    cap->nursery.lim = lim;
    StgWord at = cap->sample_at_words;
    if (STRATA_LIKELY(at == STGWORD_MAX))   /* not sampling: a compare */
        return lim;
    const BlockDesc *cur = cap->nursery.current;
    StgWord start = alloc_limit_block_start_words(cap);
    if (STRATA_LIKELY(at >= start + (StgWord)(lim - cur->start)))
        return lim;
    return at <= start ? cur->start : cur->start + (at - start);
}

#endif /* STRATA_ALLOC_LIMIT_H */
