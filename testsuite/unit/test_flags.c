/*
 * testsuite/unit/test_flags.c -- RTS flag parsing (rts/RtsFlags.c): every
 * flag with a good and a bad spelling, checking the parsed value or the
 * exact error message; sizes with suffixes, fractions and overflow; the
 * +RTS/-RTS/--RTS/GHCRTS handling of rts_flags_process_args, including
 * what it prints; and the usage and --info texts.  Every test ends with
 * rts_flags_check (in teardown).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#include "Messages.h"
#include "RtsFlags.h"

static RtsFlags f;
static char err[512];

static int setup(void **state)
{
    (void)state;
    rts_flags_init_defaults(&f);
    err[0] = '\0';
    unsetenv("GHCRTS");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    assert_true(rts_flags_check(&f));
    rts_flags_free(&f);
    unsetenv("GHCRTS");
    return 0;
}

static void parse_ok(const char *opt)
{
    if (!rts_flags_parse_one(&f, opt, err, sizeof err))
        fail_msg("'%s' was rejected: %s", opt, err);
}

static void parse_bad(const char *opt, const char *message)
{
    err[0] = '\0';
    if (rts_flags_parse_one(&f, opt, err, sizeof err))
        fail_msg("'%s' was accepted, expected \"%s\"", opt, message);
    assert_string_equal(err, message);
}

static void assert_contains(const char *haystack, const char *needle)
{
    if (strstr(haystack, needle) == NULL)
        fail_msg("expected \"%s\" in:\n%s", needle, haystack);
}

static size_t count_occurrences(const char *haystack, const char *needle)
{
    size_t n = 0;
    for (const char *p = haystack; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* ---------------------------------------------------------------------- */

static void test_flags_defaults(void **state)
{
    (void)state;
    assert_int_equal(f.nursery_bytes, 4 * 1024 * 1024);
    assert_int_equal(f.generations, 2);
    assert_true(f.oldgen_factor == 2.0);
    assert_int_equal(f.max_heap_bytes, 0);
    assert_false(f.stats_summary);
    assert_false(f.stats_per_gc);
    assert_null(f.stats_file);
    assert_int_equal(f.debug_flags, 0);
    assert_int_equal(f.heap_breakdown, HEAP_BY_NONE);
    assert_false(f.era_selected);
    assert_true(f.census_interval_secs == 0.1);
    assert_true(f.automatic_heap_samples);
    assert_false(f.automatic_era_increment);
    assert_false(f.eventlog);
    assert_int_equal(f.eventlog_classes, EVENTLOG_CLASS_DEFAULT);
    assert_null(f.eventlog_file);
    assert_true(f.eventlog_flush_secs == 0.0);
    assert_false(f.show_usage);
    assert_false(f.show_info);
    /* The global starts with the same defaults. */
    assert_int_equal(rts_flags.nursery_bytes, f.nursery_bytes);
    assert_int_equal(rts_flags.generations, f.generations);
    assert_true(rts_flags_check(&rts_flags));
}

static void test_flags_nursery_good(void **state)
{
    (void)state;
    parse_ok("-A64k");
    assert_int_equal(f.nursery_bytes, 64 * 1024);
    parse_ok("-A8k");
    assert_int_equal(f.nursery_bytes, 8192);
    parse_ok("-A12K");
    assert_int_equal(f.nursery_bytes, 12 * 1024);
    parse_ok("-A1.5m");
    assert_int_equal(f.nursery_bytes, 1536 * 1024);
    parse_ok("-A.5M");
    assert_int_equal(f.nursery_bytes, 512 * 1024);
    parse_ok("-A2g");
    assert_int_equal(f.nursery_bytes, (StgWord)2 << 30);
    parse_ok("-A1T");
    assert_int_equal(f.nursery_bytes, (StgWord)1 << 40);
    parse_ok("-A1024w");
    assert_int_equal(f.nursery_bytes, 1024 * WORD_SIZE);
    parse_ok("-A65536");
    assert_int_equal(f.nursery_bytes, 65536);
    /* Rounded down to whole blocks. */
    parse_ok("-A8.5k");
    assert_int_equal(f.nursery_bytes, 8192);
    parse_ok("-A128t");
    assert_int_equal(f.nursery_bytes, (StgWord)1 << 47);
}

static void test_flags_nursery_bad(void **state)
{
    (void)state;
    parse_bad("-A4k", "-A: size must be at least 8k (got 4k)");
    parse_bad("-A0", "-A: size must be at least 8k (got 0)");
    parse_bad("-A8191", "-A: size must be at least 8k (got 8191)");
    parse_bad("-A99999999999999g", "-A: size must be at most 128t (got 99999999999999g)");
    parse_bad("-A128.001t", "-A: size must be at most 128t (got 128.001t)");
    parse_bad("-A99999999999999999999999999999",
              "-A: size must be at most 128t (got 99999999999999999999999999999)");
    parse_bad("-Afoo", "-A: bad size 'foo' (expected a number with an optional k, m, g, "
                       "t or w suffix, e.g. -A64m)");
    parse_bad("-A", "-A: bad size '' (expected a number with an optional k, m, g, "
                    "t or w suffix, e.g. -A64m)");
    parse_bad("-A1x", "-A: bad size '1x' (expected a number with an optional k, m, g, "
                      "t or w suffix, e.g. -A64m)");
    parse_bad("-A-1m", "-A: bad size '-1m' (expected a number with an optional k, m, g, "
                       "t or w suffix, e.g. -A64m)");
    parse_bad("-A1kk", "-A: bad size '1kk' (expected a number with an optional k, m, g, "
                       "t or w suffix, e.g. -A64m)");
    parse_bad("-A1.5.5m", "-A: bad size '1.5.5m' (expected a number with an optional k, "
                          "m, g, t or w suffix, e.g. -A64m)");
    parse_bad("-A1e6", "-A: bad size '1e6' (expected a number with an optional k, m, g, "
                       "t or w suffix, e.g. -A64m)");
    parse_bad("-A 64k", "-A: bad size ' 64k' (expected a number with an optional k, m, g, "
                        "t or w suffix, e.g. -A64m)");
    parse_bad("-A.k", "-A: bad size '.k' (expected a number with an optional k, m, g, "
                      "t or w suffix, e.g. -A64m)");
    /* A rejected value leaves the old one. */
    assert_int_equal(f.nursery_bytes, 4 * 1024 * 1024);
}

static void test_flags_max_heap_good(void **state)
{
    (void)state;
    parse_ok("-M256m");
    assert_int_equal(f.max_heap_bytes, 256 * 1024 * 1024);
    parse_ok("-M1m");
    assert_int_equal(f.max_heap_bytes, 1024 * 1024);
    parse_ok("-M1G");
    assert_int_equal(f.max_heap_bytes, (StgWord)1 << 30);
    parse_ok("-M1.5m");
    assert_int_equal(f.max_heap_bytes, 1536 * 1024);
    parse_ok("-M0");
    assert_int_equal(f.max_heap_bytes, 0);
    parse_ok("-M131072w");
    assert_int_equal(f.max_heap_bytes, 131072 * WORD_SIZE);
}

static void test_flags_max_heap_bad(void **state)
{
    (void)state;
    parse_bad("-Mfoo", "-M: bad size 'foo' (expected a number with an optional k, m, g, "
                       "t or w suffix, e.g. -M64m)");
    parse_bad("-M", "-M: bad size '' (expected a number with an optional k, m, g, "
                    "t or w suffix, e.g. -M64m)");
    parse_bad("-M4k", "-M: size must be 0 (unlimited) or at least 1m (got 4k)");
    parse_bad("-M0.5m", "-M: size must be 0 (unlimited) or at least 1m (got 0.5m)");
    parse_bad("-M200t", "-M: size must be at most 128t (got 200t)");
    assert_int_equal(f.max_heap_bytes, 0);
}

static void test_flags_generations_good(void **state)
{
    (void)state;
    parse_ok("-G1");
    assert_int_equal(f.generations, 1);
    parse_ok("-G3");
    assert_int_equal(f.generations, 3);
    parse_ok("-G65535");
    assert_int_equal(f.generations, 65535);
}

static void test_flags_generations_bad(void **state)
{
    (void)state;
    parse_bad("-G0", "-G: number of generations must be at least 1 (got 0)");
    parse_bad("-G65536", "-G: number of generations must be at most 65535 (got 65536)");
    parse_bad("-G99999999999999999999999",
              "-G: number of generations must be at most 65535 (got 99999999999999999999999)");
    parse_bad("-G", "-G: bad number '' (expected a whole number of generations, e.g. -G3)");
    parse_bad("-Gx", "-G: bad number 'x' (expected a whole number of generations, e.g. -G3)");
    parse_bad("-G2k", "-G: bad number '2k' (expected a whole number of generations, e.g. -G3)");
    parse_bad("-G-1", "-G: bad number '-1' (expected a whole number of generations, e.g. -G3)");
    assert_int_equal(f.generations, 2);
}

static void test_flags_oldgen_factor_good(void **state)
{
    (void)state;
    parse_ok("-F1.5");
    assert_true(f.oldgen_factor == 1.5);
    parse_ok("-F3");
    assert_true(f.oldgen_factor == 3.0);
    parse_ok("-F0.01");
    assert_true(f.oldgen_factor == 0.01);
}

static void test_flags_oldgen_factor_bad(void **state)
{
    (void)state;
    parse_bad("-F-1", "-F: factor must be greater than 0 (got -1)");
    parse_bad("-F0", "-F: factor must be greater than 0 (got 0)");
    parse_bad("-F", "-F: bad factor '' (expected a number greater than 0, e.g. -F1.5)");
    parse_bad("-Fx", "-F: bad factor 'x' (expected a number greater than 0, e.g. -F1.5)");
    parse_bad("-F2x", "-F: bad factor '2x' (expected a number greater than 0, e.g. -F1.5)");
    parse_bad("-Finf", "-F: bad factor 'inf' (expected a number greater than 0, e.g. -F1.5)");
    parse_bad("-Fnan", "-F: bad factor 'nan' (expected a number greater than 0, e.g. -F1.5)");
    assert_true(f.oldgen_factor == 2.0);
}

static void test_flags_stats_good(void **state)
{
    (void)state;
    parse_ok("-s");
    assert_true(f.stats_summary);
    assert_false(f.stats_per_gc);
    assert_null(f.stats_file);
    parse_ok("-S");
    assert_true(f.stats_summary);   /* -S implies the summary */
    assert_true(f.stats_per_gc);
    assert_null(f.stats_file);
    parse_ok("-sout.stats");
    assert_true(f.stats_summary);
    assert_false(f.stats_per_gc);   /* the last of -s/-S wins, as in GHC */
    assert_string_equal(f.stats_file, "out.stats");
    parse_ok("-Sgc.log");
    assert_true(f.stats_per_gc);
    assert_string_equal(f.stats_file, "gc.log");
    parse_ok("-Sstderr");
    assert_null(f.stats_file);
    parse_ok("-sx");
    parse_ok("-s");               /* no file: back to stderr */
    assert_null(f.stats_file);
}

static void test_flags_stats_bad(void **state)
{
    (void)state;
    /* Every suffix of -s/-S is a file name; the only bad case is a file
     * that cannot be opened, found by stats_open_output (test_stats.c).
     * Letters next to s/S that are not a suffix are other options: */
    parse_bad("-t", "unknown RTS option: -t");
    parse_bad("-T", "unknown RTS option: -T");
    assert_false(f.stats_summary);
}

static void test_flags_usage_and_info_good(void **state)
{
    (void)state;
    parse_ok("-?");
    assert_true(f.show_usage);
    parse_ok("--info");
    assert_true(f.show_info);
}

static void test_flags_usage_and_info_bad(void **state)
{
    (void)state;
    parse_bad("-?x", "flag -? given an argument when none was expected: -?x");
    parse_bad("--infox", "unknown RTS option: --infox");
    parse_bad("--info=1", "unknown RTS option: --info=1");
    assert_false(f.show_usage);
    assert_false(f.show_info);
}

static void test_flags_debug_good(void **state)
{
    (void)state;
    parse_ok("-DS");
    assert_int_equal(f.debug_flags, DEBUG_SANITY);
    parse_ok("-Dg");
    assert_int_equal(f.debug_flags, DEBUG_SANITY | DEBUG_GC);
    rts_flags_init_defaults(&f);
    parse_ok("-Db");
    assert_int_equal(f.debug_flags, DEBUG_BLOCK);
    parse_ok("-DSgb");
    assert_int_equal(f.debug_flags, DEBUG_SANITY | DEBUG_GC | DEBUG_BLOCK);
}

static void test_flags_debug_bad(void **state)
{
    (void)state;
    parse_bad("-DZ", "-D: unknown debug flag 'Z' in -DZ (expected letters from S, g, b)");
    parse_bad("-DSx", "-D: unknown debug flag 'x' in -DSx (expected letters from S, g, b)");
    parse_bad("-D", "-D: expected debug flags after -D (letters from S, g, b)");
    assert_int_equal(f.debug_flags, 0);   /* -DSx set nothing */
}

static void test_flags_heap_breakdown_good(void **state)
{
    static const struct {
        const char *opt;
        HeapBreakdown by;
    } cases[] = {
        {"-hT", HEAP_BY_CLOSURE_TYPE}, {"-hi", HEAP_BY_INFO_TABLE}, {"-he", HEAP_BY_ERA},
        {"-hd", HEAP_BY_DESCR},        {"-hy", HEAP_BY_TYPE},       {"-hm", HEAP_BY_MOD},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rts_flags_init_defaults(&f);
        parse_ok(cases[i].opt);
        assert_int_equal(f.heap_breakdown, cases[i].by);
        parse_ok(cases[i].opt);   /* the same one again is fine */
        assert_int_equal(f.heap_breakdown, cases[i].by);
        assert_false(f.era_selected);
    }
}

static void parse_bare_h(void *arg)
{
    (void)arg;
    parse_ok("-h");
}

static void test_flags_heap_deprecated_h(void **state)
{
    char *out;
    (void)state;
    rts_set_prog_name("prog");
    out = harness_capture_stderr(parse_bare_h, NULL);
    assert_string_equal(out, "prog: -h is deprecated, use -hT instead.\n");
    free(out);
    assert_int_equal(f.heap_breakdown, HEAP_BY_CLOSURE_TYPE);
}

static void test_flags_heap_breakdown_bad(void **state)
{
    (void)state;
    parse_bad("-hZ", "unknown RTS option: -hZ");
    parse_bad("-hc", "unknown RTS option: -hc");
    parse_bad("-hTx", "invalid heap profile option: -hTx");
    parse_bad("-hdfoo", "invalid heap profile option: -hdfoo");
    parse_ok("-hT");
    parse_bad("-hi", "multiple heap profile options");
    parse_bad("-he", "multiple heap profile options");
    assert_int_equal(f.heap_breakdown, HEAP_BY_CLOSURE_TYPE);
}

static void test_flags_era_selector_good(void **state)
{
    (void)state;
    parse_ok("-he3");
    assert_true(f.era_selected);
    assert_int_equal(f.eras.lo, 3);
    assert_int_equal(f.eras.hi, 3);
    /* A selector alone does not choose the breakdown (see process_args). */
    assert_int_equal(f.heap_breakdown, HEAP_BY_NONE);
    parse_ok("-he{7}");
    assert_int_equal(f.eras.lo, 7);
    assert_int_equal(f.eras.hi, 7);
    parse_ok("-he3-5");
    assert_int_equal(f.eras.lo, 3);
    assert_int_equal(f.eras.hi, 5);
    parse_ok("-he{2-9}");
    assert_int_equal(f.eras.lo, 2);
    assert_int_equal(f.eras.hi, 9);
    parse_ok("-he4-4");
    assert_int_equal(f.eras.lo, 4);
    assert_int_equal(f.eras.hi, 4);
    parse_ok("-hi");
    assert_int_equal(f.heap_breakdown, HEAP_BY_INFO_TABLE);
    parse_ok("-he1");   /* a selector is not a second breakdown */
    assert_int_equal(f.heap_breakdown, HEAP_BY_INFO_TABLE);
    assert_int_equal(f.eras.lo, 1);

    rts_flags_init_defaults(&f);
    parse_ok("-he");
    parse_ok("-he2");
    assert_int_equal(f.heap_breakdown, HEAP_BY_ERA);
    assert_true(f.era_selected);
}

static void test_flags_era_selector_bad(void **state)
{
    static const char *const bad[] = {
        "-he0",  "-he0-3", "-he5-3", "-he{3", "-he3}", "-he{}", "-he3-", "-hex",
        "-he-3", "-he3-x", "-he1-2-3", "-he 3", "-he99999999999999999999999",
    };
    char want[256];
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(want, sizeof want,
                 "invalid heap profile option: %s (expected -he<era> or -he<lo>-<hi> "
                 "with 1 <= lo <= hi)",
                 bad[i]);
        parse_bad(bad[i], want);
    }
    assert_false(f.era_selected);
}

static void test_flags_interval_good(void **state)
{
    (void)state;
    parse_ok("-i0.5");
    assert_true(f.census_interval_secs == 0.5);
    parse_ok("-i2");
    assert_true(f.census_interval_secs == 2.0);
    parse_ok("-i0");
    assert_true(f.census_interval_secs == 0.0);
    parse_ok("-i");     /* bare -i keeps the value, as in GHC */
    assert_true(f.census_interval_secs == 0.0);
}

static void test_flags_interval_bad(void **state)
{
    (void)state;
    parse_bad("-i-1", "bad value for -i");
    parse_bad("-ix", "bad value for -i");
    parse_bad("-i1s", "bad value for -i");
    parse_bad("-inan", "bad value for -i");
    parse_bad("-i1e999", "bad value for -i");
    assert_true(f.census_interval_secs == 0.1);
}

static void test_flags_census_gc_good(void **state)
{
    (void)state;
    assert_false(f.census_every_tick);   /* the budget by default */
    parse_ok("--census-gc=every-tick");
    assert_true(f.census_every_tick);
    parse_ok("--census-gc=budget");
    assert_false(f.census_every_tick);
}

static void test_flags_census_gc_bad(void **state)
{
    (void)state;
    parse_bad("--census-gc=always",
              "--census-gc: expected budget or every-tick (got 'always')");
    parse_bad("--census-gc=", "--census-gc: expected budget or every-tick (got '')");
    parse_bad("--census-gc=every-tickx",
              "--census-gc: expected budget or every-tick (got 'every-tickx')");
    parse_bad("--census-gc", "--census-gc: expected =budget or =every-tick (got nothing)");
    parse_bad("--census-gcx", "unknown RTS option: --census-gcx");
    assert_false(f.census_every_tick);
}

static void test_flags_prefault_good(void **state)
{
    (void)state;
    assert_int_equal(f.prefault, PREFAULT_AUTO);
    parse_ok("--prefault=never");
    assert_int_equal(f.prefault, PREFAULT_NEVER);
    parse_ok("--prefault=always");
    assert_int_equal(f.prefault, PREFAULT_ALWAYS);
    parse_ok("--prefault=auto");
    assert_int_equal(f.prefault, PREFAULT_AUTO);
}

static void test_flags_promote_in_place_good(void **state)
{
    (void)state;
    assert_int_equal(f.promote_in_place, PROMOTE_IN_PLACE_AUTO);
    parse_ok("--promote-in-place=never");
    assert_int_equal(f.promote_in_place, PROMOTE_IN_PLACE_NEVER);
    parse_ok("--promote-in-place=always");
    assert_int_equal(f.promote_in_place, PROMOTE_IN_PLACE_ALWAYS);
    parse_ok("--promote-in-place=auto");
    assert_int_equal(f.promote_in_place, PROMOTE_IN_PLACE_AUTO);
}

static void test_flags_promote_in_place_bad(void **state)
{
    (void)state;
    parse_bad("--promote-in-place=yes",
              "--promote-in-place: expected auto, always or never (got 'yes')");
    parse_bad("--promote-in-place", "--promote-in-place: expected =auto, =always or =never (got nothing)");
    parse_bad("--promote-in-placex", "unknown RTS option: --promote-in-placex");
    assert_int_equal(f.promote_in_place, PROMOTE_IN_PLACE_AUTO);
}

static void test_flags_prefault_bad(void **state)
{
    (void)state;
    parse_bad("--prefault=yes", "--prefault: expected auto, always or never (got 'yes')");
    parse_bad("--prefault=", "--prefault: expected auto, always or never (got '')");
    parse_bad("--prefault", "--prefault: expected =auto, =always or =never (got nothing)");
    parse_bad("--prefaultx", "unknown RTS option: --prefaultx");
    assert_int_equal(f.prefault, PREFAULT_AUTO);
}

static void test_flags_heap_samples_good(void **state)
{
    (void)state;
    parse_ok("--no-automatic-heap-samples");
    assert_false(f.automatic_heap_samples);
    parse_ok("--automatic-era-increment");
    assert_true(f.automatic_era_increment);
}

static void test_flags_heap_samples_bad(void **state)
{
    (void)state;
    parse_bad("--no-automatic-heap-samplesx", "unknown RTS option: --no-automatic-heap-samplesx");
    parse_bad("--automatic-era", "unknown RTS option: --automatic-era");
    parse_bad("--", "unknown RTS option: --");
    assert_true(f.automatic_heap_samples);
    assert_false(f.automatic_era_increment);
}

static void test_flags_eventlog_good(void **state)
{
    (void)state;
    parse_ok("-l");
    assert_true(f.eventlog);
    assert_int_equal(f.eventlog_classes, EVENTLOG_CLASS_DEFAULT);
    parse_ok("-l-s");
    assert_int_equal(f.eventlog_classes, EVENTLOG_CLASS_DEFAULT & ~(unsigned)EVENTLOG_CLASS_SCHED);
    parse_ok("-lfT");
    assert_int_equal(f.eventlog_classes,
                     EVENTLOG_CLASS_DEFAULT | EVENTLOG_CLASS_SPARKS_FULL | EVENTLOG_CLASS_TICKY);
    parse_ok("-l-ag");
    assert_int_equal(f.eventlog_classes, EVENTLOG_CLASS_GC);
    parse_ok("-la");
    assert_int_equal(f.eventlog_classes,
                     EVENTLOG_CLASS_SCHED | EVENTLOG_CLASS_GC | EVENTLOG_CLASS_NONMOVING |
                         EVENTLOG_CLASS_SPARKS_SAMPLED | EVENTLOG_CLASS_SPARKS_FULL |
                         EVENTLOG_CLASS_USER | EVENTLOG_CLASS_TICKY);
    rts_flags_init_defaults(&f);
    parse_ok("-lsn-p-u");
    assert_int_equal(f.eventlog_classes,
                     EVENTLOG_CLASS_SCHED | EVENTLOG_CLASS_GC | EVENTLOG_CLASS_NONMOVING);
}

static void test_flags_eventlog_bad(void **state)
{
    (void)state;
    parse_bad("-lZ", "unknown trace option: Z");
    parse_bad("-ls-x", "unknown trace option: x");
    assert_false(f.eventlog);
    assert_int_equal(f.eventlog_classes, EVENTLOG_CLASS_DEFAULT);
}

static void test_flags_eventlog_file_good(void **state)
{
    (void)state;
    parse_ok("-olrun.eventlog");
    assert_string_equal(f.eventlog_file, "run.eventlog");
    assert_false(f.eventlog);   /* -ol names the file, -l turns it on */
    parse_ok("-ol/tmp/other.eventlog");
    assert_string_equal(f.eventlog_file, "/tmp/other.eventlog");
}

static void test_flags_eventlog_file_bad(void **state)
{
    (void)state;
    parse_bad("-ol", "-ol expects filename");
    parse_bad("-ox", "unknown RTS option: -ox");
    parse_bad("-o", "unknown RTS option: -o");
    assert_null(f.eventlog_file);
}

static void test_flags_flush_interval_good(void **state)
{
    (void)state;
    parse_ok("--eventlog-flush-interval=0.5");
    assert_true(f.eventlog_flush_secs == 0.5);
    parse_ok("--eventlog-flush-interval=3");
    assert_true(f.eventlog_flush_secs == 3.0);
    parse_ok("--eventlog-flush-interval=0");
    assert_true(f.eventlog_flush_secs == 0.0);
}

static void test_flags_flush_interval_bad(void **state)
{
    (void)state;
    parse_bad("--eventlog-flush-interval=", "bad value for --eventlog-flush-interval");
    parse_bad("--eventlog-flush-interval=x", "bad value for --eventlog-flush-interval");
    parse_bad("--eventlog-flush-interval=-1", "bad value for --eventlog-flush-interval");
    parse_bad("--eventlog-flush-interval",
              "--eventlog-flush-interval: expected =<secs> (got nothing)");
    assert_true(f.eventlog_flush_secs == 0.0);
}

static void test_flags_capabilities(void **state)
{
    (void)state;
    assert_int_equal(f.capabilities, 1);
    parse_ok("-N4");
    assert_int_equal(f.capabilities, 4);
    parse_ok("-N");
    assert_true(f.capabilities >= 1);
    parse_bad("-N0", "-N: number of capabilities must be at least 1 (got 0)");
    parse_bad("-N257", "-N: number of capabilities must be at most 256 (got 257)");
    parse_bad("-Nfour", "-N: bad number 'four' (expected a whole number of capabilities, "
                        "e.g. -N4, or -N alone for one per processor)");
}

static void test_flags_parallel_gc(void **state)
{
    (void)state;
    assert_int_equal(f.gc_threads, 0);   /* one per capability */
    assert_int_equal(f.par_gc_from_gen, 0);
    parse_ok("-qn2");
    assert_int_equal(f.gc_threads, 2);
    parse_ok("-qg1");
    assert_int_equal(f.par_gc_from_gen, 1);
    parse_ok("-qg");
    assert_int_equal(f.par_gc_from_gen, PAR_GC_NEVER);
    parse_bad("-qn0", "-qn: number of GC threads must be at least 1 (got 0)");
    parse_bad("-qn", "-qn: bad number '' (expected a whole number of GC threads, e.g. -qn2)");
    parse_bad("-qn257", "-qn: number of GC threads must be at most 256 (got 257)");
    parse_bad("-qgx", "-qg: bad generation 'x' (expected a generation number, e.g. -qg1, or "
                      "-qg alone for no parallel collection)");
}

static void test_flags_unknown_and_unexpected(void **state)
{
    (void)state;
    parse_bad("-Z", "unknown RTS option: -Z");
    parse_bad("-", "unknown RTS option: -");
    parse_bad("-qa", "unknown RTS option: -qa (strata's parallel GC options are -qn<n> and "
                     "-qg[<gen>])");
    parse_bad("foo", "unexpected RTS argument: foo");
    parse_bad("+RTS", "unexpected RTS argument: +RTS");
    parse_bad("", "unexpected RTS argument: ");
}

static void test_flags_error_truncates(void **state)
{
    char small[8];
    (void)state;
    assert_false(rts_flags_parse_one(&f, "-A4k", small, sizeof small));
    assert_string_equal(small, "-A: siz");
    assert_false(rts_flags_parse_one(&f, "-A4k", NULL, 0));
}

static void test_flags_parse_string(void **state)
{
    (void)state;
    assert_true(rts_flags_parse_string(&f, "  -A64k\t-G3\n -s  ", err, sizeof err));
    assert_int_equal(f.nursery_bytes, 64 * 1024);
    assert_int_equal(f.generations, 3);
    assert_true(f.stats_summary);
    assert_true(rts_flags_parse_string(&f, "", err, sizeof err));
    assert_true(rts_flags_parse_string(&f, "   ", err, sizeof err));
    assert_false(rts_flags_parse_string(&f, "-A128k -G0 -G4", err, sizeof err));
    assert_string_equal(err, "-G: number of generations must be at least 1 (got 0)");
    assert_int_equal(f.nursery_bytes, 128 * 1024);   /* before the bad one */
    assert_int_equal(f.generations, 3);              /* stopped at the bad one */
}

/* ---------------------------------------------------------------------- */
/* rts_flags_process_args */

#define MAX_ARGS 16

typedef struct {
    int argc;
    char *argv[MAX_ARGS + 1];
    bool ok;
} Args;

static void args_set(Args *a, const char *const *words)
{
    a->argc = 0;
    for (; *words != NULL; words++) {
        assert_true(a->argc < MAX_ARGS);
        a->argv[a->argc++] = (char *)*words;
    }
    a->argv[a->argc] = NULL;
}

static void run_process_args(void *arg)
{
    Args *a = arg;
    char **argv = a->argv;
    a->ok = rts_flags_process_args(&f, &a->argc, &argv);
    assert_ptr_equal(argv, a->argv);
}

/* Processes words; returns what was printed (malloc'd). */
static char *process(Args *a, const char *const *words)
{
    args_set(a, words);
    return harness_capture_stderr(run_process_args, a);
}

static void assert_args(const Args *a, const char *const *want)
{
    int i = 0;
    for (; want[i] != NULL; i++) {
        assert_true(i < a->argc);
        assert_string_equal(a->argv[i], want[i]);
    }
    assert_int_equal(a->argc, i);
    assert_null(a->argv[a->argc]);
}

static void test_flags_args_one_group(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", "a", "+RTS", "-A64k", "-s", "-RTS",
                                             "b", NULL});
    (void)state;
    assert_true(a.ok);
    assert_string_equal(out, "");
    assert_args(&a, (const char *[]){"prog", "a", "b", NULL});
    assert_int_equal(f.nursery_bytes, 64 * 1024);
    assert_true(f.stats_summary);
    free(out);
}

static void test_flags_args_several_groups(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", "+RTS", "-A64k", "-RTS", "x", "+RTS",
                                             "-G3", "-RTS", "y", "+RTS", "-G4", "-RTS",
                                             NULL});
    (void)state;
    assert_true(a.ok);
    assert_args(&a, (const char *[]){"prog", "x", "y", NULL});
    assert_int_equal(f.nursery_bytes, 64 * 1024);
    assert_int_equal(f.generations, 4);   /* the later one wins */
    free(out);
}

static void test_flags_args_double_dash_rts(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", "+RTS", "-G3", "--RTS", "+RTS", "-G4",
                                             "-RTS", "--RTS", NULL});
    (void)state;
    assert_true(a.ok);
    assert_args(&a, (const char *[]){"prog", "+RTS", "-G4", "-RTS", "--RTS", NULL});
    assert_int_equal(f.generations, 3);
    free(out);
}

static void test_flags_args_double_dash(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", "a", "--", "+RTS", "-G4", NULL});
    (void)state;
    assert_true(a.ok);
    assert_args(&a, (const char *[]){"prog", "a", "--", "+RTS", "-G4", NULL});
    assert_int_equal(f.generations, 2);
    free(out);
}

static void test_flags_args_unterminated(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", "a", "+RTS", "-G3", "-S", NULL});
    (void)state;
    assert_true(a.ok);
    assert_args(&a, (const char *[]){"prog", "a", NULL});
    assert_int_equal(f.generations, 3);
    assert_true(f.stats_per_gc);
    free(out);
}

static void test_flags_args_stray_minus_rts(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", "-RTS", "a", "-G3", NULL});
    (void)state;
    assert_true(a.ok);
    assert_args(&a, (const char *[]){"prog", "a", "-G3", NULL});
    assert_int_equal(f.generations, 2);
    free(out);
}

static void test_flags_args_none(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", NULL});
    (void)state;
    assert_true(a.ok);
    assert_args(&a, (const char *[]){"prog", NULL});
    free(out);
    out = process(&a, (const char *[]){NULL});
    assert_true(a.ok);
    assert_int_equal(a.argc, 0);
    assert_null(a.argv[0]);
    free(out);
}

static void test_flags_args_ghcrts(void **state)
{
    Args a;
    char *out;
    (void)state;
    setenv("GHCRTS", " -A64k  -G3 -s", 1);
    out = process(&a, (const char *[]){"prog", "+RTS", "-G4", "-RTS", "x", NULL});
    assert_true(a.ok);
    assert_args(&a, (const char *[]){"prog", "x", NULL});
    assert_int_equal(f.nursery_bytes, 64 * 1024);
    assert_int_equal(f.generations, 4);   /* the command line overrides GHCRTS */
    assert_true(f.stats_summary);
    free(out);
}

static void test_flags_args_ghcrts_bad(void **state)
{
    Args a;
    char *out;
    (void)state;
    setenv("GHCRTS", "-G0 -A64k", 1);
    out = process(&a, (const char *[]){"/usr/bin/prog", "x", NULL});
    assert_false(a.ok);
    assert_string_equal(out, "prog: -G: number of generations must be at least 1 (got 0)\n"
                             "prog: use `+RTS -?' for a list of RTS options\n");
    assert_args(&a, (const char *[]){"/usr/bin/prog", "x", NULL});
    free(out);
}

static void test_flags_args_bad(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", "+RTS", "-hZ", "-A4k", "-G3", "-RTS",
                                             "x", "+RTS", "foo", NULL});
    (void)state;
    assert_false(a.ok);
    /* Every bad option is reported, then one hint. */
    assert_string_equal(out, "prog: unknown RTS option: -hZ\n"
                             "prog: -A: size must be at least 8k (got 4k)\n"
                             "prog: unexpected RTS argument: foo\n"
                             "prog: use `+RTS -?' for a list of RTS options\n");
    assert_int_equal(count_occurrences(out, "+RTS -?"), 1);
    assert_args(&a, (const char *[]){"prog", "x", NULL});
    free(out);
}

static void test_flags_args_bad_overflow(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", "+RTS", "-A99999999999999g", NULL});
    (void)state;
    assert_false(a.ok);
    assert_contains(out, "prog: -A: size must be at most 128t (got 99999999999999g)\n");
    free(out);
}

static void test_flags_args_usage_and_info(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", "+RTS", "-?", "--info", "-RTS", NULL});
    (void)state;
    /* Not errors: the caller prints and exits (1 after -?, 0 after --info). */
    assert_true(a.ok);
    assert_true(f.show_usage);
    assert_true(f.show_info);
    assert_string_equal(out, "");
    free(out);
}

static void test_flags_args_bare_era_selector(void **state)
{
    Args a;
    char *out;
    (void)state;
    out = process(&a, (const char *[]){"prog", "+RTS", "-he3", NULL});
    assert_true(a.ok);
    assert_int_equal(f.heap_breakdown, HEAP_BY_CLOSURE_TYPE);
    assert_true(f.era_selected);
    free(out);

    rts_flags_init_defaults(&f);
    out = process(&a, (const char *[]){"prog", "+RTS", "-he3", "-hi", NULL});
    assert_true(a.ok);
    assert_int_equal(f.heap_breakdown, HEAP_BY_INFO_TABLE);
    free(out);

    rts_flags_init_defaults(&f);
    out = process(&a, (const char *[]){"prog", "+RTS", "-he3", "-he", NULL});
    assert_true(a.ok);
    assert_int_equal(f.heap_breakdown, HEAP_BY_ERA);
    assert_int_equal(f.eras.lo, 3);
    free(out);
}

static void test_flags_args_max_heap_below_nursery(void **state)
{
    Args a;
    char *out = process(&a, (const char *[]){"prog", "+RTS", "-M2m", NULL});
    (void)state;
    assert_true(a.ok);
    assert_string_equal(
        out, "prog: maximum heap size (-M) is smaller than minimum alloc area size (-A)\n");
    assert_int_equal(f.nursery_bytes, 2 * 1024 * 1024);
    assert_int_equal(f.max_heap_bytes, 2 * 1024 * 1024);
    free(out);
}

/* ---------------------------------------------------------------------- */

static char *print_to_string(void (*print)(FILE *))
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_non_null(mem);
    print(mem);
    fclose(mem);
    return text;
}

static void test_flags_usage_text(void **state)
{
    static const char *const mentioned[] = {
        "Usage: <prog> <args> [+RTS <rtsopts> | -RTS <args>] ... --RTS <args>",
        "  -?  ", "--info", "-A<size>", "default 4m, at least 8k", "-F<n>", "default: 2.0",
        "-M<size>", "-G<n>", "default: 2", "-s[<file>]", "-S[<file>]", "-h  ",
        "-h<break-down>", "T  closure type", "i  info table", "e  era",
        "d  closure description", "y  type description", "m  module", "-he<era>",
        "-he<lo>-<hi>", "-i<sec>", "default: 0.1", "--no-automatic-heap-samples",
        "--automatic-era-increment", "-ol<file>", "-l[flags]",
        "the initial enabled event classes are 'sgpu'", "T    ticky", "a    all", "-x    disable",
        "--eventlog-flush-interval=<secs>", "-D<flags>", "S    sanity", "GHCRTS",
    };
    char *text = print_to_string(rts_flags_print_usage);
    (void)state;
    for (size_t i = 0; i < sizeof mentioned / sizeof mentioned[0]; i++)
        assert_contains(text, mentioned[i]);
    free(text);
}

static void test_flags_info_text(void **state)
{
    char *text = print_to_string(rts_flags_print_info);
    char want[128];
    (void)state;
    assert_true(strncmp(text, " [(\"GHC RTS\", \"NO\")\n ,(\"RTS name\", \"strata\")\n", 44) == 0);
    snprintf(want, sizeof want, " ,(\"RTS version\", \"%s\")\n", STRATA_VERSION);
    assert_contains(text, want);
    assert_contains(text, " ,(\"Build platform\", \"");
    assert_contains(text, " ,(\"Debug level\", \"");
    assert_contains(text, " ,(\"Sanitizers\", \"");
    assert_contains(text, " ,(\"Word size\", \"64\")\n");
    assert_contains(text, " ,(\"Block size\", \"4096\")\n");
    assert_contains(text, " ,(\"Megablock size\", \"1048576\")\n");
    assert_string_equal(text + strlen(text) - 3, " ]\n");
    free(text);
}

static void test_flags_check_catches_bad_values(void **state)
{
    RtsFlags g;
    (void)state;
    rts_flags_init_defaults(&g);
    assert_true(rts_flags_check(&g));
    g.nursery_bytes = 8192 + 1;        /* not whole blocks */
    assert_false(rts_flags_check(&g));
    rts_flags_init_defaults(&g);
    g.generations = 0;
    assert_false(rts_flags_check(&g));
    rts_flags_init_defaults(&g);
    g.oldgen_factor = 0;
    assert_false(rts_flags_check(&g));
    rts_flags_init_defaults(&g);
    g.stats_per_gc = true;             /* -S without the summary */
    assert_false(rts_flags_check(&g));
    rts_flags_init_defaults(&g);
    g.era_selected = true;
    g.eras.lo = 5;
    g.eras.hi = 4;
    assert_false(rts_flags_check(&g));
    rts_flags_init_defaults(&g);
    g.eventlog_classes = 1u << 20;
    assert_false(rts_flags_check(&g));
    rts_flags_init_defaults(&g);
    g.max_heap_bytes = 4096;           /* below 1m */
    assert_false(rts_flags_check(&g));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_flags_defaults),
        T(test_flags_nursery_good),
        T(test_flags_nursery_bad),
        T(test_flags_max_heap_good),
        T(test_flags_max_heap_bad),
        T(test_flags_generations_good),
        T(test_flags_generations_bad),
        T(test_flags_oldgen_factor_good),
        T(test_flags_oldgen_factor_bad),
        T(test_flags_stats_good),
        T(test_flags_stats_bad),
        T(test_flags_usage_and_info_good),
        T(test_flags_usage_and_info_bad),
        T(test_flags_debug_good),
        T(test_flags_debug_bad),
        T(test_flags_heap_breakdown_good),
        T(test_flags_heap_deprecated_h),
        T(test_flags_heap_breakdown_bad),
        T(test_flags_era_selector_good),
        T(test_flags_era_selector_bad),
        T(test_flags_interval_good),
        T(test_flags_interval_bad),
        T(test_flags_census_gc_good),
        T(test_flags_census_gc_bad),
        T(test_flags_prefault_good),
        T(test_flags_prefault_bad),
        T(test_flags_promote_in_place_good),
        T(test_flags_promote_in_place_bad),
        T(test_flags_heap_samples_good),
        T(test_flags_heap_samples_bad),
        T(test_flags_eventlog_good),
        T(test_flags_eventlog_bad),
        T(test_flags_eventlog_file_good),
        T(test_flags_eventlog_file_bad),
        T(test_flags_flush_interval_good),
        T(test_flags_flush_interval_bad),
        T(test_flags_capabilities),
        T(test_flags_parallel_gc),
        T(test_flags_unknown_and_unexpected),
        T(test_flags_error_truncates),
        T(test_flags_parse_string),
        T(test_flags_args_one_group),
        T(test_flags_args_several_groups),
        T(test_flags_args_double_dash_rts),
        T(test_flags_args_double_dash),
        T(test_flags_args_unterminated),
        T(test_flags_args_stray_minus_rts),
        T(test_flags_args_none),
        T(test_flags_args_ghcrts),
        T(test_flags_args_ghcrts_bad),
        T(test_flags_args_bad),
        T(test_flags_args_bad_overflow),
        T(test_flags_args_usage_and_info),
        T(test_flags_args_bare_era_selector),
        T(test_flags_args_max_heap_below_nursery),
        T(test_flags_usage_text),
        T(test_flags_info_text),
        T(test_flags_check_catches_bad_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
