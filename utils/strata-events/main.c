/*
 * utils/strata-events/main.c -- strata-events: the command line (the
 * tools' one parser, utils/cli/Cli.h) and the choice of command; each
 * command is a file of its own (ShowCmd.c, CheckCmd.c, SummaryCmd.c,
 * PprofCmd.c, PausesCmd.c), reading through reader/EventLogReader.h.
 * Usage, output formats and exit codes: docs/strata-events.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CheckCmd.h"
#include "Cli.h"
#include "PausesCmd.h"
#include "PprofCmd.h"
#include "ShowCmd.h"
#include "SummaryCmd.h"
#include "Tool.h"

enum { OPT_OUT = 'o', OPT_HELP = 'h', OPT_JSON = 256, OPT_TOP, OPT_SAMPLE, OPT_LAST, OPT_LIST,
       OPT_MMU };

static const CliOption options[] = {
    {"json", 0, NULL, OPT_JSON, "summary pauses", "summary, pauses: one JSON document"},
    {"top", 0, "N", OPT_TOP, "summary", "summary: the top N buckets (10; 0 = all)"},
    {NULL, 'o', "OUT", OPT_OUT, "pprof", "pprof: write the profile to OUT (default -: stdout)"},
    {"sample", 0, "N", OPT_SAMPLE, "pprof", "pprof: census N (1 = the first)"},
    {"last", 0, NULL, OPT_LAST, "pprof", "pprof: the last census (the default)"},
    {"list", 0, NULL, OPT_LIST, "pauses", "pauses: every pause"},
    {"mmu", 0, "W,...", OPT_MMU, "pauses",
     "pauses: the minimum mutator utilisation at these\nwindow lengths (default 1ms,10ms,100ms)"},
    {"help", 'h', NULL, OPT_HELP, NULL, "this text"},
    CLI_END,
};

static const char *const commands[] = {"show", "check", "summary", "pprof", "pauses"};

static void usage(FILE *out)
{
    cli_help(out,
             TOOL_NAME " show FILE            print every event, one per line\n"
             TOOL_NAME " check FILE           check the log's framing; exit 1 on a problem\n"
             TOOL_NAME " summary FILE [--json] [--top N]\n"
             "                           program, heap profile, top buckets, maxima\n"
             TOOL_NAME " pprof FILE [-o OUT] [--sample N | --last]\n"
             "                           the sampled allocations (--alloc-sample), or\n"
             "                           one census, as a gzipped pprof profile\n"
             TOOL_NAME " pauses FILE [--json | --list] [--mmu W,...]\n"
             "                           GC and sync pauses: worst, p99, median, minimum\n"
             "                           mutator utilisation",
             "Shows, checks and summarises GHC-format eventlogs (strata's and GHC's).",
             options, "FILE may be - for standard input.  See docs/strata-events.md.");
}

/* A decimal number from lo to hi (digits only). */
static int parse_decimal(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
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
        if (len == 0 || len >= sizeof item || n == PAUSES_MAX_WINDOWS)
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

/* What the command line asks for. */
typedef struct {
    const char *file, *out_path;
    int json, list, sample_given;
    uint64_t sample, top;
    uint64_t windows[PAUSES_MAX_WINDOWS];
    size_t n_windows;
} Args;

/* The options and the FILE of command cmd into a; -1 to go on, else the
 * exit status (a usage error said, or --help done). */
static int parse_args(int argc, char **argv, const char *cmd, Args *a)
{
    Cli c;
    int id;
    cli_start(&c, TOOL_NAME, cmd, options, argc, argv, 2);
    while ((id = cli_next(&c)) != CLI_DONE) {
        switch (id) {
        case CLI_ERROR:
            return TOOL_EXIT_USAGE;
        case CLI_OPERAND:
            if (a->file != NULL)
                return cli_usage_error(&c, "too many arguments: %s", c.arg);
            a->file = c.arg;
            break;
        case OPT_HELP:
            usage(stdout);
            return TOOL_EXIT_OK;
        case OPT_JSON:
            a->json = 1;
            break;
        case OPT_LIST:
            a->list = 1;
            break;
        case OPT_TOP:
            if (!parse_decimal(c.arg, 0, 1000000000, &a->top))
                return cli_usage_error(&c, "--top takes a number of buckets (0 = all), not: %s",
                                       c.arg);
            break;
        case OPT_MMU:
            if (!parse_windows(c.arg, a->windows, &a->n_windows))
                return cli_usage_error(&c, "--mmu takes up to 16 window lengths from 1ns to "
                                       "3600s, such as 1ms,10ms,100ms or 0.5ms, not: %s", c.arg);
            break;
        case OPT_OUT:
            a->out_path = c.arg;
            break;
        case OPT_SAMPLE:
        case OPT_LAST:
            if (a->sample_given)
                return cli_usage_error(&c, "give one of --sample N and --last, once");
            a->sample_given = 1;
            if (id == OPT_SAMPLE && !parse_decimal(c.arg, 1, UINT64_MAX, &a->sample))
                return cli_usage_error(&c, "--sample takes a census number from 1 (1 = the "
                                       "first), not: %s", c.arg);
            break;
        }
    }
    if (a->file == NULL)
        return cli_usage_error(&c, "missing FILE");
    if (a->json && a->list)
        return cli_usage_error(&c, "give one of --json and --list");
    return -1;
}

int main(int argc, char **argv)
{
    Cli top = {.tool = TOOL_NAME};
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return TOOL_EXIT_OK;
    }
    if (argc < 2)
        return cli_usage_error(&top, "missing command (show, check, summary, pprof or pauses)");
    const char *cmd = argv[1];
    size_t k = 0;
    while (k < sizeof commands / sizeof commands[0] && strcmp(cmd, commands[k]) != 0)
        k++;
    if (k == sizeof commands / sizeof commands[0])
        return cli_usage_error(&top, "unknown command: %s (show, check, summary, pprof or "
                               "pauses)", cmd);
    Args a = {.top = SUMMARY_TOP, .windows = {1000000, 10000000, 100000000}, .n_windows = 3};
    int st = parse_args(argc, argv, cmd, &a);
    if (st >= 0)
        return st;
    switch (k) {
    case 0: return cmd_show(a.file);
    case 1: return cmd_check(a.file);
    case 2: return cmd_summary(a.file, a.json, (size_t)a.top);
    case 3: return cmd_pprof(a.file, a.out_path, a.sample, a.sample_given);
    default: return cmd_pauses(a.file, a.json, a.list, a.windows, a.n_windows);
    }
}
