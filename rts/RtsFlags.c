/*
 * rts/RtsFlags.c -- parses RTS options, spelled as GHC spells them, into
 * the one RtsFlags structure (see RtsFlags.h), and prints the -? usage
 * text and the --info block.
 *
 * Options come from the GHCRTS environment variable first, then from the
 * +RTS ... -RTS groups of argv, which are removed from argv.  Relies on
 * Messages.h for error output and on nothing else in the runtime; the
 * caller (hs_init) acts on show_usage/show_info and copies debug_flags to
 * rts_debug_flags.  Reference: docs/reference/rts-flags.md
 * and heap-profile.md (GHC's rts/RtsFlags.c); the Notes below record where we differ.
 */
#include "RtsFlags.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "Messages.h"
#include "os/Process.h"

/* ----------------------------------------------------------------------
 * Limits and defaults
 * ------------------------------------------------------------------- */

/* -A: two blocks, so that allocate() always has a block to grab (GHC). */
#define NURSERY_MIN_BYTES ((uint64_t)2 * BLOCK_SIZE)
#define NURSERY_DEFAULT_BYTES ((StgWord)4 * 1024 * 1024)

/* -M: see Note [Minimum -M]. */
#define MAX_HEAP_MIN_BYTES ((uint64_t)MBLOCK_SIZE)

/* Note [Largest size]
 * ~~~~~~~~~~~~~~~~~~~
 * Every size flag is capped at 128 TiB, the user address space of x86-64
 * Linux: no heap can be larger, and the cap keeps every product of a
 * size and a small count well inside 64 bits.  GHC caps at HS_INT_MAX;
 * a 2^63-byte nursery is no more meaningful than a 2^47-byte one, and a
 * cap we can print as "128t" makes a better error message. */
#define SIZE_MAX_BYTES ((uint64_t)1 << 47)

/* -G: the block descriptor keeps the generation in a uint16_t. */
#define CAPABILITIES_MAX 256u   /* cap numbers stay small in the eventlog */
#define GENERATIONS_MAX UINT16_MAX

#define DEBUG_FLAGS_ALL (DEBUG_SANITY | DEBUG_GC | DEBUG_BLOCK)
#define EVENTLOG_CLASS_ALL                                                   \
    (EVENTLOG_CLASS_SCHED | EVENTLOG_CLASS_GC | EVENTLOG_CLASS_NONMOVING |   \
     EVENTLOG_CLASS_SPARKS_SAMPLED | EVENTLOG_CLASS_SPARKS_FULL |            \
     EVENTLOG_CLASS_USER | EVENTLOG_CLASS_TICKY)

#define RTS_FLAGS_DEFAULTS                                                   \
    {                                                                        \
        .nursery_bytes = NURSERY_DEFAULT_BYTES,                              \
        .generations = 2,                                                    \
        .capabilities = 1,                                                   \
        .oldgen_factor = 2.0,                                                \
        .max_heap_bytes = 0,                                                 \
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

/* ----------------------------------------------------------------------
 * Helpers: errors, numbers, sizes
 * ------------------------------------------------------------------- */

static bool flag_error(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Writes the message into err and returns false, so that a parser can
 * say `return flag_error(...)`. */
static bool flag_error(char *err, size_t err_len, const char *fmt, ...)
{
    if (err != NULL && err_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, err_len, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* Replaces *slot (malloc'd or NULL) by a copy of s, or by NULL. */
static bool set_string(char **slot, const char *s, char *err, size_t err_len)
{
    char *copy = NULL;
    if (s != NULL) {
        copy = strdup(s);
        if (copy == NULL)
            return flag_error(err, err_len, "rts_flags: out of memory (bytes=%zu)",
                              strlen(s) + 1);
    }
    free(*slot);
    *slot = copy;
    return true;
}

/* The whole of s is one finite number in strtod's syntax. */
static bool parse_double(const char *s, double *out)
{
    char *end;
    double d;

    if (*s == '\0' || isspace((unsigned char)*s))
        return false;
    errno = 0;
    d = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(d))
        return false;
    *out = d;
    return true;
}

static bool all_digits(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* A decimal whole number; saturates at UINT64_MAX instead of overflowing. */
static bool parse_u64(const char *s, uint64_t *out)
{
    unsigned long long v;
    if (!all_digits(s))
        return false;
    errno = 0;
    v = strtoull(s, NULL, 10);
    *out = errno == ERANGE ? UINT64_MAX : (uint64_t)v;
    return true;
}

typedef enum { SIZE_OK, SIZE_BAD, SIZE_TOO_LARGE } SizeResult;

/* Note [Size syntax]
 * ~~~~~~~~~~~~~~~~~~
 * A size is digits with an optional fraction (1, 1.5, .5) and at most one
 * suffix: k, m, g, t (powers of 1024, either case) or w (words), as in
 * GHC.  Unlike GHC, which runs atof over the text and so reads "-Mfoo" as
 * 0 and "-A1x" as 1, anything else is an error.  Fractional bytes are
 * truncated. */
static SizeResult parse_size(const char *s, uint64_t *out_bytes)
{
    const char *p = s, *num_end;
    size_t digits = 0;
    double mult = 1.0, bytes;
    char *end;

    while (isdigit((unsigned char)*p)) {
        p++;
        digits++;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            p++;
            digits++;
        }
    }
    if (digits == 0)
        return SIZE_BAD;
    num_end = p;
    switch (*p) {
    case '\0': break;
    case 'k': case 'K': mult = 1024.0; p++; break;
    case 'm': case 'M': mult = 1024.0 * 1024; p++; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; p++; break;
    case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; p++; break;
    case 'w': case 'W': mult = (double)WORD_SIZE; p++; break;
    default: return SIZE_BAD;
    }
    if (*p != '\0')
        return SIZE_BAD;
    bytes = strtod(s, &end);
    if (end != num_end)
        return SIZE_BAD;
    bytes *= mult;
    if (!(bytes <= (double)SIZE_MAX_BYTES))
        return SIZE_TOO_LARGE;
    *out_bytes = (uint64_t)bytes;
    return SIZE_OK;
}

/* "8k", "1m", "128t": bytes in the largest unit that divides it. */
static void format_size(uint64_t bytes, char *buf, size_t len)
{
    static const char units[] = "kmgt";
    int u = -1;
    while (u < 3 && bytes != 0 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)bytes, units[u]);
}

/* Parses the size after the flag name; zero_ok lets 0 mean "none".  The
 * result is rounded down to whole blocks, as GHC keeps these in blocks. */
static bool parse_size_flag(const char *name, const char *arg, uint64_t min_bytes,
                            bool zero_ok, StgWord *out, char *err, size_t err_len)
{
    uint64_t bytes = 0;
    char min_text[32], max_text[32];

    format_size(min_bytes, min_text, sizeof min_text);
    format_size(SIZE_MAX_BYTES, max_text, sizeof max_text);
    switch (parse_size(arg, &bytes)) {
    case SIZE_BAD:
        return flag_error(err, err_len,
                          "%s: bad size '%s' (expected a number with an optional "
                          "k, m, g, t or w suffix, e.g. %s64m)",
                          name, arg, name);
    case SIZE_TOO_LARGE:
        return flag_error(err, err_len, "%s: size must be at most %s (got %s)",
                          name, max_text, arg);
    case SIZE_OK:
        break;
    }
    if (zero_ok && bytes == 0) {
        *out = 0;
        return true;
    }
    if (bytes < min_bytes) {
        if (zero_ok)
            return flag_error(err, err_len,
                              "%s: size must be 0 (unlimited) or at least %s (got %s)",
                              name, min_text, arg);
        return flag_error(err, err_len, "%s: size must be at least %s (got %s)",
                          name, min_text, arg);
    }
    *out = (StgWord)(bytes & ~(uint64_t)BLOCK_MASK);
    return true;
}

/* Flags such as -? that take nothing after their letter(s). */
static bool expect_no_argument(const char *opt, size_t flag_len, char *err,
                               size_t err_len)
{
    if (opt[flag_len] != '\0')
        return flag_error(err, err_len,
                          "flag -%c given an argument when none was expected: %s",
                          opt[1], opt);
    return true;
}

static bool unknown_option(const char *opt, char *err, size_t err_len)
{
    return flag_error(err, err_len, "unknown RTS option: %s", opt);
}

/* ----------------------------------------------------------------------
 * Storage manager and statistics flags
 * ------------------------------------------------------------------- */

/* Note [Minimum -M]
 * ~~~~~~~~~~~~~~~~~
 * GHC accepts any -M of at least one block.  strata takes memory from the
 * OS a megablock (1 MiB) at a time, so a limit below one megablock could
 * never be met: the first allocation would already exceed it.  -M0 means
 * unlimited, as in GHC.  An -A larger than -M is clamped to -M with GHC's
 * warning, in flags_normalise. */

static bool parse_generations(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    const char *arg = opt + 2;
    uint64_t n;

    if (!parse_u64(arg, &n))
        return flag_error(err, err_len,
                          "-G: bad number '%s' (expected a whole number of "
                          "generations, e.g. -G3)",
                          arg);
    if (n < 1)
        return flag_error(err, err_len,
                          "-G: number of generations must be at least 1 (got %s)", arg);
    if (n > GENERATIONS_MAX)
        return flag_error(err, err_len,
                          "-G: number of generations must be at most %u (got %s)",
                          (unsigned)GENERATIONS_MAX, arg);
    flags->generations = (unsigned)n;
    return true;
}

/* -N<n>: how many threads may hold a capability at once; -N alone: the
 * number of processors (GHC's rule). */
static bool parse_capabilities(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    const char *arg = opt + 2;
    if (*arg == '\0') {
        long n = os_processor_count();
        flags->capabilities = n < 1 ? 1 : n > CAPABILITIES_MAX ? CAPABILITIES_MAX : (unsigned)n;
        return true;
    }
    uint64_t n;
    if (!parse_u64(arg, &n))
        return flag_error(err, err_len,
                          "-N: bad number '%s' (expected a whole number of capabilities, "
                          "e.g. -N4, or -N alone for one per processor)", arg);
    if (n < 1)
        return flag_error(err, err_len, "-N: number of capabilities must be at least 1 (got %s)",
                          arg);
    if (n > CAPABILITIES_MAX)
        return flag_error(err, err_len, "-N: number of capabilities must be at most %u (got %s)",
                          (unsigned)CAPABILITIES_MAX, arg);
    flags->capabilities = (unsigned)n;
    return true;
}

/* -qn<n>: GC threads (GHC's spelling); -qg<gen>: collect in parallel from
 * generation gen up; -qg alone: never in parallel. */
static bool parse_parallel_gc(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    const char *arg = opt + 3;
    uint64_t n;
    switch (opt[2]) {
    case 'n':
        if (!parse_u64(arg, &n) || n < 1)
            return flag_error(err, err_len,
                              "-qn: bad number of GC threads '%s' (expected a whole number, "
                              "at least 1, e.g. -qn2)", arg);
        if (n > CAPABILITIES_MAX)
            return flag_error(err, err_len, "-qn: at most %u GC threads (got %s)",
                              (unsigned)CAPABILITIES_MAX, arg);
        flags->gc_threads = (unsigned)n;
        return true;
    case 'g':
        if (*arg == '\0') {
            flags->par_gc_from_gen = PAR_GC_NEVER;
            return true;
        }
        if (!parse_u64(arg, &n) || n >= PAR_GC_NEVER)
            return flag_error(err, err_len,
                              "-qg: bad generation '%s' (expected a generation number, e.g. "
                              "-qg1, or -qg alone for no parallel collection)", arg);
        flags->par_gc_from_gen = (unsigned)n;
        return true;
    default:
        return flag_error(err, err_len,
                          "unknown RTS option: %s (strata's parallel GC options are -qn<n> "
                          "and -qg[<gen>])", opt);
    }
}

static bool parse_factor(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    const char *arg = opt + 2;
    double f;

    if (!parse_double(arg, &f))
        return flag_error(err, err_len,
                          "-F: bad factor '%s' (expected a number greater than 0, "
                          "e.g. -F1.5)",
                          arg);
    if (!(f > 0))
        return flag_error(err, err_len, "-F: factor must be greater than 0 (got %s)",
                          arg);
    flags->oldgen_factor = f;
    return true;
}

/* -s[file] and -S[file].  As in GHC the last of them wins: -S prints a
 * line per GC and the summary, -s only the summary; the file named by
 * the last one (none, or "stderr", means stderr) takes the output. */
static bool parse_stats(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    const char *file = opt + 2;
    bool per_gc = opt[1] == 'S';

    if (*file == '\0' || strcmp(file, "stderr") == 0)
        file = NULL;
    if (!set_string(&flags->stats_file, file, err, err_len))
        return false;
    flags->stats_summary = true;
    flags->stats_per_gc = per_gc;
    return true;
}

static bool parse_debug(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    unsigned bits = 0;
    const char *c;

    if (opt[2] == '\0')
        return flag_error(err, err_len,
                          "-D: expected debug flags after -D (letters from S, g, b)");
    for (c = opt + 2; *c != '\0'; c++) {
        switch (*c) {
        case 'S': bits |= DEBUG_SANITY; break;
        case 'g': bits |= DEBUG_GC; break;
        case 'b': bits |= DEBUG_BLOCK; break;
        default:
            return flag_error(err, err_len,
                              "-D: unknown debug flag '%c' in %s (expected letters "
                              "from S, g, b)",
                              *c, opt);
        }
    }
    flags->debug_flags |= bits;
    return true;
}

/* ----------------------------------------------------------------------
 * Heap profiling flags
 * ------------------------------------------------------------------- */

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
    if (!parse_u64(text, &lo))
        goto bad;
    hi = lo;
    if (dash != NULL && !parse_u64(dash + 1, &hi))
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

static bool parse_heap_profile(RtsFlags *flags, const char *opt, char *err,
                               size_t err_len)
{
    const char *rest = opt + 2;
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

static bool parse_interval(const char *name, const char *arg, double *out, char *err,
                           size_t err_len)
{
    double secs;
    if (!parse_double(arg, &secs) || secs < 0)
        return flag_error(err, err_len, "bad value for %s", name);
    *out = secs;
    return true;
}

/* ----------------------------------------------------------------------
 * Eventlog flags
 * ------------------------------------------------------------------- */

/* -l[classes]: as GHC, each -l first turns the default classes (sgpu) on,
 * then each letter turns its class on, or off after a '-' ("-l-s": all
 * defaults but the scheduler; "-l-ag": only GC).  Unlike GHC, which warns
 * and goes on, an unknown letter is an error. */
static bool parse_eventlog(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    unsigned classes = flags->eventlog_classes | EVENTLOG_CLASS_DEFAULT;
    bool enable = true;
    const char *c;

    for (c = opt + 2; *c != '\0'; c++) {
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

static bool parse_output(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    if (opt[2] != 'l')
        return unknown_option(opt, err, err_len);
    if (opt[3] == '\0')
        return flag_error(err, err_len, "-ol expects filename");
    return set_string(&flags->eventlog_file, opt + 3, err, err_len);
}

/* ----------------------------------------------------------------------
 * The option dispatcher
 * ------------------------------------------------------------------- */

#define FLUSH_INTERVAL_PREFIX "--eventlog-flush-interval="
#define CENSUS_GC_PREFIX "--census-gc="

/* --census-gc=<budget|every-tick>: whether an -i tick may force the major
 * GC its census needs.  Not a GHC flag; the spelling follows GHC's long
 * options (--copying-gc, --nonmoving-gc). */
static bool parse_census_gc(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    const char *policy = opt + strlen(CENSUS_GC_PREFIX);
    if (strcmp(policy, "budget") == 0)
        flags->census_every_tick = false;
    else if (strcmp(policy, "every-tick") == 0)
        flags->census_every_tick = true;
    else
        return flag_error(err, err_len,
                          "--census-gc: expected budget or every-tick (got '%s')", policy);
    return true;
}

/* strata's own flags --<name>=<auto|always|never> (--prefault,
 * --promote-in-place). */
typedef enum { WHEN_AUTO, WHEN_ALWAYS, WHEN_NEVER } FlagWhen;

/* The value of opt, which starts with "--<name>="; false (with GHC's kind
 * of message) if it is none of the three. */
static bool parse_when(const char *name, const char *opt, FlagWhen *when, char *err,
                       size_t err_len)
{
    const char *v = opt + strlen("--") + strlen(name) + strlen("=");
    if (strcmp(v, "auto") == 0)
        *when = WHEN_AUTO;
    else if (strcmp(v, "always") == 0)
        *when = WHEN_ALWAYS;
    else if (strcmp(v, "never") == 0)
        *when = WHEN_NEVER;
    else
        return flag_error(err, err_len, "--%s: expected auto, always or never (got '%s')", name,
                          v);
    return true;
}

#define PREFAULT_PREFIX "--prefault="

/* --prefault=<auto|always|never>: whether a helper thread faults in the
 * memory the heap is about to grow into.  Not a GHC flag. */
static bool parse_prefault(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    static const RtsPrefault modes[] = {
        [WHEN_AUTO] = PREFAULT_AUTO, [WHEN_ALWAYS] = PREFAULT_ALWAYS, [WHEN_NEVER] = PREFAULT_NEVER};
    FlagWhen when;
    if (!parse_when("prefault", opt, &when, err, err_len))
        return false;
    flags->prefault = modes[when];
    return true;
}

#define PROMOTE_IN_PLACE_PREFIX "--promote-in-place="

/* --promote-in-place=<auto|always|never>: whether a minor GC may promote
 * the nursery without copying it.  Not a GHC flag. */
static bool parse_promote_in_place(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    static const PromoteInPlaceMode modes[] = {[WHEN_AUTO] = PROMOTE_IN_PLACE_AUTO,
                                               [WHEN_ALWAYS] = PROMOTE_IN_PLACE_ALWAYS,
                                               [WHEN_NEVER] = PROMOTE_IN_PLACE_NEVER};
    FlagWhen when;
    if (!parse_when("promote-in-place", opt, &when, err, err_len))
        return false;
    flags->promote_in_place = modes[when];
    return true;
}

bool rts_flags_parse_port(const char *what, const char *s, uint16_t *port, char *err,
                          size_t err_len)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v > 65535)
        return flag_error(err, err_len, "%s: expected a port from 0 to 65535 (got '%s')", what,
                          s);
    *port = (uint16_t)v;
    return true;
}

#define SOCKET_PREFIX "--eventlog-socket="
#define SOCKET_TCP_PREFIX "--eventlog-socket-tcp="

/* --eventlog-socket-tcp=HOST:PORT, HOST may be empty (loopback) or an
 * IPv6 address in brackets.  Turns the eventlog on, as -l does. */
static bool parse_socket_tcp(RtsFlags *flags, const char *arg, char *err, size_t err_len)
{
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
    if (!rts_flags_parse_port("--eventlog-socket-tcp", colon + 1, &port, err, err_len))
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

static bool parse_long_option(RtsFlags *flags, const char *opt, char *err,
                              size_t err_len)
{
    if (strcmp(opt, "--eventlog-socket-wait") == 0) {
        flags->eventlog_socket_wait = true;
        return true;
    }
    if (strncmp(opt, SOCKET_PREFIX, strlen(SOCKET_PREFIX)) == 0) {
        const char *path = opt + strlen(SOCKET_PREFIX);
        if (*path == '\0')
            return flag_error(err, err_len, "--eventlog-socket= expects a socket path");
        flags->eventlog = true;
        return set_string(&flags->eventlog_socket_path, path, err, err_len);
    }
    if (strcmp(opt, "--eventlog-socket") == 0 || strcmp(opt, "--eventlog-socket-tcp") == 0)
        return flag_error(err, err_len, "%s: expected =%s", opt,
                          opt[17] == '\0' ? "PATH" : "HOST:PORT");
    if (strncmp(opt, SOCKET_TCP_PREFIX, strlen(SOCKET_TCP_PREFIX)) == 0)
        return parse_socket_tcp(flags, opt + strlen(SOCKET_TCP_PREFIX), err, err_len);
    if (strcmp(opt, "--info") == 0) {
        flags->show_info = true;
        return true;
    }
    if (strcmp(opt, "--no-automatic-heap-samples") == 0) {
        flags->automatic_heap_samples = false;
        return true;
    }
    if (strcmp(opt, "--automatic-era-increment") == 0) {
        flags->automatic_era_increment = true;
        return true;
    }
    if (strcmp(opt, "--debug-socket") == 0) {
        flags->debug_socket = true;
        return true;
    }
    if (strncmp(opt, "--debug-socket=", strlen("--debug-socket=")) == 0) {
        const char *path = opt + strlen("--debug-socket=");
        if (*path == '\0')
            return flag_error(err, err_len, "--debug-socket= expects a socket path");
        flags->debug_socket = true;
        return set_string(&flags->debug_socket_path, path, err, err_len);
    }
    if (strcmp(opt, "--census-gc") == 0)
        return flag_error(err, err_len,
                          "--census-gc: expected =budget or =every-tick (got nothing)");
    if (strncmp(opt, CENSUS_GC_PREFIX, strlen(CENSUS_GC_PREFIX)) == 0)
        return parse_census_gc(flags, opt, err, err_len);
    if (strcmp(opt, "--prefault") == 0)
        return flag_error(err, err_len,
                          "--prefault: expected =auto, =always or =never (got nothing)");
    if (strncmp(opt, PREFAULT_PREFIX, strlen(PREFAULT_PREFIX)) == 0)
        return parse_prefault(flags, opt, err, err_len);
    if (strcmp(opt, "--promote-in-place") == 0)
        return flag_error(err, err_len,
                          "--promote-in-place: expected =auto, =always or =never (got nothing)");
    if (strncmp(opt, PROMOTE_IN_PLACE_PREFIX, strlen(PROMOTE_IN_PLACE_PREFIX)) == 0)
        return parse_promote_in_place(flags, opt, err, err_len);
    if (strncmp(opt, FLUSH_INTERVAL_PREFIX, strlen(FLUSH_INTERVAL_PREFIX)) == 0)
        return parse_interval("--eventlog-flush-interval",
                              opt + strlen(FLUSH_INTERVAL_PREFIX),
                              &flags->eventlog_flush_secs, err, err_len);
    return unknown_option(opt, err, err_len);
}

bool rts_flags_parse_one(RtsFlags *flags, const char *opt, char *err, size_t err_len)
{
    if (opt[0] != '-')
        return flag_error(err, err_len, "unexpected RTS argument: %s", opt);

    switch (opt[1]) {
    case '?':
        if (!expect_no_argument(opt, 2, err, err_len))
            return false;
        flags->show_usage = true;
        return true;
    case '-':
        return parse_long_option(flags, opt, err, err_len);
    case 'A':
        return parse_size_flag("-A", opt + 2, NURSERY_MIN_BYTES, false,
                               &flags->nursery_bytes, err, err_len);
    case 'M':
        return parse_size_flag("-M", opt + 2, MAX_HEAP_MIN_BYTES, true,
                               &flags->max_heap_bytes, err, err_len);
    case 'G':
        return parse_generations(flags, opt, err, err_len);
    case 'N':
        return parse_capabilities(flags, opt, err, err_len);
    case 'q':
        return parse_parallel_gc(flags, opt, err, err_len);
    case 'F':
        return parse_factor(flags, opt, err, err_len);
    case 's':
    case 'S':
        return parse_stats(flags, opt, err, err_len);
    case 'D':
        return parse_debug(flags, opt, err, err_len);
    case 'h':
        return parse_heap_profile(flags, opt, err, err_len);
    case 'i':
        /* A bare -i keeps the default, as in GHC. */
        if (opt[2] == '\0')
            return true;
        return parse_interval("-i", opt + 2, &flags->census_interval_secs, err,
                              err_len);
    case 'l':
        return parse_eventlog(flags, opt, err, err_len);
    case 'o':
        return parse_output(flags, opt, err, err_len);
    default:
        return unknown_option(opt, err, err_len);
    }
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
 * selectors] and Note [Minimum -M]. */
static void flags_normalise(RtsFlags *flags)
{
    if (flags->era_selected && flags->heap_breakdown == HEAP_BY_NONE)
        flags->heap_breakdown = HEAP_BY_CLOSURE_TYPE;
    if (flags->max_heap_bytes != 0 && flags->nursery_bytes > flags->max_heap_bytes) {
        rts_error("maximum heap size (-M) is smaller than minimum alloc area size (-A)");
        flags->nursery_bytes = flags->max_heap_bytes;
    }
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
    if (!interval_ok(f->census_interval_secs) || !interval_ok(f->eventlog_flush_secs))
        return false;
    if ((f->eventlog_classes & ~(unsigned)EVENTLOG_CLASS_ALL) != 0)
        return false;
    if (f->eventlog_file != NULL && f->eventlog_file[0] == '\0')
        return false;
    return true;
}

/* ----------------------------------------------------------------------
 * Usage text and --info
 * ------------------------------------------------------------------- */

static const char *const usage_text[] = {
    "",
    "Usage: <prog> <args> [+RTS <rtsopts> | -RTS <args>] ... --RTS <args>",
    "",
    "   +RTS    Indicates run time system options follow",
    "   -RTS    Indicates program arguments follow",
    "  --RTS    Indicates that ALL subsequent arguments will be given to the",
    "           program (including any of these RTS flags)",
    "   --      Like --RTS, but is itself given to the program",
    "",
    "The following run time system options are available:",
    "",
    "  -?       Prints this message and exits; the program is not executed",
    "  --info   Print information about the RTS used by this program",
    "",
    "  -A<size> Sets the minimum allocation area size (default 4m, at least 8k)",
    "           Egs: -A20m -A64k",
    "  -F<n>    Sets the collecting threshold for old generations as a factor",
    "           of the live data in that generation the last time it was",
    "           collected (default: 2.0, must be greater than 0)",
    "  -M<size> Sets the maximum heap size (default unlimited; 0 = unlimited,",
    "           otherwise at least 1m)  Egs: -M256m -M1G",
    "  -G<n>    Number of generations (default: 2, at least 1)",
    "  -N[<n>]  Use <n> capabilities: threads that may mutate the heap at once",
    "           (default: 1; -N alone: one per processor)",
    "  -qn<n>   Use <n> GC threads, at most one per capability (default: one",
    "           per capability)",
    "  --prefault=<when>",
    "           Whether a helper thread faults in the memory the heap is about",
    "           to grow into, so the GC and the mutator need not (default: auto)",
    "             auto    when more processors are available than capabilities",
    "             always  whatever the processors",
    "             never",
    "  --promote-in-place=<when>",
    "           Whether a minor GC may make the nursery's blocks part of the",
    "           old generation instead of copying what is alive in them",
    "           (default: auto)",
    "             auto    when the last copying minor GC found at least 3/4",
    "                     of the nursery alive",
    "             always  at every minor GC that can (for testing)",
    "             never",
    "  -qg[<n>] Collect in parallel only generations <n> and older (default 0);",
    "           -qg alone: never collect in parallel",
    "",
    "  Sizes take a suffix k, m, g, t (powers of 1024) or w (words), and may",
    "  have a fraction: -A1.5m.  -A and -M are rounded down to whole blocks.",
    "",
    "  -s[<file>] Summary  GC statistics (if <file> omitted, uses stderr)",
    "  -S[<file>] Detailed GC statistics (if <file> omitted, uses stderr)",
    "",
    "  -h       Heap residency profile by closure type (deprecated: use -hT)",
    "  -h<break-down> Heap residency profile (one break-down only)",
    "     break-down: T = closure type",
    "                 i = info table",
    "                 e = era",
    "                 d = closure description",
    "                 y = type description",
    "                 m = module",
    "  A subset of closures may be selected thusly:",
    "    -he<era>      closures of the given era (also -he{<era>})",
    "    -he<lo>-<hi>  closures of eras <lo> to <hi>, inclusive",
    "    (a selector with no break-down profiles by closure type, -hT)",
    "  -i<sec>  Time between heap profile samples (seconds, default: 0.1;",
    "           0 = at every major GC)",
    "  --census-gc=<policy>",
    "           What an -i tick may do to get its census (default: budget)",
    "             budget      force a major GC only within a 5% budget of the",
    "                         run; otherwise wait for the next major GC, so",
    "                         some ticks get no census of their own",
    "             every-tick  force a major GC at every tick (as GHC does)",
    "           +RTS -s says how many censuses were asked for and taken",
    "  --no-automatic-heap-samples",
    "           Do not start the heap profile timer: censuses are taken only",
    "           when the program asks for them",
    "  --automatic-era-increment",
    "           Advance the era by one after every major GC (not while it is 0)",
    "",
    "  --debug-socket[=<path>]",
    "           Start the heap debugger's stub on a Unix socket (default path:",
    "           $XDG_RUNTIME_DIR/strata/debug/<pid>-<program>); see strata-debug",
    "",
    "  -ol<file>  Send binary eventlog to <file> (default: <program>.eventlog)",
    "  -l[flags]  Log events to a file",
    "             where [flags] can contain:",
    "                s    scheduler events",
    "                g    GC and heap events",
    "                n    non-moving GC heap census events",
    "                p    par spark events (sampled)",
    "                f    par spark events (full detail)",
    "                u    user events (emitted from Haskell code)",
    "                T    ticky-ticky counter samples",
    "                a    all event classes above",
    "               -x    disable an event class, for any flag above",
    "             the initial enabled event classes are 'sgpu'",
    "  --eventlog-flush-interval=<secs>",
    "             Periodically flush the eventlog at the specified interval",
    "             (default: 0, never)",
    "  --eventlog-socket=<path>",
    "             Stream the eventlog to clients of a Unix socket at <path>",
    "             (mode 0600; turns on -l; with -ol<file> also to <file>)",
    "  --eventlog-socket-tcp=<host>:<port>",
    "             The same over TCP (an empty <host> is 127.0.0.1; port 0",
    "             picks a free port and prints it)",
    "  --eventlog-socket-wait",
    "             Wait in hs_init until a client has connected",
    "",
    "  -D<flags>  Debugging checks and output, where [flags] can contain:",
    "                S    sanity: check the whole heap around every GC",
    "                g    GC: trace each collection",
    "                b    block allocator",
    "",
    "RTS options may also be specified using the GHCRTS environment variable.",
    "",
};

void rts_flags_print_usage(FILE *f)
{
    size_t i;
    for (i = 0; i < sizeof usage_text / sizeof usage_text[0]; i++) {
        fputs(usage_text[i], f);
        fputc('\n', f);
    }
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
