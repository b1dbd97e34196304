/*
 * utils/strata-html/main.c -- strata-html: a heap profile (GHC-format
 * eventlog, or a .hp file with -p) to a self-contained interactive HTML
 * report, or its data as JSON; several inputs get one report each.
 * Command line and output files here; the profile is read, built and
 * written by the report library (utils/report/: ProfileEventlog.c,
 * ProfileHp.c, Profile.c, ReportJson.c, ReportPage.c).  Usage:
 * docs/strata-html.md.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "Cli.h"
#include "Profile.h"
#include "ProfileEventlog.h"
#include "ProfileHp.h"
#include "ReportAssets.h"
#include "ReportJson.h"
#include "ReportPage.h"

#define TOOL_NAME "strata-html"
#define TOOL_EXIT_OK 0
#define TOOL_EXIT_FAIL 1
#define TOOL_EXIT_USAGE 2

enum {
    OPT_OUTPUT = 'o', OPT_HP = 'p', OPT_INCLUDE = 'i', OPT_EXCLUDE = 'x', OPT_HELP = 'h',
    OPT_BANDS = 256, OPT_SORT, OPT_REVERSE, OPT_NO_TRACES, OPT_Y_AXIS, OPT_JSON, OPT_DIFF,
    OPT_NORMALISE_TIME, OPT_INCLUDE_TRACE_EVENTS, OPT_VERSION
};

static const CliOption options[] = {
    {NULL, 'o', "FILE", OPT_OUTPUT, NULL, "write here instead (- for standard output)"},
    {"json", 0, NULL, OPT_JSON, NULL, "write the report's data as JSON (default FILE.json)"},
    {"hp", 'p', NULL, OPT_HP, NULL, "the inputs are .hp files"},
    {"diff", 0, "FILE2", OPT_DIFF, NULL, "compare FILE (before) with FILE2 (after)"},
    {"normalise-time", 0, NULL, OPT_NORMALISE_TIME, NULL,
     "with --diff, draw both runs from 0 to 100 % of\ntheir own length (a check box on the page)"},
    {"bands", 0, "N", OPT_BANDS, NULL,
     "chart the N largest bands, the rest as OTHER\n(default 15; 0 = all); -he: up to N eras\n(default 50), past it the oldest in ranges"},
    {"sort", 0, "KEY", OPT_SORT, NULL,
     "order bands by size (default; number for -he),\nstddev, name, number or gradient"},
    {"reverse", 0, NULL, OPT_REVERSE, NULL, "reverse that order"},
    {"include-trace-events", 0, NULL, OPT_INCLUDE_TRACE_EVENTS, NULL,
     "draw traceEvent messages too (default: only\ntraceMarker markers)"},
    {"no-traces", 0, NULL, OPT_NO_TRACES, NULL, "draw no markers or trace messages"},
    {"include", 'i', "TEXT", OPT_INCLUDE, NULL, "keep traces containing TEXT (wins over -x)"},
    {"exclude", 'x', "TEXT", OPT_EXCLUDE, NULL, "drop traces containing TEXT"},
    {"y-axis", 0, "BYTES", OPT_Y_AXIS, NULL, "fix the top of the byte axes"},
    {"help", 'h', NULL, OPT_HELP, NULL, "this text"},
    {"version", 0, NULL, OPT_VERSION, NULL, "the version, and those of the inlined libraries"},
    CLI_END,
};

static void usage(FILE *out)
{
    cli_help(out, TOOL_NAME " [OPTION...] FILE... | FILE --diff FILE2",
             "Writes FILE.html, an interactive report of the heap profile in FILE (a GHC-format\n"
             "eventlog, or a .hp file with -p); open it in any browser, offline.  Several FILEs\n"
             "get one report each.",
             options, "FILE may be - for standard input.  See docs/strata-html.md.");
}

/* Reads one input into p; -1 after an error message. */
static int read_input(Profile *p, int hp)
{
    FILE *f = strcmp(p->path, "-") == 0 ? stdin : fopen(p->path, "rb");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot open %s: %s\n", TOOL_NAME, p->path, strerror(errno));
        return -1;
    }
    int rc = hp ? profile_read_hp(p, f, TOOL_NAME) : profile_read_eventlog(p, f, TOOL_NAME);
    if (f != stdin)
        fclose(f);
    if (rc == 0 && p->warning != NULL)
        fprintf(stderr, "%s: %s: warning: %s\n", TOOL_NAME, p->path, p->warning);
    if (rc == 0 && p->markers_dropped > 0)
        fprintf(stderr, "%s: %s: warning: only the first %d traces are drawn (%llu more)\n",
                TOOL_NAME, p->path, PROFILE_MAX_MARKERS, (unsigned long long)p->markers_dropped);
    return rc;
}

/* Note [Output by rename]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A report is written to a temporary file beside its path (PATH.XXXXXX)
 * and renamed over PATH once it is complete, so a run that fails half way
 * (a full disk, a file size limit) leaves the previous report as it was
 * and never a half page; the temporary file is removed on failure.  The
 * file gets the mode fopen would have given it (0666 less the umask), not
 * mkstemp's 0600.
 */
static FILE *open_temp(const char *path, char **tmp)
{
    *tmp = malloc(strlen(path) + 8);
    if (*tmp == NULL)
        return NULL;
    sprintf(*tmp, "%s.XXXXXX", path);
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        free(*tmp);
        *tmp = NULL;
        return NULL;
    }
    mode_t mask = umask(0);
    umask(mask);
    FILE *f = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "w") : NULL;
    if (f == NULL) {
        int e = errno;
        close(fd);
        unlink(*tmp);
        free(*tmp);
        *tmp = NULL;
        errno = e;
    }
    return f;
}

static int write_output(const char *path, const ReportOptions *o, Profile *const *ps, size_t n)
{
    int to_stdout = strcmp(path, "-") == 0;
    char *tmp = NULL;
    FILE *out = to_stdout ? stdout : open_temp(path, &tmp);
    if (out == NULL) {
        fprintf(stderr, "%s: cannot write %s: %s\n", TOOL_NAME, path, strerror(errno));
        return TOOL_EXIT_FAIL;
    }
    int oom = (o->json ? report_json_write(out, o, ps, n) : report_page_write(out, o, ps, n)) != 0;
    int bad = ferror(out);
    int err = errno;
    if (oom && !bad) {
        bad = 1;
        err = ENOMEM;
    }
    if ((to_stdout ? fflush(out) : fclose(out)) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    if (!bad && !to_stdout && rename(tmp, path) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        fprintf(stderr, "%s: cannot write %s: %s\n", TOOL_NAME, path, strerror(err));
        if (!to_stdout)
            unlink(tmp);
    }
    free(tmp);
    return bad ? TOOL_EXIT_FAIL : TOOL_EXIT_OK;
}

/* One report: inputs[0] (and the --diff input) to output, or to the
 * default path beside inputs[0]. */
static int one_report(const char *const *inputs, size_t n, const char *output, int hp,
                      const ReportOptions *o, const Filters *filters)
{
    char *default_output = NULL;
    if (output == NULL) {
        if (strcmp(inputs[0], "-") == 0) {
            output = "-";
        } else {
            default_output = malloc(strlen(inputs[0]) + 6);
            if (default_output == NULL) {
                fprintf(stderr, "%s: out of memory\n", TOOL_NAME);
                return TOOL_EXIT_FAIL;
            }
            sprintf(default_output, "%s.%s", inputs[0], o->json ? "json" : "html");
            output = default_output;
        }
    }
    Profile *ps[2] = { NULL, NULL };
    int status = TOOL_EXIT_OK;
    for (size_t i = 0; i < n && status == TOOL_EXIT_OK; i++) {
        ps[i] = malloc(sizeof *ps[i]);
        if (ps[i] == NULL) {
            fprintf(stderr, "%s: out of memory\n", TOOL_NAME);
            status = TOOL_EXIT_FAIL;
            break;
        }
        profile_init(ps[i], inputs[i], filters);
        if (read_input(ps[i], hp) != 0)
            status = TOOL_EXIT_FAIL;
    }
    if (status == TOOL_EXIT_OK && n == 2 && (ps[0]->from_hp != ps[1]->from_hp ||
                                             ps[0]->model.breakdown != ps[1]->model.breakdown))
        fprintf(stderr, "%s: warning: %s and %s are profiles of different kinds; "
                        "few bands will match\n", TOOL_NAME, ps[0]->path, ps[1]->path);
    if (status == TOOL_EXIT_OK)
        status = write_output(output, o, ps, n);
    for (size_t i = 0; i < n; i++)
        if (ps[i] != NULL) {
            profile_free(ps[i]);
            free(ps[i]);
        }
    free(default_output);
    return status;
}

/* What the command line asks for. */
typedef struct Args {
    ReportOptions o;
    Filters filters;
    const char *output, *diff;
    int hp;
} Args;

/* The options into a (a->filters' include and exclude arrays have room
 * for argc entries), the inputs into inputs[*n_inputs].  -1 to go on,
 * else the exit status (--help and --version done, or a usage error
 * said). */
static int parse_options(int argc, char **argv, Args *a, const char **inputs, size_t *n_inputs)
{
    ReportOptions *o = &a->o;
    Filters *filters = &a->filters;
    Cli c;
    int id;
    cli_start(&c, TOOL_NAME, NULL, options, argc, argv, 1);
    while ((id = cli_next(&c)) != CLI_DONE) {
        char *end;
        switch (id) {
        case CLI_ERROR:
            return TOOL_EXIT_USAGE;
        case CLI_OPERAND:
            inputs[(*n_inputs)++] = c.arg;
            break;
        case OPT_OUTPUT:
            a->output = c.arg;
            break;
        case OPT_HP:
            a->hp = 1;
            break;
        case OPT_INCLUDE:
            filters->include[filters->n_include++] = c.arg;
            break;
        case OPT_EXCLUDE:
            filters->exclude[filters->n_exclude++] = c.arg;
            break;
        case OPT_HELP:
            usage(stdout);
            return TOOL_EXIT_OK;
        case OPT_VERSION:
            printf("%s %s (%s)\n", TOOL_NAME, PACKAGE_VERSION, html_asset_versions);
            return TOOL_EXIT_OK;
        case OPT_INCLUDE_TRACE_EVENTS:
            filters->messages = 1;
            break;
        case OPT_BANDS:
            errno = 0;
            o->bands = strtol(c.arg, &end, 10);
            if (end == c.arg || *end != '\0' || errno != 0 || o->bands < 0 ||
                o->bands > 1000000)
                return cli_usage_error(&c, "--bands takes a whole number from 0 (all) to "
                                       "1000000, not: %s", c.arg);
            break;
        case OPT_SORT:
            if (!report_sort_parse(c.arg, &o->sort))
                return cli_usage_error(&c, "--sort takes size, stddev, name, number or "
                                       "gradient, not: %s", c.arg);
            o->sort_given = 1;
            break;
        case OPT_REVERSE:
            o->reverse = 1;
            break;
        case OPT_NO_TRACES:
            filters->no_traces = 1;
            break;
        case OPT_Y_AXIS:
            errno = 0;
            o->y_axis = strtod(c.arg, &end);
            if (end == c.arg || *end != '\0' || errno != 0 || !isfinite(o->y_axis) ||
                o->y_axis <= 0)
                return cli_usage_error(&c, "--y-axis takes a positive number of bytes, not: %s",
                                       c.arg);
            break;
        case OPT_JSON:
            o->json = 1;
            break;
        case OPT_DIFF:
            a->diff = c.arg;
            break;
        case OPT_NORMALISE_TIME:
            o->normalise_time = 1;
            break;
        }
    }
    return -1;
}

/* The inputs after the options, against them: 0 if fine, else the usage
 * error is said. */
static int check_inputs(const Args *a, const char *const *inputs, size_t n_inputs)
{
    const char *why = NULL;
    Cli c = {.tool = TOOL_NAME};
    if (n_inputs == 0)
        why = "missing FILE";
    else if (a->diff != NULL && n_inputs > 1)
        return cli_usage_error(&c, "--diff compares one FILE with FILE2, not several: %s",
                               inputs[1]);
    else if (a->output != NULL && n_inputs > 1)
        why = "-o names one report; several FILEs get one each, beside them";
    else if (a->o.normalise_time && a->diff == NULL)
        why = "--normalise-time needs --diff FILE2";
    else if (a->diff != NULL && strcmp(inputs[0], "-") == 0 && strcmp(a->diff, "-") == 0)
        why = "only one input can be standard input";
    for (size_t i = 0; why == NULL && i < n_inputs && n_inputs > 1; i++)
        if (strcmp(inputs[i], "-") == 0)
            why = "standard input (-) can only be read alone";
    return why != NULL ? cli_usage_error(&c, "%s", why) : 0;
}

int main(int argc, char **argv)
{
    Args a = { .o = REPORT_OPTIONS_DEFAULT };
    const char **incl = calloc((size_t)argc, sizeof *incl);
    const char **excl = calloc((size_t)argc, sizeof *excl);
    const char **inputs = calloc((size_t)argc, sizeof *inputs);
    size_t n_inputs = 0;
    int status = TOOL_EXIT_USAGE;
    if (incl == NULL || excl == NULL || inputs == NULL) {
        fprintf(stderr, "%s: out of memory\n", TOOL_NAME);
        free(incl);
        free(excl);
        free(inputs);
        return TOOL_EXIT_FAIL;
    }
    a.filters.include = incl;
    a.filters.exclude = excl;
    int st = parse_options(argc, argv, &a, inputs, &n_inputs);
    if (st >= 0) {
        status = st;
    } else if (check_inputs(&a, inputs, n_inputs) != 0) {
        status = TOOL_EXIT_USAGE;
    } else if (a.diff != NULL) {
        const char *pair[2] = { inputs[0], a.diff };
        status = one_report(pair, 2, a.output, a.hp, &a.o, &a.filters);
    } else {
        status = TOOL_EXIT_OK;
        for (size_t i = 0; i < n_inputs; i++)
            if (one_report(inputs + i, 1, a.output, a.hp, &a.o, &a.filters) != TOOL_EXIT_OK)
                status = TOOL_EXIT_FAIL;
    }
    free(incl);
    free(excl);
    free(inputs);
    return status;
}
