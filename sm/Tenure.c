/*
 * sm/Tenure.c -- adaptive aging of nursery survivors.
 * See Note [Adaptive aging] in Tenure.h.
 */
#include "Tenure.h"

#include "Messages.h"
#include "Heap.h"
#include "Nursery.h"

/* Direct promotion lasts this many GCs before a probe GC ages again. */
#define TENURE_PROBE_INTERVAL 16
/* An aging generation smaller than 1/TENURE_MIN_SAMPLE_SHARE of a
 * nursery (one capability's: one busy thread fills one between GCs, at
 * any -N) says little (a GC that found almost nothing live): keep the
 * last decision. */
#define TENURE_MIN_SAMPLE_SHARE 8

static bool aging = true;
static bool aging_chosen = false;   /* aging holds the first GC's choice */
static unsigned gcs_since_probe = 0;

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
    measuring = false;
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
    measuring = N == 0 && g0->n_words > 0 && g0->n_words >= min_sample;
    aged_words_before = g0->n_words;
    gen1_words_before = g1->n_words + g1->n_large_words;

    choose_first();
    if (!aging && ++gcs_since_probe >= TENURE_PROBE_INTERVAL)
        aging = true;   /* a probe: age this GC's survivors, measure next */
    storage_nursery_set_dest(aging ? 0 : g0->promote_to);
}

void tenure_after_gc(unsigned N)
{
    (void)N;
    if (!measuring)
        return;
    measuring = false;
    Generation *g1 = &storage_gens[1];
    StgWord after = g1->n_words + g1->n_large_words;
    StgWord promoted = after > gen1_words_before ? after - gen1_words_before : 0;
    bool survives = 2 * promoted >= aged_words_before;
    if (survives && aging)
        gcs_since_probe = 0;
    aging = !survives;
    debug_trace(DEBUG_GC, "gc: aged %lu words, %lu promoted: %s", (unsigned long)aged_words_before,
                (unsigned long)promoted, aging ? "aging" : "promoting directly");
}
