/*
 * testsuite/unit/test_eventlog_writer.c -- the eventlog writer
 * (eventlog/EventLog.c, EventBuffers.c, EventLogWriter.c, and the event table
 * wire/EventFormat.c) and the ticker
 * (support/os/Ticker.c).  Logs are captured with the memory writer or read
 * back from files and parsed by the small checker below, which knows
 * GHC's framing (docs/reference/eventlog-format.md) independently of the writer: the
 * header, block markers and their sizes, payload lengths, the data end.
 * The reader library is deliberately not used, so the two are checked
 * against each other only through the format.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "EventLog.h"
#include "EventLogWriter.h"
#include "RtsFlags.h"
#include "harness.h"
#include "os/Ticker.h"
#include "require.h"
#include "strata/EventLogFormat.h"

/* ----------------------------------------------------------------------
 * A checking parser
 * ---------------------------------------------------------------------- */

#define VAR (-2)

/* The sizes docs/reference/eventlog-format.md gives for every type strata
 * emits. */
static const struct {
    uint16_t id;
    int size;
} reference_sizes[] = {
    {0, 4}, {1, 4}, {2, 10}, {9, 0}, {10, 0}, {11, 0}, {12, 0}, {18, 14}, {19, VAR}, {20, 0}, {21, 0}, {22, 0},
    {25, 6}, {26, 4}, {27, 6}, {28, 6}, {29, VAR}, {30, VAR}, {32, 8}, {33, 8},
    {43, 16}, {45, 2}, {46, 2}, {49, 12}, {50, 12}, {51, 12}, {52, 38}, {53, 58},
    {54, 0}, {58, VAR}, {90, 16}, {91, 12}, {160, VAR}, {162, 8}, {164, VAR},
    {165, 8}, {169, VAR},
    /* GHC's non-moving collector's (strata's --nonmoving-gc posts them). */
    {200, 0}, {201, 4}, {202, 0}, {203, 0}, {204, 0}, {205, 0},
    /* strata's own (allocation sampling). */
    {1000, 8}, {1001, VAR}, {1002, VAR}, {1003, 31}, {1004, 8},
};
#define N_REFERENCE_SIZES (sizeof reference_sizes / sizeof reference_sizes[0])

typedef struct {
    uint16_t type;
    uint64_t time;
    const uint8_t *payload;
    size_t len;
    int cap;              /* block's cap; -1 outside any block */
} Ev;

typedef struct {
    int declared[65536];  /* payload size, VAR, or -1 if undeclared */
    unsigned n_declared;
    Ev *evs;
    size_t n_evs, cap_evs;
    unsigned complete_blocks;
    bool data_end;
} Log;

/* The checker reads every integer big-endian (.inv.big-endian): a log
 * written in any other byte order fails its framing at the first marker. */
static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
    return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static void log_push(Log *log, Ev ev)
{
    if (log->n_evs == log->cap_evs) {
        log->cap_evs = log->cap_evs ? 2 * log->cap_evs : 256;
        log->evs = realloc(log->evs, log->cap_evs * sizeof *log->evs);
        assert_non_null(log->evs);
    }
    log->evs[log->n_evs++] = ev;
}

/* Parses the header; returns the offset of the first event. */
static size_t parse_header(const uint8_t *b, size_t n, Log *log)
{
    for (size_t i = 0; i < 65536; i++)
        log->declared[i] = -1;
    size_t at = 0;
    assert_true(n >= 12);
    assert_int_equal(be32(b), EVENT_HEADER_BEGIN);
    assert_int_equal(be32(b + 4), EVENT_HET_BEGIN);
    at = 8;
    for (;;) {
        assert_true(at + 4 <= n);
        uint32_t m = be32(b + at);
        at += 4;
        if (m == EVENT_HET_END)
            break;
        assert_int_equal(m, EVENT_ET_BEGIN);
        assert_true(at + 8 <= n);
        uint16_t id = be16(b + at);
        uint16_t size = be16(b + at + 2);
        uint32_t dlen = be32(b + at + 4);
        at += 8;
        assert_true(at + dlen + 8 <= n);
        const char *want = eventlog_type_description(id);
        assert_non_null(want);
        assert_int_equal(dlen, strlen(want));
        assert_memory_equal(b + at, want, dlen);
        at += dlen;
        assert_int_equal(be32(b + at), 0);   /* no extra info */
        assert_int_equal(be32(b + at + 4), EVENT_ET_END);
        at += 8;
        assert_int_equal(log->declared[id], -1);   /* declared once */
        log->declared[id] = size == EVENT_SIZE_VARIABLE ? VAR : size;
        log->n_declared++;
    }
    assert_int_equal(be32(b + at), EVENT_HEADER_END);
    assert_int_equal(be32(b + at + 4), EVENT_DATA_BEGIN);
    return at + 8;
}

/* Parses a whole log, checking the framing.  With truncated_ok, the log
 * may stop without a data end (a killed program), but only at a block
 * boundary or inside the last block. */
static void parse_log(const uint8_t *b, size_t n, Log *log, bool truncated_ok)
{
    memset(log, 0, sizeof *log);
    size_t at = parse_header(b, n, log);
    size_t block_end = 0;       /* 0 = not in a block */
    size_t block_start = 0;
    uint64_t block_end_time = 0, last_time = 0;
    int cap = -1;
    for (;;) {
        if (block_end != 0 && at == block_end) {
            log->complete_blocks++;
            block_end = 0;
            cap = -1;
        }
        if (at == n) {
            assert_true(truncated_ok);
            return;
        }
        if (at + 2 > n) {
            assert_true(truncated_ok);
            return;
        }
        uint16_t type = be16(b + at);
        if (type == EVENT_DATA_END) {
            assert_int_equal(block_end, 0);
            assert_int_equal(at + 2, n);    /* nothing after the end (.inv.data-end) */
            log->data_end = true;
            return;
        }
        int size = log->declared[type];
        if (size == -1)
            fail_msg("event of undeclared type %u at offset %zu", type, at);
        size_t hdr = EVENT_HEADER_BYTES + (size == VAR ? 2 : 0);
        if (at + hdr > n) {
            assert_true(truncated_ok);
            return;
        }
        size_t len = size == VAR ? be16(b + at + EVENT_HEADER_BYTES) : (size_t)size;
        if (at + hdr + len > n) {
            assert_true(truncated_ok);
            return;
        }
        Ev ev = {type, be64(b + at + 2), b + at + hdr, len, cap};
        if (type == EVENT_BLOCK_MARKER) {
            assert_int_equal(block_end, 0);   /* blocks do not nest */
            assert_int_equal(len, 14);
            uint32_t block_size = be32(ev.payload);
            assert_true(block_size >= 24);
            block_start = at;
            block_end = at + block_size;
            block_end_time = be64(ev.payload + 4);
            uint16_t c = be16(ev.payload + 12);
            assert_true(c == 0 || c == EVENT_CAP_GLOBAL);
            cap = c == EVENT_CAP_GLOBAL ? -1 : c;
            ev.cap = cap;
            assert_true(block_end_time >= ev.time);
            last_time = ev.time;
        } else if (block_end != 0) {
            /* .inv.block-monotonic: times rise within a block and end by
             * its end time. */
            assert_true(ev.time >= last_time);
            assert_true(ev.time <= block_end_time);
            last_time = ev.time;
        }
        log_push(log, ev);
        at += hdr + len;
        if (block_end != 0 && !truncated_ok)
            assert_true(at <= block_end);
        if (block_end != 0 && at > block_end)
            fail_msg("event straddles the end of the block at %zu", block_start);
    }
}

static void log_free(Log *log)
{
    free(log->evs);
    log->evs = NULL;
}

/* The index of the k-th (0-based) event of type, or -1. */
static long log_find(const Log *log, uint16_t type, unsigned k)
{
    for (size_t i = 0; i < log->n_evs; i++)
        if (log->evs[i].type == type && k-- == 0)
            return (long)i;
    return -1;
}

static unsigned log_count(const Log *log, uint16_t type)
{
    unsigned c = 0;
    for (size_t i = 0; i < log->n_evs; i++)
        c += log->evs[i].type == type;
    return c;
}

/* The events in file order, sorted stably by time, as a reader would
 * merge the blocks. */
static int ev_cmp_time(const void *a, const void *b)
{
    const Ev *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x < y ? -1 : (x > y);
}

static void log_sort_by_time(Log *log)
{
    qsort(log->evs, log->n_evs, sizeof *log->evs, ev_cmp_time);
}

/* An independent check of UTF-8 as ghc-events decodes it (no overlong
 * forms, no surrogates, nothing above U+10FFFF). */
static bool utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        size_t k;
        uint32_t cp, min;
        if (c < 0x80) {
            i++;
            continue;
        }
        if ((c & 0xe0) == 0xc0) {
            k = 1; cp = c & 0x1fu; min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            k = 2; cp = c & 0x0fu; min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            k = 3; cp = c & 0x07u; min = 0x10000;
        } else {
            return false;
        }
        if (i + k >= n)
            return false;
        for (size_t j = 1; j <= k; j++) {
            if ((s[i + j] & 0xc0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + j] & 0x3fu);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return false;
        i += k + 1;
    }
    return true;
}

/* .inv.utf8: the string fields of every event are valid UTF-8 (checked
 * over each payload from its first string on; a NUL cannot sit inside a
 * multi-byte sequence, so this checks every field). */
static void assert_strings_valid(const Log *log)
{
    for (size_t i = 0; i < log->n_evs; i++) {
        const Ev *e = &log->evs[i];
        size_t skip;
        switch (e->type) {
        case EVENT_USER_MSG: case EVENT_USER_MARKER: skip = 0; break;
        case EVENT_RTS_IDENTIFIER: case EVENT_PROGRAM_ARGS: skip = 4; break;
        case EVENT_IPE: skip = 8; break;
        case EVENT_HEAP_PROF_SAMPLE_STRING: skip = 9; break;
        case EVENT_HEAP_PROF_BEGIN: skip = 13; break;
        default: continue;
        }
        assert_true(e->len >= skip);
        if (!utf8_valid(e->payload + skip, e->len - skip))
            fail_msg("event %zu (type %u) has invalid UTF-8", i, e->type);
    }
}

/* ----------------------------------------------------------------------
 * Running the runtime with the memory writer
 * ---------------------------------------------------------------------- */

static void capture_start(const char *flag1, const char *flag2)
{
    eventlog_set_writer(&eventlog_memory_writer);
    harness_start("-l", flag1, flag2, NULL);
    assert_true(eventlog_enabled());
}

static void capture_stop(Log *log)
{
    assert_true(eventlog_check());
    hs_exit();
    assert_true(eventlog_check());
    eventlog_set_writer(NULL);
    size_t n;
    const uint8_t *b = eventlog_memory_writer_bytes(&n);
    parse_log(b, n, log, false);
    assert_true(log->data_end);
    assert_strings_valid(log);
}

static int teardown(void **state)
{
    (void)state;
    assert_true(eventlog_check());
    eventlog_memory_writer_free();
    eventlog_set_writer(NULL);
    return 0;
}

/* ----------------------------------------------------------------------
 * Header and framing
 * ---------------------------------------------------------------------- */

static void test_eventlog_writer_header_declares_reference_sizes(void **state)
{
    (void)state;
    Log log;
    capture_start(NULL, NULL);
    capture_stop(&log);
    assert_int_equal(log.n_declared, N_REFERENCE_SIZES);
    for (size_t i = 0; i < N_REFERENCE_SIZES; i++) {
        int want = reference_sizes[i].size;
        assert_int_equal(log.declared[reference_sizes[i].id], want);
        assert_int_equal(eventlog_type_size(reference_sizes[i].id),
                         want == VAR ? (int)EVENT_SIZE_VARIABLE : want);
    }
    log_free(&log);
}

static void test_eventlog_writer_header_bytes_exact(void **state)
{
    (void)state;
    capture_start(NULL, NULL);
    hs_exit();
    size_t n;
    const uint8_t *b = eventlog_memory_writer_bytes(&n);
    /* hdrb hetb, then the first type: CREATE_THREAD, size 4, "Create thread". */
    static const uint8_t first[] = {
        'h', 'd', 'r', 'b', 'h', 'e', 't', 'b', 'e', 't', 'b', 0, 0, 0, 0, 4,
        0, 0, 0, 13, 'C', 'r', 'e', 'a', 't', 'e', ' ', 't', 'h', 'r', 'e', 'a', 'd',
        0, 0, 0, 0, 'e', 't', 'e', 0,
    };
    assert_true(n > sizeof first);
    assert_memory_equal(b, first, sizeof first);
    assert_int_equal(b[n - 2], 0xff);
    assert_int_equal(b[n - 1], 0xff);
}

static void test_eventlog_writer_startup_events_in_ghc_order(void **state)
{
    (void)state;
    Log log;
    capture_start(NULL, NULL);
    capture_stop(&log);
    log_sort_by_time(&log);
    static const uint16_t want[] = {
        EVENT_CAPSET_CREATE, EVENT_CAPSET_CREATE, EVENT_CAPSET_ASSIGN_CAP,
        EVENT_CAPSET_ASSIGN_CAP, EVENT_CAP_CREATE, EVENT_WALL_CLOCK_TIME,
        EVENT_OSPROCESS_PID, EVENT_OSPROCESS_PPID, EVENT_RTS_IDENTIFIER,
        EVENT_PROGRAM_ARGS, EVENT_HEAP_INFO_GHC,
    };
    size_t k = 0;
    for (size_t i = 0; i < log.n_evs && k < sizeof want / sizeof want[0]; i++)
        if (log.evs[i].type != EVENT_BLOCK_MARKER)
            assert_int_equal(log.evs[i].type, want[k++]);
    assert_int_equal(k, sizeof want / sizeof want[0]);

    const Ev *e = &log.evs[log_find(&log, EVENT_CAPSET_CREATE, 1)];
    static const uint8_t clockdomain[] = {0, 0, 0, 1, 0, 3};
    assert_memory_equal(e->payload, clockdomain, 6);
    e = &log.evs[log_find(&log, EVENT_RTS_IDENTIFIER, 0)];
    static const char ident[] = "\0\0\0\0strata-" STRATA_VERSION " rts_strata";
    assert_int_equal(e->len, sizeof ident - 1);
    assert_memory_equal(e->payload, ident, sizeof ident - 1);
    e = &log.evs[log_find(&log, EVENT_PROGRAM_ARGS, 0)];
    static const char args[] = "\0\0\0\0unit-test\0+RTS\0-l\0-RTS";
    assert_int_equal(e->len, sizeof args);   /* the last NUL included */
    assert_memory_equal(e->payload, args, sizeof args);
    e = &log.evs[log_find(&log, EVENT_HEAP_INFO_GHC, 0)];
    assert_int_equal(be16(e->payload + 4), 2);
    assert_int_equal(be64(e->payload + 22), MBLOCK_SIZE);   /* big-endian */
    assert_int_equal(be64(e->payload + 30), BLOCK_SIZE);
    assert_int_equal(log.evs[log_find(&log, EVENT_OSPROCESS_PID, 0)].cap, -1);
    assert_int_equal(log.evs[log_find(&log, EVENT_CAP_CREATE, 0)].cap, 0);

    /* Shutdown: CAP_DELETE, CAPSET_REMOVE_CAP, CAPSET_DELETE x 2. */
    assert_int_equal(log_count(&log, EVENT_CAP_DELETE), 1);
    assert_int_equal(log_count(&log, EVENT_CAPSET_REMOVE_CAP), 1);
    assert_int_equal(log_count(&log, EVENT_CAPSET_DELETE), 2);
    assert_true(log_find(&log, EVENT_CAP_DELETE, 0) < log_find(&log, EVENT_CAPSET_DELETE, 0));
    log_free(&log);
}

static void test_eventlog_writer_block_markers_sized(void **state)
{
    (void)state;
    Log log;
    capture_start(NULL, NULL);
    /* Overflow the 2 MiB buffer: the block must be cut and resized. */
    char msg[1000];
    memset(msg, 'x', sizeof msg);
    for (int i = 0; i < 3000; i++) {
        eventlog_post_user_msg(msg, sizeof msg);
        if (i % 500 == 0)
            assert_true(eventlog_check());
    }
    capture_stop(&log);
    /* parse_log checked every size; two buffers, at least 3 blocks. */
    assert_true(log.complete_blocks >= 3);
    assert_int_equal(log_count(&log, EVENT_USER_MSG), 3000);
    log_free(&log);
}

/* ----------------------------------------------------------------------
 * Event payloads
 * ---------------------------------------------------------------------- */

static void test_eventlog_writer_user_events(void **state)
{
    (void)state;
    Log log;
    capture_start(NULL, NULL);
    traceEvent("hello");
    traceMarker("phase 2");
    eventlog_post_user_msg("", 0);
    capture_stop(&log);
    const Ev *e = &log.evs[log_find(&log, EVENT_USER_MSG, 0)];
    assert_int_equal(e->len, 5);
    assert_memory_equal(e->payload, "hello", 5);
    assert_int_equal(e->cap, 0);
    e = &log.evs[log_find(&log, EVENT_USER_MARKER, 0)];
    assert_int_equal(e->len, 7);
    assert_memory_equal(e->payload, "phase 2", 7);
    assert_int_equal(log.evs[log_find(&log, EVENT_USER_MSG, 1)].len, 0);
    log_free(&log);
}

/* One invalid byte in a user message made ghc-events reject the whole
 * log; a long valid message was cut inside a character (issue 13). */
static void test_eventlog_writer_user_text_repaired(void **state)
{
    (void)state;
    Log log;
    size_t big = 75001;                  /* "a" then 25000 x U+20AC (3 bytes) */
    char *s = malloc(big + 1);
    assert_non_null(s);
    s[0] = 'a';
    for (size_t i = 1; i < big; i += 3)
        memcpy(s + i, "\xe2\x82\xac", 3);
    s[big] = '\0';
    capture_start(NULL, NULL);
    traceEvent("opened caf\xe9.txt");
    traceMarker("bad\xff\xc0 marker\xed\xa0\x80");
    traceEvent(s);
    eventlog_post_user_msg("nul\0inside", 10);
    capture_stop(&log);
    free(s);
    const Ev *e = &log.evs[log_find(&log, EVENT_USER_MSG, 0)];
    assert_int_equal(e->len, 15);
    assert_memory_equal(e->payload, "opened caf?.txt", 15);
    e = &log.evs[log_find(&log, EVENT_USER_MARKER, 0)];
    assert_int_equal(e->len, 15);
    assert_memory_equal(e->payload, "bad?? marker???", 15);
    e = &log.evs[log_find(&log, EVENT_USER_MSG, 1)];
    assert_int_equal(e->len, 1 + 3 * 21844);   /* whole characters only */
    assert_true(utf8_valid(e->payload, e->len));
    e = &log.evs[log_find(&log, EVENT_USER_MSG, 2)];
    assert_int_equal(e->len, 10);              /* U+0000 is valid UTF-8 */
    assert_memory_equal(e->payload, "nul\0inside", 10);
    log_free(&log);
}

/* Program arguments are the command line's bytes, which need not be
 * UTF-8 (file names); each is repaired like any other string. */
static void test_eventlog_writer_program_args_repaired(void **state)
{
    (void)state;
    Log log;
    static char *argv_store[] = {
        (char *)"unit-test", (char *)"caf\xe9.txt", (char *)"+RTS", (char *)"-l", (char *)"-RTS",
        NULL,
    };
    int argc = 5;
    char **argv = argv_store;
    eventlog_set_writer(&eventlog_memory_writer);
    hs_init(&argc, &argv);
    assert_true(eventlog_enabled());
    capture_stop(&log);
    const Ev *e = &log.evs[log_find(&log, EVENT_PROGRAM_ARGS, 0)];
    static const char args[] = "\0\0\0\0unit-test\0caf?.txt\0+RTS\0-l\0-RTS";
    assert_int_equal(e->len, sizeof args);
    assert_memory_equal(e->payload, args, sizeof args);
    log_free(&log);
}

static void test_eventlog_writer_user_class_off(void **state)
{
    (void)state;
    Log log;
    capture_start("-l-u", NULL);
    traceEvent("hidden");
    capture_stop(&log);
    assert_int_equal(log_count(&log, EVENT_USER_MSG), 0);
    log_free(&log);
}

static void test_eventlog_writer_ipe_matches_ghc_92(void **state)
{
    (void)state;
    Log log;
    capture_start(NULL, NULL);
    eventlog_post_ipe(0x409f78, "sat_s154_info", "21", "Integer -> IO ()", "main", "Main",
                      "Test.hs:5:1-30");
    eventlog_post_ipe(1, NULL, "3", NULL, "bad\xff\xc0utf8\xe2\x82", NULL, "\xf0\x9f\x98\x80");
    capture_stop(&log);
    static const char ghc[] = "\0\0\0\0\0\x40\x9f\x78sat_s154_info\0" "21\0"
                              "Integer -> IO ()\0main\0Main\0Test.hs:5:1-30";
    const Ev *e = &log.evs[log_find(&log, EVENT_IPE, 0)];
    assert_int_equal(e->len, 67);
    assert_int_equal(sizeof ghc, 67);
    assert_memory_equal(e->payload, ghc, 67);
    assert_int_equal(e->cap, -1);
    static const char repaired[] = "\0\0\0\0\0\0\0\x01\0" "3\0\0bad??utf8??\0\0\xf0\x9f\x98\x80";
    e = &log.evs[log_find(&log, EVENT_IPE, 1)];
    assert_int_equal(e->len, sizeof repaired);
    assert_memory_equal(e->payload, repaired, sizeof repaired);
    log_free(&log);
}

static void test_eventlog_writer_ipe_clamped(void **state)
{
    (void)state;
    Log log;
    size_t big = 70000;
    char *s = malloc(big + 1);
    assert_non_null(s);
    for (size_t i = 0; i < big; i += 2)
        memcpy(s + i, "\xc3\xa9", 2);   /* é: clamping must not split it */
    s[big] = '\0';
    capture_start(NULL, NULL);
    eventlog_post_ipe(7, s, s, s, s, s, s);
    eventlog_post_heap_prof_sample_string(1, s);
    capture_stop(&log);
    free(s);
    const Ev *e = &log.evs[log_find(&log, EVENT_IPE, 0)];
    assert_true(e->len <= EVENT_PAYLOAD_SIZE_MAX);
    unsigned nuls = 0;
    for (size_t i = 8; i < e->len; i++)
        nuls += e->payload[i] == 0;
    assert_int_equal(nuls, 6);
    assert_int_equal(e->payload[e->len - 1], 0);
    assert_int_equal((e->payload[e->len - 2] & 0xc0), 0);  /* table name only, rest empty */
    e = &log.evs[log_find(&log, EVENT_HEAP_PROF_SAMPLE_STRING, 0)];
    assert_true(e->len <= EVENT_PAYLOAD_SIZE_MAX);
    assert_int_equal(e->payload[e->len - 1], 0);
    assert_int_equal((e->len - 10) % 2, 0);   /* whole characters */
    log_free(&log);
}

static void test_eventlog_writer_heap_prof_events(void **state)
{
    (void)state;
    Log log;
    capture_start(NULL, NULL);
    eventlog_post_heap_prof_begin(100000000, 7);
    eventlog_post_heap_prof_sample_begin(0);
    eventlog_post_heap_prof_sample_string(4096, "ARR_WORDS");
    eventlog_post_heap_prof_sample_end(0);
    capture_stop(&log);
    static const uint8_t begin[20] = {0, 0, 0, 0, 0, 0x05, 0xf5, 0xe1, 0, 0, 0, 0, 7};
    const Ev *e = &log.evs[log_find(&log, EVENT_HEAP_PROF_BEGIN, 0)];
    assert_int_equal(e->len, 20);
    assert_memory_equal(e->payload, begin, 20);
    assert_int_equal(e->cap, -1);
    e = &log.evs[log_find(&log, EVENT_HEAP_PROF_SAMPLE_STRING, 0)];
    static const char sample[] = "\0\0\0\0\0\0\0\x10\0ARR_WORDS";
    assert_int_equal(e->len, sizeof sample);
    assert_memory_equal(e->payload, sample, sizeof sample);
    long b = log_find(&log, EVENT_HEAP_PROF_SAMPLE_BEGIN, 0);
    long s = log_find(&log, EVENT_HEAP_PROF_SAMPLE_STRING, 0);
    long end = log_find(&log, EVENT_HEAP_PROF_SAMPLE_END, 0);
    assert_true(b < s && s < end);
    log_free(&log);
}

static void test_eventlog_writer_gc_events_in_ghc_order(void **state)
{
    (void)state;
    Log log;
    capture_start(NULL, NULL);
    strata_perform_gc(0);
    strata_perform_gc(1);
    capture_stop(&log);
    static const uint16_t minor[] = {
        EVENT_REQUEST_SEQ_GC, EVENT_GC_GLOBAL_SYNC, EVENT_GC_START, EVENT_GC_WORK,
        EVENT_GC_IDLE, EVENT_GC_DONE, EVENT_GC_END, EVENT_HEAP_ALLOCATED,
        EVENT_HEAP_SIZE, EVENT_BLOCKS_SIZE, EVENT_GC_STATS_GHC,
    };
    long first = log_find(&log, EVENT_REQUEST_SEQ_GC, 0);
    assert_true(first >= 0);
    for (size_t i = 0; i < sizeof minor / sizeof minor[0]; i++)
        assert_int_equal(log.evs[first + (long)i].type, minor[i]);
    long second = log_find(&log, EVENT_REQUEST_SEQ_GC, 1);
    assert_int_equal(second, first + (long)(sizeof minor / sizeof minor[0]));
    long stats = second + 10;
    assert_int_equal(log.evs[stats].type, EVENT_GC_STATS_GHC);
    assert_int_equal(log.evs[stats + 1].type, EVENT_HEAP_LIVE);
    assert_int_equal(log.evs[stats + 2].type, EVENT_MEM_RETURN);
    assert_int_equal(log_count(&log, EVENT_HEAP_LIVE), 1);   /* major GCs only */
    const Ev *e = &log.evs[stats];
    assert_int_equal(be16(e->payload + 4), 1);
    assert_int_equal(be32(e->payload + 30), 1);   /* par_n_threads */
    e = &log.evs[log_find(&log, EVENT_HEAP_SIZE, 0)];
    assert_int_equal(be64(e->payload + 4) % MBLOCK_SIZE, 0);
    log_free(&log);
}

static void test_eventlog_writer_gc_class_off(void **state)
{
    (void)state;
    Log log;
    capture_start("-l-g", NULL);
    strata_perform_gc(1);
    capture_stop(&log);
    assert_int_equal(log_count(&log, EVENT_GC_START), 0);
    assert_int_equal(log_count(&log, EVENT_HEAP_SIZE), 0);
    log_free(&log);
}

/* ----------------------------------------------------------------------
 * Write errors
 * ---------------------------------------------------------------------- */

static unsigned count_substr(const char *hay, const char *needle)
{
    unsigned c = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        c++;
    return c;
}

/* Posts, flushes and collects after an error; must not die. */
static void busy_with_eventlog(void)
{
    for (int i = 0; i < 100; i++) {
        traceEvent("after the error");
        strata_eventlog_flush();
    }
    strata_perform_gc(1);
    hs_exit();
    fprintf(stderr, "program continued\n");
}

static void child_disk_full(void)
{
    harness_start("-l", "-ol/dev/full", NULL);
    busy_with_eventlog();
}

static void child_missing_dir(void)
{
    harness_start("-l", "-ol/nonexistent-strata-dir/x.eventlog", NULL);
    busy_with_eventlog();
}

static void test_eventlog_writer_disk_full_reported_once(void **state)
{
    (void)state;
    static char buf[65536];
    int status = harness_run_child(child_disk_full, buf, sizeof buf);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(count_substr(buf, "cannot write"), 1);
    assert_non_null(strstr(buf, "unit-test: eventlog: cannot write /dev/full: "
                                "No space left on device; continuing without the eventlog"));
    /* At exit, once: what was lost (here everything, the header included). */
    assert_int_equal(count_substr(buf, "lost"), 1);
    assert_non_null(strstr(buf, "unit-test: eventlog: events lost after a write error "
                                "(events="));
    assert_non_null(strstr(buf, "the log holds nothing usable"));
    assert_non_null(strstr(buf, "program continued"));
}

static void test_eventlog_writer_missing_dir_reported_once(void **state)
{
    (void)state;
    static char buf[65536];
    int status = harness_run_child(child_missing_dir, buf, sizeof buf);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(count_substr(buf, "cannot write"), 1);
    assert_non_null(strstr(buf, "unit-test: eventlog: cannot write "
                                "/nonexistent-strata-dir/x.eventlog: No such file or directory; "
                                "continuing without the eventlog"));
    assert_non_null(strstr(buf, "program continued"));
}

/* After a write error nothing more is written, even when the output
 * would take it again: a later block would follow a gap. */
static void child_memory_fails(void)
{
    eventlog_set_writer(&eventlog_memory_writer);
    harness_start("-l", NULL);
    traceEvent("before");
    eventlog_memory_writer_set_failing(true);
    strata_eventlog_flush();
    size_t at_error, at_exit;
    (void)eventlog_memory_writer_bytes(&at_error);
    eventlog_memory_writer_set_failing(false);
    for (int i = 0; i < 100; i++) {
        traceEvent("after the error");
        strata_eventlog_flush();
    }
    strata_perform_gc(1);
    hs_exit();
    (void)eventlog_memory_writer_bytes(&at_exit);
    if (at_exit != at_error)
        fprintf(stderr, "wrote after the error (bytes=%zu, then %zu)\n", at_error, at_exit);
    fprintf(stderr, "program continued\n");
}

static void test_eventlog_writer_error_stops_writing(void **state)
{
    (void)state;
    static char buf[65536];
    int status = harness_run_child(child_memory_fails, buf, sizeof buf);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(count_substr(buf, "cannot write <memory>"), 1);
    assert_null(strstr(buf, "wrote after the error"));
    assert_int_equal(count_substr(buf, "lost"), 1);
    assert_non_null(strstr(buf, "the log has no data end marker (it could not be written)"));
    assert_non_null(strstr(buf, "program continued"));
}

/* The same run twice, the second with a disk that fills part-way: what
 * the second log lacks is exactly what the exit message says was lost. */
#define LOST_MSGS 3000

static void post_many_and_exit(void *arg)
{
    (void)arg;
    char msg[1000];
    memset(msg, 'y', sizeof msg);
    for (int i = 0; i < LOST_MSGS; i++)
        eventlog_post_user_msg(msg, sizeof msg);
    hs_exit();
}

static size_t count_non_markers(const Log *log)
{
    return log->n_evs - log_count(log, EVENT_BLOCK_MARKER);
}

static void test_eventlog_writer_lost_counted_exactly(void **state)
{
    (void)state;
    Log full, cut;
    capture_start(NULL, NULL);
    char *quiet = harness_capture_stderr(post_many_and_exit, NULL);
    assert_string_equal(quiet, "");
    free(quiet);
    size_t n_full;
    const uint8_t *b = eventlog_memory_writer_bytes(&n_full);
    parse_log(b, n_full, &full, false);

    eventlog_memory_writer_set_limit(5u << 19);   /* 2.5 MiB: the first block fits */
    capture_start(NULL, NULL);
    char *msg = harness_capture_stderr(post_many_and_exit, NULL);
    eventlog_set_writer(NULL);
    size_t n_cut;
    b = eventlog_memory_writer_bytes(&n_cut);
    parse_log(b, n_cut, &cut, false);
    assert_true(cut.data_end);
    assert_true(cut.complete_blocks >= 1);
    assert_true(count_non_markers(&cut) < count_non_markers(&full));

    assert_int_equal(count_substr(msg, "lost"), 1);
    const char *m = strstr(msg, "unit-test: eventlog: events lost after a write error (");
    assert_non_null(m);
    unsigned long long lost_events, lost_bytes, kept_bytes;
    assert_int_equal(sscanf(m, "unit-test: eventlog: events lost after a write error "
                               "(events=%llu, bytes=%llu, kept_bytes=%llu)",
                            &lost_events, &lost_bytes, &kept_bytes), 3);
    assert_int_equal(lost_events, count_non_markers(&full) - count_non_markers(&cut));
    assert_int_equal(kept_bytes, n_cut);
    assert_int_equal(lost_bytes + n_cut, n_full);
    free(msg);
    log_free(&full);
    log_free(&cut);
}

/* ----------------------------------------------------------------------
 * Files: the flush interval, a killed program, a real example
 * ---------------------------------------------------------------------- */

static char tmp_path[256];

static uint8_t *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 1 << 16, len = 0;
    uint8_t *b = malloc(cap);
    assert_non_null(b);
    size_t k;
    while ((k = fread(b + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            cap *= 2;
            b = realloc(b, cap);
            assert_non_null(b);
        }
    }
    fclose(f);
    *n = len;
    return b;
}

/* A tick reaches a program that allocates slowly at its next allocation:
 * the ticker clears every capability's limit (Note [The ticker] in
 * support/os/Ticker.c), so the first allocation after that runs the
 * tick's action.  Without the interrupt a tick would wait for the nursery
 * block to fill (170 allocations of 3 words).  The test waits for the
 * event itself, the cleared limit; the bound only ends a hang. */
static unsigned ticks_served;
static void count_tick(void)
{
    ticks_served++;
}

#define TICK_WAIT_BOUND_S 30

/* Waits until the ticker's interrupt has cleared this thread's limit;
 * false after TICK_WAIT_BOUND_S seconds. */
static bool wait_for_limit_cleared(void)
{
    struct timespec start, now, ms = {0, 1000000L};
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (__atomic_load_n(&strata_regs.hp_lim, __ATOMIC_ACQUIRE) != NULL) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > TICK_WAIT_BOUND_S)
            return false;
        nanosleep(&ms, NULL);
    }
    return true;
}

static void test_eventlog_writer_tick_reaches_slow_allocator(void **state)
{
    (void)state;
    harness_start(NULL);
    ticks_served = 0;
    assert_int_equal(ticker_add_action(0.01, count_tick), 0);
    (void)strata_alloc_bytes(8);   /* a nursery block, and its limit */
    for (unsigned k = 1; k <= 5; k++) {
        if (!wait_for_limit_cleared())
            fail_msg("tick %u: the ticker's interrupt did not clear the allocation limit "
                     "within %d s (ticks every 10 ms)", k, TICK_WAIT_BOUND_S);
        unsigned before = ticks_served;
        (void)strata_alloc_bytes(8);
        if (ticks_served != before + 1)
            fail_msg("tick %u: the allocation after the interrupt served %u ticks, expected 1",
                     k, ticks_served - before);
    }
}

static void child_allocates_forever(void)
{
    static char ol[300];
    snprintf(ol, sizeof ol, "-ol%s", tmp_path);
    harness_start("-l", ol, "--eventlog-flush-interval=0.05", NULL);
    for (unsigned long i = 0;; i++) {
        (void)strata_alloc_bytes(64);
        if (i % 100000 == 0)
            traceEvent("alive");
    }
}

static void test_eventlog_writer_flush_interval_survives_sigkill(void **state)
{
    (void)state;
    snprintf(tmp_path, sizeof tmp_path, "/tmp/strata-test-kill-%ld.eventlog", (long)getpid());
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        child_allocates_forever();
        _exit(0);
    }
    struct timespec pause = {0, 400 * 1000 * 1000};
    nanosleep(&pause, NULL);
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    size_t n;
    uint8_t *b = read_file(tmp_path, &n);
    unlink(tmp_path);
    Log log;
    parse_log(b, n, &log, true);
    assert_false(log.data_end);
    assert_true(log.complete_blocks >= 1);
    assert_true(log_find(&log, EVENT_PROGRAM_ARGS, 0) >= 0);
    assert_true(log_count(&log, EVENT_USER_MSG) >= 1);
    log_free(&log);
    free(b);
}

static void child_overflows_heap(void)
{
    static char ol[300];
    snprintf(ol, sizeof ol, "-ol%s", tmp_path);
    harness_start("-l", ol, "-M8m", "-A1m", NULL);
    for (;;)
        (void)getStablePtr(strata_alloc_bytes(64 * 1024));   /* all live */
}

static void test_eventlog_writer_heap_overflow_well_formed(void **state)
{
    (void)state;
    snprintf(tmp_path, sizeof tmp_path, "/tmp/strata-test-overflow-%ld.eventlog",
             (long)getpid());
    static char buf[65536];
    int status = harness_run_child(child_overflows_heap, buf, sizeof buf);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 251)
        fail_msg("status=0x%x, stderr:\n%s", status, buf);
    assert_non_null(strstr(buf, "heap overflow"));
    size_t n;
    uint8_t *b = read_file(tmp_path, &n);
    unlink(tmp_path);
    Log log;
    parse_log(b, n, &log, false);
    assert_true(log.data_end);      /* .inv.data-end, via rts_shutdown_and_exit */
    assert_int_equal(log_count(&log, EVENT_CAPSET_DELETE), 2);
    log_free(&log);
    free(b);
}

/* The file size limit is reached part-way through a block (SIGXFSZ
 * ignored, so write fails with EFBIG, as on a full disk): the file must be
 * cut back to its last whole block and end with the data end marker, and
 * exit must say once how much was lost (issue 13). */
#define LIMIT_BYTES (3u << 20)     /* one 2 MiB block fits, the second does not */
#define LIMIT_MSGS 6000
#define LIMIT_MSG_BYTES 999

static void child_hits_file_limit(void)
{
    static char ol[300];
    snprintf(ol, sizeof ol, "-ol%s", tmp_path);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {LIMIT_BYTES, LIMIT_BYTES};
    if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
        _exit(3);
    harness_start("-l", ol, NULL);
    char msg[LIMIT_MSG_BYTES];
    memset(msg, 'x', sizeof msg);
    for (int i = 0; i < LIMIT_MSGS; i++)
        eventlog_post_user_msg(msg, sizeof msg);
    hs_exit();
    fprintf(stderr, "program continued\n");
}

static void test_eventlog_writer_file_limit_cut_to_whole_blocks(void **state)
{
    (void)state;
    snprintf(tmp_path, sizeof tmp_path, "/tmp/strata-test-limit-%ld.eventlog", (long)getpid());
    static char buf[65536];
    int status = harness_run_child(child_hits_file_limit, buf, sizeof buf);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("status=0x%x, stderr:\n%s", status, buf);
    size_t n;
    uint8_t *b = read_file(tmp_path, &n);
    unlink(tmp_path);
    assert_true(n < LIMIT_BYTES);
    Log log;
    parse_log(b, n, &log, false);      /* whole blocks, then the data end (.inv.whole-blocks) */
    assert_true(log.data_end);
    assert_true(log.complete_blocks >= 1);
    unsigned kept = log_count(&log, EVENT_USER_MSG);
    assert_true(kept > 0 && kept < LIMIT_MSGS);
    assert_int_equal(count_substr(buf, "cannot write"), 1);
    assert_non_null(strstr(buf, "File too large"));
    assert_int_equal(count_substr(buf, "lost"), 1);
    unsigned long long lost_events = 0, lost_bytes = 0, kept_bytes = 0;
    const char *m = strstr(buf, "unit-test: eventlog: events lost after a write error (");
    assert_non_null(m);
    assert_int_equal(sscanf(m, "unit-test: eventlog: events lost after a write error "
                               "(events=%llu, bytes=%llu, kept_bytes=%llu)",
                            &lost_events, &lost_bytes, &kept_bytes), 3);
    /* Every message not in the file is counted, and the rest of the
     * accounting matches the file. */
    assert_true(lost_events >= LIMIT_MSGS - kept);
    assert_true(lost_bytes >= (LIMIT_MSGS - kept) * (EVENT_HEADER_BYTES + 2 + LIMIT_MSG_BYTES));
    assert_int_equal(kept_bytes, n);
    assert_non_null(strstr(m, "ends with the last whole block and the data end marker"));
    assert_non_null(strstr(buf, "program continued"));
    log_free(&log);
    free(b);
}

static void test_eventlog_writer_bintrees_file_well_formed(void **state)
{
    (void)state;
    const char *top = getenv("top_builddir");
    char prog[512];
    snprintf(prog, sizeof prog, "%s/examples/bintrees", top != NULL ? top : ".");
    if (access(prog, X_OK) != 0)
        skip_missing("examples/bintrees", "the example has not been built");
    snprintf(tmp_path, sizeof tmp_path, "/tmp/strata-test-bintrees-%ld.eventlog",
             (long)getpid());
    char ol[300];
    snprintf(ol, sizeof ol, "-ol%s", tmp_path);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (freopen("/dev/null", "w", stdout) == NULL)
            _exit(127);
        execl(prog, prog, "10", "+RTS", "-l", ol, "-A64k", "-RTS", (char *)NULL);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    size_t n;
    uint8_t *b = read_file(tmp_path, &n);
    unlink(tmp_path);
    Log log;
    parse_log(b, n, &log, false);
    assert_true(log.data_end);
    assert_true(log_count(&log, EVENT_GC_START) >= 1);
    assert_int_equal(log_count(&log, EVENT_GC_START), log_count(&log, EVENT_GC_END));
    assert_int_equal(log_count(&log, EVENT_GC_END), log_count(&log, EVENT_GC_STATS_GHC));
    const Ev *e = &log.evs[log_find(&log, EVENT_PROGRAM_ARGS, 0)];
    assert_non_null(memmem(e->payload, e->len, "+RTS\0-l\0", 8));
    log_free(&log);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_eventlog_writer_header_declares_reference_sizes,
                                  teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_header_bytes_exact, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_startup_events_in_ghc_order, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_block_markers_sized, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_user_events, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_user_text_repaired, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_program_args_repaired, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_user_class_off, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_ipe_matches_ghc_92, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_ipe_clamped, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_heap_prof_events, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_gc_events_in_ghc_order, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_gc_class_off, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_disk_full_reported_once, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_missing_dir_reported_once, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_error_stops_writing, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_lost_counted_exactly, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_flush_interval_survives_sigkill,
                                  teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_heap_overflow_well_formed, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_file_limit_cut_to_whole_blocks,
                                  teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_bintrees_file_well_formed, teardown),
        cmocka_unit_test_teardown(test_eventlog_writer_tick_reaches_slow_allocator, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
