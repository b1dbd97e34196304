/*
 * utils/strata-events/PprofCmd.c -- `strata-events pprof LOG [-o FILE]
 * [--sample N | --last]`: a log's sampled allocations (+RTS
 * --alloc-sample), through their model and encoder (AllocModel.h,
 * AllocPprof.h), or one census of a heap-profiled log (ours or GHC's),
 * through the heap-profile model (HeapModel.h) and its encoder
 * (Pprof.h), as a gzipped pprof profile; strata-live shares all four.
 * Usage and the mapping onto pprof: docs/strata-events.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "AllocModel.h"
#include "AllocPprof.h"
#include "HeapModel.h"
#include "Pprof.h"
#include "PprofCmd.h"
#include "Tool.h"

/* Writes the profile to out_path ("-" or NULL: stdout). */
static int write_profile(const char *out_path, const uint8_t *bytes, size_t n)
{
    int to_stdout = out_path == NULL || strcmp(out_path, "-") == 0;
    FILE *out = to_stdout ? stdout : fopen(out_path, "wb");
    if (out == NULL) {
        fprintf(stderr, "%s: cannot create %s: %s\n", TOOL_NAME, out_path, strerror(errno));
        return 0;
    }
    int ok = fwrite(bytes, 1, n, out) == n;
    ok = (to_stdout ? fflush(out) : fclose(out)) == 0 && ok;
    if (!ok)
        fprintf(stderr, "%s: cannot write %s: %s\n", TOOL_NAME,
                to_stdout ? "standard output" : out_path, strerror(errno));
    return ok;
}

/* The log's sampled allocations as a profile (Note [Samples as Go's heap
 * profile] in utils/heapprof/AllocPprof.c). */
static int write_alloc_profile(const char *path, const char *out_path, const AllocModel *am,
                               const HeapModel *m, const char *program)
{
    char comment[160];
    snprintf(comment, sizeof comment,
             "sampled allocations: one per %" PRIu64 " bytes, %" PRIu64 " samples, %zu alive",
             am->rate_bytes, am->n_samples, am->n_live);
    const char *comments[] = {comment};
    AllocPprofOptions o = {.era_lo = 0, .era_hi = UINT64_MAX, .main_binary = program};
    if (m->have_wall_clock)
        o.time_nanos = (int64_t)(m->wall_ns + (am->last_time_ns - m->wall_event_ns));
    uint8_t *bytes;
    size_t n;
    const char *why;
    if (!pprof_encode_alloc(am, &o, comments, 1, &bytes, &n, &why)) {
        fprintf(stderr, "%s: %s: cannot encode the profile: %s (buckets=%zu)\n", TOOL_NAME,
                path, why, am->bucket_keys.n);
        return TOOL_EXIT_FAIL;
    }
    int status = write_profile(out_path, bytes, n) ? TOOL_EXIT_OK : TOOL_EXIT_FAIL;
    free(bytes);
    return status;
}

/* Census number sample (0: the last) as a profile. */
static int write_census_profile(const char *path, const char *out_path, const HeapModel *m,
                                uint64_t sample)
{
    if (!m->have_profile) {
        fprintf(stderr, "%s: %s: not a heap profile (no heap profile begin event: run the "
                        "program with +RTS -hi, -hT or -he and -l, or --alloc-sample -l for "
                        "sampled allocations)\n", TOOL_NAME, path);
        return TOOL_EXIT_FAIL;
    }
    if (!m->have_last || (sample != 0 && m->last.number != sample)) {
        fprintf(stderr, "%s: %s: no census %" PRIu64 " (the log has %" PRIu64 " complete)\n",
                TOOL_NAME, path, sample, m->have_last ? m->last.number : 0);
        return TOOL_EXIT_FAIL;
    }
    char comment[96];
    snprintf(comment, sizeof comment, "census %" PRIu64 ", breakdown %s", m->last.number,
             tool_breakdown_flag(m->breakdown));
    const char *comments[] = { comment };
    uint8_t *bytes;
    size_t n;
    const char *why;
    if (!pprof_encode_census(m, &m->last, comments, 1, &bytes, &n, &why)) {
        fprintf(stderr, "%s: %s: cannot encode the profile: %s (bands=%zu)\n", TOOL_NAME, path,
                why, m->last.n);
        return TOOL_EXIT_FAIL;
    }
    int status = write_profile(out_path, bytes, n) ? TOOL_EXIT_OK : TOOL_EXIT_FAIL;
    free(bytes);
    return status;
}

int cmd_pprof(const char *path, const char *out_path, uint64_t sample, int census_asked)
{
    if ((out_path == NULL || strcmp(out_path, "-") == 0) && isatty(STDOUT_FILENO)) {
        fprintf(stderr, "%s: pprof: the profile is binary (gzipped protobuf): give -o FILE "
                        "or redirect standard output\n", TOOL_NAME);
        return TOOL_EXIT_USAGE;
    }
    FILE *f;
    EventLogReader *r = tool_open(path, &f);
    if (r == NULL)
        return TOOL_EXIT_FAIL;
    HeapModel m;
    AllocModel am;
    heap_model_init(&m);
    alloc_model_init(&am);
    m.latest_only = 1;   /* one census is written: memory stays that of one */
    EvrEvent ev;
    int rc, status = TOOL_EXIT_FAIL;
    char *program = NULL;   /* argv[0], for the profile's mapping */
    while ((rc = evr_next(r, &ev)) == 1 && !m.out_of_memory && !am.out_of_memory) {
        if (alloc_model_add(&am, &ev))
            continue;
        if (ev.type == EVENT_PROGRAM_ARGS && ev.decoded && program == NULL)
            program = evr_str_dup((EvrStr){ev.u.args.args.ptr,
                                           strnlen(ev.u.args.args.ptr, ev.u.args.args.len)});
        if (heap_model_add(&m, &ev) && census_asked && sample != 0 && m.last.number == sample)
            break;
    }
    if (rc < 0) {
        tool_report_error(r);
        goto done;
    }
    if (rc == 0)
        heap_model_census_end(&m);   /* the end of the log ends a census */
    if (m.out_of_memory || am.out_of_memory) {
        fprintf(stderr, "%s: %s: out of memory (ipes=%zu, samples alive=%zu)\n", TOOL_NAME,
                path, m.ipes.n_ipes, am.n_live);
        goto done;
    }
    if (rc == 0)
        tool_warn_no_data_end(r);
    if (am.have_sampling && !census_asked)
        status = write_alloc_profile(path, out_path, &am, &m, program);
    else
        status = write_census_profile(path, out_path, &m, sample);
done:
    free(program);
    alloc_model_free(&am);
    heap_model_free(&m);
    tool_close(r, f);
    return status;
}
