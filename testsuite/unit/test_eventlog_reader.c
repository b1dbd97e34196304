/*
 * testsuite/unit/test_eventlog_reader.c -- the streaming eventlog reader
 * (reader/EventLogReader.c).  Logs are built in memory by a tiny
 * test-local writer (big-endian, straight from docs/reference/eventlog-format.md, so
 * the tests do not depend on the runtime's writer) and read back both from
 * memory and through a FILE, whose buffered refills must give the same
 * events.  Every reader is checked with evr_check before it is closed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "EventLogReader.h"
#include "IpeTable.h"
#include "LabelIndex.h"

/* ----------------------------------------------------------------------
 * A tiny eventlog writer
 * ------------------------------------------------------------------- */

typedef struct Log {
    uint8_t *bytes;
    size_t len, capacity;
} Log;

static void log_put(Log *l, const void *p, size_t n)
{
    if (l->len + n > l->capacity) {
        size_t cap = l->capacity ? l->capacity : 256;
        while (cap < l->len + n)
            cap *= 2;
        l->bytes = realloc(l->bytes, cap);
        assert_non_null(l->bytes);
        l->capacity = cap;
    }
    if (n > 0)
        memcpy(l->bytes + l->len, p, n);
    l->len += n;
}

static void put8(Log *l, uint8_t v)
{
    log_put(l, &v, 1);
}

static void put16(Log *l, uint16_t v)
{
    put8(l, (uint8_t)(v >> 8));
    put8(l, (uint8_t)v);
}

static void put32(Log *l, uint32_t v)
{
    put16(l, (uint16_t)(v >> 16));
    put16(l, (uint16_t)v);
}

static void put64(Log *l, uint64_t v)
{
    put32(l, (uint32_t)(v >> 32));
    put32(l, (uint32_t)v);
}

static void log_free(Log *l)
{
    free(l->bytes);
    memset(l, 0, sizeof *l);
}

typedef struct TypeDecl {
    uint16_t id;
    uint16_t size;
    const char *description;
} TypeDecl;

static const TypeDecl std_types[] = {
    {EVENT_GC_START, 0, "Starting GC"},
    {EVENT_GC_END, 0, "Finished GC"},
    {EVENT_BLOCK_MARKER, EVENT_SIZE_BLOCK_MARKER, "Block marker"},
    {EVENT_USER_MSG, EVENT_SIZE_VARIABLE, "User message"},
    {EVENT_HEAP_SIZE, EVENT_SIZE_HEAP_SIZE, "Current heap size"},
    {EVENT_USER_MARKER, EVENT_SIZE_VARIABLE, "User marker"},
    {EVENT_HEAP_PROF_BEGIN, EVENT_SIZE_VARIABLE, "Start of heap profile"},
    {EVENT_HEAP_PROF_SAMPLE_BEGIN, 8, "Start of heap profile sample"},
    {EVENT_HEAP_PROF_SAMPLE_STRING, EVENT_SIZE_VARIABLE, "Heap profile string sample"},
    {EVENT_HEAP_PROF_SAMPLE_END, 8, "End of heap profile sample"},
    {EVENT_IPE, EVENT_SIZE_VARIABLE, "An IPE entry"},
    {250, 3, "Future fixed"},
    {251, EVENT_SIZE_VARIABLE, "Future variable"},
};
#define N_STD_TYPES (sizeof std_types / sizeof std_types[0])

static void put_header(Log *l, const TypeDecl *types, size_t n)
{
    put32(l, EVENT_HEADER_BEGIN);
    put32(l, EVENT_HET_BEGIN);
    for (size_t i = 0; i < n; i++) {
        put32(l, EVENT_ET_BEGIN);
        put16(l, types[i].id);
        put16(l, types[i].size);
        put32(l, (uint32_t)strlen(types[i].description));
        log_put(l, types[i].description, strlen(types[i].description));
        put32(l, 0);
        put32(l, EVENT_ET_END);
    }
    put32(l, EVENT_HET_END);
    put32(l, EVENT_HEADER_END);
    put32(l, EVENT_DATA_BEGIN);
}

static void put_fixed(Log *l, uint16_t type, uint64_t t)
{
    put16(l, type);
    put64(l, t);
}

static void put_var(Log *l, uint16_t type, uint64_t t, const void *payload, uint16_t n)
{
    put16(l, type);
    put64(l, t);
    put16(l, n);
    log_put(l, payload, n);
}

static void put_heap_size(Log *l, uint64_t t, uint64_t bytes)
{
    put_fixed(l, EVENT_HEAP_SIZE, t);
    put32(l, 0);
    put64(l, bytes);
}

/* A block marker whose size is patched by block_end(). */
static size_t block_begin(Log *l, uint64_t t, uint16_t cap)
{
    size_t at = l->len;
    put_fixed(l, EVENT_BLOCK_MARKER, t);
    put32(l, 0);
    put64(l, 0);
    put16(l, cap);
    return at;
}

static void block_end(Log *l, size_t at)
{
    uint32_t size = (uint32_t)(l->len - at);
    uint8_t *p = l->bytes + at + EVENT_HEADER_BYTES;
    p[0] = (uint8_t)(size >> 24);
    p[1] = (uint8_t)(size >> 16);
    p[2] = (uint8_t)(size >> 8);
    p[3] = (uint8_t)size;
}

/* A valid log exercising every framing feature; the reference for the
 * truncation and file-vs-memory tests. */
static void build_sample_log(Log *l)
{
    put_header(l, std_types, N_STD_TYPES);
    put_var(l, EVENT_USER_MSG, 1, "before any block", 16);
    size_t g = block_begin(l, 10, EVENT_CAP_GLOBAL);
    put_var(l, EVENT_HEAP_PROF_BEGIN, 11,
            "\0\0\0\0\0\x05\xf5\xe1\0\0\0\0\x07\0\0\0\0\0\0\0", 20);
    put_fixed(l, EVENT_HEAP_PROF_SAMPLE_BEGIN, 12);
    put64(l, 0);
    put_var(l, EVENT_HEAP_PROF_SAMPLE_STRING, 12, "\0\0\0\0\0\0\0\0\x10THUNK", 15);
    put_fixed(l, EVENT_HEAP_PROF_SAMPLE_END, 12);
    put64(l, 0);
    block_end(l, g);
    size_t c = block_begin(l, 20, 3);
    put_fixed(l, EVENT_GC_START, 21);
    put_fixed(l, 250, 22);
    put8(l, 1);
    put8(l, 2);
    put8(l, 3);
    put_var(l, 251, 23, "xyz", 3);
    put_fixed(l, EVENT_GC_END, 24);
    put_heap_size(l, 25, 4096);
    put_var(l, EVENT_USER_MARKER, 26, "mark", 4);
    block_end(l, c);
    put_var(l, EVENT_USER_MSG, 30, "after", 5);
    put16(l, EVENT_DATA_END);
}

/* ----------------------------------------------------------------------
 * Reading helpers
 * ------------------------------------------------------------------- */

typedef struct Seen {
    uint16_t type;
    uint64_t time_ns;
    int cap;
    uint64_t offset;
} Seen;

#define SEEN_MAX 4096

static void assert_seen_equal(const Seen *a, const Seen *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(a[i].type, b[i].type);
        assert_int_equal(a[i].time_ns, b[i].time_ns);
        assert_int_equal(a[i].cap, b[i].cap);
        assert_int_equal(a[i].offset, b[i].offset);
    }
}

/* Reads everything; returns evr_next's final result; fills seen[]. */
static int read_all(EventLogReader *r, Seen *seen, size_t *n_seen)
{
    EvrEvent ev;
    int rc;
    *n_seen = 0;
    while ((rc = evr_next(r, &ev)) == 1) {
        assert_true(*n_seen < SEEN_MAX);
        assert_true(ev.payload_bytes <= EVENT_PAYLOAD_SIZE_MAX);
        seen[*n_seen] = (Seen){ev.type, ev.time_ns, ev.cap, ev.offset};
        (*n_seen)++;
    }
    assert_int_equal(evr_next(r, &ev), rc);   /* sticky */
    return rc;
}

static EventLogReader *open_mem(const Log *l)
{
    EventLogReader *r = evr_open_memory(l->bytes, l->len, "test");
    assert_non_null(r);
    return r;
}

static void close_checked(EventLogReader *r)
{
    assert_true(evr_check(r));
    evr_close(r);
}

/* Reads the whole log from memory and expects the error `want` (a
 * substring) at offset want_offset. */
static void expect_error(const Log *l, uint64_t want_offset, const char *want)
{
    EventLogReader *r = open_mem(l);
    static Seen seen[SEEN_MAX];
    size_t n;
    assert_int_equal(read_all(r, seen, &n), -1);
    const char *e = evr_error(r);
    assert_non_null(e);
    if (strstr(e, want) == NULL)
        fail_msg("error '%s' does not contain '%s'", e, want);
    assert_int_equal(evr_error_offset(r), want_offset);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "offset %llu: ", (unsigned long long)want_offset);
    assert_memory_equal(e, prefix, strlen(prefix));
    close_checked(r);
}

/* ----------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------- */

static void test_eventlog_reader_header(void **state)
{
    (void)state;
    Log l = {0};
    build_sample_log(&l);
    EventLogReader *r = open_mem(&l);
    assert_null(evr_error(r));
    assert_int_equal(evr_type_count(r), N_STD_TYPES);
    for (size_t i = 0; i < N_STD_TYPES; i++) {
        const EvrEventType *t = evr_type_at(r, i);
        assert_non_null(t);
        assert_int_equal(t->id, std_types[i].id);
        assert_int_equal(t->size, std_types[i].size);
        assert_string_equal(t->description, std_types[i].description);
        assert_ptr_equal(evr_type(r, t->id), t);
    }
    assert_null(evr_type_at(r, N_STD_TYPES));
    assert_null(evr_type(r, 77));
    assert_string_equal(evr_name(r), "test");
    close_checked(r);
    log_free(&l);
}

static void test_eventlog_reader_fixed_and_variable(void **state)
{
    (void)state;
    Log l = {0};
    build_sample_log(&l);
    EventLogReader *r = open_mem(&l);
    EvrEvent ev;
    assert_int_equal(evr_next(r, &ev), 1);
    assert_int_equal(ev.type, EVENT_USER_MSG);
    assert_true(ev.decoded);
    assert_int_equal(ev.u.user.text.len, 16);
    assert_memory_equal(ev.u.user.text.ptr, "before any block", 16);
    assert_int_equal(ev.cap, -1);
    assert_int_equal(evr_next(r, &ev), 1);   /* global block marker */
    assert_int_equal(ev.type, EVENT_BLOCK_MARKER);
    assert_int_equal(ev.u.block.cap, EVENT_CAP_GLOBAL);
    assert_int_equal(ev.size_bytes, 24);
    assert_int_equal(evr_next(r, &ev), 1);
    assert_int_equal(ev.type, EVENT_HEAP_PROF_BEGIN);
    assert_true(ev.decoded);
    assert_int_equal(ev.u.prof_begin.interval_ns, 100000000);
    assert_int_equal(ev.u.prof_begin.breakdown, HEAP_PROF_BREAKDOWN_CLOSURE_TYPE);
    for (int i = 0; i < EVR_HEAP_PROF_FILTERS; i++)
        assert_int_equal(ev.u.prof_begin.filters[i].len, 0);
    assert_int_equal(evr_next(r, &ev), 1);
    assert_int_equal(ev.type, EVENT_HEAP_PROF_SAMPLE_BEGIN);
    assert_int_equal(ev.u.sample.sample_time_ns, 12);
    assert_int_equal(evr_next(r, &ev), 1);
    assert_int_equal(ev.type, EVENT_HEAP_PROF_SAMPLE_STRING);
    assert_true(ev.decoded);
    assert_int_equal(ev.u.sample_string.residency_bytes, 16);
    assert_int_equal(ev.u.sample_string.label.len, 5);
    assert_memory_equal(ev.u.sample_string.label.ptr, "THUNK", 5);
    assert_int_equal(ev.payload_bytes, 15);
    assert_int_equal(ev.size_bytes, 27);
    while (evr_next(r, &ev) == 1 && ev.type != EVENT_HEAP_SIZE)
        ;
    assert_int_equal(ev.type, EVENT_HEAP_SIZE);
    assert_true(ev.decoded);
    assert_int_equal(ev.u.heap.bytes, 4096);
    assert_int_equal(ev.time_ns, 25);
    assert_int_equal(ev.cap, 3);
    close_checked(r);
    log_free(&l);
}

static void test_eventlog_reader_fixed_larger_than_known(void **state)
{
    (void)state;
    static const TypeDecl types[] = {{EVENT_HEAP_SIZE, 20, "Current heap size, extended"}};
    Log l = {0};
    put_header(&l, types, 1);
    put_fixed(&l, EVENT_HEAP_SIZE, 5);
    put32(&l, 1);
    put64(&l, 777);
    put64(&l, 0xdeadbeef);   /* a field appended by a future GHC */
    put_heap_size(&l, 6, 888);
    put16(&l, EVENT_DATA_END);
    EventLogReader *r = open_mem(&l);
    EvrEvent ev;
    assert_int_equal(evr_next(r, &ev), 1);
    assert_true(ev.decoded);
    assert_int_equal(ev.u.heap.capset, 1);
    assert_int_equal(ev.u.heap.bytes, 777);
    assert_int_equal(ev.payload_bytes, 20);
    close_checked(r);
    log_free(&l);
}

static void test_eventlog_reader_unknown_declared_skipped(void **state)
{
    (void)state;
    Log l = {0};
    build_sample_log(&l);
    EventLogReader *r = open_mem(&l);
    EvrEvent ev;
    int saw_fixed = 0, saw_var = 0, saw_after = 0;
    while (evr_next(r, &ev) == 1) {
        if (ev.type == 250) {
            saw_fixed = 1;
            assert_false(ev.decoded);
            assert_null(ev.malformed);
            assert_int_equal(ev.payload_bytes, 3);
            assert_memory_equal(ev.payload, "\1\2\3", 3);
        } else if (ev.type == 251) {
            saw_var = 1;
            assert_int_equal(ev.payload_bytes, 3);
            assert_memory_equal(ev.payload, "xyz", 3);
        } else if (ev.type == EVENT_GC_END) {
            saw_after = saw_fixed && saw_var;
            assert_int_equal(ev.time_ns, 24);
        }
    }
    assert_true(saw_fixed && saw_var && saw_after);
    assert_null(evr_error(r));
    assert_true(evr_saw_data_end(r));
    close_checked(r);
    log_free(&l);
}

static void test_eventlog_reader_undeclared_rejected(void **state)
{
    (void)state;
    Log l = {0};
    put_header(&l, std_types, N_STD_TYPES);
    put_fixed(&l, EVENT_GC_START, 1);
    size_t at = l.len;
    put_fixed(&l, 77, 2);
    put16(&l, EVENT_DATA_END);
    EventLogReader *r = open_mem(&l);
    EvrEvent ev;
    assert_int_equal(evr_next(r, &ev), 1);   /* the event before is kept */
    assert_int_equal(ev.type, EVENT_GC_START);
    assert_int_equal(evr_next(r, &ev), -1);
    assert_int_equal(evr_error_offset(r), at);
    assert_non_null(strstr(evr_error(r), "undeclared event type 77"));
    close_checked(r);
    log_free(&l);
}

static void test_eventlog_reader_block_caps(void **state)
{
    (void)state;
    Log l = {0};
    build_sample_log(&l);
    EventLogReader *r = open_mem(&l);
    static Seen seen[SEEN_MAX];
    size_t n;
    assert_int_equal(read_all(r, seen, &n), 0);
    assert_int_equal(n, 14);
    static const int want_caps[] = {-1, -1, -1, -1, -1, -1, 3, 3, 3, 3, 3, 3, 3, -1};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(seen[i].cap, want_caps[i]);
    assert_int_equal(seen[6].type, EVENT_BLOCK_MARKER);
    assert_int_equal(seen[13].type, EVENT_USER_MSG);
    close_checked(r);
    log_free(&l);
}

static void test_eventlog_reader_data_end(void **state)
{
    (void)state;
    Log l = {0};
    put_header(&l, std_types, N_STD_TYPES);
    put_fixed(&l, EVENT_GC_START, 1);
    EventLogReader *r = open_mem(&l);   /* no data end: tolerated */
    static Seen seen[SEEN_MAX];
    size_t n;
    assert_int_equal(read_all(r, seen, &n), 0);
    assert_int_equal(n, 1);
    assert_false(evr_saw_data_end(r));
    assert_null(evr_error(r));
    assert_int_equal(evr_offset(r), l.len);
    close_checked(r);
    put16(&l, EVENT_DATA_END);
    put32(&l, 0x12345678);   /* trailing bytes are not read */
    r = open_mem(&l);
    assert_int_equal(read_all(r, seen, &n), 0);
    assert_true(evr_saw_data_end(r));
    assert_int_equal(evr_offset(r), l.len - 4);
    close_checked(r);
    log_free(&l);
}

static void test_eventlog_reader_bad_magic(void **state)
{
    (void)state;
    Log l = {0};
    build_sample_log(&l);
    l.bytes[0] = 'H';
    expect_error(&l, 0, "bad header begin marker");
    log_free(&l);

    Log e = {0};
    expect_error(&e, 0, "truncated header (need 4 bytes for header begin marker");

    Log h = {0};
    put32(&h, EVENT_HEADER_BEGIN);
    put32(&h, EVENT_HET_BEGIN);
    put32(&h, 0x41424344);
    expect_error(&h, 8, "bad event type marker");
    log_free(&h);
}

static void test_eventlog_reader_duplicate_type(void **state)
{
    (void)state;
    static const TypeDecl types[] = {{9, 0, "a"}, {9, 0, "b"}};
    Log l = {0};
    put_header(&l, types, 2);
    put16(&l, EVENT_DATA_END);
    expect_error(&l, 8 + 21 + 4, "event type 9 declared twice");
    log_free(&l);

    static const TypeDecl reserved[] = {{0xffff, 0, "data end?"}};
    Log m = {0};
    put_header(&m, reserved, 1);
    expect_error(&m, 12, "reserved for the data-end marker");
    log_free(&m);
}

static void test_eventlog_reader_oversize_lengths(void **state)
{
    (void)state;
    /* A variable event claiming more payload than the file holds. */
    Log l = {0};
    put_header(&l, std_types, N_STD_TYPES);
    size_t at = l.len;
    put16(&l, EVENT_USER_MSG);
    put64(&l, 1);
    put16(&l, 65535);
    log_put(&l, "abc", 3);
    expect_error(&l, at + 12, "truncated event payload (type 19, need 65535 bytes, have 3)");
    log_free(&l);

    /* A description length of 4 GiB - 1. */
    Log d = {0};
    put32(&d, EVENT_HEADER_BEGIN);
    put32(&d, EVENT_HET_BEGIN);
    put32(&d, EVENT_ET_BEGIN);
    put16(&d, 9);
    put16(&d, 0);
    put32(&d, 0xffffffffu);
    log_put(&d, "Starting GC", 11);
    expect_error(&d, 20, "truncated event type description (type 9");
    log_free(&d);

    /* A huge extra-info length. */
    Log x = {0};
    put32(&x, EVENT_HEADER_BEGIN);
    put32(&x, EVENT_HET_BEGIN);
    put32(&x, EVENT_ET_BEGIN);
    put16(&x, 9);
    put16(&x, 0);
    put32(&x, 1);
    put8(&x, 'g');
    put32(&x, 0x7fffffffu);
    expect_error(&x, 21, "truncated event type extra info (type 9");
    log_free(&x);

    /* A long description is clamped, and the rest skipped. */
    Log c = {0};
    put32(&c, EVENT_HEADER_BEGIN);
    put32(&c, EVENT_HET_BEGIN);
    put32(&c, EVENT_ET_BEGIN);
    put16(&c, 9);
    put16(&c, 0);
    put32(&c, 5000);
    for (int i = 0; i < 5000; i++)
        put8(&c, (uint8_t)('a' + i % 26));
    put32(&c, 0);
    put32(&c, EVENT_ET_END);
    put32(&c, EVENT_HET_END);
    put32(&c, EVENT_HEADER_END);
    put32(&c, EVENT_DATA_BEGIN);
    put_fixed(&c, 9, 3);
    put16(&c, EVENT_DATA_END);
    EventLogReader *r = open_mem(&c);
    assert_null(evr_error(r));
    assert_int_equal(strlen(evr_type(r, 9)->description), EVR_DESCRIPTION_MAX);
    EvrEvent ev;
    assert_int_equal(evr_next(r, &ev), 1);
    assert_int_equal(ev.time_ns, 3);
    close_checked(r);
    log_free(&c);
}

static void test_eventlog_reader_malformed_payloads(void **state)
{
    (void)state;
    Log l = {0};
    put_header(&l, std_types, N_STD_TYPES);
    static const char ipe_bad[] = "\0\0\0\0\0\x40\x9f\x78t\0x1\0ty\0lab\0Mod\0src\0";
    put_var(&l, EVENT_IPE, 1, ipe_bad, sizeof ipe_bad - 1);
    static const char ipe_ok[] = "\0\0\0\0\0\x40\x9f\x78t\0" "21\0ty\0lab\0Mod\0src\0";
    put_var(&l, EVENT_IPE, 2, ipe_ok, sizeof ipe_ok - 1);
    put_var(&l, EVENT_HEAP_PROF_SAMPLE_STRING, 3, "\0\0\0\0\0\0\0\x10\0A\0extra", 16);
    put_var(&l, EVENT_HEAP_PROF_SAMPLE_STRING, 4, "\0\0\0\0\0\0\0\x10\0A", 10);
    put_var(&l, EVENT_HEAP_PROF_BEGIN, 5, "\0\0\0\0\0\0\0\0\0\0\0\0\x07", 13);
    put_var(&l, EVENT_HEAP_PROF_BEGIN, 6,
            "\0\0\0\0\0\0\0\0\0\0\0\0\x0a\0\0\0\0\0\0\0", 20);
    put_var(&l, EVENT_HEAP_SIZE, 7, "", 0);   /* declared fixed: see below */
    put16(&l, EVENT_DATA_END);
    /* The last event is written as variable but HEAP_SIZE is fixed (12):
     * the reader takes 12 bytes of payload starting at the length field,
     * which runs off the end: a framing error, found after the rest. */
    EventLogReader *r = open_mem(&l);
    EvrEvent ev;
    static const char *const want[] = {
        "IPE closure description is not a decimal number",
        NULL,
        "trailing bytes after the event's fields",
        "string not NUL-terminated",
        "string not NUL-terminated",
        "unknown heap profile breakdown code (GHC's are 1-9)",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(evr_next(r, &ev), 1);
        if (want[i] == NULL) {
            assert_null(ev.malformed);
            assert_true(ev.decoded);
            assert_int_equal(ev.u.ipe.info, 0x409f78);
            assert_int_equal(ev.u.ipe.srcloc.len, 3);
        } else {
            assert_non_null(ev.malformed);
            assert_string_equal(ev.malformed, want[i]);
            assert_false(ev.decoded);
        }
    }
    assert_int_equal(evr_next(r, &ev), -1);
    assert_non_null(strstr(evr_error(r), "truncated event payload (type 50, need 12 bytes"));
    close_checked(r);
    log_free(&l);
}

/* An IPE event as GHC 9.10 writes it: the length field says `declared`,
 * the payload has n bytes. */
static void put_ipe_declaring(Log *l, uint64_t t, const char *payload, uint16_t n,
                              uint16_t declared)
{
    put16(l, EVENT_IPE);
    put64(l, t);
    put16(l, declared);
    log_put(l, payload, n);
}

/* Note [GHC's IPE length] in EventLogReader.c: GHC 9.10's IPE events
 * declare one byte more than they hold.  The reader reads them as
 * written, in a block, back to back, and as the last event before the
 * data end; an IPE whose extra byte is a real field (the next event starts
 * at the declared end) is read by its declared length. */
static void test_eventlog_reader_ghc910_ipe_length(void **state)
{
    (void)state;
    static const char ipe[] = "\0\0\0\0\0\x40\x90\xa0sat_info\0" "17\0String\0f\0Main\0"
                              "S.hs:17:1-61\0";
    static const char ipe7[] = "\0\0\0\0\0\x40\x90\xb0t\0" "21\0ty\0lab\0Mod\0src\0";
    uint16_t n = sizeof ipe - 1, n7 = sizeof ipe7 - 1;
    /* Type 0 declared, as in GHC's logs: then the seventh field's NUL and
     * the next IPE's first byte look like an event too, and the declared
     * end must win. */
    TypeDecl types[N_STD_TYPES + 1];
    memcpy(types, std_types, sizeof std_types);
    types[N_STD_TYPES] = (TypeDecl){EVENT_CREATE_THREAD, 4, "Create thread"};
    Log l = {0};
    put_header(&l, types, N_STD_TYPES + 1);
    size_t g = block_begin(&l, 10, EVENT_CAP_GLOBAL);
    put_ipe_declaring(&l, 11, ipe, n, n + 1);
    put_ipe_declaring(&l, 12, ipe, n, n + 1);
    put_ipe_declaring(&l, 13, ipe, n, n);
    /* A seventh field of one byte (an empty string): written in full. */
    put_ipe_declaring(&l, 14, ipe7, n7, n7 + 1);
    put8(&l, 0);
    put_ipe_declaring(&l, 15, ipe, n, n + 1);
    block_end(&l, g);
    put_fixed(&l, EVENT_GC_START, 16);
    put_ipe_declaring(&l, 17, ipe, n, n + 1);
    put16(&l, EVENT_DATA_END);

    for (int via_file = 0; via_file < 2; via_file++) {
        FILE *f = NULL;
        EventLogReader *r;
        if (via_file) {
            f = fmemopen(l.bytes, l.len, "rb");
            assert_non_null(f);
            r = evr_open_file(f, "test");
        } else {
            r = open_mem(&l);
        }
        EvrEvent ev;
        assert_int_equal(evr_next(r, &ev), 1);   /* the block marker */
        static const struct { uint64_t time; uint32_t bytes, declared; int cap; } want[] = {
            {11, 0, 1, -1}, {12, 0, 1, -1}, {13, 0, 0, -1}, {14, 1, 1, -1}, {15, 0, 1, -1},
        };
        for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
            assert_int_equal(evr_next(r, &ev), 1);
            assert_int_equal(ev.type, EVENT_IPE);
            assert_int_equal(ev.time_ns, want[i].time);
            int seventh = want[i].time == 14;
            assert_int_equal(ev.payload_bytes, (seventh ? n7 : n) + want[i].bytes);
            assert_int_equal(ev.declared_payload_bytes, (seventh ? n7 : n) + want[i].declared);
            assert_int_equal(ev.size_bytes, EVENT_HEADER_BYTES + 2 + ev.payload_bytes);
            if (seventh) {
                /* ghc-events would misparse the extra field: check says so. */
                assert_string_equal(ev.malformed, "trailing bytes after the event's fields");
                continue;
            }
            assert_null(ev.malformed);
            assert_true(ev.decoded);
            assert_int_equal(ev.u.ipe.info, 0x4090a0);
            assert_int_equal(ev.u.ipe.srcloc.len, strlen("S.hs:17:1-61"));
            assert_memory_equal(ev.u.ipe.srcloc.ptr, "S.hs:17:1-61", ev.u.ipe.srcloc.len);
        }
        assert_int_equal(evr_next(r, &ev), 1);
        assert_int_equal(ev.type, EVENT_GC_START);
        assert_int_equal(ev.cap, -1);
        assert_int_equal(evr_next(r, &ev), 1);
        assert_int_equal(ev.type, EVENT_IPE);
        assert_int_equal(ev.payload_bytes, n);
        assert_int_equal(evr_next(r, &ev), 0);
        assert_true(evr_saw_data_end(r));
        assert_int_equal(evr_offset(r), l.len);
        close_checked(r);
        if (f != NULL)
            fclose(f);
    }
    log_free(&l);
}

/* String fields must be UTF-8 as ghc-events decodes it: the reader
 * reads such events, and evr_find_invalid_utf8 names the field, the byte
 * and where it is. */
static void test_eventlog_reader_invalid_utf8(void **state)
{
    (void)state;
    static const TypeDecl types[] = {
        {EVENT_USER_MSG, EVENT_SIZE_VARIABLE, "User message"},
        {EVENT_PROGRAM_ARGS, EVENT_SIZE_VARIABLE, "Program arguments"},
        {EVENT_USER_MARKER, EVENT_SIZE_VARIABLE, "User marker"},
        {EVENT_HEAP_PROF_BEGIN, EVENT_SIZE_VARIABLE, "Start of heap profile"},
        {EVENT_HEAP_PROF_SAMPLE_STRING, EVENT_SIZE_VARIABLE, "Heap profile string sample"},
        {EVENT_IPE, EVENT_SIZE_VARIABLE, "An IPE entry"},
    };
    Log l = {0};
    put_header(&l, types, sizeof types / sizeof types[0]);
    /* Valid: U+0000, U+00E9, U+20AC, U+1F600, U+10FFFF. */
    static const char ok[] = "a\0\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf";
    put_var(&l, EVENT_USER_MSG, 1, ok, sizeof ok - 1);
    static const char args[] = "\0\0\0\0./prog\0ok\0caf\xe9\0";
    put_var(&l, EVENT_PROGRAM_ARGS, 2, args, sizeof args - 1);
    put_var(&l, EVENT_USER_MARKER, 3, "x\xed\xa0\x80", 4);          /* a surrogate */
    put_var(&l, EVENT_USER_MSG, 4, "cut \xe2\x82", 6);                 /* cut short */
    put_var(&l, EVENT_HEAP_PROF_SAMPLE_STRING, 5, "\0\0\0\0\0\0\0\x10\0\xc0\x80\0", 12);
    static const char ipe[] = "\0\0\0\0\0\0\0\x01t\0" "21\0ty\0lab\0Mod\0src\xf5\x80\x80\x80\0";
    put_var(&l, EVENT_IPE, 6, ipe, sizeof ipe - 1);
    put_var(&l, EVENT_HEAP_PROF_BEGIN, 7,
            "\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0\xff\0\0\0\0", 21);
    put16(&l, EVENT_DATA_END);
    static const struct {
        const char *field;
        int index;
        size_t byte;
        uint8_t value;
    } want[] = {
        {NULL, 0, 0, 0},
        {"args", 2, 13, 0xe9},
        {"text", -1, 1, 0xed},
        {"text", -1, 4, 0xe2},
        {"label", -1, 0, 0xc0},
        {"srcloc", -1, 3, 0xf5},
        {"cost_centre_filter", -1, 0, 0xff},
    };
    EventLogReader *r = open_mem(&l);
    EvrEvent ev;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(evr_next(r, &ev), 1);
        assert_true(ev.decoded);
        EvrBadUtf8 bad;
        if (want[i].field == NULL) {
            assert_int_equal(evr_find_invalid_utf8(&ev, &bad), 0);
            continue;
        }
        assert_int_equal(evr_find_invalid_utf8(&ev, &bad), 1);
        assert_string_equal(bad.field, want[i].field);
        assert_int_equal(bad.index, want[i].index);
        assert_int_equal(bad.byte, want[i].byte);
        assert_int_equal(bad.value, want[i].value);
    }
    assert_int_equal(evr_next(r, &ev), 0);
    close_checked(r);
    log_free(&l);
}

/* Every prefix of a valid log either ends cleanly at an event boundary or
 * fails with an offset inside the prefix; the events before are the same
 * as the full log's; memory and FILE readers agree. */
static void test_eventlog_reader_truncation_every_offset(void **state)
{
    (void)state;
    Log l = {0};
    build_sample_log(&l);
    static Seen full[SEEN_MAX], part[SEEN_MAX], part_file[SEEN_MAX];
    size_t n_full;
    EventLogReader *r = open_mem(&l);
    assert_int_equal(read_all(r, full, &n_full), 0);
    close_checked(r);
    for (size_t len = 0; len < l.len; len++) {
        Log p = {.bytes = l.bytes, .len = len};
        size_t n, n_file;
        r = open_mem(&p);
        int rc = read_all(r, part, &n);
        assert_true(n <= n_full);
        assert_seen_equal(part, full, n);
        if (rc == 0) {
            assert_false(evr_saw_data_end(r));
            assert_int_equal(evr_offset(r), len);   /* a boundary */
        } else {
            assert_int_equal(rc, -1);
            assert_true(evr_error_offset(r) <= len);
            assert_memory_equal(evr_error(r), "offset ", 7);
        }
        close_checked(r);

        FILE *f = fmemopen(l.bytes, len > 0 ? len : 1, "rb");
        assert_non_null(f);
        if (len == 0)
            fgetc(f);   /* fmemopen cannot open an empty buffer */
        EventLogReader *fr = evr_open_file(f, "prefix");
        assert_non_null(fr);
        assert_int_equal(read_all(fr, part_file, &n_file), rc);
        assert_int_equal(n_file, n);
        assert_seen_equal(part_file, part, n);
        close_checked(fr);
        fclose(f);
    }
    log_free(&l);
}

/* A log several times the reader's buffer, with events of every size up to
 * the maximum, read from a FILE exactly as from memory. */
static void test_eventlog_reader_file_matches_memory(void **state)
{
    (void)state;
    Log l = {0};
    put_header(&l, std_types, N_STD_TYPES);
    static uint8_t payload[EVENT_PAYLOAD_SIZE_MAX];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (uint8_t)(i * 7);
    uint64_t t = 0;
    for (unsigned k = 0; k < 40; k++) {
        uint16_t n = (uint16_t)(k % 3 == 0 ? EVENT_PAYLOAD_SIZE_MAX : (k * 4099u) % 65536u);
        put_var(&l, 251, ++t, payload, n);
        put_heap_size(&l, ++t, k);
    }
    put16(&l, EVENT_DATA_END);
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(l.bytes, 1, l.len, f), l.len);
    rewind(f);
    EventLogReader *fr = evr_open_file(f, "tmp");
    EventLogReader *mr = open_mem(&l);
    EvrEvent a, b;
    int ra, rb, n = 0;
    while ((ra = evr_next(fr, &a)) == 1) {
        rb = evr_next(mr, &b);
        assert_int_equal(rb, 1);
        assert_int_equal(a.type, b.type);
        assert_int_equal(a.time_ns, b.time_ns);
        assert_int_equal(a.offset, b.offset);
        assert_int_equal(a.payload_bytes, b.payload_bytes);
        assert_memory_equal(a.payload, b.payload, a.payload_bytes);
        assert_true(evr_check(fr));
        n++;
    }
    assert_int_equal(ra, 0);
    assert_int_equal(evr_next(mr, &b), 0);
    assert_int_equal(n, 80);
    assert_true(evr_saw_data_end(fr));
    assert_int_equal(evr_offset(fr), l.len);
    close_checked(fr);
    close_checked(mr);
    fclose(f);
    log_free(&l);
}

/* A stream that hands out its bytes a few at a time, as a socket does,
 * and counts what it has handed out; fail_at makes it fail there. */
typedef struct Trickle {
    const uint8_t *bytes;
    size_t len, given;
    size_t step;          /* most bytes per read */
    size_t fail_at;       /* SIZE_MAX: never */
} Trickle;

static ptrdiff_t trickle_read(void *ctx, void *buf, size_t max_bytes)
{
    Trickle *t = ctx;
    if (t->given >= t->fail_at) {
        errno = EIO;
        return -1;
    }
    size_t n = t->len - t->given;
    if (n > t->step)
        n = t->step;
    if (n > max_bytes)
        n = max_bytes;
    memcpy(buf, t->bytes + t->given, n);
    t->given += n;
    return (ptrdiff_t)n;
}

/* A stream reader returns each event as soon as its last byte has arrived
 * (never reading past it, so a live stream is never waited on for more),
 * and the events are those of the memory reader. */
static void test_eventlog_reader_stream_returns_events_as_they_arrive(void **state)
{
    (void)state;
    Log l = {0};
    put_header(&l, std_types, N_STD_TYPES);
    static const uint8_t payload[300] = {1, 2, 3};
    for (unsigned k = 0; k < 20; k++) {
        put_heap_size(&l, k, k * 4096u);
        put_var(&l, 251, k, payload, (uint16_t)(k * 15));
    }
    put16(&l, EVENT_DATA_END);
    Trickle t = {.bytes = l.bytes, .len = l.len, .step = 1, .fail_at = SIZE_MAX};
    EventLogReader *sr = evr_open_stream(trickle_read, &t, "stream");
    assert_non_null(sr);
    EventLogReader *mr = open_mem(&l);
    EvrEvent a, b;
    int n = 0;
    while (evr_next(sr, &a) == 1) {
        assert_int_equal(t.given, a.offset + a.size_bytes);
        assert_int_equal(evr_next(mr, &b), 1);
        assert_int_equal(a.type, b.type);
        assert_int_equal(a.offset, b.offset);
        assert_memory_equal(a.payload, b.payload, a.payload_bytes);
        assert_true(evr_check(sr));
        n++;
    }
    assert_int_equal(n, 40);
    assert_null(evr_error(sr));
    assert_true(evr_saw_data_end(sr));
    close_checked(sr);
    close_checked(mr);
    log_free(&l);
}

/* A read function's error stops the reader with errno's message, at the
 * offset where input stopped. */
static void test_eventlog_reader_stream_read_error(void **state)
{
    (void)state;
    Log l = {0};
    put_header(&l, std_types, N_STD_TYPES);
    size_t header_bytes = l.len;
    put_heap_size(&l, 1, 1);
    put_heap_size(&l, 2, 2);
    Trickle t = {.bytes = l.bytes, .len = l.len, .step = 7, .fail_at = header_bytes + 25};
    EventLogReader *sr = evr_open_stream(trickle_read, &t, "stream");
    assert_non_null(sr);
    EvrEvent ev;
    assert_int_equal(evr_next(sr, &ev), 1);
    assert_int_equal(evr_next(sr, &ev), -1);
    assert_non_null(strstr(evr_error(sr), "read error (errno=5"));
    assert_int_equal(evr_error_offset(sr), t.given);
    close_checked(sr);
    log_free(&l);
}

/* The IPE table: the first description of an address wins; a -hi label
 * names an IPE only when it is "0x" and 1-16 hex digits of either case. */
static EvrEvent ipe_event(uint64_t info, const char *name)
{
    EvrEvent ev;
    memset(&ev, 0, sizeof ev);
    ev.type = EVENT_IPE;
    ev.u.ipe.info = info;
    EvrStr n = {name, strlen(name)}, empty = {"", 0}, desc = {"1", 1};
    ev.u.ipe.table_name = n;
    ev.u.ipe.closure_desc = desc;
    ev.u.ipe.ty_desc = ev.u.ipe.label = ev.u.ipe.module = ev.u.ipe.srcloc = empty;
    return ev;
}

static void test_ipe_table(void **state)
{
    (void)state;
    EvrIpeTable t = {0};
    assert_null(evr_ipe_table_find(&t, 0x409f78));
    assert_null(evr_ipe_table_find_label(&t, "0x409f78", 8));
    for (uint64_t i = 1; i <= 1000; i++) {   /* grows the hash several times */
        char name[32];
        snprintf(name, sizeof name, "t%lu", (unsigned long)i);
        EvrEvent ev = ipe_event(i * 16, name);
        assert_int_equal(evr_ipe_table_add(&t, &ev), 1);
    }
    EvrEvent again = ipe_event(16, "second");
    assert_int_equal(evr_ipe_table_add(&t, &again), 1);
    assert_int_equal(t.n_ipes, 1000);
    assert_string_equal(evr_ipe_table_find(&t, 16)->table_name.ptr, "t1");
    assert_string_equal(evr_ipe_table_find(&t, 16000)->closure_desc.ptr, "1");
    assert_null(evr_ipe_table_find(&t, 8));
    assert_string_equal(evr_ipe_table_find_label(&t, "0x3e80", 6)->table_name.ptr, "t1000");
    assert_string_equal(evr_ipe_table_find_label(&t, "0x3E80", 6)->table_name.ptr, "t1000");
    assert_string_equal(evr_ipe_table_find_label(&t, "0x00000000000010", 16)->table_name.ptr, "t1");
    assert_null(evr_ipe_table_find_label(&t, "0x", 2));
    assert_null(evr_ipe_table_find_label(&t, "0x0000000000000000010", 21));   /* 19 digits */
    assert_null(evr_ipe_table_find_label(&t, "0X10", 4));
    assert_null(evr_ipe_table_find_label(&t, "0x1g", 4));
    assert_null(evr_ipe_table_find_label(&t, "16", 2));
    evr_ipe_table_free(&t);
    assert_int_equal(t.n_ipes, 0);
    assert_null(evr_ipe_table_find(&t, 16));
}

/* Band labels numbered in first-seen order; equal only with equal bytes
 * and length (a label may hold a NUL). */
static void test_label_index(void **state)
{
    (void)state;
    EvrLabelIndex ix = {0};
    assert_int_equal(evr_label_find(&ix, "a", 1), EVR_NO_LABEL);
    for (size_t i = 0; i < 500; i++) {   /* grows the hash several times */
        char l[16];
        int n = snprintf(l, sizeof l, "band%zu", i);
        assert_int_equal(evr_label_find(&ix, l, (size_t)n), EVR_NO_LABEL);
        assert_int_equal(evr_label_add(&ix, l, (size_t)n), i);
    }
    assert_int_equal(evr_label_find(&ix, "band0", 5), 0);
    assert_int_equal(evr_label_find(&ix, "band499", 7), 499);
    assert_int_equal(evr_label_find(&ix, "band49", 5), 4);   /* "band4": a prefix */
    assert_int_equal(evr_label_add(&ix, "x\0y", 3), 500);
    assert_int_equal(evr_label_add(&ix, "x", 1), 501);
    assert_int_equal(evr_label_find(&ix, "x\0y", 3), 500);
    assert_int_equal(evr_label(&ix, 500).len, 3);
    assert_int_equal(evr_label(&ix, 501).ptr[1], '\0');   /* copies are NUL-terminated */
    assert_string_equal(evr_label(&ix, 42).ptr, "band42");
    evr_label_index_free(&ix);
    assert_int_equal(ix.n, 0);
    assert_int_equal(evr_label_find(&ix, "band0", 5), EVR_NO_LABEL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eventlog_reader_header),
        cmocka_unit_test(test_eventlog_reader_fixed_and_variable),
        cmocka_unit_test(test_eventlog_reader_fixed_larger_than_known),
        cmocka_unit_test(test_eventlog_reader_unknown_declared_skipped),
        cmocka_unit_test(test_eventlog_reader_undeclared_rejected),
        cmocka_unit_test(test_eventlog_reader_block_caps),
        cmocka_unit_test(test_eventlog_reader_data_end),
        cmocka_unit_test(test_eventlog_reader_bad_magic),
        cmocka_unit_test(test_eventlog_reader_duplicate_type),
        cmocka_unit_test(test_eventlog_reader_oversize_lengths),
        cmocka_unit_test(test_eventlog_reader_malformed_payloads),
        cmocka_unit_test(test_eventlog_reader_ghc910_ipe_length),
        cmocka_unit_test(test_eventlog_reader_invalid_utf8),
        cmocka_unit_test(test_eventlog_reader_truncation_every_offset),
        cmocka_unit_test(test_eventlog_reader_file_matches_memory),
        cmocka_unit_test(test_eventlog_reader_stream_returns_events_as_they_arrive),
        cmocka_unit_test(test_eventlog_reader_stream_read_error),
        cmocka_unit_test(test_ipe_table),
        cmocka_unit_test(test_label_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
