/*
 * utils/strata-events/main.c -- strata-events: command-line parsing and the
 * helpers the commands share.  The commands are in show.c, check.c and
 * summary.c; all reading goes through reader/EventLogReader.h.  Usage,
 * output formats and exit codes: docs/strata-events.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TextOut.h"
#include "tool.h"

/* ----------------------------------------------------------------------
 * Shared helpers
 * ------------------------------------------------------------------- */

EventLogReader *tool_open(const char *path, FILE **file_out)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot open %s: %s\n", TOOL_NAME, path, strerror(errno));
        return NULL;
    }
    EventLogReader *r = evr_open_file(f, path);
    if (r == NULL) {
        fprintf(stderr, "%s: out of memory opening %s\n", TOOL_NAME, path);
        if (f != stdin)
            fclose(f);
        return NULL;
    }
    *file_out = f;
    return r;
}

void tool_close(EventLogReader *r, FILE *f)
{
    evr_close(r);
    if (f != NULL && f != stdin)
        fclose(f);
}

void tool_report_error(const EventLogReader *r)
{
    fprintf(stderr, "%s: %s: %s\n", TOOL_NAME, evr_name(r), evr_error(r));
}

void tool_warn_no_data_end(const EventLogReader *r)
{
    if (evr_error(r) == NULL && !evr_saw_data_end(r))
        fprintf(stderr, "%s: %s: warning: offset %llu: no data end marker (log cut short?)\n",
                TOOL_NAME, evr_name(r), (unsigned long long)evr_offset(r));
}

void tool_print_escaped(FILE *out, const char *s, size_t len)
{
    text_write(out, s, len, TEXT_QUOTED);
}

void tool_print_quoted(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    text_write(out, s, len, TEXT_QUOTED);
    fputc('"', out);
}

void tool_print_json_string(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    text_write(out, s, len, TEXT_JSON);
    fputc('"', out);
}

static const struct {
    const char *flag;
    const char *name;
} breakdowns[] = {
    [HEAP_PROF_BREAKDOWN_COST_CENTRE] = {"-hc", "cost centre stack"},
    [HEAP_PROF_BREAKDOWN_MODULE] = {"-hm", "module"},
    [HEAP_PROF_BREAKDOWN_CLOSURE_DESCR] = {"-hd", "closure description"},
    [HEAP_PROF_BREAKDOWN_TYPE_DESCR] = {"-hy", "type description"},
    [HEAP_PROF_BREAKDOWN_RETAINER] = {"-hr", "retainer set"},
    [HEAP_PROF_BREAKDOWN_BIOGRAPHY] = {"-hb", "biography"},
    [HEAP_PROF_BREAKDOWN_CLOSURE_TYPE] = {"-hT", "closure type"},
    [HEAP_PROF_BREAKDOWN_INFO_TABLE] = {"-hi", "info table"},
    [HEAP_PROF_BREAKDOWN_ERA] = {"-he", "era"},
};

const char *tool_breakdown_flag(uint32_t code)
{
    if (code >= sizeof breakdowns / sizeof breakdowns[0] || breakdowns[code].flag == NULL)
        return "?";
    return breakdowns[code].flag;
}

const char *tool_breakdown_name(uint32_t code)
{
    if (code >= sizeof breakdowns / sizeof breakdowns[0] || breakdowns[code].name == NULL)
        return "unknown";
    return breakdowns[code].name;
}

static const struct {
    const char *name;
    uint64_t ns;
} duration_units[] = {{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}, {"ns", 1}};

#define DURATION_MAX_NS (3600 * UINT64_C(1000000000))

int tool_parse_duration(const char *s, uint64_t *ns_out)
{
    uint64_t whole = 0, frac = 0, frac_scale = 1;
    const char *c = s;
    if (*c < '0' || *c > '9')
        return 0;
    for (; *c >= '0' && *c <= '9'; c++) {
        whole = whole * 10 + (uint64_t)(*c - '0');
        if (whole > DURATION_MAX_NS)
            return 0;
    }
    if (*c == '.') {
        for (c++; *c >= '0' && *c <= '9'; c++)
            if (frac_scale < 1000000000) {   /* past 1e-9: no ns unit has it */
                frac = frac * 10 + (uint64_t)(*c - '0');
                frac_scale *= 10;
            }
    }
    for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++) {
        if (strcmp(c, duration_units[i].name) != 0)
            continue;
        uint64_t unit = duration_units[i].ns;
        if (whole > DURATION_MAX_NS / unit)
            return 0;
        uint64_t ns = whole * unit + frac * unit / frac_scale;
        if (ns == 0 || ns > DURATION_MAX_NS)
            return 0;
        *ns_out = ns;
        return 1;
    }
    return 0;
}

void tool_format_duration(char *buf, size_t len, uint64_t ns)
{
    size_t i = 0;
    while (ns % duration_units[i].ns != 0)
        i++;
    snprintf(buf, len, "%" PRIu64 "%s", ns / duration_units[i].ns, duration_units[i].name);
}

/* ----------------------------------------------------------------------
 * Command line
 * ------------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s show FILE            print every event, one per line\n"
            "       %s check FILE           check the log's framing; exit 1 on a problem\n"
            "       %s summary FILE [--json] [--top N]\n"
            "                                  program, heap profile, top N buckets (10;\n"
            "                                  0 = all), maxima\n"
            "       %s pprof FILE [-o OUT] [--sample N | --last]\n"
            "                                  the sampled allocations (--alloc-sample), or\n"
            "                                  one census, as a gzipped pprof profile\n"
            "       %s pauses FILE [--json | --list] [--mmu W,...]\n"
            "                                  GC and sync pauses: worst, p99, median,\n"
            "                                  minimum mutator utilisation (1ms,10ms,100ms);\n"
            "                                  --list: every pause\n"
            "FILE may be - for standard input.  See docs/strata-events.md.\n",
            TOOL_NAME, TOOL_NAME, TOOL_NAME, TOOL_NAME, TOOL_NAME);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s\n", TOOL_NAME, what, arg ? ": " : "", arg ? arg : "");
    usage(stderr);
    return TOOL_EXIT_USAGE;
}

/* A count: decimal, from 0, at most 1e9. */
static int parse_count(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v > 1000000000ull)
        return 0;
    *out = v;
    return 1;
}

/* A census number: decimal, from 1. */
static int parse_census_number(const char *s, uint64_t *out)
{
    if (*s < '1' || *s > '9')
        return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

/* --mmu's list: window lengths separated by commas. */
static int parse_windows(const char *list, uint64_t *windows, size_t *n_windows)
{
    size_t n = 0;
    const char *at = list;
    for (;;) {
        const char *comma = strchr(at, ',');
        size_t len = comma != NULL ? (size_t)(comma - at) : strlen(at);
        char item[32];
        if (len == 0 || len >= sizeof item || n == TOOL_PAUSES_MAX_WINDOWS)
            return 0;
        memcpy(item, at, len);
        item[len] = '\0';
        if (!tool_parse_duration(item, &windows[n++]))
            return 0;
        if (comma == NULL)
            break;
        at = comma + 1;
    }
    *n_windows = n;
    return 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return TOOL_EXIT_OK;
    }
    if (argc < 2)
        return usage_error("missing command", NULL);
    const char *cmd = argv[1];
    const char *file = NULL, *out_path = NULL, *sample_arg = NULL;
    int json = 0, list = 0, pprof = strcmp(cmd, "pprof") == 0,
        pauses = strcmp(cmd, "pauses") == 0;
    uint64_t sample = 0, top = TOOL_SUMMARY_TOP;
    uint64_t windows[TOOL_PAUSES_MAX_WINDOWS] = {1000000, 10000000, 100000000};
    size_t n_windows = 3;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0 && (strcmp(cmd, "summary") == 0 || pauses))
            json = 1;
        else if (pauses && strcmp(a, "--list") == 0)
            list = 1;
        else if (pauses && strcmp(a, "--mmu") == 0) {
            if (i + 1 >= argc)
                return usage_error("--mmu needs window lengths, such as 1ms,10ms,100ms", NULL);
            if (!parse_windows(argv[++i], windows, &n_windows))
                return usage_error("--mmu takes up to 16 window lengths from 1ns to 3600s, "
                                   "such as 1ms,10ms,100ms or 0.5ms, not", argv[i]);
        }
        else if (strcmp(a, "--top") == 0 && strcmp(cmd, "summary") == 0) {
            if (i + 1 >= argc)
                return usage_error("--top needs a number of buckets N (0 = all)", NULL);
            if (!parse_count(argv[++i], &top))
                return usage_error("--top takes a number of buckets (0 = all), not", argv[i]);
        }
        else if (pprof && strcmp(a, "-o") == 0) {
            if (i + 1 >= argc)
                return usage_error("-o needs a FILE", NULL);
            out_path = argv[++i];
        } else if (pprof && strcmp(a, "--sample") == 0) {
            if (i + 1 >= argc)
                return usage_error("--sample needs a census number N (1 = the first)", NULL);
            if (sample_arg != NULL)
                return usage_error("give one of --sample N and --last, once", NULL);
            sample_arg = argv[++i];
            if (!parse_census_number(sample_arg, &sample))
                return usage_error("--sample takes a census number from 1 (1 = the first), "
                                   "not", sample_arg);
        } else if (pprof && strcmp(a, "--last") == 0) {
            if (sample_arg != NULL)
                return usage_error("give one of --sample N and --last, once", NULL);
            sample_arg = a;
            sample = 0;
        } else if (a[0] == '-' && a[1] != '\0')
            return usage_error("unknown option", a);
        else if (file != NULL)
            return usage_error("too many arguments", a);
        else
            file = a;
    }
    int known = strcmp(cmd, "show") == 0 || strcmp(cmd, "check") == 0 ||
                strcmp(cmd, "summary") == 0 || pprof || pauses;
    if (!known)
        return usage_error("unknown command", cmd);
    if (file == NULL)
        return usage_error("missing FILE", NULL);
    if (strcmp(cmd, "show") == 0)
        return tool_show(file);
    if (strcmp(cmd, "check") == 0)
        return tool_check(file);
    if (pprof)
        return tool_pprof(file, out_path, sample, sample_arg != NULL);
    if (pauses)
        return json && list ? usage_error("give one of --json and --list", NULL)
                            : tool_pauses(file, json, list, windows, n_windows);
    return tool_summary(file, json, (size_t)top);
}
