/*
 * utils/strata-events/pprof.c -- `strata-events pprof LOG [-o FILE]
 * [--sample N | --last]`: one census of a heap-profiled log (ours or GHC's)
 * as a gzipped pprof profile, through the heap-profile model
 * (utils/heapprof/HeapModel.h) and its encoder (Pprof.h), which
 * strata-live shares.
 * Usage and the mapping onto pprof: docs/strata-events.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "HeapModel.h"
#include "Pprof.h"
#include "tool.h"

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

int tool_pprof(const char *path, const char *out_path, uint64_t sample)
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
    heap_model_init(&m);
    m.latest_only = 1;   /* one census is written: memory stays that of one */
    EvrEvent ev;
    int rc, status = TOOL_EXIT_FAIL;
    while ((rc = evr_next(r, &ev)) == 1 && !m.out_of_memory)
        if (heap_model_add(&m, &ev) && sample != 0 && m.last.number == sample)
            break;
    if (rc < 0) {
        tool_report_error(r);
        goto done;
    }
    if (rc == 0)
        heap_model_census_end(&m);   /* the end of the log ends a census */
    if (m.out_of_memory) {
        fprintf(stderr, "%s: %s: out of memory (ipes=%zu)\n", TOOL_NAME, path, m.ipes.n_ipes);
        goto done;
    }
    if (rc == 0)
        tool_warn_no_data_end(r);
    if (!m.have_profile) {
        fprintf(stderr, "%s: %s: not a heap profile (no heap profile begin event: run the "
                        "program with +RTS -hi, -hT or -he and -l)\n", TOOL_NAME, path);
        goto done;
    }
    if (!m.have_last || (sample != 0 && m.last.number != sample)) {
        fprintf(stderr, "%s: %s: no census %" PRIu64 " (the log has %" PRIu64 " complete)\n",
                TOOL_NAME, path, sample, m.have_last ? m.last.number : 0);
        goto done;
    }
    char comment[96];
    snprintf(comment, sizeof comment, "census %" PRIu64 ", breakdown %s", m.last.number,
             tool_breakdown_flag(m.breakdown));
    const char *comments[] = { comment };
    uint8_t *bytes;
    size_t n;
    const char *why;
    if (!pprof_encode_census(&m, &m.last, comments, 1, &bytes, &n, &why)) {
        fprintf(stderr, "%s: %s: cannot encode the profile: %s (bands=%zu)\n", TOOL_NAME, path,
                why, m.last.n);
        goto done;
    }
    if (write_profile(out_path, bytes, n))
        status = TOOL_EXIT_OK;
    free(bytes);
done:
    heap_model_free(&m);
    tool_close(r, f);
    return status;
}
