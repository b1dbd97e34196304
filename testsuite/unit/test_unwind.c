/*
 * testsuite/unit/test_unwind.c -- support/os/Unwind.c's walk with cached
 * rules gives the C library's backtrace's stack: through frames whose CFA
 * is rsp-based and rbp-based (alloca), on first sight
 * (rules read), on second (rules cached), and with the cache off.
 */
#include <alloca.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "os/Process.h"
#include "os/Unwind.h"

#define MAX_PCS 64

typedef struct {
    void *fast[MAX_PCS], *slow[MAX_PCS];
    size_t n_fast, n_slow;
} Stacks;

/* volatile: keeps the recursion from being folded or made a loop. */
static volatile int sink;

static __attribute__((noinline)) void take(Stacks *s)
{
    s->n_fast = os_call_stack(s->fast, MAX_PCS);
    s->n_slow = os_process_call_stack(s->slow, MAX_PCS);
    sink++;
}

static void descend(Stacks *s, int depth);

/* A frame addressed from rbp: alloca moves rsp by an amount known only
 * at run time. */
static __attribute__((noinline)) void descend_vla(Stacks *s, int depth)
{
    volatile char *pad = alloca((size_t)depth * 16 + 1);
    pad[0] = (char)depth;
    descend(s, depth - 1);
    sink += pad[0];
}

static __attribute__((noinline)) void descend(Stacks *s, int depth)
{
    if (depth == 0)
        take(s);
    else if (depth % 3 == 0)
        descend_vla(s, depth);
    else
        descend(s, depth - 1);
    sink++;
}

/* The two stacks agree from the caller of take outward: their first two
 * entries are inside each unwinder and at each call in take, and under
 * the sanitizers backtrace gains a frame of its own, so they are
 * compared from the outermost end. */
static void assert_same_stack(const Stacks *s, int depth)
{
    assert_true(s->n_fast > 2 && s->n_fast < MAX_PCS);
    assert_true(s->n_slow >= s->n_fast - 2);
    assert_true(s->n_fast >= (size_t)depth + 4); /* take, descend..., main */
    for (size_t i = 0; i < s->n_fast - 2; i++)
        assert_ptr_equal(s->fast[s->n_fast - 1 - i], s->slow[s->n_slow - 1 - i]);
}

static void test_unwind_cached_walk_gives_backtraces_stack(void **state)
{
    (void)state;
    for (int round = 0; round < 3; round++) { /* rules read, then cached */
        Stacks s;
        descend(&s, 10);
        assert_same_stack(&s, 10);
    }
}

static void test_unwind_uncached_walk_gives_the_same_stack(void **state)
{
    (void)state;
    Stacks st[2]; /* [1] cached (rules from the test above), [0] not */
    for (volatile int on = 1; on >= 0; on--) { /* one call site for both */
        os_call_stack_cache(on);
        descend(&st[on], 7);
    }
    os_call_stack_cache(true);
    assert_same_stack(&st[0], 7);
    assert_int_equal(st[1].n_fast, st[0].n_fast);
    assert_memory_equal(st[1].fast, st[0].fast, st[1].n_fast * sizeof st[1].fast[0]);
}

static void test_unwind_keeps_the_innermost_when_cut(void **state)
{
    (void)state;
    Stacks s;
    descend(&s, 12);
    void *few[4];
    assert_int_equal(os_call_stack(few, 4), 4);
    assert_int_equal(os_call_stack(few, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unwind_cached_walk_gives_backtraces_stack),
        cmocka_unit_test(test_unwind_uncached_walk_gives_the_same_stack),
        cmocka_unit_test(test_unwind_keeps_the_innermost_when_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
