/*
 * utils/strata-events/PausesCmd.c -- strata-events pauses: the pauses of a
 * run (collections and non-moving syncs) and its latency figures: worst,
 * 99th percentile and median pause, and the minimum mutator utilisation
 * at some window lengths.  The computation is reader/Pauses.c's; this
 * file reads the log into it and prints.  Output: docs/strata-events.md.
 */
#include <inttypes.h>
#include <stdio.h>

#include "Pauses.h"
#include "PausesCmd.h"
#include "Tool.h"

static void print_ms(FILE *out, uint64_t ns)
{
    fprintf(out, "%" PRIu64 ".%03" PRIu64 " ms", ns / 1000000, ns / 1000 % 1000);
}

static const char *kind_name(unsigned kinds)
{
    switch (kinds) {
    case PAUSE_GC: return "GC";
    case PAUSE_SYNC: return "sync";
    default: return "GC+sync";
    }
}

/* Pauses of each kind: GC only, sync only, both. */
static void count_kinds(const PauseLog *pl, size_t counts[3])
{
    counts[0] = counts[1] = counts[2] = 0;
    for (size_t i = 0; i < pl->n_pauses; i++)
        counts[pl->pauses[i].kinds == PAUSE_GC ? 0 : pl->pauses[i].kinds == PAUSE_SYNC ? 1 : 2]++;
}

/* --list: every pause, in time order. */
static void print_list(const PauseLog *pl)
{
    for (size_t i = 0; i < pl->n_pauses; i++) {
        const Pause *p = &pl->pauses[i];
        fputs("pause at ", stdout);
        print_ms(stdout, p->start_ns - pl->first_ns);
        fputs(": ", stdout);
        print_ms(stdout, p->end_ns - p->start_ns);
        fprintf(stdout, " (%s)\n", kind_name(p->kinds));
    }
}

static void print_text(const PauseLog *pl, const uint64_t *windows, size_t n_windows)
{
    uint64_t span = pause_log_span_ns(pl), paused = pause_log_paused_ns(pl);
    size_t kinds[3];
    count_kinds(pl, kinds);
    fputs("run: ", stdout);
    print_ms(stdout, span);
    fprintf(stdout, "\npauses: %zu (%zu GC, %zu sync, %zu both), ", pl->n_pauses, kinds[0],
            kinds[1], kinds[2]);
    print_ms(stdout, paused);
    fprintf(stdout, " in all (%.2f%% of the run)\n",
            span > 0 ? 100.0 * (double)paused / (double)span : 0.0);
    fputs("worst pause: ", stdout);
    print_ms(stdout, pause_log_percentile(pl, 100));
    ptrdiff_t w = pause_log_worst(pl);
    if (w >= 0) {
        fputs(" at ", stdout);
        print_ms(stdout, pl->pauses[w].start_ns - pl->first_ns);
        fprintf(stdout, " (%s)", kind_name(pl->pauses[w].kinds));
    }
    fputs("\np99 pause: ", stdout);
    print_ms(stdout, pause_log_percentile(pl, 99));
    fputs("\nmedian pause: ", stdout);
    print_ms(stdout, pause_log_percentile(pl, 50));
    fputc('\n', stdout);
    for (size_t i = 0; i < n_windows; i++) {
        char label[32];
        tool_format_duration(label, sizeof label, windows[i]);
        double mmu = pause_log_mmu(pl, windows[i]);
        if (mmu < 0)
            fprintf(stdout, "MMU %s: n/a (the run is shorter)\n", label);
        else
            fprintf(stdout, "MMU %s: %.1f%%\n", label, 100.0 * mmu);
    }
}

static void print_json(const PauseLog *pl, const uint64_t *windows, size_t n_windows)
{
    size_t kinds[3];
    count_kinds(pl, kinds);
    ptrdiff_t w = pause_log_worst(pl);
    fprintf(stdout,
            "{\"run_ns\": %" PRIu64 ", \"pauses\": %zu, \"gc_pauses\": %zu, "
            "\"sync_pauses\": %zu, \"gc_and_sync_pauses\": %zu, \"paused_ns\": %" PRIu64 ",\n"
            " \"worst_ns\": %" PRIu64 ", \"worst_at_ns\": ",
            pause_log_span_ns(pl), pl->n_pauses, kinds[0], kinds[1], kinds[2],
            pause_log_paused_ns(pl), pause_log_percentile(pl, 100));
    if (w >= 0)
        fprintf(stdout, "%" PRIu64 ", \"worst_kind\": \"%s\",\n",
                pl->pauses[w].start_ns - pl->first_ns, kind_name(pl->pauses[w].kinds));
    else
        fputs("null, \"worst_kind\": null,\n", stdout);
    fprintf(stdout, " \"p99_ns\": %" PRIu64 ", \"median_ns\": %" PRIu64 ",\n \"mmu\": [",
            pause_log_percentile(pl, 99), pause_log_percentile(pl, 50));
    for (size_t i = 0; i < n_windows; i++) {
        double mmu = pause_log_mmu(pl, windows[i]);
        fprintf(stdout, "%s{\"window_ns\": %" PRIu64 ", \"mmu\": ", i ? ", " : "", windows[i]);
        if (mmu < 0)
            fputs("null}", stdout);
        else
            fprintf(stdout, "%.4f}", mmu);
    }
    fputs("]}\n", stdout);
}

int cmd_pauses(const char *path, int json, int list, const uint64_t *windows, size_t n_windows)
{
    FILE *f;
    EventLogReader *r = tool_open(path, &f);
    if (r == NULL)
        return TOOL_EXIT_FAIL;
    PauseLog pl;
    pause_log_init(&pl);
    EvrEvent ev;
    int rc = 0, ok = 1;
    while (ok && (rc = evr_next(r, &ev)) == 1)
        ok = pause_log_add(&pl, &ev);
    int status = TOOL_EXIT_OK;
    if (!ok || !pause_log_finish(&pl)) {
        fprintf(stderr, "%s: out of memory reading %s\n", TOOL_NAME, path);
        status = TOOL_EXIT_FAIL;
    } else if (rc < 0) {
        tool_report_error(r);
        status = TOOL_EXIT_FAIL;
    } else {
        tool_warn_no_data_end(r);
        if (json)
            print_json(&pl, windows, n_windows);
        else if (list)
            print_list(&pl);
        else
            print_text(&pl, windows, n_windows);
        fflush(stdout);
    }
    pause_log_free(&pl);
    tool_close(r, f);
    return status;
}
