/*
 * profiling/ProfHeap.c -- the heap profiler's driver.
 *
 * A census runs after the first major GC that follows each -i tick (Note
 * [When a census runs]), after every major GC with
 * -i0, and once more at exit.  Each census goes to the eventlog as
 * SAMPLE_BEGIN, one SAMPLE_STRING per non-empty bucket, SAMPLE_END (with
 * the IPE events of -hi tables first seen in it posted before), or to the
 * .hp file when there is no eventlog.  Census.c does the walk.
 */
#include "ProfHeap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Census.h"
#include "EventLog.h"
#include "GC.h"
#include "HpFile.h"
#include "Ipe.h"
#include "Messages.h"
#include "NonMoving.h"
#include "os/Ticker.h"
#include "os/Clock.h"

ProfConfig prof_config;
static const ProfReporter *reporter = NULL;
static ProfCensusObserver observer = NULL;

static bool profiling = false;
static bool sampling = false;            /* automatic censuses are on */
static bool ticker_armed = false;        /* census_tick is a ticker action */
static bool census_due = false;
static uint64_t last_major_end_ns = 0;   /* when the last major GC ended */
static uint64_t last_major_pause_ns = 0; /* and how long it took */
static uint64_t censuses = 0;
static uint64_t censuses_asked = 0;       /* see prof_heap_censuses_asked */
static uint64_t last_total = 0;

/* Filled by the major GC a census follows, for the per-object breakdowns
 * (Note [Counting during the GC] in sm/LiveTally.c), or by era as well
 * by a non-moving cycle's mark (Note [A census from the snapshot] in
 * sm/NonMoving.c).  in_cycle: a cycle's mark counts into it, and the
 * census is taken when that mark ends (census_counted). */
static LiveTally tally;
static bool use_tally = false;
static bool in_cycle = false;

/* A census is due: have the major GC that precedes it count. */
static void want_census(void)
{
    census_due = true;
    if (use_tally)
        gc_request_tally(&tally);
}

static double secs_since_start(void)
{
    return (double)clock_elapsed_ns() / 1e9;
}

static void emit_to_eventlog(const Census *c)
{
    if (prof_config.breakdown == HEAP_BY_INFO_TABLE)
        for (size_t i = 0; i < c->n_buckets; i++)
            if (c->buckets[i].bytes > 0 && c->buckets[i].info != NULL)
                ipe_post_once(c->buckets[i].info);
    /* The Word64 of SAMPLE_BEGIN/END is GHC's LDV census counter, 0 without
     * -hb (docs/reference/eventlog-format.md); eras are the -he labels instead. */
    eventlog_post_heap_prof_sample_begin(0);
    for (size_t i = 0; i < c->n_buckets; i++)
        if (c->buckets[i].bytes > 0)
            eventlog_post_heap_prof_sample_string(c->buckets[i].bytes, c->buckets[i].label);
    eventlog_post_heap_prof_sample_end(0);
}

/* -DS: the GC's counts must be what a walk of the heap finds. */
static void check_tally_census(const Census *counted)
{
    Census walked;
    census_init(&walked);
    census_take(&walked, prof_config.breakdown, prof_config.eras);
    const char *diff = census_first_difference(counted, &walked);
    if (diff == NULL)
        diff = census_first_difference(&walked, counted);
    if (diff != NULL)
        rts_panic("sanity: the census counted during GC differs from a heap walk at %s "
                  "(GC: %llu bytes in %llu objects, walk: %llu bytes in %llu objects)",
                  diff, (unsigned long long)counted->total_bytes,
                  (unsigned long long)counted->objects, (unsigned long long)walked.total_bytes,
                  (unsigned long long)walked.objects);
    census_free(&walked);
}

/* Takes the census: from the tally a collection or cycle filled, else by
 * walking the heap.  at_ns: the moment it is of (0: now). */
static void take_census(uint64_t at_ns)
{
    uint64_t cpu0 = clock_cpu_ns(), wall0 = clock_elapsed_ns();
    Census c;
    census_init(&c);
    if (use_tally && tally.filled) {
        census_from_tally(&c, prof_config.breakdown, &tally);
        tally.filled = false;
        /* A snapshot's census is of a heap that has changed since. */
        if (debug_enabled(DEBUG_SANITY) && at_ns == 0)
            check_tally_census(&c);
    } else {
        census_take(&c, prof_config.breakdown, prof_config.eras);
    }
    if (eventlog_enabled() && at_ns != 0) {
        eventlog_stamp_global(at_ns);   /* Note [A census from the snapshot] */
        emit_to_eventlog(&c);
        eventlog_stamp_global(0);
    } else if (eventlog_enabled()) {
        emit_to_eventlog(&c);
    } else {
        hp_file_write_sample(at_ns != 0 ? (double)at_ns / 1e9 : secs_since_start(), &c);
    }
    if (observer != NULL)
        observer(&c, at_ns != 0 ? at_ns : wall0);
    last_total = c.total_bytes;
    censuses++;
    if (reporter != NULL && reporter->census != NULL)
        reporter->census(clock_cpu_ns() - cpu0, clock_elapsed_ns() - wall0, c.total_bytes);
    census_free(&c);
}

void prof_heap_after_gc(unsigned collected_gen, bool major)
{
    (void)collected_gen;
    if (!profiling || !major)
        return;
    last_major_end_ns = clock_elapsed_ns();
    last_major_pause_ns = gc_last_details()->elapsed_ns;
    if (census_due || (prof_config.interval_secs == 0 && sampling)) {
        census_due = false;
        if (use_tally && tally.counting)
            in_cycle = true;   /* census_counted takes it */
        else
            take_census(0);
        if (prof_config.interval_secs == 0 && sampling)
            want_census();
    }
}

/* The census hook (NonMoving.h): a non-moving cycle's mark has counted the
 * census of its snapshot into the tally; the world is stopped. */
static void census_counted(LiveTally *t)
{
    if (!profiling || t != &tally || !in_cycle)
        return;
    in_cycle = false;
    take_census(t->at_ns);
}

/* Note [When a census runs]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Each -i tick makes a census due, and the census is taken after the next
 * major GC.  GHC forces that major GC at once; on a large live heap those
 * forced GCs are most of what profiling costs (measured: bintrees 20 ran
 * 2.5x slower under -hT, 13.6 s against 5.45 s).  We force one only when
 * the time since the last major GC is at least CENSUS_GC_BUDGET times that
 * GC's cost, so that forced GCs take at most ~1/CENSUS_GC_BUDGET of the
 * run; otherwise the census waits for the collector's own next major GC.
 * A small heap (short pauses) thus gets a census at every tick, as in GHC,
 * and a large one as often as a 5% budget allows.
 *
 * A major GC's cost is its pause under the copying collector.  Under
 * --nonmoving-gc it is the cycle it starts: the snapshot's pause, then the
 * mark and sweep beside the program (the mark thread's CPU time,
 * nonmoving_last_cycle_cpu_ns), which is where the work of a major GC
 * went.  Counting the pause alone,
 * the budget saw a collection a hundred times cheaper than it was and
 * forced a cycle at nearly every tick: 3.5-6x the censuses of the copying
 * collector on the same program and -i, and a mark running all the time.
 * A tick that comes while a cycle runs forces nothing: its census waits
 * for the next snapshot, and a request then would only start another cycle
 * as soon as this one ends. */
#define CENSUS_GC_BUDGET 20

uint64_t prof_heap_census_gc_wait_ns(void)
{
    uint64_t cost = last_major_pause_ns;
    if (nonmoving_on()) {
        NonMovingPhase phase = nonmoving_phase_now();
        if (phase != NONMOVING_IDLE && phase != NONMOVING_SWEPT)
            return UINT64_MAX;
        cost += nonmoving_last_cycle_cpu_ns();
    }
    return CENSUS_GC_BUDGET * cost;
}

/* With --census-gc=every-tick, as in GHC, each tick collects at once: the
 * census then belongs to this tick, and no later tick can fold into it. */
static void census_tick(void)
{
    if (!sampling)
        return;   /* stopped (prof_heap_set_sampling) */
    censuses_asked++;
    want_census();
    if (prof_config.every_tick) {
        gc_collect_forced(true);
        return;
    }
    uint64_t wait = prof_heap_census_gc_wait_ns();
    if (wait != UINT64_MAX && clock_elapsed_ns() - last_major_end_ns >= wait)
        gc_request_major();
}

void prof_heap_set_reporter(const ProfReporter *r)
{
    reporter = r;
}

void prof_heap_set_census_observer(ProfCensusObserver fn)
{
    observer = fn;
}

static void report_asked(void)
{
    if (reporter != NULL && reporter->asked != NULL)
        reporter->asked(prof_heap_censuses_asked());
}

bool prof_heap_init(const ProfConfig *config, const char *job)
{
    prof_config = *config;
    if (prof_config.breakdown == HEAP_BY_NONE)
        return true;
    profiling = true;
    sampling = prof_config.automatic_samples;
    ticker_armed = false;
    census_due = false;
    last_major_end_ns = last_major_pause_ns = 0;
    censuses = 0;
    censuses_asked = 0;
    /* The non-moving collector counts -he too (by era). */
    use_tally = prof_config.breakdown != HEAP_BY_ERA || nonmoving_on();
    in_cycle = false;
    if (use_tally) {
        live_tally_init(&tally, prof_config.eras);
        tally.by_era = prof_config.breakdown == HEAP_BY_ERA;
        nonmoving_set_census_hook(census_counted);
    }
    if (eventlog_enabled()) {
        eventlog_post_heap_prof_begin((uint64_t)(prof_config.interval_secs * 1e9),
                                      (uint32_t)prof_config.breakdown);
    } else {
        size_t len = strlen(rts_prog_name) + 4;
        char *path = malloc(len);
        if (path == NULL)
            rts_panic("heap profile: out of C heap");
        snprintf(path, len, "%s.hp", rts_prog_name);
        bool ok = hp_file_open(path, job);
        free(path);
        if (!ok)
            return false;
    }
    if (prof_config.interval_secs == 0 && sampling)
        want_census();
    if (sampling && prof_config.interval_secs > 0) {
        ticker_add_action(prof_config.interval_secs, census_tick);
        ticker_armed = true;
    }
    return true;
}

/* Note [Censuses on request]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * eventlog-socket's control commands start and stop the automatic
 * censuses and ask for one census now.  Stopping leaves the -i ticker
 * action in place and makes it do nothing (the ticker has no removal);
 * starting arms it the first time.  A requested census is taken at once,
 * by a major GC whose post-hook finds it due: exactly one census per
 * request, whatever the sampling state.  While sampling is off
 * (--no-automatic-heap-samples, or after a stop) nothing else takes a
 * census -- not -i0's major GCs and not hs_exit -- so the log holds
 * exactly the censuses that were asked for. */
bool prof_heap_set_sampling(bool on)
{
    if (!profiling)
        return false;
    sampling = on;
    if (!on)
        return true;
    if (prof_config.interval_secs == 0)
        want_census();
    else if (!ticker_armed && ticker_add_action(prof_config.interval_secs, census_tick) == 0)
        ticker_armed = true;
    return true;
}

bool prof_heap_request_census(void)
{
    if (!profiling)
        return false;
    censuses_asked++;
    want_census();
    gc_collect_forced(true);   /* prof_heap_after_gc takes it */
    return true;
}

static void stop_counting(void)
{
    gc_request_tally(NULL);
    nonmoving_set_census_hook(NULL);
    /* A cycle still counting (prof_heap_abandon) keeps the tally. */
    if (use_tally && !tally.counting)
        live_tally_free(&tally);
    use_tally = false;
    ipe_exit();
    profiling = false;
    sampling = false;
}

void prof_heap_exit(void)
{
    if (!profiling)
        return;
    if (sampling) {   /* Note [Censuses on request] */
        censuses_asked++;
        want_census();
        gc_collect_forced(true);   /* the final census runs after it */
    }
    report_asked();
    hp_file_close(secs_since_start());
    stop_counting();
}

void prof_heap_abandon(void)
{
    if (!profiling)
        return;
    report_asked();
    hp_file_close(secs_since_start());
    stop_counting();
}

void prof_heap_mark(void)
{
    if (profiling && !eventlog_enabled())
        hp_file_write_mark(secs_since_start());
}

uint64_t prof_heap_census_count(void)
{
    return censuses;
}

/* Note [Censuses asked for and taken]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Each -i tick the program served asks for a census, and so does hs_exit.
 * Under the budget, a tick that comes while a census is still due, or
 * whose census waits for a major GC that exit's census pre-empts, shares a
 * census with another: asked minus taken is how many the budget folded.
 * With --census-gc=every-tick every tick collects at once, so the two are
 * equal (ticks the mutator never served -- it did not allocate for a whole
 * interval -- are asked by no one, in GHC too).  -i0 asks at every major
 * GC: asked is taken. */
uint64_t prof_heap_censuses_asked(void)
{
    return prof_config.interval_secs == 0 ? censuses : censuses_asked;
}

uint64_t prof_heap_last_total_bytes(void)
{
    return last_total;
}
