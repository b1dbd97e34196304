/*
 * testsuite/unit/test_heapprof.c -- the tools' heap-profile model and its
 * pprof encoder (utils/heapprof/): one rule per odd case of a log (Note
 * [One rule per case] in HeapModel.c), -hc stacks keyed by ids and named
 * as hp2ps names them, strata-live's bounded bands (Note [Censuses go
 * by]), what a band is, source locations split into file and line,
 * strings made valid UTF-8 for protobuf, and a profile that gzip and
 * protobuf-c read back.
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

#include "HeapModel.h"
#include "Pprof.h"
#include "PprofWrite.h"
#include "profile.pb-c.h"

static EvrEvent event(uint16_t type)
{
    EvrEvent ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.decoded = 1;
    return ev;
}

static int add(HeapModel *hc, EvrEvent ev)
{
    return heap_model_add(hc, &ev);
}

/* A model that has read a HEAP_PROF_BEGIN of this breakdown. */
static void start_profile(HeapModel *hc, uint32_t breakdown)
{
    heap_model_init(hc);
    EvrEvent begin = event(EVENT_HEAP_PROF_BEGIN);
    begin.u.prof_begin.breakdown = breakdown;
    add(hc, begin);
}

static int add_band(HeapModel *hc, const char *label, uint64_t bytes)
{
    EvrEvent ev = event(EVENT_HEAP_PROF_SAMPLE_STRING);
    ev.u.sample_string.label = (EvrStr){ label, strlen(label) };
    ev.u.sample_string.residency_bytes = bytes;
    return heap_model_add(hc, &ev);
}

static void add_ipe(HeapModel *hc, uint64_t info, const char *table, const char *desc,
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

static EvrEvent begin_at(uint64_t t)
{
    EvrEvent ev = event(EVENT_HEAP_PROF_SAMPLE_BEGIN);
    ev.u.sample.sample_time_ns = t;
    return ev;
}

static EvrStr last_label(const HeapModel *hc, size_t i)
{
    return heap_model_label(hc, hc->last.e[i].band);
}

/* Note [One rule per case]: a repeated label adds up; a census ends at
 * its SAMPLE_END, at the next SAMPLE_BEGIN or at the end of the log, and
 * counts in each case; an empty census counts; a sample outside a census
 * is dropped. */
static void test_heapprof_one_rule_per_case(void **state)
{
    (void)state;
    HeapModel hc;
    start_profile(&hc, HEAP_PROF_BREAKDOWN_CLOSURE_TYPE);
    add_band(&hc, "EARLY", 99);   /* before any census: dropped */
    assert_int_equal(add(&hc, begin_at(10)), 0);
    add_band(&hc, "THUNK", 10);
    add_band(&hc, "FUN", 5);
    add_band(&hc, "THUNK", 7);
    assert_false(hc.have_last);
    assert_int_equal(add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END)), 1);
    assert_true(hc.have_last);
    assert_int_equal(hc.last.n, 2);
    assert_int_equal(hc.last.e[0].bytes, 17);
    assert_int_equal(hc.last.total_bytes, 22);
    assert_int_equal(hc.last.number, 1);
    assert_int_equal(hc.last.time_ns, 10);
    add_band(&hc, "LATE", 1);     /* after SAMPLE_END: dropped */
    assert_int_equal(add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END)), 0);
    /* Census 2 is ended by census 3's SAMPLE_BEGIN, and counts. */
    add(&hc, begin_at(20));
    add_band(&hc, "X", 1);
    assert_int_equal(add(&hc, begin_at(30)), 1);
    assert_int_equal(hc.last.number, 2);
    assert_int_equal(hc.last.n, 1);
    assert_int_equal(last_label(&hc, 0).len, 1);
    /* Census 3 is ended by the end of the log, and counts. */
    add_band(&hc, "Y", 2);
    assert_true(hc.open);
    assert_int_equal(heap_model_census_end(&hc), 1);
    assert_int_equal(hc.last.number, 3);
    assert_int_equal(hc.last.e[0].bytes, 2);
    assert_int_equal(heap_model_census_end(&hc), 0);
    /* An empty census counts. */
    add(&hc, begin_at(40));
    assert_int_equal(add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END)), 1);
    assert_int_equal(hc.last.number, 4);
    assert_int_equal(hc.last.n, 0);
    assert_int_equal(hc.n_censuses, 4);
    assert_int_equal(evr_label_find(&hc.labels, "EARLY", 5), EVR_NO_LABEL);
    assert_int_equal(evr_label_find(&hc.labels, "LATE", 4), EVR_NO_LABEL);
    heap_model_free(&hc);
}

/* Ranking and band info on a census with a repeated label. */
static void test_heapprof_rank_and_closure_type(void **state)
{
    (void)state;
    HeapModel hc;
    start_profile(&hc, HEAP_PROF_BREAKDOWN_CLOSURE_TYPE);
    add(&hc, begin_at(1));
    add_band(&hc, "FUN", 5);
    add_band(&hc, "THUNK", 10);
    add_band(&hc, "THUNK", 7);
    add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END));
    size_t order[2];
    heap_model_rank(&hc, &hc.last, order);
    assert_int_equal(order[0], 1);   /* THUNK, 17 bytes */
    HmBandInfo b;
    heap_model_band_info(&hc, &hc.last, order[1], &b);
    assert_string_equal(b.closure_type, "FUN");
    heap_model_free(&hc);
}

static void add_cc(HeapModel *hc, uint32_t id, const char *label, const char *module)
{
    EvrEvent ev = event(EVENT_HEAP_PROF_COST_CENTRE);
    ev.u.cost_centre.id = id;
    ev.u.cost_centre.label = (EvrStr){ label, strlen(label) };
    ev.u.cost_centre.module = (EvrStr){ module, strlen(module) };
    ev.u.cost_centre.srcloc = (EvrStr){ "", 0 };
    add(hc, ev);
}

/* A -hc sample's band is its stack's ids; the stack is named as hp2ps
 * names it, again once more cost centres are defined. */
static void test_heapprof_stacks(void **state)
{
    (void)state;
    HeapModel hc;
    start_profile(&hc, HEAP_PROF_BREAKDOWN_COST_CENTRE);
    add_cc(&hc, 1, "CAF", "Main");
    add_cc(&hc, 2, "go", "Main");
    static const uint8_t stack[] = { 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 3 };
    EvrEvent cc = event(EVENT_HEAP_PROF_SAMPLE_COST_CENTRE);
    cc.u.sample_cc.stack = stack;
    cc.u.sample_cc.residency_bytes = 48;
    add(&hc, begin_at(1));
    add(&hc, cc);                   /* the empty stack */
    cc.u.sample_cc.depth = 3;
    add(&hc, cc);
    add(&hc, cc);
    add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END));
    assert_int_equal(hc.last.n, 2);
    assert_string_equal(last_label(&hc, 0).ptr, "MAIN");
    assert_string_equal(heap_model_band_name(&hc, hc.last.e[0].band).ptr, "MAIN");
    assert_string_equal(last_label(&hc, 1).ptr, "2,1,3");
    assert_int_equal(hc.last.e[1].bytes, 96);
    assert_string_equal(heap_model_band_name(&hc, hc.last.e[1].band).ptr, "go/Main.CAF/cc3");
    HmBandInfo b;
    heap_model_band_info(&hc, &hc.last, 1, &b);
    assert_true(b.is_stack);
    assert_memory_equal(b.name.ptr, "go/Main.CAF/cc3", b.name.len);
    /* Cost centre 3 defined later: the next census holding the stack
     * names it again. */
    add_cc(&hc, 3, "main", "Main");
    add(&hc, begin_at(2));
    add(&hc, cc);
    add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END));
    assert_string_equal(heap_model_band_name(&hc, hc.last.e[0].band).ptr, "go/Main.CAF/main");
    heap_model_free(&hc);
}

/* Note [Censuses go by]: with latest_only, the bands of old censuses are
 * forgotten once they outnumber the latest census's, which keeps its own. */
static void test_heapprof_latest_only(void **state)
{
    (void)state;
    HeapModel hc;
    start_profile(&hc, HEAP_PROF_BREAKDOWN_ERA);
    hc.latest_only = 1;
    for (uint64_t era = 1; era <= 1000; era++) {
        char label[16];
        snprintf(label, sizeof label, "%llu", (unsigned long long)era);
        add(&hc, begin_at(era));
        add_band(&hc, "0", 1);
        add_band(&hc, label, era);
        add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END));
        assert_true(hc.labels.n <= 2 * 2 + 64 + 1);
        assert_int_equal(hc.last.n, 2);
        assert_string_equal(last_label(&hc, 1).ptr, label);
        assert_int_equal(hc.last.e[1].bytes, era);
    }
    assert_int_equal(hc.last.number, 1000);
    heap_model_free(&hc);
}

static void test_heapprof_band_info_from_ipe(void **state)
{
    (void)state;
    HeapModel hc;
    start_profile(&hc, HEAP_PROF_BREAKDOWN_INFO_TABLE);
    add_ipe(&hc, 0x4a0010, "Node_con_info", "1", "Tree", "insert", "src/Tree.hs:12:3-40");
    add(&hc, begin_at(1));
    add_band(&hc, "0x4a0010", 64);
    add_band(&hc, "0x999", 8);
    add(&hc, event(EVENT_HEAP_PROF_SAMPLE_END));
    HmBandInfo b;
    heap_model_band_info(&hc, &hc.last, 0, &b);
    assert_int_equal(b.info, 0x4a0010);
    assert_int_equal(b.name.len, strlen("Node_con_info"));
    assert_memory_equal(b.file.ptr, "src/Tree.hs", b.file.len);
    assert_int_equal(b.file.len, strlen("src/Tree.hs"));
    assert_int_equal(b.line, 12);
    assert_string_equal(b.closure_type, "CONSTR");
    /* A band no IPE names is its label. */
    heap_model_band_info(&hc, &hc.last, 1, &b);
    assert_int_equal(b.info, 0);
    assert_memory_equal(b.name.ptr, "0x999", 5);
    assert_null(b.closure_type);
    heap_model_free(&hc);
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
        heap_model_split_srcloc((EvrStr){ cases[i].in, strlen(cases[i].in) }, &file, &line);
        assert_int_equal(file.len, strlen(cases[i].file));
        assert_memory_equal(file.ptr, cases[i].file, file.len);
        assert_int_equal(line, cases[i].line);
    }
}

/* A string table entry keeps UTF-8 (Caf\u00e9\u2192\u03bb) and shows each
 * invalid byte and each control character, NUL included, as \xNN: valid
 * UTF-8 without NULs, as protobuf insists. */
static void test_heapprof_pprof_string(void **state)
{
    (void)state;
    size_t n;
    char *c = pprof_string("Caf\xc3\xa9\xe2\x86\x92\xce\xbb \xff \xe2\x82 \0\x1b!", 19, &n);
    assert_non_null(c);
    const char want[] = "Caf\xc3\xa9\xe2\x86\x92\xce\xbb \\xff \\xe2\\x82 \\x00\\x1b!";
    assert_int_equal(n, sizeof want - 1);
    assert_memory_equal(c, want, sizeof want);
    free(c);
}

/* The encoder's bytes are gzip, and protobuf-c reads back the census. */
static void test_heapprof_pprof_round_trip(void **state)
{
    (void)state;
    HeapModel hc;
    start_profile(&hc, HEAP_PROF_BREAKDOWN_ERA);
    add(&hc, begin_at(1));
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
    assert_string_equal(p->string_table[p->comment[0]], "test \\xff");
    perftools__profiles__profile__free_unpacked(p, NULL);
    free(gz);
    heap_model_free(&hc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heapprof_one_rule_per_case),
        cmocka_unit_test(test_heapprof_rank_and_closure_type),
        cmocka_unit_test(test_heapprof_stacks),
        cmocka_unit_test(test_heapprof_latest_only),
        cmocka_unit_test(test_heapprof_band_info_from_ipe),
        cmocka_unit_test(test_heapprof_split_srcloc),
        cmocka_unit_test(test_heapprof_pprof_string),
        cmocka_unit_test(test_heapprof_pprof_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
