/*
 * rts/RtsFlags.c -- the command line's RTS options into the one RtsFlags
 * structure (Flags.h): from the GHCRTS environment variable first, then
 * from the +RTS ... -RTS groups of argv, which are removed from argv
 * (Note [RTS argument brackets]); each option through the table of
 * RtsOptions.c.  Then what depends on several options, the structure's
 * check, and the -? and --info texts.  Relies on Messages.h for error
 * output and on nothing else in the runtime; the caller (hs_init) acts on
 * show_usage/show_info and copies debug_flags to rts_debug_flags.
 * Reference: docs/reference/rts-flags.md.
 */
#include "RtsFlags.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "FlagValues.h"
#include "Messages.h"
#include "RtsOptions.h"

#define RTS_FLAGS_DEFAULTS                                                   \
    {                                                                        \
        .nursery_bytes = NURSERY_DEFAULT_BYTES,                              \
        .generations = 2,                                                    \
        .capabilities = 1,                                                   \
        .oldgen_factor = 2.0,                                                \
        .max_heap_bytes = 0,                                                 \
        .exit_wait_secs = 10.0,                                              \
        .stats_summary = false,                                              \
        .stats_per_gc = false,                                               \
        .stats_file = NULL,                                                  \
        .debug_flags = 0,                                                    \
        .heap_breakdown = HEAP_BY_NONE,                                      \
        .era_selected = false,                                               \
        .eras = {0, UINT64_MAX},   /* ERA_RANGE_ALL */                        \
        .census_interval_secs = 0.1,                                         \
        .census_every_tick = false,                                          \
        .automatic_heap_samples = true,                                      \
        .automatic_era_increment = false,                                    \
        .prefault = PREFAULT_AUTO,                                           \
        .promote_in_place = PROMOTE_IN_PLACE_AUTO,                           \
        .eventlog = false,                                                   \
        .eventlog_classes = EVENTLOG_CLASS_DEFAULT,                          \
        .eventlog_file = NULL,                                               \
        .eventlog_flush_secs = 0.0,                                          \
        .show_usage = false,                                                 \
        .show_info = false,                                                  \
    }

RtsFlags rts_flags = RTS_FLAGS_DEFAULTS;

void rts_flags_init_defaults(RtsFlags *flags)
{
    *flags = (RtsFlags)RTS_FLAGS_DEFAULTS;
}

void rts_flags_free(RtsFlags *flags)
{
    free(flags->stats_file);
    flags->stats_file = NULL;
    free(flags->eventlog_file);
    flags->eventlog_file = NULL;
    free(flags->debug_socket_path);
    flags->debug_socket_path = NULL;
    free(flags->eventlog_socket_path);
    flags->eventlog_socket_path = NULL;
    free(flags->eventlog_socket_tcp_host);
    flags->eventlog_socket_tcp_host = NULL;
}

bool rts_flags_parse_one(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    return rts_options_parse(flags, opt, err, err_len);
}

/* Parses the whitespace-separated words of s.  With report_all, each bad
 * word is reported on stderr and parsing goes on (GHC reports every bad
 * flag before giving up); without, the first bad word stops it and its
 * message is left in err. */
static bool parse_words(RtsFlags *flags, const char *s, bool report_all, char *err,
                        size_t err_len)
{
    const char *p = s;
    bool ok = true;

    for (;;) {
        const char *start;
        char *word;
        bool word_ok;

        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\0')
            break;
        start = p;
        while (*p != '\0' && !isspace((unsigned char)*p))
            p++;
        word = strndup(start, (size_t)(p - start));
        if (word == NULL) {
            word_ok = flag_error(err, err_len, "rts_flags: out of memory (bytes=%zu)",
                                 (size_t)(p - start) + 1);
        } else {
            word_ok = rts_flags_parse_one(flags, word, err, err_len);
            free(word);
        }
        if (!word_ok) {
            if (!report_all)
                return false;
            rts_error("%s", err);
            ok = false;
        }
    }
    return ok;
}

bool rts_flags_parse_string(RtsFlags *flags, const char *s, char *err, size_t err_len)
{
    return parse_words(flags, s, false, err, err_len);
}

/* ----------------------------------------------------------------------
 * argv processing
 * ------------------------------------------------------------------- */

/* Settles what depends on more than one option.  See Note [Era
 * selectors] and Note [Minimum -M] in RtsOptions.c. */
static void flags_normalise(RtsFlags *flags)
{
    if (flags->era_selected && flags->heap_breakdown == HEAP_BY_NONE)
        flags->heap_breakdown = HEAP_BY_CLOSURE_TYPE;
    if (flags->max_heap_bytes != 0 && flags->nursery_bytes > flags->max_heap_bytes) {
        rts_error("maximum heap size (-M) is smaller than minimum alloc area size (-A)");
        flags->nursery_bytes = flags->max_heap_bytes;
    }
}

/* Flags that --nonmoving-gc cannot honour, each named (after every option
 * is read, so that the order does not matter).  False if any. */
static bool nonmoving_conflicts_reported(const RtsFlags *flags)
{
    if (!flags->nonmoving)
        return true;
    bool ok = true;
    if (flags->generations < 2) {
        rts_error("--nonmoving-gc cannot be used with -G%u: the non-moving generation is the "
                  "oldest of at least two (use -G2 or more)", flags->generations);
        ok = false;
    }
    if (flags->promote_in_place == PROMOTE_IN_PLACE_ALWAYS && flags->generations == 2) {
        rts_error("--nonmoving-gc cannot be used with --promote-in-place=always at -G2: "
                  "generation 1 is the non-moving one, whose objects are copied into it "
                  "(use -G3, or --promote-in-place=auto)");
        ok = false;
    }
    return ok;
}

static bool parse_reporting(RtsFlags *flags, const char *opt)
{
    char err[512];
    if (rts_flags_parse_one(flags, opt, err, sizeof err))
        return true;
    rts_error("%s", err);
    return false;
}

/* Note [RTS argument brackets]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * As in GHC: arguments between +RTS and -RTS are RTS options, and there
 * may be several such groups; a +RTS without -RTS runs to the end; a
 * stray -RTS is dropped.  --RTS is dropped and ends all RTS processing,
 * so everything after it (even +RTS) goes to the program.  -- also ends
 * RTS processing but, unlike --RTS, is itself passed to the program.
 * Options in GHCRTS are read first, so the command line overrides them.
 * Every bad option is reported before we give up, then one hint line. */
bool rts_flags_process_args(RtsFlags *flags, int *argc, char ***argv)
{
    char **args = *argv;
    int n = *argc, in, out;
    bool in_rts = false, ok = true;
    char err[512];
    const char *env;

    if (args == NULL || n < 0)
        n = 0;
    if (n >= 1)
        rts_set_prog_name(args[0]);

    env = getenv("GHCRTS");
    if (env != NULL && !parse_words(flags, env, true, err, sizeof err))
        ok = false;

    in = out = n >= 1 ? 1 : 0;
    for (; in < n; in++) {
        const char *arg = args[in];
        if (strcmp(arg, "--RTS") == 0) {
            in++;
            break;
        }
        if (strcmp(arg, "--") == 0)
            break;
        if (strcmp(arg, "+RTS") == 0)
            in_rts = true;
        else if (strcmp(arg, "-RTS") == 0)
            in_rts = false;
        else if (in_rts)
            ok = parse_reporting(flags, arg) && ok;
        else
            args[out++] = args[in];
    }
    for (; in < n; in++)
        args[out++] = args[in];
    if (args != NULL)
        args[out] = NULL;
    *argc = out;

    if (ok)
        ok = nonmoving_conflicts_reported(flags);
    if (!ok) {
        rts_error("use `+RTS -?' for a list of RTS options");
        return false;
    }
    flags_normalise(flags);
    ASSERT(rts_flags_check(flags));
    return true;
}

/* ----------------------------------------------------------------------
 * Checking
 * ------------------------------------------------------------------- */

static bool size_ok(uint64_t bytes, uint64_t min_bytes)
{
    return bytes >= min_bytes && bytes <= SIZE_MAX_BYTES && (bytes & BLOCK_MASK) == 0;
}

static bool interval_ok(double secs)
{
    return isfinite(secs) && secs >= 0;
}

bool rts_flags_check(const RtsFlags *f)
{
    if (!size_ok(f->nursery_bytes, NURSERY_MIN_BYTES))
        return false;
    if (f->max_heap_bytes != 0 && !size_ok(f->max_heap_bytes, MAX_HEAP_MIN_BYTES))
        return false;
    if (f->generations < 1 || f->generations > GENERATIONS_MAX)
        return false;
    if (f->capabilities < 1 || f->capabilities > CAPABILITIES_MAX)
        return false;
    if (f->gc_threads > CAPABILITIES_MAX)
        return false;
    if (f->nonmoving && f->generations < 2)
        return false;
    if (!isfinite(f->oldgen_factor) || !(f->oldgen_factor > 0))
        return false;
    if (f->stats_per_gc && !f->stats_summary)   /* -S implies the summary */
        return false;
    if (f->stats_file != NULL && f->stats_file[0] == '\0')
        return false;
    if ((f->debug_flags & ~(unsigned)DEBUG_FLAGS_ALL) != 0)
        return false;
    switch (f->heap_breakdown) {
    case HEAP_BY_NONE: case HEAP_BY_MOD: case HEAP_BY_DESCR: case HEAP_BY_TYPE:
    case HEAP_BY_CLOSURE_TYPE: case HEAP_BY_INFO_TABLE: case HEAP_BY_ERA:
        break;
    default:
        return false;
    }
    if (f->era_selected && (f->eras.lo < 1 || f->eras.hi < f->eras.lo))
        return false;
    if (!interval_ok(f->census_interval_secs) || !interval_ok(f->eventlog_flush_secs) ||
        !interval_ok(f->exit_wait_secs))
        return false;
    if ((f->eventlog_classes & ~(unsigned)EVENTLOG_CLASS_ALL) != 0)
        return false;
    if (f->eventlog_file != NULL && f->eventlog_file[0] == '\0')
        return false;
    if (f->alloc_sample_bytes != 0 && (f->alloc_sample_bytes < ALLOC_SAMPLE_MIN_BYTES ||
                                       f->alloc_sample_bytes > SIZE_MAX_BYTES))
        return false;
    return true;
}

/* ----------------------------------------------------------------------
 * Usage text and --info
 * ------------------------------------------------------------------- */

void rts_flags_print_usage(FILE *f)
{
    rts_options_print_usage(f);
}

#if defined(__x86_64__)
#define BUILD_ARCH "x86_64"
#elif defined(__aarch64__)
#define BUILD_ARCH "aarch64"
#elif defined(__i386__)
#define BUILD_ARCH "i386"
#elif defined(__riscv) && __riscv_xlen == 64
#define BUILD_ARCH "riscv64"
#else
#define BUILD_ARCH "unknown"
#endif

#if defined(STRATA_ASAN)
#define BUILD_SANITIZERS "address,undefined"
#else
#define BUILD_SANITIZERS "NO"
#endif

/* GHC's --info layout: a Haskell list of (String, String) pairs. */
void rts_flags_print_info(FILE *f)
{
    fprintf(f, " [(\"GHC RTS\", \"NO\")\n");
    fprintf(f, " ,(\"RTS name\", \"strata\")\n");
    fprintf(f, " ,(\"RTS version\", \"%s\")\n", STRATA_VERSION);
    fprintf(f, " ,(\"Build platform\", \"%s-unknown-linux\")\n", BUILD_ARCH);
    fprintf(f, " ,(\"Debug level\", \"%d\")\n", (int)STRATA_DEBUG);
    fprintf(f, " ,(\"Sanitizers\", \"%s\")\n", BUILD_SANITIZERS);
    fprintf(f, " ,(\"Word size\", \"%u\")\n", (unsigned)(WORD_SIZE * 8));
    fprintf(f, " ,(\"Block size\", \"%lu\")\n", (unsigned long)BLOCK_SIZE);
    fprintf(f, " ,(\"Megablock size\", \"%lu\")\n", (unsigned long)MBLOCK_SIZE);
    fprintf(f, " ]\n");
}
