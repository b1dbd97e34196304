/*
 * rts/RtsOptions.c -- every RTS option, spelled as GHC spells it, as one
 * row of a table (Note [One table for the RTS options]): how its argument
 * is written, where its value goes in RtsFlags, its bounds, and its lines
 * of the usage text.  The values' syntax and messages are FlagValues.c's;
 * the options with a syntax of their own (-h, -l, -D, ...) have a parser
 * here.  Reference: docs/reference/rts-flags.md and heap-profile.md
 * (GHC's rts/RtsFlags.c); the Notes below record where we differ.
 */
#include "RtsOptions.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "FlagValues.h"
#include "Messages.h"
#include "os/Process.h"

/* Note [One table for the RTS options]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An option is one row: its spelling, how its argument follows it
 * (ArgForm), what its value is (ValueKind: a flag set or cleared, a size,
 * a count within bounds, seconds, or a parser of its own), the field of
 * RtsFlags it sets, and its lines of the `+RTS -?` text, so that adding an
 * option is adding a row, and the usage text cannot forget one.  An
 * option is matched to the row with the longest spelling it starts with
 * (-qn before -q), as the argument's form allows: nothing after an
 * ArgForm ARG_NONE spelling, '=' or nothing after an ARG_EQUALS or
 * ARG_OPTIONAL one, anything after an ARG_GLUED one.  Rows without a
 * spelling are text of the usage only.  Messages name the option and what
 * was expected, with the value given. */

typedef enum {
    ARG_NONE,       /* exactly the spelling: -?, --info */
    ARG_GLUED,      /* the argument right after it: -A64k, -G3, -N */
    ARG_EQUALS,     /* --name=VALUE; the bare spelling is an error */
    ARG_OPTIONAL,   /* --name or --name=VALUE */
} ArgForm;

typedef enum {
    VAL_TRUE,       /* a bool field set */
    VAL_FALSE,      /* a bool field cleared */
    VAL_SIZE,       /* a size (StgWord bytes) of at least min */
    VAL_SIZE_OR_0,  /* the same, or 0 for none */
    VAL_COUNT,      /* a whole number (unsigned) from min to max */
    VAL_SECONDS,    /* a number of seconds (double), at least 0 */
    VAL_PATH,       /* a string (char *, malloc'd) that may not be empty; a
                     * bare ARG_OPTIONAL leaves it as it is */
    VAL_WHEN,       /* auto|always|never, into an enum of those three in that
                     * order (RtsPrefault, PromoteInPlaceMode) */
    VAL_PARSER,     /* the row's parser */
} ValueKind;

/* A parser of a row: arg is what follows the spelling (after '=' for
 * ARG_EQUALS; NULL for a bare ARG_OPTIONAL). */
typedef bool OptionParser(RtsFlags *f, const char *opt, const char *arg, char *err,
                          size_t err_len);

typedef struct {
    const char *spelling;     /* NULL: a row of usage text only */
    ArgForm form;
    ValueKind value;
    size_t field;             /* offsetof(RtsFlags, ...) for every kind but VAL_PARSER */
    size_t also;              /* offsetof + 1 of a bool the option also sets (0: none) */
    uint64_t min, max;        /* VAL_SIZE*: min bytes; VAL_COUNT: bounds */
    const char *what;         /* VAL_COUNT: what is counted ("generations");
                               * VAL_PATH: what the string names ("filename") */
    const char *example;      /* VAL_COUNT: an example ("-G3") */
    OptionParser *parse;      /* VAL_PARSER */
    const char *expected;     /* ARG_EQUALS given bare: what should follow */
    const char *help;         /* its lines of the usage text, or NULL */
} RtsOption;

/* ----------------------------------------------------------------------
 * Options with a syntax of their own
 * ------------------------------------------------------------------- */

static bool unknown_option(const char *opt, char *err, size_t err_len)
{
    return flag_error(err, err_len, "unknown RTS option: %s", opt);
}

/* -N<n>: how many threads may hold a capability at once; -N alone: the
 * number of processors (GHC's rule). */
static bool opt_capabilities(RtsFlags *f, const char *opt, const char *arg, char *err,
                             size_t err_len)
{
    (void)opt;
    if (*arg == '\0') {
        long n = os_processor_count();
        f->capabilities = n < 1 ? 1 : n > CAPABILITIES_MAX ? CAPABILITIES_MAX : (unsigned)n;
        return true;
    }
    return flag_parse_count("-N", arg, 1, CAPABILITIES_MAX, "capabilities",
                            "-N4, or -N alone for one per processor", &f->capabilities, err,
                            err_len);
}

/* -qg<gen>: collect in parallel from generation gen up; -qg alone: never
 * in parallel. */
static bool opt_par_gc_gen(RtsFlags *f, const char *opt, const char *arg, char *err,
                           size_t err_len)
{
    (void)opt;
    uint64_t n;
    if (*arg == '\0') {
        f->par_gc_from_gen = PAR_GC_NEVER;
        return true;
    }
    if (!flag_parse_u64(arg, &n) || n >= PAR_GC_NEVER)
        return flag_error(err, err_len,
                          "-qg: bad generation '%s' (expected a generation number, e.g. "
                          "-qg1, or -qg alone for no parallel collection)", arg);
    f->par_gc_from_gen = (unsigned)n;
    return true;
}

/* -q and a letter strata does not have (GHC's -qa, -qb, ...). */
static bool opt_par_gc_other(RtsFlags *f, const char *opt, const char *arg, char *err,
                             size_t err_len)
{
    (void)f, (void)arg;
    return flag_error(err, err_len,
                      "unknown RTS option: %s (strata's parallel GC options are -qn<n> "
                      "and -qg[<gen>])", opt);
}

static bool opt_factor(RtsFlags *f, const char *opt, const char *arg, char *err,
                       size_t err_len)
{
    (void)opt;
    double v;
    if (!flag_parse_double(arg, &v))
        return flag_error(err, err_len,
                          "-F: bad factor '%s' (expected a number greater than 0, "
                          "e.g. -F1.5)", arg);
    if (!(v > 0))
        return flag_error(err, err_len, "-F: factor must be greater than 0 (got %s)", arg);
    f->oldgen_factor = v;
    return true;
}

/* -s[file] and -S[file].  As in GHC the last of them wins: -S prints a
 * line per GC and the summary, -s only the summary; the file named by
 * the last one (none, or "stderr", means stderr) takes the output. */
static bool opt_stats(RtsFlags *f, const char *opt, const char *arg, char *err,
                      size_t err_len)
{
    const char *file = *arg == '\0' || strcmp(arg, "stderr") == 0 ? NULL : arg;
    if (!flag_set_string(&f->stats_file, file, err, err_len))
        return false;
    f->stats_summary = true;
    f->stats_per_gc = opt[1] == 'S';
    return true;
}

static bool opt_debug(RtsFlags *f, const char *opt, const char *arg, char *err,
                      size_t err_len)
{
    unsigned bits = 0;
    if (*arg == '\0')
        return flag_error(err, err_len,
                          "-D: expected debug flags after -D (letters from S, g, b)");
    for (const char *c = arg; *c != '\0'; c++) {
        switch (*c) {
        case 'S': bits |= DEBUG_SANITY; break;
        case 'g': bits |= DEBUG_GC; break;
        case 'b': bits |= DEBUG_BLOCK; break;
        default:
            return flag_error(err, err_len,
                              "-D: unknown debug flag '%c' in %s (expected letters "
                              "from S, g, b)", *c, opt);
        }
    }
    f->debug_flags |= bits;
    return true;
}

/* ----------------------------------------------------------------------
 * Heap profiling
 * ------------------------------------------------------------------- */

/* Note [Minimum -M]
 * ~~~~~~~~~~~~~~~~~
 * GHC accepts any -M of at least one block.  strata takes memory from the
 * OS a megablock (1 MiB) at a time, so a limit below one megablock could
 * never be met: the first allocation would already exceed it.  -M0 means
 * unlimited, as in GHC.  An -A larger than -M is clamped to -M with GHC's
 * warning, in flags_normalise. */

/* Note [Era selectors]
 * ~~~~~~~~~~~~~~~~~~~~
 * -he alone chooses the era breakdown.  -he<n> (or -he{n}) is a selector:
 * only closures of era n are counted, whatever the breakdown; strata also
 * takes a range, -he<lo>-<hi>, inclusive.  Eras start at 1 (era 0 marks
 * closures that are never counted), so 0 and lo > hi are errors.
 *
 * A selector does not choose a breakdown, as in GHC: -hi -he3 is the
 * info-table profile of era 3.  GHC, given a selector and no breakdown,
 * runs no heap profile at all, so -he3 alone silently does nothing.
 * strata instead profiles by closure type (-hT), the default breakdown of
 * a non-profiled GHC (whose bare -h means -hT): the user asked about era
 * 3, and -hT is the breakdown that needs no extra information.  Since
 * the breakdown may come after the selector (-he3 -hi), this is settled
 * after all options are read, in flags_normalise. */
static bool parse_era_selector(RtsFlags *flags, const char *opt, const char *sel,
                               char *err, size_t err_len)
{
    char text[64];
    size_t len = strlen(sel);
    char *dash;
    uint64_t lo, hi;

    if (sel[0] == '{') {
        if (len < 2 || sel[len - 1] != '}')
            goto bad;
        sel++;
        len -= 2;
    }
    if (len == 0 || len >= sizeof text)
        goto bad;
    memcpy(text, sel, len);
    text[len] = '\0';
    dash = strchr(text, '-');
    if (dash != NULL)
        *dash = '\0';
    if (!flag_parse_u64(text, &lo))
        goto bad;
    hi = lo;
    if (dash != NULL && !flag_parse_u64(dash + 1, &hi))
        goto bad;
    if (lo < 1 || hi < lo || hi == UINT64_MAX)
        goto bad;
    flags->era_selected = true;
    flags->eras = (EraRange){lo, hi};
    return true;

bad:
    return flag_error(err, err_len,
                      "invalid heap profile option: %s (expected -he<era> or "
                      "-he<lo>-<hi> with 1 <= lo <= hi)",
                      opt);
}

static bool opt_heap_profile(RtsFlags *flags, const char *opt, const char *rest, char *err,
                             size_t err_len)
{
    HeapBreakdown by;

    switch (rest[0]) {
    case '\0':
        /* GHC's errorBelch: a warning, the flag still works. */
        rts_error("-h is deprecated, use -hT instead.");
        by = HEAP_BY_CLOSURE_TYPE;
        break;
    case 'T': by = HEAP_BY_CLOSURE_TYPE; break;
    case 'i': by = HEAP_BY_INFO_TABLE; break;
    case 'e': by = HEAP_BY_ERA; break;
    case 'd': by = HEAP_BY_DESCR; break;
    case 'y': by = HEAP_BY_TYPE; break;
    case 'm': by = HEAP_BY_MOD; break;
    default: return unknown_option(opt, err, err_len);
    }
    if (rest[0] != '\0' && rest[1] != '\0') {
        if (rest[0] == 'e')
            return parse_era_selector(flags, opt, rest + 1, err, err_len);
        /* GHC's -hd<descr>, -hy<type>, -hm<module> selectors: not (yet). */
        return flag_error(err, err_len, "invalid heap profile option: %s", opt);
    }
    /* GHC rejects a second breakdown even if it is the same one; we allow
     * a repeat (GHCRTS=-hT with +RTS -hT) and reject only a change. */
    if (flags->heap_breakdown != HEAP_BY_NONE && flags->heap_breakdown != by)
        return flag_error(err, err_len, "multiple heap profile options");
    flags->heap_breakdown = by;
    return true;
}

/* -i<secs>; a bare -i keeps the default, as in GHC. */
static bool opt_interval(RtsFlags *f, const char *opt, const char *arg, char *err,
                         size_t err_len)
{
    (void)opt;
    return *arg == '\0' || flag_parse_seconds("-i", arg, &f->census_interval_secs, err, err_len);
}

/* --census-gc=<budget|every-tick>: whether an -i tick may force the major
 * GC its census needs.  Not a GHC flag; the spelling follows GHC's long
 * options (--copying-gc, --nonmoving-gc). */
static bool opt_census_gc(RtsFlags *f, const char *opt, const char *arg, char *err,
                          size_t err_len)
{
    (void)opt;
    if (strcmp(arg, "budget") == 0)
        f->census_every_tick = false;
    else if (strcmp(arg, "every-tick") == 0)
        f->census_every_tick = true;
    else
        return flag_error(err, err_len,
                          "--census-gc: expected budget or every-tick (got '%s')", arg);
    return true;
}

/* ----------------------------------------------------------------------
 * The eventlog and the debugger's socket
 * ------------------------------------------------------------------- */

/* -l[classes]: as GHC, each -l first turns the default classes (sgpu) on,
 * then each letter turns its class on, or off after a '-' ("-l-s": all
 * defaults but the scheduler; "-l-ag": only GC).  Unlike GHC, which warns
 * and goes on, an unknown letter is an error. */
static bool opt_eventlog(RtsFlags *flags, const char *opt, const char *arg, char *err,
                         size_t err_len)
{
    unsigned classes = flags->eventlog_classes | EVENTLOG_CLASS_DEFAULT;
    bool enable = true;
    const char *c;
    (void)opt;

    for (c = arg; *c != '\0'; c++) {
        unsigned bit;
        switch (*c) {
        case '-': enable = false; continue;
        case 's': bit = EVENTLOG_CLASS_SCHED; break;
        case 'g': bit = EVENTLOG_CLASS_GC; break;
        case 'n': bit = EVENTLOG_CLASS_NONMOVING; break;
        case 'p': bit = EVENTLOG_CLASS_SPARKS_SAMPLED; break;
        case 'f': bit = EVENTLOG_CLASS_SPARKS_FULL; break;
        case 'u': bit = EVENTLOG_CLASS_USER; break;
        case 'T': bit = EVENTLOG_CLASS_TICKY; break;
        case 'a': bit = EVENTLOG_CLASS_ALL; break;
        default: return flag_error(err, err_len, "unknown trace option: %c", *c);
        }
        classes = enable ? (classes | bit) : (classes & ~bit);
        enable = true;
    }
    flags->eventlog = true;
    flags->eventlog_classes = classes;
    return true;
}

/* --eventlog-socket-tcp=HOST:PORT, HOST may be empty (loopback) or an
 * IPv6 address in brackets.  Turns the eventlog on, as -l does. */
static bool opt_socket_tcp(RtsFlags *flags, const char *opt, const char *arg, char *err,
                           size_t err_len)
{
    (void)opt;
    const char *colon = strrchr(arg, ':');
    if (colon == NULL)
        return flag_error(err, err_len, "--eventlog-socket-tcp: expected HOST:PORT (got '%s')",
                          arg);
    const char *host = arg;
    size_t host_len = (size_t)(colon - arg);
    if (host_len >= 2 && host[0] == '[' && host[host_len - 1] == ']') {
        host++;
        host_len -= 2;
    }
    uint16_t port;
    if (!flag_parse_port("--eventlog-socket-tcp", colon + 1, &port, err, err_len))
        return false;
    char *copy = strndup(host, host_len);
    if (copy == NULL)
        return flag_error(err, err_len, "rts_flags: out of memory (bytes=%zu)", host_len + 1);
    free(flags->eventlog_socket_tcp_host);
    flags->eventlog_socket_tcp_host = copy;
    flags->eventlog_socket_tcp_port = port;
    flags->eventlog_socket_tcp = true;
    flags->eventlog = true;
    return true;
}

/* --alloc-sample[=<size>]: sample one allocated object per <size> bytes
 * on average, with its call stack (docs/design/alloc-sampling.md); bare,
 * at the default rate.  Not a GHC flag. */
static bool opt_alloc_sample(RtsFlags *f, const char *opt, const char *arg, char *err,
                             size_t err_len)
{
    (void)opt;
    if (arg == NULL) {
        f->alloc_sample_bytes = ALLOC_SAMPLE_DEFAULT_BYTES;
        return true;
    }
    return flag_parse_bytes("--alloc-sample", arg, ALLOC_SAMPLE_MIN_BYTES, false,
                            &f->alloc_sample_bytes, err, err_len);
}

/* ----------------------------------------------------------------------
 * The table
 * ------------------------------------------------------------------- */

/* VAL_WHEN stores a FlagWhen into these enums: the same three, in order.
 * --prefault and --promote-in-place are not GHC flags. */
_Static_assert(PREFAULT_AUTO == (int)WHEN_AUTO && PREFAULT_ALWAYS == (int)WHEN_ALWAYS &&
               PREFAULT_NEVER == (int)WHEN_NEVER && sizeof(RtsPrefault) == sizeof(unsigned),
               "RtsPrefault is FlagWhen");
_Static_assert(PROMOTE_IN_PLACE_AUTO == (int)WHEN_AUTO &&
               PROMOTE_IN_PLACE_ALWAYS == (int)WHEN_ALWAYS &&
               PROMOTE_IN_PLACE_NEVER == (int)WHEN_NEVER &&
               sizeof(PromoteInPlaceMode) == sizeof(unsigned),
               "PromoteInPlaceMode is FlagWhen");

#define FIELD(name) .field = offsetof(RtsFlags, name)
#define ALSO(name) .also = offsetof(RtsFlags, name) + 1

static const RtsOption rts_options[] = {
    {.help = "\n"
             "Usage: <prog> <args> [+RTS <rtsopts> | -RTS <args>] ... --RTS <args>\n"
             "\n"
             "   +RTS    Indicates run time system options follow\n"
             "   -RTS    Indicates program arguments follow\n"
             "  --RTS    Indicates that ALL subsequent arguments will be given to the\n"
             "           program (including any of these RTS flags)\n"
             "   --      Like --RTS, but is itself given to the program\n"
             "\n"
             "The following run time system options are available:\n"
             "\n"},
    {"-?", ARG_NONE, VAL_TRUE, FIELD(show_usage),
     .help = "  -?       Prints this message and exits; the program is not executed\n"},
    {"--info", ARG_NONE, VAL_TRUE, FIELD(show_info),
     .help = "  --info   Print information about the RTS used by this program\n"
             "\n"},
    {"-A", ARG_GLUED, VAL_SIZE, FIELD(nursery_bytes), .min = NURSERY_MIN_BYTES,
     .help = "  -A<size> Sets the minimum allocation area size (default 4m, at least 8k)\n"
             "           Egs: -A20m -A64k\n"},
    {"-F", ARG_GLUED, VAL_PARSER, .parse = opt_factor,
     .help = "  -F<n>    Sets the collecting threshold for old generations as a factor\n"
             "           of the live data in that generation the last time it was\n"
             "           collected (default: 2.0, must be greater than 0); with\n"
             "           --nonmoving-gc, the size the oldest generation may reach\n"
             "           while a cycle runs, as a factor of what the last one found live\n"},
    {"-M", ARG_GLUED, VAL_SIZE_OR_0, FIELD(max_heap_bytes), .min = MAX_HEAP_MIN_BYTES,
     .help = "  -M<size> Sets the maximum heap size (default unlimited; 0 = unlimited,\n"
             "           otherwise at least 1m)  Egs: -M256m -M1G\n"},
    {"-G", ARG_GLUED, VAL_COUNT, FIELD(generations), .min = 1, .max = GENERATIONS_MAX,
     .what = "generations", .example = "-G3",
     .help = "  -G<n>    Number of generations (default: 2, at least 1)\n"},
    {"-N", ARG_GLUED, VAL_PARSER, .parse = opt_capabilities,
     .help = "  -N[<n>]  Use <n> capabilities: threads that may mutate the heap at once\n"
             "           (default: 1; -N alone: one per processor)\n"},
    {"-qn", ARG_GLUED, VAL_COUNT, FIELD(gc_threads), .min = 1, .max = CAPABILITIES_MAX,
     .what = "GC threads", .example = "-qn2",
     .help = "  -qn<n>   Use <n> GC threads, at most one per capability (default: one\n"
             "           per capability)\n"},
    {"--exit-wait", ARG_EQUALS, VAL_SECONDS, FIELD(exit_wait_secs), .expected = "=<secs>",
     .help = "  --exit-wait=<secs>\n"
             "           How long hs_exit waits for the program's other attached\n"
             "           threads to let go before it stops them (default: 10)\n"},
    {"--prefault", ARG_EQUALS, VAL_WHEN, FIELD(prefault),
     .expected = "=auto, =always or =never",
     .help = "  --prefault=<when>\n"
             "           Whether a helper thread faults in the memory the heap is about\n"
             "           to grow into, so the GC and the mutator need not (default: auto)\n"
             "             auto    when more processors are available than capabilities\n"
             "             always  whatever the processors\n"
             "             never\n"},
    {"--promote-in-place", ARG_EQUALS, VAL_WHEN, FIELD(promote_in_place),
     .expected = "=auto, =always or =never",
     .help = "  --promote-in-place=<when>\n"
             "           Whether a minor GC may make the nursery's blocks part of the\n"
             "           old generation instead of copying what is alive in them\n"
             "           (default: auto)\n"
             "             auto    when the last copying minor GC found at least 3/4\n"
             "                     of the nursery alive\n"
             "             always  at every minor GC that can (for testing)\n"
             "             never\n"},
    {"--nonmoving-gc", ARG_NONE, VAL_TRUE, FIELD(nonmoving),
     .help = "  --nonmoving-gc, -xn\n"
             "           The oldest generation is marked and swept beside the program\n"
             "           instead of copied: pauses that do not grow with the heap (needs\n"
             "           -G2 or more).  The nursery is -A's, 4m by default as without it;\n"
             "           -A1m shortens minor GCs that copy much, at a cost in throughput\n"},
    {"-xn", ARG_NONE, VAL_TRUE, FIELD(nonmoving)},   /* GHC's alias */
    {"-qg", ARG_GLUED, VAL_PARSER, .parse = opt_par_gc_gen,
     .help = "  -qg[<n>] Collect in parallel only generations <n> and older (default 0);\n"
             "           -qg alone: never collect in parallel\n"
             "\n"},
    {"-q", ARG_GLUED, VAL_PARSER, .parse = opt_par_gc_other},
    {.help = "  Sizes take a suffix k, m, g, t (powers of 1024) or w (words), and may\n"
             "  have a fraction: -A1.5m.  -A and -M are rounded down to whole blocks.\n"
             "\n"},
    {"-s", ARG_GLUED, VAL_PARSER, .parse = opt_stats,
     .help = "  -s[<file>] Summary  GC statistics (if <file> omitted, uses stderr)\n"},
    {"-S", ARG_GLUED, VAL_PARSER, .parse = opt_stats,
     .help = "  -S[<file>] Detailed GC statistics (if <file> omitted, uses stderr)\n"
             "\n"},
    {"-h", ARG_GLUED, VAL_PARSER, .parse = opt_heap_profile,
     .help = "  -h       Heap residency profile by closure type (deprecated: use -hT)\n"
             "  -h<break-down> Heap residency profile by one break-down:\n"
             "                   T  closure type (constructors by name)\n"
             "                   i  info table (IPE events name each table)\n"
             "                   e  era (GHC needs a profiling build; strata does not)\n"
             "                   d  closure description (the info table's provenance)\n"
             "                   y  type description (the info table's provenance)\n"
             "                   m  module (the info table's provenance)\n"
             "  -he<era>      Profile only the closures of the given era (also\n"
             "                -he{<era>}), by any break-down (alone: by closure type, -hT)\n"
             "  -he<lo>-<hi>  Profile only the closures of eras <lo> to <hi>, inclusive\n"},
    {"-i", ARG_GLUED, VAL_PARSER, .parse = opt_interval,
     .help = "  -i<sec>  Time between heap profile samples (seconds, default: 0.1;\n"
             "           0 = at every major GC)\n"},
    {"--census-gc", ARG_EQUALS, VAL_PARSER, .parse = opt_census_gc,
     .expected = "=budget or =every-tick",
     .help = "  --census-gc=<policy>\n"
             "           What an -i tick may do to get its census (default: budget)\n"
             "             budget      force a major GC only within a 5% budget of the\n"
             "                         run; otherwise wait for the next major GC, so\n"
             "                         some ticks get no census of their own\n"
             "             every-tick  force a major GC at every tick (as GHC does)\n"
             "           +RTS -s says how many censuses were asked for and taken\n"},
    {"--no-automatic-heap-samples", ARG_NONE, VAL_FALSE, FIELD(automatic_heap_samples),
     .help = "  --no-automatic-heap-samples\n"
             "           Do not start the heap profile timer: censuses are taken only\n"
             "           when the program or an eventlog socket client asks for them\n"
             "           (none at -i0's major GCs, none at exit)\n"},
    {"--automatic-era-increment", ARG_NONE, VAL_TRUE, FIELD(automatic_era_increment),
     .help = "  --automatic-era-increment\n"
             "           Advance the era by one after every major GC (not while it is 0)\n"},
    {"--alloc-sample", ARG_OPTIONAL, VAL_PARSER, .parse = opt_alloc_sample,
     .help = "  --alloc-sample[=<size>]\n"
             "           Sample one allocated object per <size> bytes on average\n"
             "           (default 512k), with its call stack, into the eventlog and\n"
             "           strata-live, and follow it until it dies (default: off)\n"
             "\n"},
    {"--debug-socket", ARG_OPTIONAL, VAL_PATH, FIELD(debug_socket_path), ALSO(debug_socket),
     .what = "a socket path",
     .help = "  --debug-socket[=<path>]\n"
             "           Start the heap debugger's stub on a Unix socket (default path:\n"
             "           $XDG_RUNTIME_DIR/strata/debug/<pid>-<program>); see strata-debug\n"
             "\n"},
    {"-ol", ARG_GLUED, VAL_PATH, FIELD(eventlog_file), .what = "filename",
     .help = "  -ol<file>  Send binary eventlog to <file> (default: <program>.eventlog)\n"},
    {"-l", ARG_GLUED, VAL_PARSER, .parse = opt_eventlog,
     .help = "  -l[flags]  Log events to a file\n"
             "             where [flags] can contain:\n"
             "                s    scheduler events\n"
             "                g    GC and heap events\n"
             "                n    non-moving GC heap census events\n"
             "                p    par spark events (sampled)\n"
             "                f    par spark events (full detail)\n"
             "                u    user events (emitted from Haskell code)\n"
             "                T    ticky-ticky counter samples\n"
             "                a    all event classes above\n"
             "               -x    disable an event class, for any flag above\n"
             "             the initial enabled event classes are 'sgpu'\n"},
    {"--eventlog-flush-interval", ARG_EQUALS, VAL_SECONDS, FIELD(eventlog_flush_secs),
     .expected = "=<secs>",
     .help = "  --eventlog-flush-interval=<secs>\n"
             "             Periodically flush the eventlog at the specified interval\n"
             "             (default: 0, never)\n"},
    {"--eventlog-socket", ARG_EQUALS, VAL_PATH, FIELD(eventlog_socket_path), ALSO(eventlog),
     .what = "a socket path", .expected = "=PATH",
     .help = "  --eventlog-socket=<path>\n"
             "             Stream the eventlog to clients of a Unix socket at <path>\n"
             "             (mode 0600; turns on -l; with -ol<file> also to <file>);\n"
             "             clients may send control commands (strata-live --send)\n"},
    {"--eventlog-socket-tcp", ARG_EQUALS, VAL_PARSER, .parse = opt_socket_tcp,
     .expected = "=HOST:PORT",
     .help = "  --eventlog-socket-tcp=<host>:<port>\n"
             "             The same over TCP (an empty <host> is 127.0.0.1; port 0\n"
             "             picks a free port and prints it); without either flag,\n"
             "             $GHC_EVENTLOG_SOCKET, or $GHC_EVENTLOG_TCP_HOST and _PORT, with -l\n"},
    {"--eventlog-socket-wait", ARG_NONE, VAL_TRUE, FIELD(eventlog_socket_wait),
     .help = "  --eventlog-socket-wait\n"
             "             Wait in hs_init until a client has connected\n"
             "\n"},
    {"-D", ARG_GLUED, VAL_PARSER, .parse = opt_debug,
     .help = "  -D<flags>  Debugging checks and output, where [flags] can contain:\n"
             "                S    sanity: check the whole heap around every GC\n"
             "                g    GC: trace each collection\n"
             "                b    block allocator\n"
             "\n"},
    {.help = "RTS options may also be specified using the GHCRTS environment variable.\n"
             "\n"},
};

#define N_RTS_OPTIONS (sizeof rts_options / sizeof rts_options[0])

/* Whether opt is spelled as row o: its spelling, then what o's argument
 * form allows (Note [One table for the RTS options]); a one-letter flag
 * of no argument matches with one, which is then refused by name. */
static bool spelled(const RtsOption *o, const char *opt)
{
    size_t n = strlen(o->spelling);
    if (strncmp(opt, o->spelling, n) != 0)
        return false;
    switch (o->form) {
    case ARG_NONE:
        return opt[n] == '\0' || o->spelling[1] != '-';
    case ARG_GLUED:
        return true;
    case ARG_EQUALS:
    case ARG_OPTIONAL:
        return opt[n] == '\0' || opt[n] == '=';
    }
    return false;
}

/* The row of opt: the longest spelling that spells it, or NULL. */
static const RtsOption *option_of(const char *opt)
{
    const RtsOption *best = NULL;
    for (size_t i = 0; i < N_RTS_OPTIONS; i++) {
        const RtsOption *o = &rts_options[i];
        if (o->spelling != NULL && spelled(o, opt) &&
            (best == NULL || strlen(o->spelling) > strlen(best->spelling)))
            best = o;
    }
    return best;
}

/* Sets row o's value from arg (what follows the spelling, or the '='). */
static bool set_value(RtsFlags *f, const RtsOption *o, const char *opt, const char *arg,
                      char *err, size_t err_len)
{
    void *field = (char *)f + o->field;
    switch (o->value) {
    case VAL_TRUE:
    case VAL_FALSE:
        *(bool *)field = o->value == VAL_TRUE;
        return true;
    case VAL_SIZE:
    case VAL_SIZE_OR_0:
        return flag_parse_size(o->spelling, arg, o->min, o->value == VAL_SIZE_OR_0, field, err,
                               err_len);
    case VAL_COUNT:
        return flag_parse_count(o->spelling, arg, o->min, o->max, o->what, o->example, field,
                                err, err_len);
    case VAL_SECONDS:
        return flag_parse_seconds(o->spelling, arg, field, err, err_len);
    case VAL_PATH:
        if (arg == NULL)
            return true;
        if (*arg == '\0')
            return flag_error(err, err_len, "%s%s expects %s", o->spelling,
                              o->form == ARG_GLUED ? "" : "=", o->what);
        return flag_set_string(field, arg, err, err_len);
    case VAL_WHEN: {
        FlagWhen when;
        if (!flag_parse_when(o->spelling, arg, &when, err, err_len))
            return false;
        *(unsigned *)field = (unsigned)when;
        return true;
    }
    case VAL_PARSER:
        return o->parse(f, opt, arg, err, err_len);
    }
    return unknown_option(opt, err, err_len);
}

bool rts_options_parse(RtsFlags *f, const char *opt, char *err, size_t err_len)
{
    if (opt[0] != '-')
        return flag_error(err, err_len, "unexpected RTS argument: %s", opt);
    const RtsOption *o = option_of(opt);
    if (o == NULL)
        return unknown_option(opt, err, err_len);
    const char *arg = opt + strlen(o->spelling);
    switch (o->form) {
    case ARG_NONE:
        if (*arg != '\0')
            return flag_error(err, err_len,
                              "flag %s given an argument when none was expected: %s",
                              o->spelling, opt);
        break;
    case ARG_EQUALS:
        if (*arg == '\0')
            return flag_error(err, err_len, "%s: expected %s (got nothing)", o->spelling,
                              o->expected);
        arg++;
        break;
    case ARG_OPTIONAL:
        arg = *arg == '\0' ? NULL : arg + 1;
        break;
    case ARG_GLUED:
        break;
    }
    if (!set_value(f, o, opt, arg, err, err_len))
        return false;
    if (o->also != 0)
        *(bool *)((char *)f + o->also - 1) = true;
    return true;
}

void rts_options_print_usage(FILE *f)
{
    for (size_t i = 0; i < N_RTS_OPTIONS; i++)
        if (rts_options[i].help != NULL)
            fputs(rts_options[i].help, f);
}
