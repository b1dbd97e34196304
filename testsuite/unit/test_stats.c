/*
 * testsuite/unit/test_stats.c -- run-time statistics (rts/Stats.c) and the
 * OS clocks behind them (support/os/Clock.c).  Synthetic GCDetails go through
 * stats_gc_begin/stats_gc_end under a scripted clock, so the +RTS -s
 * summary and the +RTS -S lines can be compared byte for byte with what
 * GHC would print for the same figures.  Every test ends with stats_check
 * (in teardown).
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
#include "Stats.h"
#include "os/Clock.h"

#define MS 1000000ull   /* nanoseconds */
#define MiB ((StgWord)1024 * 1024)

static StatsClockReading fake_now;

static void fake_clock(StatsClockReading *now)
{
    *now = fake_now;
}

/* Moves the scripted clock on. */
static void advance(uint64_t cpu_ms, uint64_t elapsed_ms, uint64_t faults)
{
    fake_now.cpu_ns += cpu_ms * MS;
    fake_now.elapsed_ns += elapsed_ms * MS;
    fake_now.major_faults += faults;
}

static int setup(void **state)
{
    (void)state;
    rts_flags_init_defaults(&rts_flags);
    rts_set_prog_name("test_stats");
    fake_now = (StatsClockReading){.cpu_ns = 5 * MS, .elapsed_ns = 1000 * MS,
                                   .major_faults = 10};
    stats_set_clock(fake_clock);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    assert_true(stats_check());
    stats_close_output();
    stats_exit();
    stats_set_clock(NULL);
    rts_flags_free(&rts_flags);
    return 0;
}

/* One GC taking (cpu_ms, elapsed_ms), page faults during it. */
static void run_gc(const GCDetails *gc, uint64_t cpu_ms, uint64_t elapsed_ms, uint64_t faults)
{
    stats_gc_begin();
    advance(cpu_ms, elapsed_ms, faults);
    stats_gc_end(gc);
    assert_true(stats_check());
}

/* The sample run: INIT, two minor and one major GC in MUT, a final major
 * GC during EXIT, and allocation after it. */
static void run_sample_program(void)
{
    stats_init(2);
    advance(2, 3, 0);
    stats_end_init();

    advance(100, 120, 2);
    run_gc(&(GCDetails){.gen = 0, .major = false, .allocated_bytes = 4 * MiB,
                        .copied_bytes = 123456, .live_bytes = 200000,
                        .slop_bytes = 99999, .mem_in_use_bytes = 6 * MiB},
           4, 5, 3);
    advance(100, 110, 0);
    run_gc(&(GCDetails){.gen = 0, .major = false, .allocated_bytes = 4 * MiB,
                        .copied_bytes = 234567, .live_bytes = 400000,
                        .slop_bytes = 99999, .mem_in_use_bytes = 8 * MiB},
           6, 8, 0);
    advance(200, 210, 1);
    run_gc(&(GCDetails){.gen = 1, .major = true, .allocated_bytes = 4 * MiB,
                        .copied_bytes = 1000000, .live_bytes = 1234567,
                        .large_live_bytes = 4096, .slop_bytes = 45678,
                        .mem_in_use_bytes = 12 * MiB},
           20, 25, 0);
    advance(50, 60, 0);

    stats_start_exit();
    advance(1, 1, 0);
    run_gc(&(GCDetails){.gen = 1, .major = true, .allocated_bytes = 4 * MiB,
                        .copied_bytes = 500000, .live_bytes = 2345678,
                        .slop_bytes = 12345, .mem_in_use_bytes = 10 * MiB,
                        .returned_mblocks = 2},
           10, 12, 0);
    stats_add_allocated_bytes(1000000);
    advance(1, 2, 0);
    stats_end_exit();
}

static const char sample_summary[] =
    "      17,777,216 bytes allocated in the heap\n"
    "       1,858,023 bytes copied during GC\n"
    "       2,345,678 bytes maximum residency (2 sample(s))\n"
    "          45,678 bytes maximum slop\n"
    "              12 MiB total memory in use (0 MiB lost due to fragmentation)\n"
    "               2 MiB returned to the OS (2 megablocks)\n"
    "\n"
    "                                     Tot time (elapsed)  Avg pause  Max pause\n"
    "  Gen  0         2 colls,     0 par    0.010s   0.013s     0.0065s    0.0080s\n"
    "  Gen  1         2 colls,     0 par    0.030s   0.037s     0.0185s    0.0250s\n"
    "\n"
    "  INIT    time    0.002s  (  0.003s elapsed)\n"
    "  MUT     time    0.450s  (  0.500s elapsed)\n"
    "  GC      time    0.040s  (  0.050s elapsed)\n"
    "  EXIT    time    0.002s  (  0.003s elapsed)\n"
    "  Total   time    0.494s  (  0.556s elapsed)\n"
    "\n"
    "  %GC     time       8.1%  (9.0% elapsed)\n"
    "\n"
    "  Alloc rate    39,504,924 bytes per MUT second\n"
    "\n"
    "  Productivity  91.1% of total user, 89.9% of total elapsed\n"
    "\n";

static char *summary_to_string(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_non_null(mem);
    stats_print_summary(mem);
    fclose(mem);
    return text;
}

static char *read_file(const char *path)
{
    FILE *fp = fopen(path, "r");
    long len;
    char *text;

    assert_non_null(fp);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    len = ftell(fp);
    assert_true(len >= 0);
    rewind(fp);
    text = malloc((size_t)len + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)len, fp), (size_t)len);
    text[len] = '\0';
    fclose(fp);
    return text;
}

/* A fresh temporary file name (the file is created, then removed). */
static void temp_path(char *buf, size_t len)
{
    int fd;
    snprintf(buf, len, "%s/strata-stats-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    fd = mkstemp(buf);
    assert_true(fd >= 0);
    close(fd);
}

/* ---------------------------------------------------------------------- */

static void test_stats_summary_format(void **state)
{
    char *text;
    (void)state;
    run_sample_program();
    text = summary_to_string();
    assert_string_equal(text, sample_summary);
    free(text);
}

static void test_stats_get_totals(void **state)
{
    RtsStats s;
    (void)state;
    run_sample_program();
    stats_get(&s);
    assert_int_equal(s.gcs, 4);
    assert_int_equal(s.major_gcs, 2);
    assert_int_equal(s.allocated_bytes, 4 * 4 * MiB + 1000000);
    assert_int_equal(s.copied_bytes, 123456 + 234567 + 1000000 + 500000);
    assert_int_equal(s.max_live_bytes, 2345678);
    assert_int_equal(s.max_slop_bytes, 45678);          /* minor GCs' slop ignored */
    assert_int_equal(s.max_mem_in_use_bytes, 12 * MiB);
    assert_int_equal(s.returned_mblocks, 2);
    assert_int_equal(s.cumulative_live_bytes, 1234567 + 2345678);
    assert_true(s.gc_cpu_secs > 0.040 - 1e-9 && s.gc_cpu_secs < 0.040 + 1e-9);
    assert_true(s.gc_elapsed_secs > 0.050 - 1e-9 && s.gc_elapsed_secs < 0.050 + 1e-9);
    assert_true(s.mut_cpu_secs > 0.450 - 1e-9 && s.mut_cpu_secs < 0.450 + 1e-9);
    assert_true(s.mut_elapsed_secs > 0.500 - 1e-9 && s.mut_elapsed_secs < 0.500 + 1e-9);
}

static void test_stats_get_while_running(void **state)
{
    RtsStats s;
    (void)state;
    stats_init(2);
    advance(1, 1, 0);
    stats_end_init();
    advance(30, 40, 0);
    run_gc(&(GCDetails){.gen = 0, .allocated_bytes = 1000}, 5, 6, 0);
    advance(10, 10, 0);
    stats_get(&s);   /* MUT so far: everything after INIT but the GC */
    assert_int_equal(s.gcs, 1);
    assert_int_equal(s.major_gcs, 0);
    assert_int_equal(s.allocated_bytes, 1000);
    assert_true(s.mut_cpu_secs > 0.040 - 1e-9 && s.mut_cpu_secs < 0.040 + 1e-9);
    assert_true(s.mut_elapsed_secs > 0.050 - 1e-9 && s.mut_elapsed_secs < 0.050 + 1e-9);
}

static void test_stats_per_gc_lines(void **state)
{
    char path[256];
    char *text;
    (void)state;
    temp_path(path, sizeof path);
    assert_true(rts_flags_parse_one(&rts_flags, "-S", NULL, 0));
    rts_flags.stats_file = strdup(path);
    assert_true(stats_open_output());
    run_sample_program();
    stats_print_summary(NULL);   /* into the same file */
    stats_close_output();
    text = read_file(path);
    const char *want_lines =
        "    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts\n"
        "    bytes     bytes     bytes   user   elap     user     elap\n"
        "  4194304    123456    200000  0.004  0.005    0.106    0.128    3    2  (Gen:  0)\n"
        "  4194304    234567    400000  0.006  0.008    0.212    0.246    0    0  (Gen:  0)\n"
        "  4194304   1000000   1234567  0.020  0.025    0.432    0.481    0    1  (Gen:  1)\n"
        "  4194304    500000   2345678  0.010  0.012    0.493    0.554    0    0  (Gen:  1)\n"
        "  1000000                      0.000  0.000\n"
        "\n";
    if (strncmp(text, want_lines, strlen(want_lines)) != 0)
        fail_msg("per-GC lines differ:\n%s", text);
    assert_string_equal(text + strlen(want_lines), sample_summary);
    free(text);
    unlink(path);
}

static void test_stats_thousands_separators(void **state)
{
    static const struct {
        StgWord bytes;
        const char *line;
    } cases[] = {
        {0, "               0 bytes allocated in the heap\n"},
        {999, "             999 bytes allocated in the heap\n"},
        {1000, "           1,000 bytes allocated in the heap\n"},
        {123456, "         123,456 bytes allocated in the heap\n"},
        {1234567, "       1,234,567 bytes allocated in the heap\n"},
        {(StgWord)1234567890123ull, "1,234,567,890,123 bytes allocated in the heap\n"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text;
        stats_init(1);
        stats_end_init();
        run_gc(&(GCDetails){.gen = 0, .major = true, .allocated_bytes = cases[i].bytes}, 0,
               0, 0);
        text = summary_to_string();
        if (strncmp(text, cases[i].line, strlen(cases[i].line)) != 0)
            fail_msg("want %s got %s", cases[i].line, text);
        free(text);
    }
}

static void test_stats_sample_count(void **state)
{
    char *text;
    (void)state;
    stats_init(2);
    stats_end_init();
    run_gc(&(GCDetails){.gen = 1, .major = true, .live_bytes = 5000}, 1, 1, 0);
    text = summary_to_string();
    assert_non_null(strstr(text, "           5,000 bytes maximum residency (1 sample(s))\n"));
    free(text);
    for (int i = 0; i < 11; i++)
        run_gc(&(GCDetails){.gen = 1, .major = true, .live_bytes = 4000}, 1, 1, 0);
    text = summary_to_string();
    assert_non_null(strstr(text, "           5,000 bytes maximum residency (12 sample(s))\n"));
    free(text);
}

static void test_stats_no_major_gc(void **state)
{
    char *text;
    (void)state;
    stats_init(2);
    stats_end_init();
    run_gc(&(GCDetails){.gen = 0, .allocated_bytes = 8192, .live_bytes = 777}, 0, 0, 0);
    stats_start_exit();
    stats_end_exit();
    text = summary_to_string();
    /* No residency line without a major GC, no "returned" line when
     * nothing was returned, and no division by zero time. */
    assert_null(strstr(text, "maximum residency"));
    assert_null(strstr(text, "returned to the OS"));
    assert_string_equal(text,
        "           8,192 bytes allocated in the heap\n"
        "               0 bytes copied during GC\n"
        "               0 bytes maximum slop\n"
        "               0 MiB total memory in use (0 MiB lost due to fragmentation)\n"
        "\n"
        "                                     Tot time (elapsed)  Avg pause  Max pause\n"
        "  Gen  0         1 colls,     0 par    0.000s   0.000s     0.0000s    0.0000s\n"
        "  Gen  1         0 colls,     0 par    0.000s   0.000s     0.0000s    0.0000s\n"
        "\n"
        "  INIT    time    0.000s  (  0.000s elapsed)\n"
        "  MUT     time    0.000s  (  0.000s elapsed)\n"
        "  GC      time    0.000s  (  0.000s elapsed)\n"
        "  EXIT    time    0.000s  (  0.000s elapsed)\n"
        "  Total   time    0.000s  (  0.000s elapsed)\n"
        "\n"
        "  %GC     time       0.0%  (0.0% elapsed)\n"
        "\n"
        "  Alloc rate    0 bytes per MUT second\n"
        "\n"
        "  Productivity 100.0% of total user, 100.0% of total elapsed\n"
        "\n");
    free(text);
}

static void test_stats_generation_lines(void **state)
{
    char *text;
    (void)state;
    stats_init(3);
    stats_end_init();
    run_gc(&(GCDetails){.gen = 0}, 1, 2, 0);
    run_gc(&(GCDetails){.gen = 1}, 3, 4, 0);
    run_gc(&(GCDetails){.gen = 1}, 5, 6, 0);
    run_gc(&(GCDetails){.gen = 2, .major = true}, 7, 8, 0);
    text = summary_to_string();
    assert_non_null(strstr(text,
        "  Gen  0         1 colls,     0 par    0.001s   0.002s     0.0020s    0.0020s\n"
        "  Gen  1         2 colls,     0 par    0.008s   0.010s     0.0050s    0.0060s\n"
        "  Gen  2         1 colls,     0 par    0.007s   0.008s     0.0080s    0.0080s\n"
        "\n"));
    free(text);

    stats_init(1);   /* -G1: every GC is a major GC of gen 0 */
    stats_end_init();
    run_gc(&(GCDetails){.gen = 0, .major = true}, 1, 1, 0);
    text = summary_to_string();
    assert_non_null(strstr(text, "  Gen  0         1 colls,"));
    assert_null(strstr(text, "  Gen  1"));
    free(text);
}

static void test_stats_open_output_file(void **state)
{
    char path[256];
    char *text;
    (void)state;
    temp_path(path, sizeof path);
    assert_true(rts_flags_parse_one(&rts_flags, "-s", NULL, 0));
    rts_flags.stats_file = strdup(path);
    assert_true(stats_open_output());
    assert_true(stats_open_output());   /* already open: nothing to do */
    stats_init(2);
    stats_end_init();
    stats_start_exit();
    stats_end_exit();                   /* -s, not -S: no last line */
    stats_print_summary(NULL);
    stats_close_output();
    text = read_file(path);
    const char *first = "               0 bytes allocated in the heap\n";
    assert_true(strncmp(text, first, strlen(first)) == 0);
    assert_null(strstr(text, "Alloc    Copied"));   /* the -S header */
    free(text);
    unlink(path);
}

static void open_output_quietly(void *arg)
{
    *(bool *)arg = stats_open_output();
}

static void test_stats_open_output_fails(void **state)
{
    bool ok = true;
    char *text;
    (void)state;
    assert_true(rts_flags_parse_one(&rts_flags, "-s/nonexistent-dir/x.stats", NULL, 0));
    text = harness_capture_stderr(open_output_quietly, &ok);
    assert_false(ok);
    assert_string_equal(text, "test_stats: cannot open stats file /nonexistent-dir/x.stats: "
                              "No such file or directory\n");
    free(text);
}

static void print_per_gc_to_stderr(void *arg)
{
    (void)arg;
    assert_true(stats_open_output());
    stats_init(1);
    stats_end_init();
    run_gc(&(GCDetails){.gen = 0, .major = true, .allocated_bytes = 1, .copied_bytes = 2,
                        .live_bytes = 3},
           1, 2, 0);
    stats_close_output();
}

static void test_stats_open_output_stderr(void **state)
{
    char *text;
    (void)state;
    assert_true(rts_flags_parse_one(&rts_flags, "-S", NULL, 0));
    text = harness_capture_stderr(print_per_gc_to_stderr, NULL);
    assert_string_equal(text,
        "    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts\n"
        "    bytes     bytes     bytes   user   elap     user     elap\n"
        "        1         2         3  0.001  0.002    0.001    0.002    0    0  (Gen:  0)\n");
    free(text);
}

static void test_stats_no_output_without_flags(void **state)
{
    (void)state;
    assert_true(stats_open_output());   /* neither -s nor -S: nothing opened */
    stats_init(2);
    stats_end_init();
    run_gc(&(GCDetails){.gen = 0}, 1, 1, 0);   /* and nothing printed */
    stats_start_exit();
    stats_end_exit();
}

/* ---------------------------------------------------------------------- */
/* The OS clocks (support/os/Clock.c) */

/* Spends some CPU time; the result keeps the loop from being optimised out. */
static uint64_t burn_cpu(uint64_t n)
{
    volatile uint64_t sink = 0;
    for (uint64_t i = 0; i < n; i++)
        sink += i;
    return sink;
}

static void test_stats_os_clock(void **state)
{
    uint64_t e0, e1, c0, c1, minor = 0, major = 0;
    (void)state;
    clock_init();
    e0 = clock_elapsed_ns();
    c0 = clock_cpu_ns();
    assert_true(burn_cpu(20000000) > 0);
    e1 = clock_elapsed_ns();
    c1 = clock_cpu_ns();
    assert_true(e1 > e0);
    assert_true(c1 > c0);
    assert_true(e1 < 60ull * 1000 * MS);   /* measured from clock_init */
    assert_int_equal(os_page_faults(&minor, &major), 0);
    assert_true(minor > 0);
    assert_int_equal(os_page_faults(NULL, NULL), 0);
    assert_true(os_peak_rss_bytes() > 4096);
    assert_int_equal(os_peak_rss_bytes() % 1024, 0);
}

static void test_stats_real_clock_run(void **state)
{
    RtsStats s;
    char *text;
    (void)state;
    stats_set_clock(NULL);
    stats_init(2);
    stats_end_init();
    assert_true(burn_cpu(5000000) > 0);
    run_gc(&(GCDetails){.gen = 1, .major = true, .allocated_bytes = 1 << 20}, 0, 0, 0);
    stats_start_exit();
    stats_end_exit();
    stats_get(&s);
    assert_true(s.mut_cpu_secs > 0);
    assert_true(s.gc_cpu_secs >= 0);
    text = summary_to_string();
    assert_non_null(strstr(text, "       1,048,576 bytes allocated in the heap\n"));
    assert_non_null(strstr(text, "  Productivity "));
    free(text);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(test_stats_summary_format),
        T(test_stats_get_totals),
        T(test_stats_get_while_running),
        T(test_stats_per_gc_lines),
        T(test_stats_thousands_separators),
        T(test_stats_sample_count),
        T(test_stats_no_major_gc),
        T(test_stats_generation_lines),
        T(test_stats_open_output_file),
        T(test_stats_open_output_fails),
        T(test_stats_open_output_stderr),
        T(test_stats_no_output_without_flags),
        T(test_stats_os_clock),
        T(test_stats_real_clock_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
