/*
 * sm/alloc/AllocSample.c -- allocation sampling: each capability's
 * exponential gaps, the sample points the slow paths test, and the hook
 * they call.  Relies on the allocation limit's folding of the sample
 * point (Note [Sampling through the allocation limit] in
 * sm/heap/AllocLimit.h) and the era catch-up (Era.h), which stores a
 * recomputed limit.  See Note [Exponential gaps] and
 * docs/design/alloc-sampling.md.
 */
#include "AllocSample.h"

#include <math.h>

#include "AllocLimit.h"
#include "Era.h"
#include "EraRuns.h"
#include "Messages.h"

/* Note [Exponential gaps]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * Sample points are a Poisson process over the bytes a capability
 * allocates: the gap from the end of one sampled object to the next point
 * is exponential with mean `rate`, and the object that covers a point is
 * sampled (once, however many points it covers).  An object of s bytes is
 * then sampled with probability 1 - e^(-s/rate) whatever came before it
 * (the process has no memory), which is what lets the tools scale each
 * sample by 1 / (1 - e^(-s/rate)) into an unbiased estimate of the
 * objects and bytes allocated (Go's heap profiler does the same; a fixed
 * gap would be biased by any allocation pattern with the gap's period).
 * Points are kept in words: the word of a byte point X is floor(X / 8),
 * and an object (whole words) covers X exactly when it covers that word,
 * so the gap in words is floor(gap in bytes / 8).  Large and pinned
 * objects do not lie in the nursery's stream of words; they are sampled
 * as if allocated at hp (covering the next n_words of the stream), and
 * then removed from it: the point moves back by their size, or, when one
 * is sampled, is redrawn from hp.
 *
 * The generator is xorshift64*, one state per capability, seeded from
 * the capability's number: a program that allocates the same way samples
 * the same objects, which makes a profile reproducible and a test of one
 * exact. */

static StgWord rate_bytes;          /* 0: not sampling */
static AllocSampleHook sample_hook;

/* splitmix64's finaliser: spreads a small seed over the state's bits. */
static uint64_t seed_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

StgWord alloc_sample_gap_words(uint64_t *state, StgWord rate)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    /* u uniform in (0, 1]: 53 random bits; -log(u) is exponential. */
    double u = (double)((x * 0x2545f4914f6cdd1dull) >> 11) * 0x1.0p-53;
    double gap_bytes = -log1p(-u) * (double)rate;   /* log(1 - u), u in [0, 1) */
    double words = floor(gap_bytes / (double)WORD_SIZE);
    return words >= (double)(STGWORD_MAX / 2) ? STGWORD_MAX / 2 : (StgWord)words;
}

/* cap's stream position of p, an address in its current nursery block. */
static StgWord stream_words_at(const Capability *cap, StgPtr p)
{
    const BlockDesc *cur = cap->nursery.current;
    if (cur == NULL)
        return cap->allocated_words_total;
    return alloc_limit_block_start_words(cap) + (StgWord)(p - cur->start);
}

void storage_alloc_sample_start(StgWord rate, AllocSampleHook hook)
{
    ASSERT(rate > 0 && hook != NULL);
    rate_bytes = rate;
    sample_hook = hook;
    for (unsigned i = 0; i < capabilities_n; i++) {
        Capability *cap = &capabilities[i];
        cap->sample_rng = seed_mix(i + 1);
        cap->sample_at_words = stream_words_at(cap, cap->regs->hp) +
                               alloc_sample_gap_words(&cap->sample_rng, rate);
    }
    /* The caller's own limit: the others' is cleared when taken. */
    Capability *me = capability_mine();
    if (me != NULL && me->nursery.current != NULL)
        (void)storage_era_catch_up(me);
}

void storage_alloc_sample_stop(void)
{
    for (unsigned i = 0; i < capabilities_n; i++)
        capabilities[i].sample_at_words = STGWORD_MAX;
    rate_bytes = 0;
    sample_hook = NULL;
}

StgWord storage_alloc_sample_rate(void)
{
    return rate_bytes;
}

static void take(Capability *cap, StgPtr p, StgWord n_words, uint64_t era, AllocSampleKind kind,
                 const void *caller)
{
    AllocSampleInfo s = {
        .obj = p,
        .size_bytes = n_words * WORD_SIZE,
        .era = era,
        .cap = cap->no,
        .kind = kind,
        .caller = caller,
    };
    if (sample_hook != NULL)
        sample_hook(&s);
}

/* The next point moved: the current block's limit follows it (the
 * catch-up stores a limit recomputed in the current era). */
static void limit_follows_point(Capability *cap)
{
    if (cap->nursery.current != NULL &&
        __atomic_load_n(&strata_regs.hp_lim, __ATOMIC_RELAXED) != NULL)
        (void)storage_era_catch_up(cap);
}

void alloc_sample_nursery(Capability *cap, StgPtr p, StgWord n_words, const void *caller)
{
    StgWord pos = stream_words_at(cap, p);
    if (STRATA_LIKELY(cap->sample_at_words >= pos + n_words))
        return;
    take(cap, p, n_words, block_last_era(cap->nursery.current), ALLOC_SAMPLE_NURSERY, caller);
    cap->sample_at_words = pos + n_words + alloc_sample_gap_words(&cap->sample_rng, rate_bytes);
    limit_follows_point(cap);
}

void alloc_sample_outside(Capability *cap, StgPtr p, StgWord n_words, uint64_t era,
                          AllocSampleKind kind, const void *caller)
{
    if (STRATA_LIKELY(cap->sample_at_words == STGWORD_MAX))
        return;
    StgWord pos = stream_words_at(cap, cap->regs->hp);
    if (cap->sample_at_words >= pos + n_words) {
        cap->sample_at_words -= n_words;
    } else {
        take(cap, p, n_words, era, kind, caller);
        cap->sample_at_words = pos + alloc_sample_gap_words(&cap->sample_rng, rate_bytes);
    }
    limit_follows_point(cap);
}
