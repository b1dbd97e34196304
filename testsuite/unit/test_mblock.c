/*
 * testsuite/unit/test_mblock.c -- unit tests for the megablock layer
 * (sm/block/MBlock.c) and, through it, the OS memory layer (support/os/OSMem.c).
 *
 * The group setup reserves a 4 GiB heap and initialises the block
 * allocator; every test leaves no megablock in use, and the per-test
 * teardown runs mblock_check() and block_check().  Randomised tests print
 * their seed; set STRATA_TEST_SEED to repeat a run.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"

#include "BlockAlloc.h"
#include "MBlock.h"
#include "Prefault.h"
#include "os/OSMem.h"

#define RESERVE_BYTES HARNESS_MBLOCK_RESERVE_BYTES
#define RESERVE_MBLOCKS (RESERVE_BYTES >> MBLOCK_SHIFT)

/* --------------------------------------------------------------------------
 * Test support
 * ----------------------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t test_seed;

/* splitmix64: small, fast, and the same everywhere. */
static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned rng_below(unsigned n)
{
    return (unsigned)(rng_next() % n);
}

/* Every test starts and ends with nothing in use. */
static void assert_nothing_in_use(void)
{
    assert_int_equal(mblock_n_in_use(), 0);
    assert_int_equal(block_n_allocated(), 0);
}

/* Returns every free megablock to the OS, which (with nothing in use)
 * moves the bump index back to the start of the reservation. */
static void heap_reset(void)
{
    assert_nothing_in_use();
    mblock_return_free(0);
    assert_int_equal(mblock_n_free(), 0);
    mblock_check();
}

static int after_test(void **state)
{
    (void)state;
    mblock_check();
    block_check();
    return 0;
}

/* --------------------------------------------------------------------------
 * Allocation and freeing
 * ----------------------------------------------------------------------- */

static void test_mblock_alloc_is_aligned_and_usable(void **state)
{
    (void)state;
    assert_nothing_in_use();
    static const StgWord sizes[] = {1, 2, 5, 17};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        StgWord n = sizes[s];
        char *mb = mblock_alloc_group(n);
        assert_non_null(mb);
        assert_int_equal((StgWord)mb & MBLOCK_MASK, 0);
        assert_true(heap_alloced(mb));
        assert_true(heap_alloced(mb + n * MBLOCK_SIZE - 1));
        assert_int_equal(mblock_n_in_use(), n);
        for (StgWord i = 0; i < n; i++) {
            mb[i * MBLOCK_SIZE] = 1;
            mb[i * MBLOCK_SIZE + MBLOCK_SIZE - 1] = 2;
        }
        assert_true(mblock_n_hw() >= n);
        mblock_check();
        mblock_free_group(mb, n);
        assert_int_equal(mblock_n_in_use(), 0);
        assert_true(mblock_n_free() >= n);
        mblock_check();
    }
}

static void test_mblock_heap_alloced_is_range_check(void **state)
{
    (void)state;
    static int not_heap;
    assert_true(heap_alloced(mblock_heap_base));
    assert_true(heap_alloced(mblock_heap_end - 1));
    assert_false(heap_alloced(mblock_heap_end));
    assert_false(heap_alloced(mblock_heap_base - 1));
    assert_false(heap_alloced(&not_heap));
    assert_false(heap_alloced(NULL));
    assert_int_equal((StgWord)(mblock_heap_end - mblock_heap_base), RESERVE_BYTES);
    assert_int_equal((StgWord)mblock_heap_base & MBLOCK_MASK, 0);
}

static void test_mblock_free_list_coalesces(void **state)
{
    (void)state;
    heap_reset();
    char *a = mblock_alloc_group(6);
    assert_ptr_equal(a, mblock_heap_base);
    /* Free the group in three pieces: outer ones first, then the middle. */
    mblock_free_group(a, 2);
    mblock_check();
    mblock_free_group(a + 4 * MBLOCK_SIZE, 2);
    mblock_check();
    assert_int_equal(mblock_n_free(), 4);
    assert_int_equal(mblock_n_in_use(), 2);
    mblock_free_group(a + 2 * MBLOCK_SIZE, 2);
    mblock_check();
    assert_int_equal(mblock_n_free(), 6);
    /* One run again: a request for all six is met at the same place. */
    char *b = mblock_alloc_group(6);
    assert_ptr_equal(b, a);
    assert_int_equal(mblock_n_free(), 0);
    mblock_free_group(b, 6);
}

static void test_mblock_first_fit_takes_lowest(void **state)
{
    (void)state;
    heap_reset();
    char *a = mblock_alloc_group(1);
    char *b = mblock_alloc_group(1);
    char *c = mblock_alloc_group(1);
    assert_ptr_equal(b, a + MBLOCK_SIZE);
    assert_ptr_equal(c, b + MBLOCK_SIZE);
    mblock_free_group(c, 1);
    mblock_free_group(a, 1);
    mblock_check();
    assert_ptr_equal(mblock_alloc_group(1), a);
    /* c's run ends at the bump index: it grows instead of being skipped
     * (Note [Growing the last free run]). */
    char *d = mblock_alloc_group(2);
    assert_ptr_equal(d, c);
    mblock_check();
    mblock_free_group(a, 1);
    mblock_free_group(b, 1);
    mblock_free_group(d, 2);
}

static void test_mblock_reservation_exhausted(void **state)
{
    (void)state;
    heap_reset();
    assert_null(mblock_alloc_group(RESERVE_MBLOCKS + 1));
    assert_null(mblock_alloc_group((StgWord)1 << 40));

    /* Fill a small heap (committing all of the 4 GiB one would be refused
     * under strict overcommit), then go back to the usual one. */
    mblock_exit();
    assert_int_equal(mblock_init(8 * MBLOCK_SIZE - 1), 0); /* rounds up to 8 */
    block_alloc_init();
    char *a = mblock_alloc_group(5);
    char *b = mblock_alloc_group(3);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(mblock_alloc_group(1));
    mblock_free_group(a, 5);
    assert_null(mblock_alloc_group(6));
    assert_ptr_equal(mblock_alloc_group(5), a);
    mblock_check();
    mblock_exit();
    assert_int_equal(mblock_init(RESERVE_BYTES), 0);
    block_alloc_init();
}

/* --------------------------------------------------------------------------
 * Returning memory to the OS
 * ----------------------------------------------------------------------- */

static void test_mblock_return_free_decommits_and_counts(void **state)
{
    (void)state;
    heap_reset();
    char *p = mblock_alloc_group(8);
    assert_ptr_equal(p, mblock_heap_base);
    for (int i = 0; i < 8; i++)
        p[i * MBLOCK_SIZE + 12345] = 0x5a;
    mblock_free_group(p, 8);
    assert_int_equal(mblock_n_free(), 8);

    StgWord returned_before = mblock_n_returned();
    assert_int_equal(mblock_return_free(8), 0);
    assert_int_equal(mblock_return_free(3), 5);
    assert_int_equal(mblock_n_free(), 3);
    assert_int_equal(mblock_n_returned(), returned_before + 5);
    mblock_check();

    /* The lowest three stayed committed and kept their contents; the five
     * returned ones read as zero when committed again. */
    char *q = mblock_alloc_group(8);
    assert_ptr_equal(q, p);
    for (int i = 0; i < 8; i++)
        assert_int_equal(q[i * MBLOCK_SIZE + 12345], i < 3 ? 0x5a : 0);
    assert_int_equal(mblock_n_free(), 0);
    mblock_free_group(q, 8);
}

static void touch_returned_megablock(void)
{
    /* Runs in a child: no cmocka assertions here. */
    char *p = mblock_alloc_group(2);
    char *pin = mblock_alloc_group(1);
    mblock_free_group(p, 2);
    mblock_return_free(0);
    *(volatile char *)p = 1; /* must fault */
    (void)pin;
}

static void test_mblock_returned_memory_is_inaccessible(void **state)
{
    (void)state;
    int status = harness_child_status(touch_returned_megablock);
    assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_mblock_returned_below_in_use_is_reused(void **state)
{
    (void)state;
    heap_reset();
    char *a = mblock_alloc_group(4);
    char *pin = mblock_alloc_group(1);
    mblock_free_group(a, 4);
    assert_int_equal(mblock_return_free(0), 4);
    mblock_check();
    char *b = mblock_alloc_group(3);
    assert_ptr_equal(b, a);
    b[0] = 7;
    b[3 * MBLOCK_SIZE - 1] = 7;
    mblock_check();
    mblock_free_group(b, 3);
    mblock_free_group(pin, 1);
}

/* --------------------------------------------------------------------------
 * Failure injection
 * ----------------------------------------------------------------------- */

static void test_mblock_alloc_fails_cleanly(void **state)
{
    (void)state;
    heap_reset();
    /* From the bump index. */
    os_mem_fail_after(1);
    assert_null(mblock_alloc_group(3));
    assert_int_equal(mblock_n_in_use(), 0);
    assert_int_equal(mblock_n_free(), 0);
    mblock_check();
    char *a = mblock_alloc_group(3);
    assert_non_null(a);

    /* From a free run whose megablocks were returned to the OS. */
    char *pin = mblock_alloc_group(1);
    mblock_free_group(a, 3);
    mblock_return_free(0);
    os_mem_fail_after(1);
    assert_null(mblock_alloc_group(2));
    assert_int_equal(mblock_n_in_use(), 1);
    mblock_check();
    char *b = mblock_alloc_group(2);
    assert_ptr_equal(b, a);
    b[0] = 1;

    /* Growing the last run, which ends at the bump index and holds one
     * returned and one committed megablock: the returned one commits,
     * then committing the part above the bump index fails. */
    mblock_free_group(pin, 1);
    mblock_check();
    os_mem_fail_after(2);
    assert_null(mblock_alloc_group(4));
    mblock_check();
    char *c = mblock_alloc_group(4);
    assert_non_null(c);
    mblock_check();
    mblock_free_group(b, 2);
    mblock_free_group(c, 4);
}

static void test_mblock_return_free_fails_cleanly(void **state)
{
    (void)state;
    heap_reset();
    char *a = mblock_alloc_group(2);
    mblock_free_group(a, 2);
    StgWord returned_before = mblock_n_returned();
    os_mem_fail_after(1);
    assert_int_equal(mblock_return_free(0), 0);
    assert_int_equal(mblock_n_free(), 2);
    assert_int_equal(mblock_n_returned(), returned_before);
    mblock_check();
    assert_int_equal(mblock_return_free(0), 2);
    assert_int_equal(mblock_n_returned(), returned_before + 2);
}

static void test_mblock_init_fails_cleanly(void **state)
{
    (void)state;
    assert_nothing_in_use();
    mblock_exit();
    assert_false(heap_alloced(&rng_state));
    assert_int_equal(mblock_init(0), EINVAL);
    os_mem_fail_after(1);
    assert_int_equal(mblock_init(RESERVE_BYTES), ENOMEM);
    assert_null(mblock_heap_base);
    mblock_check();
    assert_int_equal(mblock_init(RESERVE_BYTES), 0);
    block_alloc_init();
    assert_int_equal(mblock_n_returned(), 0);
    assert_non_null(mblock_alloc_group(1));
    mblock_free_group(mblock_heap_base, 1);
}

static void free_twice(void)
{
    char *a = mblock_alloc_group(2);
    mblock_free_group(a, 2);
    mblock_free_group(a, 1);
}

static void test_mblock_double_free_panics(void **state)
{
    (void)state;
    int status = harness_child_status(free_twice);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

static void init_twice(void)
{
    (void)mblock_init(RESERVE_BYTES);
}

static void test_mblock_init_twice_panics(void **state)
{
    (void)state;
    int status = harness_child_status(init_twice);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

/* --------------------------------------------------------------------------
 * The OS memory layer directly
 * ----------------------------------------------------------------------- */

static void test_os_mem_reserve_commit_decommit(void **state)
{
    (void)state;
    const size_t size = 8u << 20, align = 4u << 20;
    void *base = NULL;
    assert_int_equal(os_mem_reserve(size, align, &base), 0);
    assert_non_null(base);
    assert_int_equal((uintptr_t)base & (align - 1), 0);
    assert_false(heap_alloced(base));

    char *p = (char *)base + align;
    assert_int_equal(os_mem_commit(p, 1u << 20), 0);
    assert_int_equal(p[0], 0);
    memset(p, 0x33, 1u << 20);
    /* Committing again keeps the contents. */
    assert_int_equal(os_mem_commit(p, 1u << 20), 0);
    assert_int_equal(p[(1u << 20) - 1], 0x33);
    /* Decommitted memory reads as zero once committed again. */
    assert_int_equal(os_mem_decommit(p, 1u << 20), 0);
    assert_int_equal(os_mem_commit(p, 1u << 20), 0);
    assert_int_equal(p[0], 0);
    assert_int_equal(p[(1u << 20) - 1], 0);
    assert_int_equal(os_mem_release(base, size), 0);

    /* Page alignment needs no over-reservation. */
    assert_int_equal(os_mem_reserve(1u << 16, 1, &base), 0);
    assert_int_equal(os_mem_release(base, 1u << 16), 0);
}

static void test_os_mem_rejects_bad_arguments(void **state)
{
    (void)state;
    void *base = NULL;
    assert_int_equal(os_mem_reserve(0, 4096, &base), EINVAL);
    assert_int_equal(os_mem_reserve(1u << 20, 3 << 12, &base), EINVAL);
    assert_int_equal(os_mem_reserve(1000, 4096, &base), EINVAL);
    assert_int_equal(os_mem_reserve(1u << 20, 4096, NULL), EINVAL);
    assert_int_equal(os_mem_reserve(SIZE_MAX & ~(size_t)0xfff, (size_t)1 << 20, &base), ENOMEM);
    assert_int_equal(os_mem_commit(NULL, 4096), EINVAL);
    assert_int_equal(os_mem_commit(mblock_heap_base + 1, 4096), EINVAL);
    assert_int_equal(os_mem_decommit(mblock_heap_base, 100), EINVAL);
    assert_int_equal(os_mem_release(NULL, 4096), EINVAL);
}

static void test_os_mem_fail_after_is_one_shot(void **state)
{
    (void)state;
    void *a = NULL, *b = NULL, *c = NULL;
    os_mem_fail_after(2);
    assert_int_equal(os_mem_reserve(1u << 20, 1u << 20, &a), 0);
    assert_int_equal(os_mem_reserve(1u << 20, 1u << 20, &b), ENOMEM);
    assert_int_equal(os_mem_reserve(1u << 20, 1u << 20, &c), 0);
    os_mem_fail_after(1);
    assert_int_equal(os_mem_commit(a, 4096), ENOMEM);
    assert_int_equal(os_mem_commit(a, 4096), 0);
    os_mem_fail_after(1);
    assert_int_equal(os_mem_decommit(a, 4096), ENOMEM);
    assert_int_equal(os_mem_decommit(a, 4096), 0);
    os_mem_fail_after(1);
    assert_int_equal(os_mem_release(a, 1u << 20), ENOMEM);
    assert_int_equal(os_mem_release(a, 1u << 20), 0);
    /* 0 turns injection off. */
    os_mem_fail_after(1);
    os_mem_fail_after(0);
    assert_int_equal(os_mem_release(c, 1u << 20), 0);
}

/* --------------------------------------------------------------------------
 * Randomised test against a model
 * ----------------------------------------------------------------------- */

#define MODEL_MAX_GROUPS 64

typedef struct {
    char *mb;
    StgWord n;
    uint64_t tag;
} ModelGroup;

static void model_stamp(const ModelGroup *g)
{
    for (StgWord i = 0; i < g->n; i++)
        memcpy(g->mb + i * MBLOCK_SIZE, &g->tag, sizeof g->tag);
}

static void model_verify(const ModelGroup *g)
{
    for (StgWord i = 0; i < g->n; i++) {
        uint64_t seen;
        memcpy(&seen, g->mb + i * MBLOCK_SIZE, sizeof seen);
        assert_int_equal(seen, g->tag);
    }
}

static void test_mblock_random_against_model(void **state)
{
    (void)state;
    heap_reset();
    rng_state = test_seed;
    ModelGroup live[MODEL_MAX_GROUPS];
    size_t n_live = 0;
    StgWord model_in_use = 0;
    uint8_t *owned = calloc(RESERVE_MBLOCKS, 1);
    assert_non_null(owned);

    for (int step = 0; step < 4000; step++) {
        unsigned op = rng_below(100);
        if (op < 50 && n_live < MODEL_MAX_GROUPS) {
            StgWord n = rng_below(10) == 0 ? 1 + rng_below(40) : 1 + rng_below(6);
            char *mb = mblock_alloc_group(n);
            assert_non_null(mb);
            assert_int_equal((StgWord)mb & MBLOCK_MASK, 0);
            StgWord first = (StgWord)(mb - mblock_heap_base) >> MBLOCK_SHIFT;
            for (StgWord i = first; i < first + n; i++) {
                assert_int_equal(owned[i], 0);
                owned[i] = 1;
            }
            live[n_live] = (ModelGroup){mb, n, rng_next()};
            model_stamp(&live[n_live]);
            n_live++;
            model_in_use += n;
        } else if (op < 95 && n_live > 0) {
            size_t k = rng_below((unsigned)n_live);
            ModelGroup g = live[k];
            model_verify(&g);
            StgWord first = (StgWord)(g.mb - mblock_heap_base) >> MBLOCK_SHIFT;
            for (StgWord i = first; i < first + g.n; i++)
                owned[i] = 0;
            if (g.n > 1 && rng_below(4) == 0) {
                /* Free in two pieces, upper piece first. */
                StgWord cut = 1 + rng_below((unsigned)(g.n - 1));
                mblock_free_group(g.mb + cut * MBLOCK_SIZE, g.n - cut);
                mblock_check();
                mblock_free_group(g.mb, cut);
            } else {
                mblock_free_group(g.mb, g.n);
            }
            live[k] = live[--n_live];
            model_in_use -= g.n;
        } else {
            StgWord keep = rng_below(12);
            StgWord free_before = mblock_n_free();
            StgWord r = mblock_return_free(keep);
            assert_int_equal(r, free_before > keep ? free_before - keep : 0);
        }
        mblock_check();
        assert_int_equal(mblock_n_in_use(), model_in_use);
        assert_true(mblock_n_hw() >= mblock_n_in_use() + mblock_n_free());
    }
    for (size_t k = 0; k < n_live; k++) {
        model_verify(&live[k]);
        mblock_free_group(live[k].mb, live[k].n);
    }
    free(owned);
    assert_nothing_in_use();
}

/* --------------------------------------------------------------------------
 * The prefault window
 * ----------------------------------------------------------------------- */

/* How many of the pages of [p, p + n megablocks) are resident. */
static size_t resident_pages(const char *p, StgWord n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t pages = n * MBLOCK_SIZE / page;
    unsigned char *vec = malloc(pages);
    assert_non_null(vec);
    assert_int_equal(mincore((void *)p, n * MBLOCK_SIZE, vec), 0);
    size_t in = 0;
    for (size_t i = 0; i < pages; i++)
        in += vec[i] & 1;
    free(vec);
    return in;
}

/* Waits up to 10 s for the helper to have faulted in all of [p, p + n
 * megablocks); returns whether it did. */
static bool wait_resident(const char *p, StgWord n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < 1000; i++) {
        if (resident_pages(p, n) == n * MBLOCK_SIZE / page)
            return true;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    return false;
}

static void touch_above_bump(void)
{
    /* Runs in a child: no cmocka assertions here.  With no helper the
     * window is ignored, so the megablock above the bump index stays
     * inaccessible. */
    char *p = mblock_alloc_group(1);
    mblock_prefault_window(8, 8);
    *(volatile char *)(p + MBLOCK_SIZE) = 1; /* must fault */
}

static void test_mblock_prefault_window_needs_the_helper(void **state)
{
    (void)state;
    heap_reset();
    int status = harness_child_status(touch_above_bump);
    assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void use_heap_after_fork(void)
{
    /* Runs in a child forked while the helper works: no cmocka assertions
     * here, and a hang (a lock or a call in flight inherited from the
     * parent) ends in SIGALRM. */
    alarm(10);
    mblock_prefault_window(2, 2);
    char *p = mblock_alloc_group(3);
    if (p == NULL)
        _exit(3);
    p[0] = 1;
    mblock_free_group(p, 3);
    mblock_return_free(0);
    mblock_prefault_stop();
}

static void test_mblock_prefault_faults_in_the_window(void **state)
{
    (void)state;
    heap_reset();
    char *base = mblock_heap_base;
    assert_int_equal(resident_pages(base, 8), 0);
    assert_int_equal(mblock_prefault_start(), 0);
    StgWord before = mblock_prefault_bytes();

    /* Six megablocks of growth to come, and a lead of two. */
    mblock_prefault_window(6, 2);
    assert_true(wait_resident(base, 6));
    assert_true(mblock_prefault_bytes() >= before + 6 * MBLOCK_SIZE);
    assert_int_equal(resident_pages(base + 6 * MBLOCK_SIZE, 2), 0);
    mblock_check();

    /* The heap grows into the window: the megablocks read as zero and are
     * the ones faulted in.  Past the target the lead follows the bump
     * index: two above the eighth megablock handed out. */
    char *p = mblock_alloc_group(3);
    assert_ptr_equal(p, base);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(p[i * MBLOCK_SIZE + 4321], 0);
        p[i * MBLOCK_SIZE + 4321] = 0x33;
    }
    char *q = mblock_alloc_group(5);
    assert_ptr_equal(q, base + 3 * MBLOCK_SIZE);
    q[5 * MBLOCK_SIZE - 1] = 0x44;
    assert_true(wait_resident(base + 8 * MBLOCK_SIZE, 2));
    mblock_check();

    /* Returning memory drops the window: decommitted, and not resident. */
    mblock_free_group(p, 3);
    mblock_free_group(q, 5);
    mblock_return_free(0);
    assert_int_equal(resident_pages(base, 10), 0);
    mblock_check();

    /* A window asked for again is faulted in again, from the bump index. */
    mblock_prefault_window(0, 3);
    assert_true(wait_resident(base, 3));
    char *r = mblock_alloc_group(1);
    assert_ptr_equal(r, base);
    assert_int_equal(r[4321], 0);
    mblock_free_group(r, 1);

    /* A child forked while the helper has work has no helper, and its
     * heap still works (a large window keeps the helper busy). */
    mblock_prefault_window(64, 2);
    int status = harness_child_status(use_heap_after_fork);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(wait_resident(base, 64));

    mblock_prefault_stop();
    mblock_prefault_window(0, 0);
    heap_reset();
    assert_int_equal(resident_pages(base, 66), 0);
}

/* Calls f until the window's commit count passes n (the helper may still
 * be in a call when it is let go); returns whether it did within 10 s. */
static bool window_grows_past(StgWord n, void (*f)(void))
{
    for (int i = 0; i < 1000 && mblock_n_window_commits() <= n; i++) {
        f();
        if (mblock_n_window_commits() <= n)
            nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    return mblock_n_window_commits() > n;
}

static void ask_for_the_window(void)
{
    mblock_prefault_window(0, 12);
}

static void wait_stalled(void)
{
    for (int i = 0; i < 1000 && !prefault_stalled_for_test(); i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    assert_true(prefault_stalled_for_test());
}

/* Committing takes the memory-map lock that a populate call holds, so the
 * window grows between the helper's calls, unless less than half of it is
 * left ahead (Note [The helper never holds up the program] in
 * Prefault.c), while the heap itself still grows into the window. */
static void test_mblock_window_grows_between_populate_calls(void **state)
{
    (void)state;
    heap_reset();
    char *base = mblock_heap_base;
    assert_int_equal(mblock_prefault_start(), 0);
    prefault_stall_for_test(true);
    StgWord commits = mblock_n_window_commits();
    mblock_prefault_window(0, 4);
    assert_int_equal(mblock_n_window_commits(), commits + 1);
    wait_stalled();

    /* A call is in flight: the heap takes two megablocks of the window,
     * and the window, four above them, does not grow. */
    char *p = mblock_alloc_group(2);
    assert_ptr_equal(p, base);
    p[0] = 1;
    p[2 * MBLOCK_SIZE - 1] = 2;
    mblock_prefault_window(0, 4);
    StgWord during = mblock_n_window_commits();
    /* A window asked for whole (a collection's growth), with less than
     * half of it ahead, is committed even during a call. */
    mblock_prefault_window(8, 4);
    StgWord whole = mblock_n_window_commits();
    p[10 * MBLOCK_SIZE - 1] = 3;   /* the tenth megablock, committed */
    mblock_check();

    /* Let go, the helper ends its call and the window grows. */
    prefault_stall_for_test(false);
    bool grew = window_grows_past(whole, ask_for_the_window);
    bool resident = wait_resident(base + 2 * MBLOCK_SIZE, 4);
    mblock_check();
    mblock_free_group(p, 2);
    mblock_prefault_stop();
    mblock_prefault_window(0, 0);
    heap_reset();
    assert_int_equal(during, commits + 1);
    assert_int_equal(whole, commits + 2);
    assert_true(grew);
    assert_true(resident);
}

/* While a thread of the runtime has asked the helper to make way, the
 * helper starts no populate call; when every such thread is done, it
 * takes up the window where it was. */
static void test_mblock_prefault_makes_way(void **state)
{
    (void)state;
    heap_reset();
    char *base = mblock_heap_base;
    assert_int_equal(mblock_prefault_start(), 0);
    prefault_stall_for_test(true);
    StgWord ways = mblock_prefault_ways_made();
    mblock_prefault_make_way(true);
    mblock_prefault_make_way(true);   /* two threads at once */
    assert_int_equal(mblock_prefault_ways_made(), ways + 2);
    mblock_prefault_window(0, 4);
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    assert_false(prefault_stalled_for_test());   /* no call was started */
    mblock_prefault_make_way(false);
    nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    assert_false(prefault_stalled_for_test());   /* one still works */
    mblock_prefault_make_way(false);
    wait_stalled();
    prefault_stall_for_test(false);
    assert_true(wait_resident(base, 4));
    mblock_prefault_stop();
    mblock_prefault_window(0, 0);
    heap_reset();
}

/* --------------------------------------------------------------------------
 * Driver
 * ----------------------------------------------------------------------- */

int main(void)
{
    test_seed = harness_seed("test_mblock");

    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_mblock_alloc_is_aligned_and_usable, after_test),
        cmocka_unit_test_teardown(test_mblock_heap_alloced_is_range_check, after_test),
        cmocka_unit_test_teardown(test_mblock_free_list_coalesces, after_test),
        cmocka_unit_test_teardown(test_mblock_first_fit_takes_lowest, after_test),
        cmocka_unit_test_teardown(test_mblock_reservation_exhausted, after_test),
        cmocka_unit_test_teardown(test_mblock_return_free_decommits_and_counts, after_test),
        cmocka_unit_test_teardown(test_mblock_returned_memory_is_inaccessible, after_test),
        cmocka_unit_test_teardown(test_mblock_returned_below_in_use_is_reused, after_test),
        cmocka_unit_test_teardown(test_mblock_alloc_fails_cleanly, after_test),
        cmocka_unit_test_teardown(test_mblock_return_free_fails_cleanly, after_test),
        cmocka_unit_test_teardown(test_mblock_init_fails_cleanly, after_test),
        cmocka_unit_test_teardown(test_mblock_double_free_panics, after_test),
        cmocka_unit_test_teardown(test_mblock_init_twice_panics, after_test),
        cmocka_unit_test_teardown(test_os_mem_reserve_commit_decommit, after_test),
        cmocka_unit_test_teardown(test_os_mem_rejects_bad_arguments, after_test),
        cmocka_unit_test_teardown(test_os_mem_fail_after_is_one_shot, after_test),
        cmocka_unit_test_teardown(test_mblock_random_against_model, after_test),
        cmocka_unit_test_teardown(test_mblock_prefault_window_needs_the_helper, after_test),
        cmocka_unit_test_teardown(test_mblock_prefault_faults_in_the_window, after_test),
        cmocka_unit_test_teardown(test_mblock_window_grows_between_populate_calls, after_test),
        cmocka_unit_test_teardown(test_mblock_prefault_makes_way, after_test),
    };
    return cmocka_run_group_tests(tests, harness_mblock_setup, harness_mblock_teardown);
}
