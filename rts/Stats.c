/*
 * rts/Stats.c -- run-time statistics (see Stats.h): times the INIT, MUT,
 * GC and EXIT phases, accumulates what the collector reports about each
 * GC, and prints GHC's +RTS -S line per GC and +RTS -s summary.
 *
 * Relies on support/os/Clock.h for the clocks (replaceable by tests through
 * stats_set_clock), on rts_flags for -s/-S and the output file, and on
 * Messages.h for errors.  The formats follow GHC's rts/Stats.c
 * (report_summary, stat_endGC); Notes below say where strata differs.
 * Single-threaded: the mutator and the collector share one thread.
 */
#include "Stats.h"
#include "MBlock.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "Capability.h"
#include "GCThread.h"
#include "Control.h"
#include "EventLogSocket.h"
#include "Messages.h"
#include "NonMoving.h"
#include "RtsFlags.h"
#include "os/Clock.h"
#include "os/File.h"

/* ----------------------------------------------------------------------
 * State
 * ------------------------------------------------------------------- */

typedef struct {
    uint64_t collections;         /* GCs whose oldest generation was this one */
    uint64_t cpu_ns;              /* their total CPU time */
    uint64_t elapsed_ns;          /* their total elapsed time */
    uint64_t max_pause_ns;        /* the longest one, elapsed */
    uint64_t par_collections;     /* of them, by several GC threads */
} GenStats;

typedef enum {
    PHASE_NONE,                   /* before stats_init */
    PHASE_INIT,                   /* stats_init .. stats_end_init */
    PHASE_MUT,                    /* .. stats_start_exit */
    PHASE_EXIT,                   /* .. stats_end_exit */
    PHASE_DONE,
} Phase;

static struct {
    StatsClockFn clock;           /* NULL = the OS clocks */
    Phase phase;

    unsigned n_gens;              /* entries in gens; 0 if stats_init failed */
    GenStats *gens;               /* malloc'd by stats_init */

    /* Cumulative figures (RtsStats, but times in ns). */
    uint64_t gcs, major_gcs;
    uint64_t allocated_bytes, copied_bytes;
    uint64_t promoted_in_place_bytes, in_place_gcs;   /* strata's own */
    uint64_t max_live_bytes, max_slop_bytes, max_mem_in_use_bytes;
    uint64_t returned_mblocks, cumulative_live_bytes;
    uint64_t gc_cpu_ns, gc_elapsed_ns;
    uint64_t exit_allocated_bytes; /* stats_add_allocated_bytes, at exit */
    uint64_t censuses, census_cpu_ns, census_elapsed_ns, census_bytes; /* heap profiler */
    uint64_t censuses_asked;      /* stats_note_censuses_asked */
    uint64_t last_gc_elapsed_ns;  /* the most recent GC's pause */
    /* Parallel collections: their count, copied bytes, GHC's balanced
     * figure summed, and what each GC thread copied (all collections). */
    uint64_t par_gcs, par_copied_bytes, par_balanced_copied_bytes;
    unsigned max_gc_threads;
    uint64_t thread_copied_bytes[GC_THREADS_MAX];

    /* Phase boundaries. */
    StatsClockReading start_init, end_init, start_exit, end_exit;
    uint64_t gc_cpu_at_exit_ns;   /* gc_cpu_ns at stats_start_exit */
    uint64_t gc_elapsed_at_exit_ns;

    /* The GC in progress, and the page-fault count when the last one ended. */
    bool in_gc;
    StatsClockReading gc_start;
    uint64_t last_gc_end_faults;

    FILE *out;                    /* NULL until stats_open_output */
    bool out_owned;               /* out is a file we opened */
} st;

static void read_os_clock(StatsClockReading *now)
{
    uint64_t major = 0;
    now->cpu_ns = clock_cpu_ns();
    now->elapsed_ns = clock_elapsed_ns();
    /* Only -S prints page faults; the call is a system call, twice a GC. */
    if (rts_flags.stats_per_gc)
        (void)os_page_faults(NULL, &major);   /* on failure, 0: a column of zeros */
    now->major_faults = major;
}

static StatsClockReading read_clock(void)
{
    StatsClockReading now = {0, 0, 0};
    if (st.clock != NULL)
        st.clock(&now);
    else
        read_os_clock(&now);
    return now;
}

void stats_set_clock(StatsClockFn fn)
{
    st.clock = fn;
}

static double ns_to_secs(uint64_t ns)
{
    return (double)ns / 1e9;
}

/* a - b, or 0 if b > a: the clocks are monotonic, but a test clock or a
 * CPU clock read on another CPU may step back by a tick. */
static uint64_t ns_diff(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* ----------------------------------------------------------------------
 * Phases
 * ------------------------------------------------------------------- */

void stats_init(unsigned generations)
{
    StatsClockFn clock = st.clock;
    FILE *out = st.out;
    bool out_owned = st.out_owned;

    free(st.gens);
    memset(&st, 0, sizeof st);
    st.clock = clock;
    st.out = out;
    st.out_owned = out_owned;

    if (generations < 1)
        generations = 1;
    st.gens = calloc(generations, sizeof *st.gens);
    if (st.gens == NULL)
        rts_error("stats: out of memory for per-generation counters (generations=%u)",
                  generations);
    else
        st.n_gens = generations;

    st.start_init = read_clock();
    st.end_init = st.start_init;
    st.last_gc_end_faults = st.start_init.major_faults;
    st.phase = PHASE_INIT;
}

void stats_end_init(void)
{
    st.end_init = read_clock();
    st.phase = PHASE_MUT;
}

void stats_start_exit(void)
{
    st.start_exit = read_clock();
    st.gc_cpu_at_exit_ns = st.gc_cpu_ns;
    st.gc_elapsed_at_exit_ns = st.gc_elapsed_ns;
    st.phase = PHASE_EXIT;
}

uint64_t stats_last_gc_elapsed_ns(void)
{
    return st.last_gc_elapsed_ns;
}

void stats_note_census(uint64_t cpu_ns, uint64_t elapsed_ns, uint64_t bytes)
{
    st.censuses++;
    st.census_cpu_ns += cpu_ns;
    st.census_elapsed_ns += elapsed_ns;
    st.census_bytes += bytes;
}

void stats_note_censuses_asked(uint64_t asked)
{
    st.censuses_asked = asked;
}

void stats_note_mem_in_use(StgWord bytes)
{
    if (bytes > st.max_mem_in_use_bytes)
        st.max_mem_in_use_bytes = bytes;
}

void stats_add_allocated_bytes(StgWord bytes)
{
    st.exit_allocated_bytes += bytes;
    st.allocated_bytes += bytes;
}

void stats_end_exit(void)
{
    st.end_exit = read_clock();
    st.phase = PHASE_DONE;

    /* GHC's last -S line: what was allocated after the last GC. */
    if (rts_flags.stats_per_gc && st.out != NULL) {
        fprintf(st.out, "%9" PRIu64 " %9.9s %9.9s", st.exit_allocated_bytes, "", "");
        fprintf(st.out, " %6.3f %6.3f\n\n", 0.0, 0.0);
        fflush(st.out);
    }
}

void stats_exit(void)
{
    free(st.gens);
    st.gens = NULL;
    st.n_gens = 0;
}

/* ----------------------------------------------------------------------
 * Garbage collections
 * ------------------------------------------------------------------- */

void stats_gc_begin(void)
{
    ASSERT(!st.in_gc);
    st.gc_start = read_clock();
    st.in_gc = true;
}

static void print_gc_line(const GCDetails *gc, const StatsClockReading *now,
                          uint64_t gc_cpu_ns, uint64_t gc_elapsed_ns)
{
    fprintf(st.out, "%9" PRIu64 " %9" PRIu64 " %9" PRIu64, (uint64_t)gc->allocated_bytes,
            (uint64_t)gc->copied_bytes, (uint64_t)gc->live_bytes);
    fprintf(st.out, " %6.3f %6.3f %8.3f %8.3f %4" PRIu64 " %4" PRIu64 "  (Gen: %2u)\n",
            ns_to_secs(gc_cpu_ns), ns_to_secs(gc_elapsed_ns),
            ns_to_secs(ns_diff(now->cpu_ns, st.start_init.cpu_ns)),
            ns_to_secs(ns_diff(now->elapsed_ns, st.start_init.elapsed_ns)),
            ns_diff(now->major_faults, st.gc_start.major_faults),
            ns_diff(st.gc_start.major_faults, st.last_gc_end_faults), gc->gen);
    fflush(st.out);
}

void stats_gc_end(const GCDetails *gc)
{
    StatsClockReading now = read_clock();
    uint64_t gc_cpu_ns, gc_elapsed_ns;

    ASSERT(st.in_gc);
    ASSERT(st.n_gens == 0 || gc->gen < st.n_gens);
    st.in_gc = false;
    gc_cpu_ns = ns_diff(now.cpu_ns, st.gc_start.cpu_ns);
    gc_elapsed_ns = ns_diff(now.elapsed_ns, st.gc_start.elapsed_ns);

    st.gcs++;
    st.last_gc_elapsed_ns = gc_elapsed_ns;
    st.allocated_bytes += gc->allocated_bytes;
    st.copied_bytes += gc->copied_bytes;
    st.promoted_in_place_bytes += gc->promoted_in_place_bytes;
    st.in_place_gcs += gc->in_place;
    st.gc_cpu_ns += gc_cpu_ns;
    st.gc_elapsed_ns += gc_elapsed_ns;
    st.returned_mblocks += gc->returned_mblocks;
    if (gc->mem_in_use_bytes > st.max_mem_in_use_bytes)
        st.max_mem_in_use_bytes = gc->mem_in_use_bytes;

    if (gc->gc_threads > st.max_gc_threads)
        st.max_gc_threads = gc->gc_threads;
    for (unsigned i = 0; i < gc->gc_threads && i < GC_THREADS_MAX; i++)
        st.thread_copied_bytes[i] += gc->thread_copied_bytes[i];
    if (gc->gc_threads > 1) {
        st.par_gcs++;
        st.par_copied_bytes += gc->copied_bytes;
        st.par_balanced_copied_bytes += gc->par_balanced_copied_bytes;
    }

    if (gc->gen < st.n_gens) {
        GenStats *g = &st.gens[gc->gen];
        g->collections++;
        g->par_collections += gc->gc_threads > 1;
        g->cpu_ns += gc_cpu_ns;
        g->elapsed_ns += gc_elapsed_ns;
        if (gc_elapsed_ns > g->max_pause_ns)
            g->max_pause_ns = gc_elapsed_ns;
    }

    /* As in GHC, residency and slop are sampled at major GCs only: after
     * a minor GC the old generation still holds its garbage. */
    if (gc->major) {
        st.major_gcs++;
        if (gc->live_bytes > st.max_live_bytes)
            st.max_live_bytes = gc->live_bytes;
        if (gc->slop_bytes > st.max_slop_bytes)
            st.max_slop_bytes = gc->slop_bytes;
        st.cumulative_live_bytes += gc->live_bytes;
    }

    if (rts_flags.stats_per_gc && st.out != NULL)
        print_gc_line(gc, &now, gc_cpu_ns, gc_elapsed_ns);
    st.last_gc_end_faults = now.major_faults;
}

/* ----------------------------------------------------------------------
 * Derived times
 * ------------------------------------------------------------------- */

/* The run divided into INIT, MUT, GC and EXIT, as GHC's stat_exitReport
 * divides it: the GC done during EXIT (the final collection) counts as
 * GC, not EXIT, and MUT is what is left between INIT and EXIT. */
typedef struct {
    uint64_t init_cpu, init_elapsed;
    uint64_t mut_cpu, mut_elapsed;
    uint64_t gc_cpu, gc_elapsed;
    uint64_t exit_cpu, exit_elapsed;
    uint64_t total_cpu, total_elapsed;
} PhaseTimes;

static PhaseTimes phase_times(void)
{
    PhaseTimes t;
    StatsClockReading now = st.phase == PHASE_DONE ? st.end_exit : read_clock();
    StatsClockReading mut_end = st.phase >= PHASE_EXIT ? st.start_exit : now;
    StatsClockReading init_end = st.phase >= PHASE_MUT ? st.end_init : now;
    uint64_t exit_gc_cpu = 0, exit_gc_elapsed = 0;

    if (st.phase >= PHASE_EXIT) {
        exit_gc_cpu = st.gc_cpu_ns - st.gc_cpu_at_exit_ns;
        exit_gc_elapsed = st.gc_elapsed_ns - st.gc_elapsed_at_exit_ns;
        t.exit_cpu = ns_diff(ns_diff(now.cpu_ns, st.start_exit.cpu_ns), exit_gc_cpu);
        t.exit_elapsed = ns_diff(ns_diff(now.elapsed_ns, st.start_exit.elapsed_ns),
                                 exit_gc_elapsed);
    } else {
        t.exit_cpu = t.exit_elapsed = 0;
    }
    t.init_cpu = ns_diff(init_end.cpu_ns, st.start_init.cpu_ns);
    t.init_elapsed = ns_diff(init_end.elapsed_ns, st.start_init.elapsed_ns);
    t.gc_cpu = st.gc_cpu_ns;
    t.gc_elapsed = st.gc_elapsed_ns;
    t.mut_cpu = ns_diff(ns_diff(mut_end.cpu_ns, init_end.cpu_ns),
                        st.gc_cpu_ns - exit_gc_cpu);
    t.mut_elapsed = ns_diff(ns_diff(mut_end.elapsed_ns, init_end.elapsed_ns),
                            st.gc_elapsed_ns - exit_gc_elapsed);
    t.total_cpu = ns_diff(now.cpu_ns, st.start_init.cpu_ns);
    t.total_elapsed = ns_diff(now.elapsed_ns, st.start_init.elapsed_ns);
    /* GHC: "avoid divide by zero if the total is measured as 0.00 s". */
    if (t.total_cpu == 0)
        t.total_cpu = 1;
    if (t.total_elapsed == 0)
        t.total_elapsed = 1;
    return t;
}

void stats_get(RtsStats *out)
{
    PhaseTimes t = phase_times();

    memset(out, 0, sizeof *out);
    out->gcs = (StgWord)st.gcs;
    out->major_gcs = (StgWord)st.major_gcs;
    out->allocated_bytes = st.allocated_bytes;
    out->copied_bytes = st.copied_bytes;
    out->max_live_bytes = (StgWord)st.max_live_bytes;
    out->max_slop_bytes = (StgWord)st.max_slop_bytes;
    out->max_mem_in_use_bytes = (StgWord)st.max_mem_in_use_bytes;
    out->returned_mblocks = st.returned_mblocks;
    out->cumulative_live_bytes = st.cumulative_live_bytes;
    out->gc_cpu_secs = ns_to_secs(t.gc_cpu);
    out->gc_elapsed_secs = ns_to_secs(t.gc_elapsed);
    out->mut_cpu_secs = ns_to_secs(t.mut_cpu);
    out->mut_elapsed_secs = ns_to_secs(t.mut_elapsed);
    out->par_gcs = (StgWord)st.par_gcs;
    out->par_copied_bytes = st.par_copied_bytes;
    out->par_balanced_copied_bytes = st.par_balanced_copied_bytes;
    out->max_gc_threads = st.max_gc_threads;
}

/* ----------------------------------------------------------------------
 * Output
 * ------------------------------------------------------------------- */

bool stats_open_output(void)
{
    const char *file = rts_flags.stats_file;

    if (st.out != NULL || !(rts_flags.stats_summary || rts_flags.stats_per_gc))
        return true;
    if (file == NULL) {
        st.out = stderr;
        st.out_owned = false;
    } else {
        FILE *f;
        int err = os_stdio_open(file, "w", &f);
        if (err != 0) {
            rts_error("cannot open stats file %s: %s", file, strerror(err));
            return false;
        }
        st.out = f;
        st.out_owned = true;
    }
    if (rts_flags.stats_per_gc) {
        fprintf(st.out, "    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts\n");
        fprintf(st.out, "    bytes     bytes     bytes   user   elap     user     elap\n");
        fflush(st.out);
    }
    return true;
}

void stats_close_output(void)
{
    if (st.out == NULL)
        return;
    if (st.out_owned) {
        int err = os_stdio_close(st.out);
        if (err != 0)
            rts_error("stats: closing the stats file failed (file=%s, error=%s)",
                      rts_flags.stats_file ? rts_flags.stats_file : "?", strerror(err));
    } else {
        fflush(st.out);
    }
    st.out = NULL;
    st.out_owned = false;
}

/* 1234567 -> "1,234,567", as GHC's showStgWord64(..., commas=true). */
static void format_commas(uint64_t v, char *buf, size_t len)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    size_t o = 0;

    for (int i = 0; i < n && o + 2 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
}

/* Note [Summary memory lines]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * "total memory in use" is the most megablock memory held at the end of
 * any GC (GHC uses its peak megablock count, which can only differ by
 * growth between GCs).  "lost due to fragmentation" is printed as 0: GHC
 * derives it from a high-water mark of allocated blocks, which the
 * collector does not report to us.  The "returned to the OS" line is
 * strata's own: GHC prints nothing like it.  It is printed only when
 * some megablock was returned, so that a run that never shrinks has
 * GHC's summary line for line.  So is the prefault line, printed only
 * when the prefault helper faulted something in. */
static void print_memory_lines(FILE *f)
{
    const uint64_t mib = 1024 * 1024;

    fprintf(f, "%16" PRIu64 " MiB total memory in use (%" PRIu64
               " MiB lost due to fragmentation)\n",
            st.max_mem_in_use_bytes / mib, (uint64_t)0);
    if (st.returned_mblocks > 0)
        fprintf(f, "%16" PRIu64 " MiB returned to the OS (%" PRIu64 " megablocks)\n",
                st.returned_mblocks * MBLOCK_SIZE / mib, st.returned_mblocks);
    uint64_t prefaulted = mblock_prefault_bytes();
    if (prefaulted > 0)
        fprintf(f, "%16" PRIu64 " MiB faulted in ahead of the heap (prefault helper)\n",
                prefaulted / mib);
    fputc('\n', f);
}

static void print_generation_lines(FILE *f)
{
    fprintf(f, "                                     Tot time (elapsed)  Avg pause  Max pause\n");
    for (unsigned g = 0; g < st.n_gens; g++) {
        const GenStats *gs = &st.gens[g];
        uint64_t avg_ns = gs->collections == 0 ? 0 : gs->elapsed_ns / gs->collections;
        fprintf(f, "  Gen %2u     %5" PRIu64 " colls, %5" PRIu64 " par   %6.3fs  %6.3fs     %3.4fs    %3.4fs\n",
                g, gs->collections, gs->par_collections, ns_to_secs(gs->cpu_ns),
                ns_to_secs(gs->elapsed_ns), ns_to_secs(avg_ns), ns_to_secs(gs->max_pause_ns));
    }
    fputc('\n', f);
}

/* GHC's work-balance line (0% when one thread did all the copying of the
 * parallel collections, 100% when each did its share), then strata's:
 * the same as threads' worth of work, and what each GC thread copied. */
static void print_parallel_gc_lines(FILE *f)
{
    if (st.par_gcs == 0 || st.par_copied_bytes == 0)
        return;
    double balance = (double)st.par_balanced_copied_bytes / (double)st.par_copied_bytes;
    unsigned n = st.max_gc_threads;
    fprintf(f, "  Parallel GC work balance: %.2f%% (serial 0%%, perfect 100%%)\n", 100 * balance);
    fprintf(f, "  Parallel GC work balance: %.2f of %u GC threads\n",
            1 + balance * (double)(n - 1), n);
    char num[32];
    for (unsigned i = 0; i < n && i < GC_THREADS_MAX; i++) {
        format_commas(st.thread_copied_bytes[i], num, sizeof num);
        fprintf(f, "  GC thread %2u %16s bytes copied\n", i, num);
    }
    fputc('\n', f);
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* strata's own lines for -N2 and up (GHC's TASKS/SPARKS lines would mean
 * nothing here): what each capability allocated, and how long the syncs
 * took from a request to every capability stopped.  The sync line under
 * --nonmoving-gc at -N1 too: the world's stop waits for the mark thread
 * to park. */
static void print_capability_lines(FILE *f)
{
    if (capabilities_n < 2 && !rts_flags.nonmoving)
        return;
    char num[32];
    for (unsigned i = 0; capabilities_n > 1 && i < capabilities_n; i++) {
        const Capability *cap = &capabilities[i];
        format_commas(cap->allocated_words_total * WORD_SIZE + cap->large_bytes_total, num,
                      sizeof num);
        fprintf(f, "  Cap %2u  %16s bytes allocated\n", i, num);
    }
    const SyncStats *ss = capability_sync_stats();
    uint32_t n = ss->n_samples < 1024 ? ss->n_samples : 1024;
    uint64_t median = 0;
    if (n > 0) {
        uint64_t sorted[1024];
        memcpy(sorted, ss->samples_ns, n * sizeof sorted[0]);
        qsort(sorted, n, sizeof sorted[0], compare_u64);
        median = sorted[n / 2];
    }
    fprintf(f, "  SYNC    %" PRIu64 " stops of the world, %.3fs in all, median %.1fus, worst "
            "%.1fus (request to all stopped)\n\n", ss->syncs, ns_to_secs(ss->total_ns),
            (double)median / 1e3, (double)ss->worst_ns / 1e3);
}

static void print_time_lines(FILE *f, const PhaseTimes *t)
{
    fprintf(f, "  INIT    time  %7.3fs  (%7.3fs elapsed)\n", ns_to_secs(t->init_cpu),
            ns_to_secs(t->init_elapsed));
    fprintf(f, "  MUT     time  %7.3fs  (%7.3fs elapsed)\n", ns_to_secs(t->mut_cpu),
            ns_to_secs(t->mut_elapsed));
    fprintf(f, "  GC      time  %7.3fs  (%7.3fs elapsed)\n", ns_to_secs(t->gc_cpu),
            ns_to_secs(t->gc_elapsed));
    if (rts_flags.nonmoving) {
        /* strata-specific: the non-moving cycles' phases (GHC prints its
         * sync and concurrent times); the sync pauses are those outside
         * any collection: one a collection ran is in its GC time. */
        const NonMovingStats *nm = nonmoving_stats();
        fprintf(f, "  CONC    time  %7.3fs  (%7.3fs elapsed marking, %.3fs sweeping; %" PRIu64
                " cycles, %" PRIu64 " in a collection's pause)\n",
                ns_to_secs(__atomic_load_n(&nm->thread_cpu_ns, __ATOMIC_RELAXED)),
                ns_to_secs(nm->mark_ns), ns_to_secs(nm->sweep_ns), nm->cycles, nm->stw_cycles);
        fprintf(f, "  CONC    sync  %" PRIu64 " pauses, %.3fs in all, worst %.3f ms; %" PRIu64
                " more in a collection's pause (in GC time)\n", nm->syncs,
                ns_to_secs(nm->sync_ns), (double)nm->max_sync_ns / 1e6, nm->syncs_in_gcs);
        /* Note [A collection helps a lagging cycle] in sm/NonMoving.c */
        fprintf(f, "  CONC    help  %" PRIu64 " collections helped a lagging cycle: %" PRIu64
                " objects marked and segments or groups swept, at most %" PRIu64 " by one\n", nm->helps,
                nm->help_steps, nm->max_help_steps);
    }
    if (st.censuses > 0) {
        /* strata-specific: the heap profiler's share, which is counted in
         * MUT (and EXIT, for the final census) like GHC's non-profiled
         * RTS.  Per-object breakdowns count during the major GC
         * (sm/LiveTally.c), so their census time is only the labelling
         * and the output; the size is the average live data censused. */
        double secs = ns_to_secs(st.census_elapsed_ns);
        fprintf(f, "  CENSUS  time  %7.3fs  (%7.3fs elapsed, %" PRIu64 " censuses of %.0f MB, "
                "%.2f ms each, within MUT)\n", ns_to_secs(st.census_cpu_ns), secs, st.censuses,
                (double)st.census_bytes / 1e6 / (double)st.censuses,
                secs * 1e3 / (double)st.censuses);
        /* Under the census budget some ticks share a census (see
         * --census-gc); say so, so that counts compare with GHC's. */
        fprintf(f, "  CENSUS  count %" PRIu64 " taken of %" PRIu64 " asked for (%s)\n",
                st.censuses, st.censuses_asked,
                rts_flags.census_interval_secs == 0 ? "-i0: at every major GC"
                : !rts_flags.automatic_heap_samples ? "no -i ticks: at exit"
                : rts_flags.census_every_tick ? "each -i tick and exit, --census-gc=every-tick"
                                              : "each -i tick and exit, --census-gc=budget");
    }
    fprintf(f, "  EXIT    time  %7.3fs  (%7.3fs elapsed)\n", ns_to_secs(t->exit_cpu),
            ns_to_secs(t->exit_elapsed));
    fprintf(f, "  Total   time  %7.3fs  (%7.3fs elapsed)\n\n", ns_to_secs(t->total_cpu),
            ns_to_secs(t->total_elapsed));
}

/* Note [Summary percentages]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * %GC is GC time over total time.  (GHC's non-threaded RTS computes it
 * with an integer division and so prints 0.0% unless GC took all the
 * time; we divide as doubles.)  Productivity is, as in GHC, the total
 * minus GC, INIT and EXIT, over the total; the alloc rate is bytes
 * allocated per second of MUT CPU time, 0 if no MUT time was measured. */
static void print_rate_lines(FILE *f, const PhaseTimes *t)
{
    char rate[32];
    double total_cpu = (double)t->total_cpu, total_elapsed = (double)t->total_elapsed;
    uint64_t alloc_rate =
        t->mut_cpu == 0 ? 0
                        : (uint64_t)((double)st.allocated_bytes / ns_to_secs(t->mut_cpu));
    double prod_cpu =
        (double)ns_diff(t->total_cpu, t->gc_cpu + t->init_cpu + t->exit_cpu) / total_cpu;
    double prod_elapsed =
        (double)ns_diff(t->total_elapsed, t->gc_elapsed + t->init_elapsed + t->exit_elapsed) /
        total_elapsed;

    fprintf(f, "  %%GC     time     %5.1f%%  (%.1f%% elapsed)\n\n",
            (double)t->gc_cpu / total_cpu * 100, (double)t->gc_elapsed / total_elapsed * 100);
    format_commas(alloc_rate, rate, sizeof rate);
    fprintf(f, "  Alloc rate    %s bytes per MUT second\n\n", rate);
    fprintf(f, "  Productivity %5.1f%% of total user, %.1f%% of total elapsed\n\n",
            prod_cpu * 100, prod_elapsed * 100);
}

/* With an eventlog socket: what slow clients lost, and what control
 * messages did (docs/design/eventlog.md, "The socket writer"). */
static void print_socket_lines(FILE *f)
{
    if (!eventlog_socket_is_open())
        return;
    EventLogSocketStats s;
    ControlStats c;
    eventlog_socket_get_stats(&s);
    control_get_stats(&c);
    char num[32];
    format_commas(s.dropped_bytes, num, sizeof num);
    fprintf(f, "%16s bytes of eventlog dropped for slow socket clients (%" PRIu64
            " blocks; %" PRIu64 " clients connected)\n", num, s.dropped_blocks, s.clients);
    format_commas(s.control_skipped_bytes, num, sizeof num);
    fprintf(f, "%16s control bytes skipped (%" PRIu64 " messages, %" PRIu64 " run, %" PRIu64
            " unknown, %" PRIu64 " bad, %" PRIu64 " overflowed)\n", num, s.control_messages,
            c.run, c.unknown, s.control_bad_messages, c.overflowed);
}

void stats_print_summary(FILE *f)
{
    char num[32];
    PhaseTimes t = phase_times();

    if (f == NULL)
        f = st.out != NULL ? st.out : stderr;

    format_commas(st.allocated_bytes, num, sizeof num);
    fprintf(f, "%16s bytes allocated in the heap\n", num);
    format_commas(st.copied_bytes, num, sizeof num);
    fprintf(f, "%16s bytes copied during GC\n", num);
    /* strata's own line, printed only when some GC promoted in place, so
     * that a run without one has GHC's summary line for line. */
    if (st.in_place_gcs > 0) {
        format_commas(st.promoted_in_place_bytes, num, sizeof num);
        fprintf(f, "%16s bytes promoted in place (%" PRIu64 " GCs)\n", num, st.in_place_gcs);
    }
    if (st.major_gcs > 0) {
        format_commas(st.max_live_bytes, num, sizeof num);
        fprintf(f, "%16s bytes maximum residency (%" PRIu64 " sample(s))\n", num,
                st.major_gcs);
    }
    format_commas(st.max_slop_bytes, num, sizeof num);
    fprintf(f, "%16s bytes maximum slop\n", num);
    print_memory_lines(f);
    print_socket_lines(f);
    print_generation_lines(f);
    print_parallel_gc_lines(f);
    print_capability_lines(f);
    print_time_lines(f, &t);
    print_rate_lines(f, &t);
    fflush(f);
}

/* ----------------------------------------------------------------------
 * Checking
 * ------------------------------------------------------------------- */

bool stats_check(void)
{
    uint64_t colls = 0;

    if ((st.gens == NULL) != (st.n_gens == 0))
        return false;
    for (unsigned g = 0; g < st.n_gens; g++) {
        const GenStats *gs = &st.gens[g];
        if (gs->max_pause_ns > gs->elapsed_ns)
            return false;
        if (gs->collections == 0 && (gs->cpu_ns != 0 || gs->elapsed_ns != 0))
            return false;
        colls += gs->collections;
    }
    /* Skipped when stats_init could not allocate the per-generation table. */
    if (st.n_gens > 0 && colls != st.gcs)
        return false;
    if (st.major_gcs > st.gcs)
        return false;
    if (st.major_gcs == 0 && (st.max_live_bytes != 0 || st.cumulative_live_bytes != 0))
        return false;
    if (st.max_live_bytes > st.cumulative_live_bytes)
        return false;
    if (st.exit_allocated_bytes > st.allocated_bytes)
        return false;
    if (st.out_owned && st.out == NULL)
        return false;
    return true;
}
