/*
 * testsuite/unit/test_heapprof.c -- the heapprof library shared by
 * strata-events pprof and strata-live (utils/heapprof/): the latest
 * complete census (Note [Only the latest census] in HeapCensus.c), what a
 * band is, source locations split into file and line, strings made valid
 * UTF-8 for protobuf, and a profile that gzip and protobuf-c read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "HeapCensus.h"
#include "Pprof.h"
#include "profile.pb-c.h"

static EvrEvent event(uint16_t type)
{
    EvrEvent ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.decoded = 1;
    return ev;
}

static int add(HeapCensus *hc, EvrEvent ev)
{
    return heap_census_add(hc, &ev);
}

static int add_band(HeapCensus *hc, const char *label, uint64_t bytes)
{
    EvrEvent ev = event(EVENT_HEAP_PROF_SAMPLE_STRING);
    ev.u.sample_string.label = (EvrStr){ label, strlen(label) };
    ev.u.sample_string.residency_bytes = bytes;
    return heap_census_add(hc, &ev);
}

static void add_ipe(HeapCensus *hc, uint64_t info, const char *table, const char *desc,
                    const char *module, const char *label, const char *srcloc)
{
    EvrEvent ev = event(EVENT_IPE);
    ev.u.ipe.info = info;
    ev.u.ipe.table_name = (EvrStr){ table, strlen(table) };
    ev.u.ipe.closure_desc = (EvrStr){ desc, strlen(desc) };
    ev.u.ipe.ty_desc = (EvrStr){ "T", 1 };
    ev.u.ipe.label = (EvrStr){ label, strlen(label) };
    ev.u.ipe.module = (EvrStr){ module, strlen(module) };
    ev.u.ipe.srcloc = (EvrStr){ srcloc, strlen(srcloc) };
    add(hc, ev);
}

/* Only complete censuses are shown; a repeated label adds up; a census
 * cut short by the next SAMPLE_BEGIN, or by the end, is dropped. */
static void test_heapprof_latest_complete_census(void **state)
{
    (void)state;
    HeapCensus hc;
    heap_census_init(&hc);
    EvrEvent begin = event(EVENT_HEAP_PROF_BEGIN);
    begin.u.prof_begin.breakdown = HEAP_PROF_BREAKDOWN_CLOSURE_TYPE;
    add(&hc, begin);
    assert_int_equal(add(&hc, event(EVENT_HEAP_PROF_SAMPLE_BEGIN)), 0);
    add_band(&hc, "THUNK", 10);
    add_band(&hc, "FUN", 5);
    add_band(&hc, "THUNK", 7);
    assert_false(hc.have_last);
    assert_int_equal(add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END)), 1);
    assert_true(hc.have_last);
    assert_int_equal(hc.last.labels.n, 2);
    assert_int_equal(hc.last.bytes[0], 17);
    assert_int_equal(hc.last.total_bytes, 22);
    assert_int_equal(hc.last.number, 1);
    /* Census 2 is cut short by census 3, which the stream cuts short. */
    add(&hc, event(EVENT_HEAP_PROF_SAMPLE_BEGIN));
    add_band(&hc, "X", 1);
    add(&hc, event(EVENT_HEAP_PROF_SAMPLE_BEGIN));
    add_band(&hc, "Y", 2);
    assert_int_equal(hc.last.number, 1);
    assert_int_equal(hc.last.labels.n, 2);
    assert_int_equal(hc.n_censuses, 3);
    size_t order[2];
    heap_census_rank(&hc.last, order);
    assert_int_equal(order[0], 0);   /* THUNK, 17 bytes */
    HcBandInfo b;
    heap_census_band_info(&hc, &hc.last, order[1], &b);
    assert_string_equal(b.closure_type, "FUN");
    heap_census_free(&hc);
}

static void test_heapprof_band_info_from_ipe(void **state)
{
    (void)state;
    HeapCensus hc;
    heap_census_init(&hc);
    EvrEvent begin = event(EVENT_HEAP_PROF_BEGIN);
    begin.u.prof_begin.breakdown = HEAP_PROF_BREAKDOWN_INFO_TABLE;
    add(&hc, begin);
    add_ipe(&hc, 0x4a0010, "Node_con_info", "1", "Tree", "insert", "src/Tree.hs:12:3-40");
    add(&hc, event(EVENT_HEAP_PROF_SAMPLE_BEGIN));
    add_band(&hc, "0x4a0010", 64);
    add_band(&hc, "0x999", 8);
    add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END));
    HcBandInfo b;
    heap_census_band_info(&hc, &hc.last, 0, &b);
    assert_int_equal(b.info, 0x4a0010);
    assert_int_equal(b.name.len, strlen("Node_con_info"));
    assert_memory_equal(b.file.ptr, "src/Tree.hs", b.file.len);
    assert_int_equal(b.file.len, strlen("src/Tree.hs"));
    assert_int_equal(b.line, 12);
    assert_string_equal(b.closure_type, "CONSTR");
    /* A band no IPE names is its label. */
    heap_census_band_info(&hc, &hc.last, 1, &b);
    assert_int_equal(b.info, 0);
    assert_memory_equal(b.name.ptr, "0x999", 5);
    assert_null(b.closure_type);
    heap_census_free(&hc);
}

static void test_heapprof_split_srcloc(void **state)
{
    (void)state;
    struct {
        const char *in, *file;
        int64_t line;
    } cases[] = {
        {"examples/leak.c:49:5-60", "examples/leak.c", 49},
        {"Test.hs:5:1-30", "Test.hs", 5},
        {"rts/StgInfo.c:14", "rts/StgInfo.c", 14},
        {"C:/dir/x.hs:7:1", "C:/dir/x.hs", 7},
        {"no-line.c", "no-line.c", 0},
        {"weird:x:3", "weird:x", 3},
        {"", "", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        EvrStr file;
        int64_t line;
        heap_census_split_srcloc((EvrStr){ cases[i].in, strlen(cases[i].in) }, &file, &line);
        assert_int_equal(file.len, strlen(cases[i].file));
        assert_memory_equal(file.ptr, cases[i].file, file.len);
        assert_int_equal(line, cases[i].line);
    }
}

static void test_heapprof_utf8_copy(void **state)
{
    (void)state;
    char *c = pprof_utf8_copy("ok \xc3\xa9 \xff \xe2\x82 \0!", 13);
    assert_non_null(c);
    assert_memory_equal(c, "ok \xc3\xa9 ? ?? ?!", 13);
    free(c);
}

/* The encoder's bytes are gzip, and protobuf-c reads back the census. */
static void test_heapprof_pprof_round_trip(void **state)
{
    (void)state;
    HeapCensus hc;
    heap_census_init(&hc);
    EvrEvent begin = event(EVENT_HEAP_PROF_BEGIN);
    begin.u.prof_begin.breakdown = HEAP_PROF_BREAKDOWN_ERA;
    add(&hc, begin);
    add(&hc, event(EVENT_HEAP_PROF_SAMPLE_BEGIN));
    add_band(&hc, "1", 100);
    add_band(&hc, "2", 300);
    add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END));
    const char *comments[] = { "test \xff" };
    uint8_t *gz;
    size_t gz_bytes;
    const char *why;
    assert_true(pprof_encode_census(&hc, &hc.last, comments, 1, &gz, &gz_bytes, &why));
    uint8_t raw[4096];
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = gz;
    z.avail_in = (uInt)gz_bytes;
    z.next_out = raw;
    z.avail_out = sizeof raw;
    assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
    size_t raw_bytes = z.total_out;
    inflateEnd(&z);
    Perftools__Profiles__Profile *p =
        perftools__profiles__profile__unpack(NULL, raw_bytes, raw);
    assert_non_null(p);
    assert_string_equal(p->string_table[0], "");
    assert_int_equal(p->n_sample, 2);
    assert_int_equal(p->sample[0]->value[0], 300);   /* largest first */
    assert_string_equal(p->string_table[p->sample_type[0]->type], "inuse_space");
    assert_string_equal(p->string_table[p->function[0]->name], "era 2");
    assert_int_equal(p->sample[0]->n_label, 1);
    assert_string_equal(p->string_table[p->sample[0]->label[0]->key], "era");
    assert_int_equal(p->sample[0]->label[0]->num, 2);
    assert_string_equal(p->string_table[p->comment[0]], "test ?");
    perftools__profiles__profile__free_unpacked(p, NULL);
    free(gz);
    heap_census_free(&hc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heapprof_latest_complete_census),
        cmocka_unit_test(test_heapprof_band_info_from_ipe),
        cmocka_unit_test(test_heapprof_split_srcloc),
        cmocka_unit_test(test_heapprof_utf8_copy),
        cmocka_unit_test(test_heapprof_pprof_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
