/*
 * testsuite/unit/test_event_format.c -- the event format's table
 * (wire/EventFormat.h) against itself, the writer and the reader (Note [One
 * table for the event format]).  The table is consistent: ids ascending,
 * a fixed size the sum of its fields.  The round trip: the runtime, with
 * the memory writer, posts every event type the table marks emitted with
 * distinct values in every field (start-up and shutdown post the rest);
 * the reader reads the log back; every event is in the table, its payload
 * is walked field by field by the table and must end exactly at the
 * payload's end, agree with the reader's own decoding where the reader
 * decodes the type, and, for what the test posted, hold the posted values.
 */
#include "harness.h"

#include "EventFormat.h"
#include "EventLog.h"
#include "EventLogReader.h"
#include "EventLogWriter.h"

/* One field's value: a number, or bytes (strings, string lists, Word32
 * arrays as their raw bytes). */
typedef struct {
    uint64_t u;
    const char *s;   /* non-NULL for the variable kinds */
    size_t len;
} Value;

#define NUM(x) {.u = (x)}
#define STR(x) {.s = (x), .len = sizeof(x) - 1}

static uint64_t be(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

/* Walks payload[0 .. n) by f's fields into out; false unless the fields
 * take exactly the payload. */
static bool walk(const EventFormat *f, const uint8_t *payload, size_t n, Value *out)
{
    size_t at = 0;
    for (size_t i = 0; i < f->n_fields; i++) {
        EventFieldKind k = f->fields[i].kind;
        size_t w = event_field_width(k);
        out[i] = (Value){0};
        if (w != 0) {
            if (n - at < w)
                return false;
            out[i].u = be(payload + at, w);
            at += w;
            continue;
        }
        const char *p = (const char *)payload + at;
        size_t len = n - at;   /* REST and CSTR_LIST: to the end */
        if (k == EVENT_FIELD_CSTR) {
            const char *nul = memchr(p, '\0', n - at);
            if (nul == NULL)
                return false;
            len = (size_t)(nul - p);
            at += 1;
        } else if (k == EVENT_FIELD_U32_COUNTED) {
            if (i == 0 || f->fields[i - 1].kind != EVENT_FIELD_U8 || out[i - 1].u * 4 > n - at)
                return false;
            len = out[i - 1].u * 4;
        }
        out[i].s = p;
        out[i].len = len;
        at += len;
    }
    return at == n;
}

/* The reader's decoding of ev as values in the table's field order;
 * -1 where the reader does not decode the type. */
static int reader_values(const EvrEvent *ev, Value *v)
{
#define S(str) {.s = (str).ptr, .len = (str).len}
    switch (ev->type) {
    case EVENT_GC_START:
    case EVENT_GC_END:
        return 0;
    case EVENT_BLOCK_MARKER:
        v[0] = (Value)NUM(ev->u.block.block_bytes);
        v[1] = (Value)NUM(ev->u.block.end_time_ns);
        v[2] = (Value)NUM(ev->u.block.cap);
        return 3;
    case EVENT_HEAP_SIZE:
    case EVENT_HEAP_LIVE:
    case EVENT_BLOCKS_SIZE:
    case EVENT_HEAP_ALLOCATED:
        v[0] = (Value)NUM(ev->u.heap.capset);
        v[1] = (Value)NUM(ev->u.heap.bytes);
        return 2;
    case EVENT_RTS_IDENTIFIER:
        v[0] = (Value)NUM(ev->u.rts_id.capset);
        v[1] = (Value)S(ev->u.rts_id.ident);
        return 2;
    case EVENT_PROGRAM_ARGS:
        v[0] = (Value)NUM(ev->u.args.capset);
        v[1] = (Value)S(ev->u.args.args);
        return 2;
    case EVENT_WALL_CLOCK_TIME:
        v[0] = (Value)NUM(ev->u.wall_clock.capset);
        v[1] = (Value)NUM(ev->u.wall_clock.secs);
        v[2] = (Value)NUM(ev->u.wall_clock.nsecs);
        return 3;
    case EVENT_USER_MSG:
    case EVENT_USER_MARKER:
        v[0] = (Value)S(ev->u.user.text);
        return 1;
    case EVENT_HEAP_PROF_BEGIN:
        v[0] = (Value)NUM(ev->u.prof_begin.profile_id);
        v[1] = (Value)NUM(ev->u.prof_begin.interval_ns);
        v[2] = (Value)NUM(ev->u.prof_begin.breakdown);
        for (int i = 0; i < EVR_HEAP_PROF_FILTERS; i++)
            v[3 + i] = (Value)S(ev->u.prof_begin.filters[i]);
        return 3 + EVR_HEAP_PROF_FILTERS;
    case EVENT_HEAP_PROF_SAMPLE_BEGIN:
    case EVENT_HEAP_PROF_SAMPLE_END:
        v[0] = (Value)NUM(ev->u.sample.census);
        return 1;
    case EVENT_HEAP_PROF_SAMPLE_STRING:
        v[0] = (Value)NUM(ev->u.sample_string.profile_id);
        v[1] = (Value)NUM(ev->u.sample_string.residency_bytes);
        v[2] = (Value)S(ev->u.sample_string.label);
        return 3;
    case EVENT_IPE:
        v[0] = (Value)NUM(ev->u.ipe.info);
        v[1] = (Value)S(ev->u.ipe.table_name);
        v[2] = (Value)S(ev->u.ipe.closure_desc);
        v[3] = (Value)S(ev->u.ipe.ty_desc);
        v[4] = (Value)S(ev->u.ipe.label);
        v[5] = (Value)S(ev->u.ipe.module);
        v[6] = (Value)S(ev->u.ipe.srcloc);
        return 7;
    case EVENT_ALLOC_SAMPLING:
        v[0] = (Value)NUM(ev->u.alloc_sampling.rate_bytes);
        return 1;
    case EVENT_ALLOC_FRAME:
        v[0] = (Value)NUM(ev->u.alloc_frame.frame);
        v[1] = (Value)NUM(ev->u.alloc_frame.line);
        v[2] = (Value)S(ev->u.alloc_frame.function);
        v[3] = (Value)S(ev->u.alloc_frame.file);
        return 4;
    case EVENT_ALLOC_STACK:
        v[0] = (Value)NUM(ev->u.alloc_stack.stack);
        v[1] = (Value)NUM(ev->u.alloc_stack.depth);
        v[2] = (Value){.s = (const char *)ev->u.alloc_stack.frames,
                       .len = 4 * (size_t)ev->u.alloc_stack.depth};
        return 3;
    case EVENT_ALLOC_SAMPLE:
        v[0] = (Value)NUM(ev->u.alloc_sample.sample);
        v[1] = (Value)NUM(ev->u.alloc_sample.size_bytes);
        v[2] = (Value)NUM(ev->u.alloc_sample.stack);
        v[3] = (Value)NUM(ev->u.alloc_sample.era);
        v[4] = (Value)NUM(ev->u.alloc_sample.cap);
        v[5] = (Value)NUM(ev->u.alloc_sample.kind);
        return 6;
    case EVENT_ALLOC_DEATH:
        v[0] = (Value)NUM(ev->u.alloc_death.sample);
        return 1;
    default:
        return -1;
    }
#undef S
}

static bool same(const Value *a, const Value *b)
{
    if ((a->s == NULL) != (b->s == NULL))
        return false;
    if (a->s == NULL)
        return a->u == b->u;
    return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

/* ----------------------------------------------------------------------
 * The table itself
 * ------------------------------------------------------------------- */

static void test_event_format_table_is_consistent(void **state)
{
    (void)state;
    assert_true(n_event_formats > 0);
    for (size_t i = 0; i < n_event_formats; i++) {
        const EventFormat *f = &event_formats[i];
        if (i > 0)
            assert_true(event_formats[i - 1].id < f->id);   /* ascending, unique */
        assert_ptr_equal(event_format_find(f->id), f);
        assert_non_null(f->name);
        assert_true(f->description != NULL && f->description[0] != '\0');
        assert_string_equal(eventlog_type_description(f->id), f->description);
        assert_int_equal(eventlog_type_size(f->id), f->size);
        assert_true(f->n_fields <= EVENT_FORMAT_MAX_FIELDS);
        size_t fixed = 0, variable = 0;
        for (size_t k = 0; k < f->n_fields; k++) {
            size_t w = event_field_width(f->fields[k].kind);
            fixed += w;
            variable += w == 0;
            /* Only the last field may run to the payload's end. */
            if (f->fields[k].kind == EVENT_FIELD_REST || f->fields[k].kind == EVENT_FIELD_CSTR_LIST)
                assert_int_equal(k, f->n_fields - 1);
        }
        if (f->size == EVENT_SIZE_VARIABLE) {
            assert_true(variable > 0);
        } else {
            if (variable != 0 || fixed != f->size)
                fail_msg("%s: fields take %zu bytes (%zu variable), size is %u", f->name, fixed,
                         variable, f->size);
        }
    }
    assert_null(event_format_find(EVENT_DATA_END));
    assert_int_equal(eventlog_type_size(EVENT_DATA_END), -1);
    assert_string_equal(event_format_find(EVENT_GC_STATS_GHC)->name, "GC_STATS_GHC");
}

/* ----------------------------------------------------------------------
 * The round trip
 * ------------------------------------------------------------------- */

/* An event the test posts, with the values each field must read back. */
typedef struct {
    uint16_t id;
    Value v[EVENT_FORMAT_MAX_FIELDS];
    bool seen;
} Posted;

#define LABEL "round trip \xc3\xa9 label"

static Posted posted[] = {
    {EVENT_CREATE_THREAD, {NUM(0x01020304)}, false},
    {EVENT_RUN_THREAD, {NUM(0x05060708)}, false},
    {EVENT_STOP_THREAD, {NUM(0x090a0b0c), NUM(THREAD_STOP_BLOCKED_ON_BLACKHOLE), NUM(0)}, false},
    {EVENT_REQUEST_SEQ_GC, {{0}}, false},
    {EVENT_REQUEST_PAR_GC, {{0}}, false},
    {EVENT_GC_GLOBAL_SYNC, {{0}}, false},
    {EVENT_GC_START, {{0}}, false},
    {EVENT_GC_WORK, {{0}}, false},
    {EVENT_GC_IDLE, {{0}}, false},
    {EVENT_GC_DONE, {{0}}, false},
    {EVENT_GC_END, {{0}}, false},
    {EVENT_HEAP_ALLOCATED, {NUM(0), NUM(0x1112131415161718)}, false},
    {EVENT_HEAP_SIZE, {NUM(0), NUM(0x2122232425262728)}, false},
    {EVENT_BLOCKS_SIZE, {NUM(0), NUM(0x3132333435363738)}, false},
    {EVENT_HEAP_LIVE, {NUM(0), NUM(0x4142434445464748)}, false},
    {EVENT_GC_STATS_GHC,
     {NUM(0), NUM(0x5152), NUM(0x5354555657585950), NUM(0x5a5b5c5d5e5f5051), NUM(0x5253545556575859),
      NUM(0x5a5b5c5d), NUM(0x6162636465666768), NUM(0x696a6b6c6d6e6f60), NUM(0x7172737475767778)},
     false},
    {EVENT_MEM_RETURN, {NUM(0), NUM(0x81828384), NUM(0x85868788), NUM(0x898a8b8c)}, false},
    {EVENT_HEAP_PROF_BEGIN,
     {NUM(0), NUM(0x9192939495969798), NUM(HEAP_PROF_BREAKDOWN_INFO_TABLE), STR(""), STR(""), STR(""),
      STR(""), STR(""), STR(""), STR("")},
     false},
    {EVENT_HEAP_PROF_SAMPLE_BEGIN, {NUM(0xa1a2a3a4a5a6a7a8)}, false},
    {EVENT_HEAP_PROF_SAMPLE_STRING, {NUM(0), NUM(0xb1b2b3b4b5b6b7b8), STR(LABEL)}, false},
    {EVENT_HEAP_PROF_SAMPLE_END, {NUM(0xa1a2a3a4a5a6a7a8)}, false},
    {EVENT_IPE,
     {NUM(0xc1c2c3c4c5c6c7c8), STR("sat_s1_info"), STR("21"), STR("Int -> Int"), STR("go"),
      STR("Main"), STR("Main.hs:3:1-9")},
     false},
    {EVENT_USER_MSG, {STR("round trip message")}, false},
    {EVENT_USER_MARKER, {STR("round trip marker")}, false},
    {EVENT_ALLOC_SAMPLING, {NUM(0xd1d2d3d4d5d6d7d8)}, false},
    {EVENT_ALLOC_FRAME, {NUM(0xe1e2e3e4), NUM(0xe5e6e7e8), STR("handle"), STR(LABEL)}, false},
    {EVENT_ALLOC_STACK, {NUM(0xf1f2f3f4), NUM(2), STR("\xe1\xe2\xe3\xe4\x00\x00\x00\x07")},
     false},
    {EVENT_ALLOC_SAMPLE,
     {NUM(0x0102030405060708), NUM(0x1112131415161718), NUM(0x21222324), NUM(0x3132333435363738),
      NUM(0x4142), NUM(2)},
     false},
    {EVENT_ALLOC_DEATH, {NUM(0x0102030405060708)}, false},
    {EVENT_CONC_MARK_BEGIN, {{0}}, false},
    {EVENT_CONC_MARK_END, {NUM(0xd1d2d3d4)}, false},
    {EVENT_CONC_SYNC_BEGIN, {{0}}, false},
    {EVENT_CONC_SYNC_END, {{0}}, false},
    {EVENT_CONC_SWEEP_BEGIN, {{0}}, false},
    {EVENT_CONC_SWEEP_END, {{0}}, false},
};
#define N_POSTED (sizeof posted / sizeof posted[0])

/* Posts every event of `posted`, through the writer's own functions. */
static void post_all(void)
{
    eventlog_post_create_thread(0x01020304);
    eventlog_post_run_thread(0x05060708);
    eventlog_post_stop_thread(0x090a0b0c, THREAD_STOP_BLOCKED_ON_BLACKHOLE);
    eventlog_post_request_seq_gc();
    eventlog_post_request_par_gc();
    eventlog_post_gc_global_sync();
    eventlog_post_gc_start();
    eventlog_post_gc_work();
    eventlog_post_gc_idle();
    eventlog_post_gc_done();
    eventlog_post_gc_end();
    eventlog_post_heap_allocated(0x1112131415161718);
    eventlog_post_heap_size(0x2122232425262728);
    eventlog_post_blocks_size(0x3132333435363738);
    eventlog_post_heap_live(0x4142434445464748);
    eventlog_post_gc_stats_ghc(0x5152, 0x5354555657585950, 0x5a5b5c5d5e5f5051, 0x5253545556575859,
                               0x5a5b5c5d, 0x6162636465666768, 0x696a6b6c6d6e6f60,
                               0x7172737475767778);
    eventlog_post_mem_return(0x81828384, 0x85868788, 0x898a8b8c);
    eventlog_post_heap_prof_begin(0x9192939495969798, HEAP_PROF_BREAKDOWN_INFO_TABLE);
    eventlog_post_heap_prof_sample_begin(0xa1a2a3a4a5a6a7a8);
    eventlog_post_heap_prof_sample_string(0xb1b2b3b4b5b6b7b8, LABEL);
    eventlog_post_heap_prof_sample_end(0xa1a2a3a4a5a6a7a8);
    eventlog_post_ipe(0xc1c2c3c4c5c6c7c8, "sat_s1_info", "21", "Int -> Int", "go", "Main",
                      "Main.hs:3:1-9");
    eventlog_post_user_msg("round trip message", 18);
    eventlog_post_user_marker("round trip marker", 17);
    eventlog_post_alloc_sampling(0xd1d2d3d4d5d6d7d8);
    eventlog_post_alloc_frame(0xe1e2e3e4, "handle", LABEL, 0xe5e6e7e8);
    eventlog_post_alloc_stack(0xf1f2f3f4, (const uint32_t[]){0xe1e2e3e4, 7}, 2);
    eventlog_post_alloc_sample(0x0102030405060708, 0x1112131415161718, 0x21222324,
                               0x3132333435363738, 0x4142, 2);
    eventlog_post_alloc_death(0x0102030405060708);
    /* The non-moving cycle's events, by their rows (rts/GcReport.c). */
    eventlog_post_fields(EVENTLOG_CLASS_GC, EVENT_CONC_MARK_BEGIN, NULL);
    eventlog_post_fields(EVENTLOG_CLASS_GC, EVENT_CONC_MARK_END, (uint64_t[]){0xd1d2d3d4});
    eventlog_post_fields(EVENTLOG_CLASS_GC, EVENT_CONC_SYNC_BEGIN, NULL);
    eventlog_post_fields(EVENTLOG_CLASS_GC, EVENT_CONC_SYNC_END, NULL);
    eventlog_post_fields(EVENTLOG_CLASS_GC, EVENT_CONC_SWEEP_BEGIN, NULL);
    eventlog_post_fields(EVENTLOG_CLASS_GC, EVENT_CONC_SWEEP_END, NULL);
}

/* Marks the posted entries whose values ev's fields hold. */
static void match_posted(const EventFormat *f, const Value *got)
{
    for (size_t i = 0; i < N_POSTED; i++) {
        if (posted[i].id != f->id)
            continue;
        bool all = true;
        for (size_t k = 0; k < f->n_fields && all; k++)
            all = same(&posted[i].v[k], &got[k]);
        posted[i].seen |= all;
    }
}

/* Checks one event read back: in the table, walked exactly, and the same
 * as the reader's decoding. */
static void check_event(const EvrEvent *ev, bool *types_seen)
{
    const EventFormat *f = event_format_find(ev->type);
    if (f == NULL)
        fail_msg("event type %u at offset %llu is not in the table", ev->type,
                 (unsigned long long)ev->offset);
    types_seen[f - event_formats] = true;
    if (f->size != EVENT_SIZE_VARIABLE)
        assert_int_equal(ev->payload_bytes, f->size);
    Value got[EVENT_FORMAT_MAX_FIELDS], decoded[EVENT_FORMAT_MAX_FIELDS];
    if (!walk(f, ev->payload, ev->payload_bytes, got))
        fail_msg("%s at offset %llu: its %u payload bytes are not the table's fields", f->name,
                 (unsigned long long)ev->offset, ev->payload_bytes);
    assert_null(ev->malformed);
    int n = reader_values(ev, decoded);
    if (n >= 0) {
        assert_true(ev->decoded);
        assert_int_equal(n, f->n_fields);
        for (int k = 0; k < n; k++)
            if (!same(&got[k], &decoded[k]))
                fail_msg("%s field %s: the table and the reader disagree", f->name,
                         f->fields[k].name);
    }
    match_posted(f, got);
}

static void test_event_format_round_trip_every_emitted_type(void **state)
{
    (void)state;
    eventlog_set_writer(&eventlog_memory_writer);
    harness_start("-l", NULL);
    assert_true(eventlog_enabled());
    post_all();
    hs_exit();
    eventlog_set_writer(NULL);
    size_t n_bytes;
    const uint8_t *bytes = eventlog_memory_writer_bytes(&n_bytes);

    EventLogReader *r = evr_open_memory(bytes, n_bytes, "round trip");
    assert_non_null(r);
    assert_null(evr_error(r));
    /* The header declares exactly the emitted types, as the table says. */
    size_t n_emitted = 0;
    for (size_t i = 0; i < n_event_formats; i++) {
        const EvrEventType *t = evr_type(r, event_formats[i].id);
        assert_int_equal(t != NULL, event_formats[i].emitted);
        if (t == NULL)
            continue;
        n_emitted++;
        assert_int_equal(t->size, event_formats[i].size);
        assert_string_equal(t->description, event_formats[i].description);
    }
    assert_non_null(evr_type_at(r, n_emitted - 1));
    assert_null(evr_type_at(r, n_emitted));

    bool types_seen[64] = {false};
    assert_true(n_event_formats <= 64);
    EvrEvent ev;
    int st;
    while ((st = evr_next(r, &ev)) == 1)
        check_event(&ev, types_seen);
    assert_int_equal(st, 0);
    assert_null(evr_error(r));
    assert_true(evr_saw_data_end(r));
    evr_close(r);

    for (size_t i = 0; i < n_event_formats; i++)
        if (event_formats[i].emitted && !types_seen[i])
            fail_msg("no %s event in the log", event_formats[i].name);
    for (size_t i = 0; i < N_POSTED; i++)
        if (!posted[i].seen)
            fail_msg("the posted %s did not read back with its values",
                     event_format_find(posted[i].id)->name);
    eventlog_memory_writer_free();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_format_table_is_consistent),
        cmocka_unit_test(test_event_format_round_trip_every_emitted_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
