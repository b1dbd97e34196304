/*
 * testsuite/unit/test_support.c -- the support layer's containers:
 * grow_array_reserve (support/GrowArray.h), the one way the runtime grows
 * a C array.  Growth from the minimum, doubling, contents kept, and every
 * failure (size overflow, C heap exhausted) answered ENOMEM with the array
 * and its capacity unchanged.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "GrowArray.h"

/* The out-of-heap case asks realloc for 2^62 bytes; under AddressSanitizer
 * that must come back NULL, as it does from glibc, rather than abort. */
__attribute__((used, visibility("default"))) const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

static void test_support_grow_array_starts_at_min_capacity(void **state)
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

static void test_support_grow_array_doubles_and_keeps_contents(void **state)
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

static void test_support_grow_array_small_capacity_grows_to_min(void **state)
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

static void test_support_grow_array_overflow_is_enomem_unchanged(void **state)
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

static void test_support_grow_array_out_of_heap_is_enomem_unchanged(void **state)
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_support_grow_array_starts_at_min_capacity),
        cmocka_unit_test(test_support_grow_array_doubles_and_keeps_contents),
        cmocka_unit_test(test_support_grow_array_small_capacity_grows_to_min),
        cmocka_unit_test(test_support_grow_array_overflow_is_enomem_unchanged),
        cmocka_unit_test(test_support_grow_array_out_of_heap_is_enomem_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
