/*
 * testsuite/unit/test_alloc_model.c -- the tools' model of sampled
 * allocations (utils/heapprof/AllocModel.c): a sample counts in alloc at
 * once and in use from the first collection that ends after it (Note [In
 * use as of the last collection]), a pending sample that dies is
 * forgotten, the file's order of buffers does not matter, and a log
 * without GC events counts a sample at the sample.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "AllocModel.h"

static void add(AllocModel *m, uint16_t type, uint64_t time_ns, uint64_t sample)
{
    EvrEvent ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.decoded = 1;
    ev.time_ns = time_ns;
    if (type == EVENT_ALLOC_SAMPLE) {
        ev.u.alloc_sample.sample = sample;
        ev.u.alloc_sample.size_bytes = 100 * sample;   /* no rate: each stands for itself */
        ev.u.alloc_sample.stack = 1;
        ev.u.alloc_sample.era = 1;
    } else if (type == EVENT_ALLOC_DEATH) {
        ev.u.alloc_death.sample = sample;
    }
    (void)alloc_model_add(m, &ev);
}

/* The one bucket's figures (every sample here is of stack 1, era 1). */
static const AmBucket *bucket(const AllocModel *m)
{
    assert_int_equal(m->bucket_keys.n, 1);
    return &m->buckets[0];
}

static void test_pending_until_gc_end(void **state)
{
    (void)state;
    AllocModel m;
    alloc_model_init(&m);
    add(&m, EVENT_GC_END, 10, 0);
    add(&m, EVENT_ALLOC_SAMPLE, 20, 1);   /* after the log's last collection */
    assert_true(bucket(&m)->alloc_bytes == 100);
    assert_int_equal(bucket(&m)->samples, 1);
    assert_true(bucket(&m)->inuse_bytes == 0);
    assert_true(bucket(&m)->inuse_objects == 0);
    assert_int_equal(m.n_live, 0);
    assert_int_equal(m.n_pending, 1);
    add(&m, EVENT_GC_END, 15, 0);         /* earlier than it: still pending */
    assert_true(bucket(&m)->inuse_bytes == 0);
    add(&m, EVENT_GC_END, 30, 0);
    assert_true(bucket(&m)->inuse_bytes == 100);
    assert_true(bucket(&m)->inuse_objects == 1);
    assert_int_equal(m.n_live, 1);
    assert_int_equal(m.n_pending, 0);
    add(&m, EVENT_ALLOC_DEATH, 40, 1);
    assert_true(bucket(&m)->inuse_bytes == 0);
    assert_true(bucket(&m)->alloc_bytes == 100);
    assert_int_equal(m.n_live, 0);
    alloc_model_free(&m);
}

static void test_pending_death_forgotten(void **state)
{
    (void)state;
    AllocModel m;
    alloc_model_init(&m);
    add(&m, EVENT_GC_END, 10, 0);
    add(&m, EVENT_ALLOC_SAMPLE, 20, 1);
    add(&m, EVENT_ALLOC_SAMPLE, 21, 2);
    add(&m, EVENT_ALLOC_DEATH, 25, 1);    /* found dead by a collection ... */
    add(&m, EVENT_GC_END, 30, 0);         /* ... that ends here */
    assert_true(bucket(&m)->inuse_bytes == 200);
    assert_int_equal(bucket(&m)->live_samples, 1);
    assert_true(bucket(&m)->alloc_bytes == 300);
    assert_int_equal(m.n_live, 1);
    assert_int_equal(m.n_pending, 0);
    assert_int_equal(m.n_deaths, 1);
    add(&m, EVENT_ALLOC_SAMPLE, 35, 1);   /* a repeat of a dead number is new */
    add(&m, EVENT_GC_END, 40, 0);
    assert_true(bucket(&m)->inuse_bytes == 300);
    alloc_model_free(&m);
}

/* GC_END is in another buffer than the samples: a collection read before
 * a sample that is earlier in time counts it at once. */
static void test_file_order_is_not_time_order(void **state)
{
    (void)state;
    AllocModel m;
    alloc_model_init(&m);
    add(&m, EVENT_GC_END, 10, 0);
    add(&m, EVENT_GC_END, 50, 0);
    add(&m, EVENT_ALLOC_SAMPLE, 20, 1);
    add(&m, EVENT_ALLOC_SAMPLE, 60, 2);
    assert_true(bucket(&m)->inuse_bytes == 100);
    assert_int_equal(m.n_pending, 1);
    add(&m, EVENT_GC_END, 70, 0);
    assert_true(bucket(&m)->inuse_bytes == 300);
    alloc_model_free(&m);
}

/* No GC_END read yet: counted at the sample; the first GC_END takes back
 * the samples later than itself. */
static void test_without_gc_events(void **state)
{
    (void)state;
    AllocModel m;
    alloc_model_init(&m);
    add(&m, EVENT_ALLOC_SAMPLE, 20, 1);
    add(&m, EVENT_ALLOC_SAMPLE, 30, 2);
    add(&m, EVENT_ALLOC_SAMPLE, 40, 3);
    assert_true(bucket(&m)->inuse_bytes == 600);
    assert_int_equal(m.n_live, 3);
    add(&m, EVENT_ALLOC_DEATH, 45, 2);
    assert_true(bucket(&m)->inuse_bytes == 400);
    add(&m, EVENT_GC_END, 35, 0);
    assert_true(bucket(&m)->inuse_bytes == 100);
    assert_int_equal(m.n_live, 1);
    assert_int_equal(m.n_pending, 1);
    add(&m, EVENT_GC_END, 50, 0);
    assert_true(bucket(&m)->inuse_bytes == 400);
    assert_int_equal(m.n_live, 2);
    alloc_model_free(&m);
}

/* Many pending samples, most dying: the queue is compacted and each
 * number still finds its own record. */
static void test_many_pending(void **state)
{
    (void)state;
    AllocModel m;
    alloc_model_init(&m);
    add(&m, EVENT_GC_END, 1, 0);
    double want = 0;
    for (uint64_t s = 1; s <= 1000; s++)
        add(&m, EVENT_ALLOC_SAMPLE, 10 + s, s);
    for (uint64_t s = 1; s <= 1000; s++)
        if (s % 4 != 0)
            add(&m, EVENT_ALLOC_DEATH, 2000, s);
        else
            want += 100.0 * (double)s;
    assert_int_equal(m.n_pending, 250);
    add(&m, EVENT_GC_END, 600, 0);         /* samples 1..589 */
    add(&m, EVENT_GC_END, 3000, 0);
    assert_true(bucket(&m)->inuse_bytes == want);
    assert_int_equal(m.n_live, 250);
    for (uint64_t s = 4; s <= 1000; s += 4)
        add(&m, EVENT_ALLOC_DEATH, 4000, s);
    assert_int_equal(m.n_live, 0);
    assert_true(bucket(&m)->inuse_bytes == 0);
    assert_int_equal(m.n_deaths, 1000);
    alloc_model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pending_until_gc_end),
        cmocka_unit_test(test_pending_death_forgotten),
        cmocka_unit_test(test_file_order_is_not_time_order),
        cmocka_unit_test(test_without_gc_events),
        cmocka_unit_test(test_many_pending),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
