/*
 * testsuite/unit/test_base.c -- the base library's containers, shared by
 * the runtime and the tools: grow_array_reserve and grow_array_shrink
 * (base/GrowArray.h), bisection (base/SortedSearch.h), the word map
 * (base/WordMap.h) and the string index (base/StrIndex.h).
 * Growth, contents kept across growth, and every failure (size overflow,
 * C heap exhausted) answered ENOMEM (or NULL / STR_INDEX_NONE) with the
 * container unchanged.  The C heap is exhausted on demand by wrapping
 * malloc and calloc (-Wl,--wrap in Makefile.am): fail_allocs_after.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "GrowArray.h"
#include "SortedSearch.h"
#include "StrIndex.h"
#include "WordMap.h"

/* The out-of-heap case asks realloc for 2^62 bytes; under AddressSanitizer
 * that must come back NULL, as it does from glibc, rather than abort. */
__attribute__((used, visibility("default"))) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

/* The heap runs out after this many more malloc/calloc calls (-1: never). */
static long fail_allocs_after = -1;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);

static int heap_exhausted(void)
{
    if (fail_allocs_after < 0)
        return 0;
    if (fail_allocs_after == 0)
        return 1;
    fail_allocs_after--;
    return 0;
}

void *__wrap_malloc(size_t n)
{
    return heap_exhausted() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return heap_exhausted() ? NULL : __real_calloc(n, size);
}

static void test_base_grow_array_starts_at_min_capacity(void **state)
{
    (void)state;
    int *a = NULL;
    size_t cap = 0;
    assert_int_equal(grow_array_reserve((void **)&a, &cap, 1, sizeof *a, 40), 0);
    assert_non_null(a);
    assert_int_equal(cap, 40);
    a[39] = 7;   /* all 40 are usable (ASan would see an overrun) */

    int *before = a;
    assert_int_equal(grow_array_reserve((void **)&a, &cap, 40, sizeof *a, 40), 0);
    assert_ptr_equal(a, before);   /* already big enough: nothing done */
    assert_int_equal(cap, 40);
    free(a);
}

static void test_base_grow_array_doubles_and_keeps_contents(void **state)
{
    (void)state;
    unsigned *a = NULL;
    size_t cap = 0;
    for (unsigned i = 0; i < 1000; i++) {
        assert_int_equal(GROW_ARRAY_RESERVE(a, cap, i + 1), 0);
        a[i] = i * 3;
    }
    assert_int_equal(cap, 1024);   /* 16, 32, ..., 1024 */
    for (unsigned i = 0; i < 1000; i++)
        assert_int_equal(a[i], i * 3);
    /* A jump: doubling goes on until the need is met. */
    assert_int_equal(GROW_ARRAY_RESERVE(a, cap, 5000), 0);
    assert_int_equal(cap, 8192);
    assert_int_equal(a[999], 2997);
    free(a);
}

static void test_base_grow_array_small_capacity_grows_to_min(void **state)
{
    (void)state;
    size_t cap = 3;
    char *a = malloc(cap);
    assert_non_null(a);
    a[0] = 'x';
    assert_int_equal(GROW_ARRAY_RESERVE_MIN(a, cap, 4, 64), 0);
    assert_int_equal(cap, 64);
    assert_int_equal(a[0], 'x');
    free(a);
}

static void test_base_grow_array_overflow_is_enomem_unchanged(void **state)
{
    (void)state;
    uint64_t *a = NULL;
    size_t cap = 0;
    assert_int_equal(GROW_ARRAY_RESERVE(a, cap, 10), 0);
    a[0] = 42;
    uint64_t *before = a;

    /* The capacity itself would overflow doubling. */
    assert_int_equal(GROW_ARRAY_RESERVE(a, cap, SIZE_MAX), ENOMEM);
    assert_ptr_equal(a, before);
    assert_int_equal(cap, 16);
    /* The capacity fits, capacity * element size does not. */
    assert_int_equal(GROW_ARRAY_RESERVE(a, cap, SIZE_MAX / sizeof *a + 2), ENOMEM);
    assert_ptr_equal(a, before);
    assert_int_equal(cap, 16);
    assert_int_equal(a[0], 42);
    free(a);
}

static void test_base_grow_array_out_of_heap_is_enomem_unchanged(void **state)
{
    (void)state;
    char *a = NULL;
    size_t cap = 0;
    assert_int_equal(GROW_ARRAY_RESERVE(a, cap, 1), 0);
    a[0] = 'k';
    char *before = a;
    /* 2^62 bytes: no overflow, but no machine has them. */
    assert_int_equal(GROW_ARRAY_RESERVE(a, cap, ((size_t)1 << 62) - 1), ENOMEM);
    assert_ptr_equal(a, before);
    assert_int_equal(cap, 16);
    assert_int_equal(a[0], 'k');
    free(a);
}

/* An array that has emptied shrinks to what it holds, never below its
 * minimum, and only when under a quarter is used; its contents stay.  A
 * freed one is empty. */
static void test_base_grow_array_shrinks_when_mostly_empty(void **state)
{
    (void)state;
    unsigned *a = NULL;
    size_t cap = 0, n = 1000;
    assert_int_equal(GROW_ARRAY_RESERVE_MIN(a, cap, n, 64), 0);
    assert_int_equal(cap, 1024);
    for (unsigned i = 0; i < n; i++)
        a[i] = i + 1;

    n = 256;   /* a quarter: kept */
    GROW_ARRAY_SHRINK_MIN(a, cap, n, 64);
    assert_int_equal(cap, 1024);
    n = 255;   /* under a quarter: down to what is used */
    GROW_ARRAY_SHRINK_MIN(a, cap, n, 64);
    assert_int_equal(cap, 255);
    assert_int_equal(a[254], 255);   /* the last one kept (ASan: in bounds) */
    n = 3;     /* never below the minimum */
    GROW_ARRAY_SHRINK_MIN(a, cap, n, 64);
    assert_int_equal(cap, 64);
    assert_int_equal(a[0], 1);
    assert_int_equal(a[2], 3);
    GROW_ARRAY_SHRINK_MIN(a, cap, 0, 64);   /* at the minimum: stays */
    assert_int_equal(cap, 64);

    GROW_ARRAY_FREE(a, n, cap);
    assert_null(a);
    assert_int_equal(n, 0);
    assert_int_equal(cap, 0);
    assert_int_equal(GROW_ARRAY_RESERVE(a, cap, 1), 0);   /* usable again */
    free(a);
}

/* Bisection over records keyed by a uint64_t that is not their first
 * member: ties, both ends, an empty array. */
static void test_base_sorted_search_counts_before_a_key(void **state)
{
    (void)state;
    typedef struct {
        uint32_t tag;
        uint64_t key;
    } Rec;
    const Rec r[] = {{1, 10}, {2, 20}, {3, 20}, {4, 20}, {5, 30}, {6, UINT64_MAX}};
    const size_t n = sizeof r / sizeof r[0];
    assert_int_equal(SORTED_COUNT_BELOW(r, n, Rec, key, 0), 0);
    assert_int_equal(SORTED_COUNT_BELOW(r, n, Rec, key, 10), 0);
    assert_int_equal(SORTED_COUNT_BELOW(r, n, Rec, key, 20), 1);   /* the first 20 */
    assert_int_equal(SORTED_COUNT_AT_OR_BELOW(r, n, Rec, key, 20), 4);   /* past the last */
    assert_int_equal(SORTED_COUNT_AT_OR_BELOW(r, n, Rec, key, 25), 4);
    assert_int_equal(SORTED_COUNT_AT_OR_BELOW(r, n, Rec, key, 9), 0);
    assert_int_equal(SORTED_COUNT_BELOW(r, n, Rec, key, UINT64_MAX), 5);
    assert_int_equal(SORTED_COUNT_AT_OR_BELOW(r, n, Rec, key, UINT64_MAX), 6);
    assert_int_equal(SORTED_COUNT_AT_OR_BELOW((const Rec *)NULL, 0, Rec, key, 5), 0);
}

/* Keys that collide in the low bits (aligned addresses), small integers and
 * the key 0, through growth from empty to thousands: every key keeps its
 * value, and iteration visits each key once. */
static void test_base_word_map_keeps_every_key_through_growth(void **state)
{
    (void)state;
    WordMap m = {0};
    assert_null(word_map_get(&m, 0));
    assert_null(word_map_get(&m, 8));
    for (uint64_t i = 0; i < 5000; i++) {
        assert_int_equal(word_map_put(&m, i << 12, i * 7 + 1), 0);
        if (i < 100)
            assert_int_equal(word_map_put(&m, i + 1, i), 0);
    }
    assert_int_equal(m.n, 5100);
    assert_true(m.has_zero);
    assert_true(4 * m.n <= 3 * m.cap + 4);   /* at most three quarters full */
    for (uint64_t i = 0; i < 5000; i++) {
        uint64_t *v = word_map_get(&m, i << 12);
        assert_non_null(v);
        assert_int_equal(*v, i * 7 + 1);
    }
    assert_int_equal(*word_map_get(&m, 57), 56);
    assert_null(word_map_get(&m, 101));
    assert_null(word_map_get(&m, (uint64_t)5000 << 12));

    size_t pos = 0, visited = 0;
    uint64_t key, val, sum = 0;
    while (word_map_next(&m, &pos, &key, &val)) {
        visited++;
        sum += key == 0 || key % 4096 == 0 ? val : 0;
    }
    assert_int_equal(visited, 5100);
    assert_int_equal(sum, 7 * (4999 * 5000 / 2) + 5000);
    word_map_free(&m);
    assert_int_equal(m.cap, 0);
}

/* Every key but the ones removed stays findable: one map under 96 keys,
 * so 128 slots at most three quarters full and runs that wrap past the
 * last slot, with a key removed and another put at random each step,
 * against a plain array; after each step every key is looked up. */
static bool word_map_matches(const WordMap *m, const bool *in, unsigned n_keys)
{
    size_t n = 0;
    for (unsigned j = 0; j < n_keys; j++) {
        uint64_t *v = word_map_get(m, (uint64_t)j << 12);
        if (in[j] ? v == NULL || *v != j + 1 : v != NULL)
            return false;
        n += in[j];
    }
    return m->n == n;
}

static void test_base_word_map_remove_keeps_the_rest_findable(void **state)
{
    (void)state;
    enum { KEYS = 190, LIVE = 95 };
    WordMap m = {0};
    bool in[KEYS] = {false};
    for (unsigned k = 0; k < LIVE; k++) {
        assert_int_equal(word_map_put(&m, (uint64_t)k << 12, k + 1), 0);   /* key 0 too */
        in[k] = true;
    }
    assert_int_equal(m.cap, 128);
    uint64_t rng = 12345;
    for (int step = 0; step < 20000; step++) {
        for (bool take = true;; take = !take) {
            unsigned k;
            do {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                k = (unsigned)(rng >> 33) % KEYS;
            } while (in[k] != take);
            if (take) {
                assert_true(word_map_remove(&m, (uint64_t)k << 12));
                assert_false(word_map_remove(&m, (uint64_t)k << 12));
            } else {
                assert_int_equal(word_map_put(&m, (uint64_t)k << 12, k + 1), 0);
            }
            in[k] = !take;
            assert_true(word_map_matches(&m, in, KEYS));
            if (!take)
                break;
        }
    }
    assert_int_equal(m.cap, 128);
    assert_false(word_map_remove(&m, 7));
    word_map_free(&m);
}

static void test_base_word_map_slot_says_found_and_clear_forgets(void **state)
{
    (void)state;
    WordMap m = {0};
    bool found = true;
    uint64_t *slot = word_map_slot(&m, 0, &found);
    assert_false(found);
    assert_int_equal(*slot, 0);
    *slot = 9;
    slot = word_map_slot(&m, 0, &found);
    assert_true(found);
    assert_int_equal(*slot, 9);
    slot = word_map_slot(&m, 0xdeadbeef, &found);
    assert_false(found);
    *slot = 3;
    assert_int_equal(*word_map_slot(&m, 0xdeadbeef, &found), 3);
    assert_true(found);
    assert_int_equal(m.n, 2);

    size_t cap = m.cap;
    word_map_clear(&m);
    assert_int_equal(m.n, 0);
    assert_int_equal(m.cap, cap);   /* the slots are kept */
    assert_null(word_map_get(&m, 0));
    assert_null(word_map_get(&m, 0xdeadbeef));
    size_t pos = 0;
    uint64_t key, val;
    assert_false(word_map_next(&m, &pos, &key, &val));
    word_map_free(&m);
}

/* Growth that finds no memory leaves the map as it was. */
static void test_base_word_map_out_of_heap_is_null_unchanged(void **state)
{
    (void)state;
    WordMap m = {0};
    fail_allocs_after = 0;
    bool found;
    assert_null(word_map_slot(&m, 5, &found));
    assert_int_equal(word_map_put(&m, 5, 1), ENOMEM);
    fail_allocs_after = -1;
    assert_int_equal(m.cap, 0);
    assert_int_equal(m.n, 0);

    uint64_t k = 1;
    while (4 * (m.n + 1) <= 3 * m.cap || m.cap == 0) {
        assert_int_equal(word_map_put(&m, k, k + 1), 0);
        k++;
    }
    size_t cap = m.cap, n = m.n;
    fail_allocs_after = 1;   /* the keys are found, the values are not */
    assert_int_equal(word_map_put(&m, k, 1), ENOMEM);
    fail_allocs_after = -1;
    assert_int_equal(m.cap, cap);
    assert_int_equal(m.n, n);
    assert_null(word_map_get(&m, k));
    for (uint64_t i = 1; i < k; i++)
        assert_int_equal(*word_map_get(&m, i), i + 1);
    /* The key 0 needs no slot, so it goes in even now. */
    fail_allocs_after = 0;
    assert_int_equal(word_map_put(&m, 0, 77), 0);
    fail_allocs_after = -1;
    assert_int_equal(*word_map_get(&m, 0), 77);
    word_map_free(&m);
}

/* Strings are numbered in first-seen order, by content and length (NULs
 * and prefixes included); the index owns NUL-terminated copies. */
static void test_base_str_index_numbers_in_first_seen_order(void **state)
{
    (void)state;
    StrIndex ix = {0};
    assert_int_equal(str_index_find(&ix, "a", 1), STR_INDEX_NONE);
    char buf[32];
    for (unsigned i = 0; i < 2000; i++) {
        int len = snprintf(buf, sizeof buf, "band %u", i);
        assert_int_equal(str_index_add(&ix, buf, (size_t)len), i);
    }
    assert_int_equal(str_index_intern(&ix, "band 1234", 9), 1234);
    assert_int_equal(str_index_intern(&ix, "band 12", 7), 12);
    assert_int_equal(str_index_intern(&ix, "a\0b", 3), 2000);
    assert_int_equal(str_index_intern(&ix, "a\0c", 3), 2001);
    assert_int_equal(str_index_find(&ix, "a", 1), STR_INDEX_NONE);
    assert_int_equal(str_index_intern(&ix, "", 0), 2002);
    assert_int_equal(ix.n, 2003);
    assert_string_equal(ix.strs[77].ptr, "band 77");
    assert_int_equal(ix.strs[2000].len, 3);
    assert_memory_equal(ix.strs[2001].ptr, "a\0c", 4);
    str_index_free(&ix);
    assert_int_equal(ix.n, 0);
}

/* Each allocation str_index_add makes (the hash, the array, the copy)
 * failing in turn leaves the index as it was. */
static void test_base_str_index_out_of_heap_is_none_unchanged(void **state)
{
    (void)state;
    StrIndex ix = {0};
    assert_int_equal(str_index_add(&ix, "x", 1), 0);
    fail_allocs_after = 0;   /* the copy */
    assert_int_equal(str_index_add(&ix, "y", 1), STR_INDEX_NONE);
    fail_allocs_after = -1;
    assert_int_equal(ix.n, 1);
    assert_int_equal(str_index_find(&ix, "y", 1), STR_INDEX_NONE);

    char buf[16];
    unsigned i = 1;
    while (2 * (ix.n + 1) < ix.hash_cap) {
        int len = snprintf(buf, sizeof buf, "s%u", i++);
        size_t next = ix.n;
        assert_int_equal(str_index_add(&ix, buf, (size_t)len), next);
    }
    size_t n = ix.n, hash_cap = ix.hash_cap;
    fail_allocs_after = 0;   /* the bigger hash */
    assert_int_equal(str_index_intern(&ix, "new", 3), STR_INDEX_NONE);
    fail_allocs_after = -1;
    assert_int_equal(ix.n, n);
    assert_int_equal(ix.hash_cap, hash_cap);
    assert_int_equal(str_index_find(&ix, "s1", 2), 1);
    assert_int_equal(str_index_find(&ix, "x", 1), 0);
    assert_int_equal(str_index_intern(&ix, "new", 3), n);
    str_index_free(&ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_grow_array_starts_at_min_capacity),
        cmocka_unit_test(test_base_grow_array_doubles_and_keeps_contents),
        cmocka_unit_test(test_base_grow_array_small_capacity_grows_to_min),
        cmocka_unit_test(test_base_grow_array_overflow_is_enomem_unchanged),
        cmocka_unit_test(test_base_grow_array_out_of_heap_is_enomem_unchanged),
        cmocka_unit_test(test_base_grow_array_shrinks_when_mostly_empty),
        cmocka_unit_test(test_base_sorted_search_counts_before_a_key),
        cmocka_unit_test(test_base_word_map_keeps_every_key_through_growth),
        cmocka_unit_test(test_base_word_map_remove_keeps_the_rest_findable),
        cmocka_unit_test(test_base_word_map_slot_says_found_and_clear_forgets),
        cmocka_unit_test(test_base_word_map_out_of_heap_is_null_unchanged),
        cmocka_unit_test(test_base_str_index_numbers_in_first_seen_order),
        cmocka_unit_test(test_base_str_index_out_of_heap_is_none_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
