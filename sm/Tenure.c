/*
 * sm/Tenure.c -- adaptive aging of nursery survivors.
 * See Note [Adaptive aging] in Tenure.h.
 */
#include "Tenure.h"

#include "Messages.h"
#include "Heap.h"
#include "NonMoving.h"
#include "Nursery.h"

/* Direct promotion lasts this many GCs before a probe GC ages again. */
#define TENURE_PROBE_INTERVAL 16
/* An aging generation smaller than 1/TENURE_MIN_SAMPLE_SHARE of a
 * nursery (one capability's: one busy thread fills one between GCs, at
 * any -N) says little (a GC that found almost nothing live): keep the
 * last decision. */
#define TENURE_MIN_SAMPLE_SHARE 8
/* A probe under --nonmoving-gc ages the survivors of this share of each
 * nursery's blocks (Note [A probe that ages a sample]). */
#define TENURE_PROBE_SAMPLE_SHARE 4

/* Note [A probe that ages a sample]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A probe ages the whole nursery's survivors; aging stays on for the
 * measuring GC after it, which promotes them and ages its nursery's, and
 * the GC after that promotes both the aged survivors and its nursery's.
 * Under --nonmoving-gc, where a promoted survivor is copied into a segment
 * at several times the cost of a copy into an aging block, those two GCs
 * were the long pauses of a program whose nursery all survives: lists
 * 3000000 copied 8 MiB instead of 4 in 78 of its 662 collections (2 in
 * every 17), 11-14 ms of GC CPU against 7, which set its 99th-percentile
 * pause.  So under the mode a probe ages a sample: the survivors of the
 * last quarter of the blocks each nursery used, its youngest objects (the
 * oldest would be reached through younger ones that go to the generation,
 * which take them along: eager promotion), while the other blocks' go to
 * the generation as before.  The GC after it promotes its whole nursery
 * directly and measures the sample by what it copied out of the aging
 * blocks into the generation (the GC threads' aged_promoted_words), which
 * its nursery's survivors do not muddle as they would muddle the growth
 * of generation 1.  So the GC after a probe copies at most a quarter more
 * than the others, not twice as much.  Aging that stops costs a GC like
 * that too: the GC after the one that measured promotes what that one
 * aged, a whole nursery's survivors, and its own nursery's; under the
 * mode it ages the survivors of the younger half of its nursery instead
 * of sending them on (the sample of the next measure), so that it and
 * the next copy about half as much more, not one of them twice as much.
 *
 * A sample too small to measure (TENURE_MIN_SAMPLE_SHARE applied to the
 * sample, not to the nursery) says that few of the youngest objects live
 * to the next GC: aging comes back on, as a whole probe's aging stays on
 * when what it aged is too small to measure.  Keeping direct promotion
 * instead sent every GC's survivors of a program whose objects die young
 * into the generation for good: 6.9M words promoted during a cycle held a
 * second against 3,600 (test_nonmoving_census's churn), and a cycle
 * restarted as soon as it ended.  Only the GC right after a probe reads
 * its sample: a snapshot's collection in between promotes it and measures
 * nothing, and the empty aging blocks it leaves are no sample that died.
 *
 * Without the mode the probe is whole: it costs a copy into to-space
 * blocks, and promotion in place follows it
 * (Note [Promoting the nursery in place] in PromoteInPlace.h). */

static bool aging = true;
static bool aging_chosen = false;   /* aging holds the first GC's choice */
static unsigned gcs_since_probe = 0;
static bool leaving_aging = false;   /* the last GC stopped aging */
static unsigned sampled_share = 0;   /* a GC aged 1/this of its nursery
                                        (0: none or all of it) */
static StgWord sampled_at = 0;   /* generation 0's collections before it */

/* Measured at tenure_before_gc for tenure_after_gc. */
static bool measuring = false;
static StgWord aged_words_before = 0;
static StgWord gen1_words_before = 0;

/* Before the first GC: age under the copying collector, promote directly
 * under the non-moving one (Note [Adaptive aging] in Tenure.h). */
static void choose_first(void)
{
    if (aging_chosen)
        return;
    aging_chosen = true;
    aging = !storage_config.nonmoving;
}

bool tenure_aging_enabled(void)
{
    choose_first();
    return aging;
}

void tenure_reset(void)
{
    aging = true;
    aging_chosen = false;
    gcs_since_probe = 0;
    leaving_aging = false;
    sampled_share = 0;
    measuring = false;
}

/* Whether what was aged is measured by what the GC copied out of the
 * aging blocks, and a probe ages a sample (the generation aged into
 * promotes straight into the non-moving one). */
static bool probes_by_sample(void)
{
    return nonmoving_on() && storage_n_gens == 2;
}

void tenure_before_gc(unsigned N)
{
    if (storage_n_gens < 2)
        return;
    Generation *g0 = &storage_gens[0];
    Generation *g1 = &storage_gens[1];
    /* Only a GC that collects generation 0 alone leaves generation 1's
     * growth equal to what was promoted out of the aging blocks. */
    StgWord min_sample =
        storage_nursery_largest_blocks() * BLOCK_SIZE_W / TENURE_MIN_SAMPLE_SHARE;
    /* The aging blocks hold a sample only if the GC before this one took
     * it: a snapshot's collection in between ages nothing and passes no
     * measure. */
    if (sampled_share != 0 && g0->collections != sampled_at + 1)
        sampled_share = 0;
    if (sampled_share != 0)
        min_sample /= sampled_share;   /* the sample's scale */
    bool enough = g0->n_words > 0 && g0->n_words >= min_sample;
    measuring = N == 0 && enough;
    aged_words_before = g0->n_words;
    gen1_words_before = g1->n_words + g1->n_large_words;

    choose_first();
    if (sampled_share != 0 && !enough)
        aging = true;   /* few of the sample survived (Note [A probe that ages a sample]) */
    sampled_share = 0;
    unsigned share = leaving_aging ? 2 : 0;   /* the half of a switch */
    leaving_aging = false;
    if (!aging && ++gcs_since_probe >= TENURE_PROBE_INTERVAL) {
        if (probes_by_sample()) {
            gcs_since_probe = 0;
            share = TENURE_PROBE_SAMPLE_SHARE;
        } else {
            aging = true;   /* a probe: age this GC's survivors, measure next */
        }
    }
    if (share != 0 && !aging) {
        sampled_share = share;
        sampled_at = g0->collections;
        storage_nursery_set_sample_dest(share, 0, g0->promote_to);
    } else {
        storage_nursery_set_dest(aging ? 0 : g0->promote_to);
    }
}

void tenure_after_gc(unsigned N, StgWord aged_promoted_words)
{
    (void)N;
    if (!measuring)
        return;
    measuring = false;
    StgWord promoted;
    if (probes_by_sample()) {
        promoted = aged_promoted_words;
    } else {
        Generation *g1 = &storage_gens[1];
        StgWord after = g1->n_words + g1->n_large_words;
        promoted = after > gen1_words_before ? after - gen1_words_before : 0;
    }
    bool survives = 2 * promoted >= aged_words_before;
    if (survives && aging) {
        gcs_since_probe = 0;
        leaving_aging = probes_by_sample();
    }
    aging = !survives;
    debug_trace(DEBUG_GC, "gc: aged %lu words, %lu promoted: %s", (unsigned long)aged_words_before,
                (unsigned long)promoted, aging ? "aging" : "promoting directly");
}
