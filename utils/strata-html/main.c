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
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void usage(FILE *out)
{
    fprintf(out,
            "usage: %s [OPTION...] FILE... | FILE --diff FILE2\n"
            "Writes FILE.html, an interactive report of the heap profile in FILE (a GHC-format\n"
            "eventlog, or a .hp file with -p); open it in any browser, offline.  Several FILEs\n"
            "get one report each.\n"
            "  -o FILE                 write here instead (- for standard output)\n"
            "  --json                  write the report's data as JSON (default FILE.json)\n"
            "  -p, --hp                the inputs are .hp files\n"
            "  --diff FILE2            compare FILE (before) with FILE2 (after)\n"
            "  --normalise-time        with --diff, draw both runs from 0 to 100 %% of\n"
            "                          their own length (a check box on the page)\n"
            "  --bands N               chart the N largest bands, the rest as OTHER\n"
            "                          (default 15; 0 = all); -he: up to N eras\n"
            "                          (default 50), past it the oldest in ranges\n"
            "  --sort KEY              order bands by size (default; number for -he),\n"
            "                          stddev, name, number or gradient\n"
            "  --reverse               reverse that order\n"
            "  --include-trace-events  draw traceEvent messages too (default: only\n"
            "                          traceMarker markers)\n"
            "  --no-traces             draw no markers or trace messages\n"
            "  -i, --include TEXT      keep traces containing TEXT (wins over -x)\n"
            "  -x, --exclude TEXT      drop traces containing TEXT\n"
            "  --y-axis BYTES          fix the top of the byte axes\n"
            "  -h, --help              this text\n"
            "  --version               the version, and those of the inlined libraries\n"
            "FILE may be - for standard input.  See docs/strata-html.md.\n",
            TOOL_NAME);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s\n", TOOL_NAME, what, arg ? ": " : "", arg ? arg : "");
    fprintf(stderr, "Try '%s --help'.\n", TOOL_NAME);
    return TOOL_EXIT_USAGE;
}

enum {
    OPT_BANDS = 256, OPT_SORT, OPT_REVERSE, OPT_NO_TRACES, OPT_Y_AXIS, OPT_JSON, OPT_DIFF,
    OPT_NORMALISE_TIME, OPT_INCLUDE_TRACE_EVENTS, OPT_VERSION
};

static const struct option long_options[] = {
    { "bands", required_argument, NULL, OPT_BANDS },
    { "sort", required_argument, NULL, OPT_SORT },
    { "reverse", no_argument, NULL, OPT_REVERSE },
    { "no-traces", no_argument, NULL, OPT_NO_TRACES },
    { "include", required_argument, NULL, 'i' },
    { "exclude", required_argument, NULL, 'x' },
    { "y-axis", required_argument, NULL, OPT_Y_AXIS },
    { "json", no_argument, NULL, OPT_JSON },
    { "diff", required_argument, NULL, OPT_DIFF },
    { "normalise-time", no_argument, NULL, OPT_NORMALISE_TIME },
    { "hp", no_argument, NULL, 'p' },
    { "help", no_argument, NULL, 'h' },
    { "version", no_argument, NULL, OPT_VERSION },
    { "include-trace-events", no_argument, NULL, OPT_INCLUDE_TRACE_EVENTS },
    { NULL, 0, NULL, 0 },
};

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
 * for argc entries).  -1 to go on, else the exit status (--help and
 * --version done, or a usage error said). */
static int parse_options(int argc, char **argv, Args *a)
{
    ReportOptions *o = &a->o;
    Filters *filters = &a->filters;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:pi:x:h", long_options, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'o':
            a->output = optarg;
            break;
        case 'p':
            a->hp = 1;
            break;
        case 'i':
            filters->include[filters->n_include++] = optarg;
            break;
        case 'x':
            filters->exclude[filters->n_exclude++] = optarg;
            break;
        case 'h':
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
            o->bands = strtol(optarg, &end, 10);
            if (end == optarg || *end != '\0' || errno != 0 || o->bands < 0 ||
                o->bands > 1000000) {
                usage_error("--bands takes a whole number from 0 (all) to 1000000, not", optarg);
                return TOOL_EXIT_USAGE;
            }
            break;
        case OPT_SORT:
            if (!report_sort_parse(optarg, &o->sort)) {
                usage_error("--sort takes size, stddev, name, number or gradient, not", optarg);
                return TOOL_EXIT_USAGE;
            }
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
            o->y_axis = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || errno != 0 || !isfinite(o->y_axis) ||
                o->y_axis <= 0) {
                usage_error("--y-axis takes a positive number of bytes, not", optarg);
                return TOOL_EXIT_USAGE;
            }
            break;
        case OPT_JSON:
            o->json = 1;
            break;
        case OPT_DIFF:
            a->diff = optarg;
            break;
        case OPT_NORMALISE_TIME:
            o->normalise_time = 1;
            break;
        case ':':
            usage_error("option needs an argument", argv[optind - 1]);
            return TOOL_EXIT_USAGE;
        default:
            usage_error("unknown option", argv[optind - 1]);
            return TOOL_EXIT_USAGE;
        }
    }
    return -1;
}

/* The inputs after the options, against them: 0 if fine, else the usage
 * error is said. */
static int check_inputs(const Args *a, const char *const *inputs, size_t n_inputs)
{
    if (n_inputs == 0) {
        usage_error("missing FILE", NULL);
        return -1;
    }
    if (a->diff != NULL && n_inputs > 1) {
        usage_error("--diff compares one FILE with FILE2, not several", inputs[1]);
        return -1;
    }
    if (a->output != NULL && n_inputs > 1) {
        usage_error("-o names one report; several FILEs get one each, beside them", NULL);
        return -1;
    }
    for (size_t i = 0; i < n_inputs && n_inputs > 1; i++)
        if (strcmp(inputs[i], "-") == 0) {
            usage_error("standard input (-) can only be read alone", NULL);
            return -1;
        }
    if (a->o.normalise_time && a->diff == NULL) {
        usage_error("--normalise-time needs --diff FILE2", NULL);
        return -1;
    }
    if (a->diff != NULL && strcmp(inputs[0], "-") == 0 && strcmp(a->diff, "-") == 0) {
        usage_error("only one input can be standard input", NULL);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    Args a = { .o = REPORT_OPTIONS_DEFAULT };
    const char **incl = calloc((size_t)argc, sizeof *incl);
    const char **excl = calloc((size_t)argc, sizeof *excl);
    int status = TOOL_EXIT_USAGE;
    if (incl == NULL || excl == NULL) {
        fprintf(stderr, "%s: out of memory\n", TOOL_NAME);
        return TOOL_EXIT_FAIL;
    }
    a.filters.include = incl;
    a.filters.exclude = excl;
    int st = parse_options(argc, argv, &a);
    size_t n_inputs = optind < argc ? (size_t)(argc - optind) : 0;
    const char *const *inputs = (const char *const *)argv + optind;
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
    return status;
}
