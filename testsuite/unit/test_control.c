/*
 * testsuite/unit/test_control.c -- the control protocol's decoder
 * (wire/ControlWire.c) on whole, split, garbled and truncated input, and
 * the runtime's command registry and queue (rts/Control.c): a registered
 * command runs on the mutator at the next safe point, built-in commands
 * act, unknown ones are counted and change nothing.
 */
#include "harness.h"

#include "Control.h"
#include "ControlWire.h"
#include "EventLog.h"
#include "ProfHeap.h"
#include "Storage.h"

/* Feeds all n bytes, collecting up to max commands; returns how many. */
static size_t feed(ControlParser *p, const uint8_t *b, size_t n, ControlCommand *out, size_t max)
{
    size_t k = 0, off = 0;
    while (off < n) {
        size_t used;
        ControlCommand c;
        if (control_parser_next(p, b + off, n - off, &used, &c) && k < max)
            out[k++] = c;
        off += used;
        assert_true(control_parser_check(p));
    }
    return k;
}

static void test_control_decodes_whole_messages(void **state)
{
    (void)state;
    uint8_t buf[2 * CONTROL_MESSAGE_MAX];
    size_t n = control_encode(buf, sizeof buf, "eventlog-socket", 5);
    assert_int_equal(n, 4 + 1 + 1 + 15 + 1);
    n += control_encode(buf + n, sizeof buf - n, "strata", 2);
    ControlParser p;
    control_parser_init(&p);
    ControlCommand c[4];
    assert_int_equal(feed(&p, buf, n, c, 4), 2);
    assert_string_equal(c[0].ns, "eventlog-socket");
    assert_int_equal(c[0].command, 5);
    assert_string_equal(c[1].ns, "strata");
    assert_int_equal(c[1].command, 2);
    assert_int_equal(p.skipped_bytes, 0);
    assert_int_equal(p.messages, 2);
}

/* A message split at every possible point decodes the same. */
static void test_control_decodes_split_messages(void **state)
{
    (void)state;
    uint8_t buf[CONTROL_MESSAGE_MAX];
    size_t n = control_encode(buf, sizeof buf, "live-test", 1);
    for (size_t cut = 0; cut <= n; cut++) {
        ControlParser p;
        control_parser_init(&p);
        ControlCommand c[2];
        size_t k = feed(&p, buf, cut, c, 2);
        k += feed(&p, buf + cut, n - cut, c + k, 2 - k);
        assert_int_equal(k, 1);
        assert_string_equal(c[0].ns, "live-test");
        assert_int_equal(p.skipped_bytes, 0);
    }
}

/* Garbage, a broken magic, a bad version and zeros are skipped and
 * counted; the message after them is still found. */
static void test_control_skips_garbage(void **state)
{
    (void)state;
    static uint8_t buf[1 << 20];
    size_t n = 0;
    const uint8_t junk[] = {0x00, 0xF0, 0x9E, 0x00, 0xF0, 0xF0, 0x9E, 0x97, 0x8C, 0x07, 'x'};
    memcpy(buf, junk, sizeof junk);
    n = sizeof junk;
    n += control_encode(buf + n, sizeof buf - n, "strata", 3);
    ControlParser p;
    control_parser_init(&p);
    ControlCommand c[4];
    assert_int_equal(feed(&p, buf, n, c, 4), 1);
    assert_string_equal(c[0].ns, "strata");
    assert_int_equal(c[0].command, 3);
    assert_int_equal(p.skipped_bytes, sizeof junk);
    assert_int_equal(p.bad_messages, 1);   /* version 7 */

    /* A megabyte of zeros: nothing decoded, every byte counted. */
    control_parser_init(&p);
    memset(buf, 0, sizeof buf);
    assert_int_equal(feed(&p, buf, sizeof buf, c, 4), 0);
    assert_int_equal(p.skipped_bytes, sizeof buf);
}

static void test_control_counts_truncated_message(void **state)
{
    (void)state;
    uint8_t buf[CONTROL_MESSAGE_MAX];
    size_t n = control_encode(buf, sizeof buf, "strata", 1);
    ControlParser p;
    control_parser_init(&p);
    ControlCommand c[1];
    assert_int_equal(feed(&p, buf, n - 1, c, 1), 0);
    control_parser_finish(&p);
    assert_int_equal(p.skipped_bytes, n - 1);
    assert_int_equal(p.bad_messages, 1);
    assert_true(control_parser_check(&p));
}

static void test_control_encode_refuses_long_namespace(void **state)
{
    (void)state;
    char ns[300];
    memset(ns, 'n', sizeof ns - 1);
    ns[sizeof ns - 1] = '\0';
    uint8_t buf[400];
    assert_int_equal(control_encode(buf, sizeof buf, ns, 1), 0);
    ns[255] = '\0';
    assert_int_equal(control_encode(buf, sizeof buf, ns, 1), CONTROL_MESSAGE_MAX);
    assert_int_equal(control_encode(buf, 10, "strata", 1), 0);
}

/* ----------------------------------------------------------------------
 * The registry and the mutator's side
 * ---------------------------------------------------------------------- */

static int runs;
static uint8_t last_command;

static void handler(uint8_t command, void *data)
{
    runs += *(int *)data;
    last_command = command;
}

static ControlCommand command(const char *ns, uint8_t id)
{
    ControlCommand c = {.ns_len = (uint8_t)strlen(ns), .command = id};
    memcpy(c.ns, ns, strlen(ns) + 1);
    return c;
}

/* Allocates until the attention request has been served. */
static void reach_safe_point(void)
{
    STRATA_ROOTS(r, 1);
    for (int i = 0; i < 100000; i++)
        r[0] = strata_alloc_constr(&stg_MUT_VAR_CLEAN_info);
    STRATA_ROOTS_POP(r);
}

static void test_control_registered_command_runs_on_mutator(void **state)
{
    (void)state;
    static int one = 1;
    assert_int_equal(strata_control_register("unit", 7, handler, &one), 0);
    harness_start(NULL);
    runs = 0;
    ControlCommand c = command("unit", 7);
    control_submit(&c);
    assert_int_equal(runs, 0);   /* not on the submitting call */
    reach_safe_point();
    assert_int_equal(runs, 1);
    assert_int_equal(last_command, 7);
    /* Unknown namespace and unknown command: counted, nothing runs. */
    ControlCommand u1 = command("nobody", 7), u2 = command("unit", 8),
                   u3 = command("strata", 99), u4 = command("eventlog-socket", 0);
    control_submit(&u1);
    control_submit(&u2);
    control_submit(&u3);
    control_submit(&u4);
    reach_safe_point();
    assert_int_equal(runs, 1);
    ControlStats st;
    control_get_stats(&st);
    assert_int_equal(st.run, 1);
    assert_int_equal(st.unknown, 4);
    assert_true(control_check());
    hs_exit();
}

static void test_control_strata_era_and_gc_commands_act(void **state)
{
    (void)state;
    harness_start(NULL);
    StgWord era = getUserEra();
    uint64_t majors = storage_gens[1].collections;
    ControlCommand e = command("strata", CONTROL_CMD_INCREMENT_ERA),
                   g = command("strata", CONTROL_CMD_MAJOR_GC),
                   f = command("strata", CONTROL_CMD_FLUSH_EVENTLOG);
    control_submit(&e);
    control_submit(&g);
    control_submit(&f);
    reach_safe_point();
    assert_int_equal(getUserEra(), era + 1);
    assert_true(storage_gens[1].collections > majors);
    ControlStats st;
    control_get_stats(&st);
    assert_int_equal(st.run, 3);
    assert_true(control_check());
    hs_exit();
}

/* With --no-automatic-heap-samples: N census requests, N censuses, and
 * none at exit. */
static void test_control_census_requests_give_censuses(void **state)
{
    (void)state;
    harness_start("-hT", "--no-automatic-heap-samples", "-i0", NULL);
    reach_safe_point();
    assert_int_equal(prof_heap_census_count(), 0);
    ControlCommand c = command("eventlog-socket", CONTROL_CMD_REQUEST_HEAP_CENSUS);
    for (int i = 0; i < 3; i++)
        control_submit(&c);
    reach_safe_point();
    assert_int_equal(prof_heap_census_count(), 3);
    reach_safe_point();   /* -i0 major GCs take none while sampling is off */
    assert_int_equal(prof_heap_census_count(), 3);
    ControlCommand start = command("eventlog-socket", CONTROL_CMD_START_HEAP_PROFILING);
    control_submit(&start);
    reach_safe_point();
    ControlCommand g = command("strata", CONTROL_CMD_MAJOR_GC);
    control_submit(&g);
    reach_safe_point();
    assert_true(prof_heap_census_count() > 3);   /* -i0: one per major GC again */
    hs_exit();
}

static void test_control_register_rejects_bad_arguments(void **state)
{
    (void)state;
    static int one = 1;
    assert_int_equal(strata_control_register("strata", 1, handler, &one), -1);
    assert_int_equal(strata_control_register("eventlog-socket", 1, handler, &one), -1);
    assert_int_equal(strata_control_register("", 1, handler, &one), -1);
    assert_int_equal(strata_control_register("x", 1, NULL, &one), -1);
    char ns[300];
    memset(ns, 'n', sizeof ns - 1);
    ns[sizeof ns - 1] = '\0';
    assert_int_equal(strata_control_register(ns, 1, handler, &one), -1);
    assert_true(control_check());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_control_decodes_whole_messages),
        cmocka_unit_test(test_control_decodes_split_messages),
        cmocka_unit_test(test_control_skips_garbage),
        cmocka_unit_test(test_control_counts_truncated_message),
        cmocka_unit_test(test_control_encode_refuses_long_namespace),
        cmocka_unit_test(test_control_registered_command_runs_on_mutator),
        cmocka_unit_test(test_control_strata_era_and_gc_commands_act),
        cmocka_unit_test(test_control_census_requests_give_censuses),
        cmocka_unit_test(test_control_register_rejects_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
