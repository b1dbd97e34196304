/*
 * testsuite/unit/test_live_metrics.c -- strata-live's figures and their
 * Prometheus rendering (utils/strata-live/LiveState.c): label escaping
 * (backslash, quote, newline; Unicode kept, invalid UTF-8 and NUL
 * replaced), the census's top N bands with the rest summed as "other",
 * heap and GC figures from events, and a new stream replacing the old
 * one's figures.  Events are built by hand as the reader decodes them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "LiveState.h"
#include "TextOut.h"

static char *escape(const char *s, size_t len)
{
    char *out = malloc(TEXT_ESCAPED_MAX(len) + 1);
    assert_non_null(out);
    size_t n = live_escape_label_value(out, s, len);
    assert_true(n <= TEXT_ESCAPED_MAX(len));
    assert_int_equal(out[n], '\0');
    return out;
}

static void test_live_metrics_escape_label_value(void **state)
{
    (void)state;
    struct {
        const char *in;
        size_t len;
        const char *want;
    } cases[] = {
        {"plain", 5, "plain"},
        {"a\\b", 3, "a\\\\b"},
        {"say \"hi\"", 8, "say \\\"hi\\\""},
        {"two\nlines", 9, "two\\nlines"},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"},
        {"Caf\xc3\xa9\xe2\x86\x92\xce\xbb", 10, "Caf\xc3\xa9\xe2\x86\x92\xce\xbb"},
        {"bad \xff byte", 10, "bad \\\\xff byte"},
        {"cut \xe2\x82", 6, "cut \\\\xe2\\\\x82"},
        {"overlong \xc0\xaf", 11, "overlong \\\\xc0\\\\xaf"},
        {"surrogate \xed\xa0\x80", 13, "surrogate \\\\xed\\\\xa0\\\\x80"},
        {"nul\0x", 5, "nul\\\\x00x"},
        {"tab\tcr\r", 7, "tab\\\\x09cr\\\\x0d"},
        {"\\\"\n", 3, "\\\\\\\"\\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = escape(cases[i].in, cases[i].len);
        assert_string_equal(got, cases[i].want);
        free(got);
    }
}

/* ----------------------------------------------------------------------
 * Events, as the reader decodes them
 * ------------------------------------------------------------------- */

static EvrEvent event(uint16_t type, uint64_t time_ns)
{
    EvrEvent ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.time_ns = time_ns;
    ev.cap = 0;
    ev.decoded = evr_decodes_type(type);
    ev.size_bytes = 20;
    return ev;
}

static void add_heap(LiveState *s, uint16_t type, uint64_t bytes)
{
    EvrEvent ev = event(type, 1);
    ev.u.heap.bytes = bytes;
    live_state_add(s, &ev);
}

static void add_census(LiveState *s, uint32_t breakdown, const char *const *labels,
                       const uint64_t *bytes, size_t n)
{
    EvrEvent ev = event(EVENT_HEAP_PROF_BEGIN, 1);
    ev.u.prof_begin.breakdown = breakdown;
    live_state_add(s, &ev);
    ev = event(EVENT_HEAP_PROF_SAMPLE_BEGIN, 2);
    live_state_add(s, &ev);
    for (size_t i = 0; i < n; i++) {
        ev = event(EVENT_HEAP_PROF_SAMPLE_STRING, 3);
        ev.u.sample_string.label = (EvrStr){ labels[i], strlen(labels[i]) };
        ev.u.sample_string.residency_bytes = bytes[i];
        live_state_add(s, &ev);
    }
    ev = event(EVENT_HEAP_PROF_SAMPLE_END, 4);
    live_state_add(s, &ev);
}

static char *render(const LiveState *s)
{
    size_t len;
    char *text = live_state_render_metrics(s, &len);
    assert_non_null(text);
    assert_int_equal(strlen(text), len);
    return text;
}

static void assert_has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && p[n] == '\n')
            return;
    fail_msg("no line '%s' in:\n%s", line, text);
}

static void test_live_metrics_census_top_and_other(void **state)
{
    (void)state;
    LiveState s;
    live_state_init(&s, "svc", 2);
    live_state_stream_begin(&s);
    const char *labels[] = { "THUNK", "quote\"d", "ARR_WORDS", "back\\slash\nnl" };
    const uint64_t bytes[] = { 100, 4000, 3000, 7 };
    add_census(&s, HEAP_PROF_BREAKDOWN_CLOSURE_TYPE, labels, bytes, 4);
    char *text = render(&s);
    assert_has_line(text, "strata_heap_census_bytes{service_name=\"svc\",breakdown=\"closure_type\","
                          "band=\"quote\\\"d\",closure_type=\"quote\\\"d\"} 4000");
    assert_has_line(text, "strata_heap_census_bytes{service_name=\"svc\",breakdown=\"closure_type\","
                          "band=\"ARR_WORDS\",closure_type=\"ARR_WORDS\"} 3000");
    assert_has_line(text, "strata_heap_census_bytes{service_name=\"svc\",breakdown=\"closure_type\","
                          "band=\"other\"} 107");
    assert_null(strstr(text, "band=\"THUNK\""));
    assert_has_line(text, "strata_heap_census_bands{service_name=\"svc\"} 4");
    assert_has_line(text, "strata_heap_census_total_bytes{service_name=\"svc\"} 7107");
    assert_has_line(text, "# TYPE strata_heap_census_bytes gauge");
    free(text);
    live_state_free(&s);
}

/* A real band named "other" among the top N keeps its name; the rest is
 * then "other (rest)", so no two series have the same labels. */
static void test_live_metrics_band_named_other(void **state)
{
    (void)state;
    LiveState s;
    live_state_init(&s, "svc", 1);
    live_state_stream_begin(&s);
    const char *labels[] = { "other", "x" };
    const uint64_t bytes[] = { 50, 5 };
    add_census(&s, HEAP_PROF_BREAKDOWN_CLOSURE_DESCR, labels, bytes, 2);
    char *text = render(&s);
    assert_has_line(text, "strata_heap_census_bytes{service_name=\"svc\",breakdown="
                          "\"closure_description\",band=\"other\"} 50");
    assert_has_line(text, "strata_heap_census_bytes{service_name=\"svc\",breakdown="
                          "\"closure_description\",band=\"other (rest)\"} 5");
    free(text);
    live_state_free(&s);
}

static void test_live_metrics_heap_and_gc(void **state)
{
    (void)state;
    LiveState s;
    live_state_init(&s, NULL, 20);
    live_state_stream_begin(&s);
    EvrEvent ev = event(EVENT_PROGRAM_ARGS, 0);
    ev.u.args.args = (EvrStr){ "/bin/my\"prog\0+RTS", 17 };
    live_state_add(&s, &ev);
    add_heap(&s, EVENT_HEAP_SIZE, 4096);
    add_heap(&s, EVENT_HEAP_LIVE, 1024);
    add_heap(&s, EVENT_HEAP_LIVE, 2048);
    add_heap(&s, EVENT_HEAP_ALLOCATED, 999);
    /* Two GCs: 0.2 ms and 3 ms. */
    ev = event(EVENT_GC_START, 1000000);
    live_state_add(&s, &ev);
    ev = event(EVENT_GC_END, 1200000);
    live_state_add(&s, &ev);
    ev = event(EVENT_GC_START, 2000000);
    live_state_add(&s, &ev);
    ev = event(EVENT_GC_END, 5000000);
    live_state_add(&s, &ev);
    static const uint8_t stats[58] = { 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x10, 0 };
    ev = event(EVENT_GC_STATS_GHC, 5000001);
    ev.payload = stats;
    ev.payload_bytes = sizeof stats;
    live_state_add(&s, &ev);
    char *text = render(&s);
    /* service_name defaults to the program's base name, escaped. */
    assert_has_line(text, "strata_heap_size_bytes{service_name=\"my\\\"prog\"} 4096");
    assert_has_line(text, "strata_heap_live_bytes{service_name=\"my\\\"prog\"} 2048");
    assert_has_line(text, "strata_heap_allocated_bytes_total{service_name=\"my\\\"prog\"} 999");
    assert_has_line(text, "strata_gc_collections_total{service_name=\"my\\\"prog\"} 2");
    assert_has_line(text, "strata_gc_copied_bytes_total{service_name=\"my\\\"prog\"} 4096");
    assert_has_line(text, "strata_gc_pause_seconds_bucket{service_name=\"my\\\"prog\",le=\"0.0001\"} 0");
    assert_has_line(text, "strata_gc_pause_seconds_bucket{service_name=\"my\\\"prog\",le=\"0.00025\"} 1");
    assert_has_line(text, "strata_gc_pause_seconds_bucket{service_name=\"my\\\"prog\",le=\"0.0025\"} 1");
    assert_has_line(text, "strata_gc_pause_seconds_bucket{service_name=\"my\\\"prog\",le=\"0.005\"} 2");
    assert_has_line(text, "strata_gc_pause_seconds_bucket{service_name=\"my\\\"prog\",le=\"+Inf\"} 2");
    assert_has_line(text, "strata_gc_pause_seconds_count{service_name=\"my\\\"prog\"} 2");
    assert_has_line(text, "strata_gc_pause_seconds_sum{service_name=\"my\\\"prog\"} 0.003200000");
    free(text);

    /* A stream that sends its preamble and ends (a program's exit racing
     * the reconnect) leaves the last figures served, and is not counted
     * as a stream (Note [A program's exit is the end] in main.c). */
    live_state_stream_end(&s, 1);
    live_state_stream_begin(&s);
    ev = event(EVENT_PROGRAM_ARGS, 0);
    ev.u.args.args = (EvrStr){ "/bin/other", 10 };
    live_state_add(&s, &ev);
    live_state_stream_end(&s, 0);
    text = render(&s);
    assert_has_line(text, "strata_heap_size_bytes{service_name=\"my\\\"prog\"} 4096");
    assert_has_line(text, "strata_live_streams_total{service_name=\"my\\\"prog\"} 1");
    free(text);

    /* A new stream's first figure replaces them: it starts from nothing
     * but strata-live's own counters and its own preamble. */
    live_state_stream_begin(&s);
    live_state_add(&s, &ev);
    add_heap(&s, EVENT_HEAP_LIVE, 7);
    text = render(&s);
    assert_null(strstr(text, "strata_heap_size_bytes"));
    assert_has_line(text, "strata_heap_live_bytes{service_name=\"other\"} 7");
    assert_has_line(text, "strata_live_streams_total{service_name=\"other\"} 2");
    assert_has_line(text, "strata_live_events_total{service_name=\"other\"} 13");
    free(text);
    live_state_free(&s);
}

/* HEAP_ALLOCATED: GHC posts each capability's own total (summed); strata's
 * runtime posts the process's total on whichever capability ran the GC. */
static void test_live_metrics_allocated_per_runtime(void **state)
{
    (void)state;
    for (int strata = 0; strata <= 1; strata++) {
        LiveState s;
        live_state_init(&s, "svc", 20);
        live_state_stream_begin(&s);
        EvrEvent ev = event(EVENT_RTS_IDENTIFIER, 0);
        ev.u.rts_id.ident = strata ? (EvrStr){ "strata-0.1.0 rts_strata", 23 }
                                   : (EvrStr){ "GHC-9.6.2 rts_thr", 17 };
        live_state_add(&s, &ev);
        const uint64_t figures[][2] = { { 0, 100 }, { 1, 250 }, { 0, 400 } };
        for (size_t k = 0; k < 3; k++) {
            ev = event(EVENT_HEAP_ALLOCATED, 10 + k);
            ev.cap = (int)figures[k][0];
            ev.u.heap.bytes = figures[k][1];
            live_state_add(&s, &ev);
        }
        char *text = render(&s);
        assert_has_line(text, strata ? "strata_heap_allocated_bytes_total{service_name=\"svc\"} 400"
                                     : "strata_heap_allocated_bytes_total{service_name=\"svc\"} 650");
        free(text);
        live_state_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_metrics_escape_label_value),
        cmocka_unit_test(test_live_metrics_census_top_and_other),
        cmocka_unit_test(test_live_metrics_band_named_other),
        cmocka_unit_test(test_live_metrics_heap_and_gc),
        cmocka_unit_test(test_live_metrics_allocated_per_runtime),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
