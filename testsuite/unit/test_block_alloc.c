/*
 * testsuite/unit/test_block_alloc.c -- unit tests for the block allocator
 * (sm/block/BlockAlloc.c) on top of the megablock layer.
 *
 * The group setup reserves a 4 GiB heap and initialises the block
 * allocator; every test leaves nothing allocated, and the per-test teardown
 * runs block_check() and mblock_check().  Several tests rely on the
 * documented allocation order (Note [Splitting off the tail] in
 * BlockAlloc.c): from a fresh megablock, successive groups are carved from
 * the top down, each ending where the previous one starts.  Randomised
 * tests print their seed; set STRATA_TEST_SEED to repeat a run.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "harness.h"
#include "require.h"

#include "BlockAlloc.h"
#include "MBlock.h"
#include "Messages.h"
#include "os/OSMem.h"

#if defined(STRATA_ASAN)
#include <sanitizer/asan_interface.h>
#endif

#define RESERVE_BYTES HARNESS_MBLOCK_RESERVE_BYTES
#define FREE_MARKER ((StgPtr)-1)

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

static void assert_nothing_allocated(void)
{
    assert_int_equal(block_n_allocated(), 0);
    assert_int_equal(block_n_free(), 0);
    assert_int_equal(mblock_n_in_use(), 0);
}

/* With nothing allocated, gives every free megablock back to the OS, so
 * the next megablock comes fresh from the start of the reservation. */
static void heap_reset(void)
{
    assert_nothing_allocated();
    mblock_return_free(0);
    assert_int_equal(mblock_n_free(), 0);
}

static void checks(void)
{
    block_check();
    mblock_check();
}

static char *group_mblock(const BlockDesc *bd)
{
    return (char *)((StgWord)bd->start & ~MBLOCK_MASK);
}

static void assert_child_panicked(void (*fn)(void))
{
    int status = harness_child_status(fn);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

static int after_test(void **state)
{
    (void)state;
    checks();
    return 0;
}

/* --------------------------------------------------------------------------
 * Allocation
 * ----------------------------------------------------------------------- */

static void assert_fresh_head(const BlockDesc *bd, StgWord n)
{
    assert_non_null(bd);
    assert_ptr_equal(bd->free, bd->start);
    assert_null(bd->link);
    assert_null(bd->u.back);
    assert_null(bd->gen);
    assert_int_equal(bd->gen_no, 0);
    assert_int_equal(bd->dest_no, 0);
    assert_int_equal(bd->pad_node, 0);
    assert_int_equal(bd->flags, 0);
    assert_int_equal(bd->blocks, n);
    assert_int_equal(bd->n_era_runs, 0);
    assert_int_equal(bd->era, 0);
    assert_ptr_equal(Bdescr(bd->start), bd);
    assert_true(heap_alloced(bd->start));
}

static void test_block_alloc_head_fields(void **state)
{
    (void)state;
    assert_nothing_allocated();
    static const StgWord sizes[] = {1, 2, 3, 7, 64, 100, 129, 200, 251, 252};
    enum { N_SIZES = sizeof sizes / sizeof sizes[0] };
    BlockDesc *bds[N_SIZES];
    StgWord total = 0;
    for (size_t i = 0; i < N_SIZES; i++) {
        bds[i] = block_alloc_group(sizes[i]);
        assert_fresh_head(bds[i], sizes[i]);
        /* The whole group is usable and lies inside one megablock. */
        memset(bds[i]->start, 0x11, sizes[i] * BLOCK_SIZE);
        StgWord off = (StgWord)bds[i]->start & MBLOCK_MASK;
        assert_true(off >= FIRST_BLOCK_OFF);
        assert_true(off + sizes[i] * BLOCK_SIZE <= MBLOCK_SIZE);
        total += sizes[i];
        assert_int_equal(block_n_allocated(), total);
        checks();
    }
    for (size_t i = 0; i < N_SIZES; i++) {
        /* The allocator must not care what the caller left in a head. */
        block_set_gen_no(bds[i], 3);
        bds[i]->flags = BF_LARGE | BF_PINNED;
        bds[i]->era = 42;
        bds[i]->free = bds[i]->start + 17;
        block_free_group(bds[i]);
        checks();
    }
    assert_nothing_allocated();
}

static void test_block_alloc_alignment(void **state)
{
    (void)state;
    assert_nothing_allocated();
    enum { N = 1200 };
    BlockDesc **bds = calloc(N, sizeof *bds);
    assert_non_null(bds);
    rng_state = test_seed;
    for (int i = 0; i < N; i++) {
        StgWord n = i % 3 == 0 ? 1 + rng_below(20) : 1;
        bds[i] = block_alloc_group(n);
        BlockDesc *bd = bds[i];
        assert_non_null(bd);
        assert_int_equal((StgWord)bd->start & BLOCK_MASK, 0);
        assert_int_equal((StgWord)bd & (BDESCR_SIZE - 1), 0);
        assert_int_equal((StgWord)group_mblock(bd) & MBLOCK_MASK, 0);
        assert_ptr_equal(MBLOCK_FIRST_BLOCK(group_mblock(bd)),
                         group_mblock(bd) + FIRST_BLOCK_OFF);
        assert_ptr_equal(Bdescr(bd->start), bd);
        /* Any address inside the first block maps to the head. */
        assert_ptr_equal(Bdescr((char *)bd->start + BLOCK_SIZE - 1), bd);
        assert_true((StgWord)bd->start % MBLOCK_SIZE >= FIRST_BLOCK_OFF);
    }
    checks();
    for (int i = 0; i < N; i++)
        block_free_group(bds[i]);
    free(bds);
    assert_nothing_allocated();
}

static void test_block_alloc_single_block_reuses_freed(void **state)
{
    (void)state;
    heap_reset();
    BlockDesc *pin = block_alloc_group(1);
    BlockDesc *a = block_alloc_group(1);
    block_free_group(a);
    checks();
    BlockDesc *b = block_alloc_group(1);
    assert_ptr_equal(b, a);
    assert_fresh_head(b, 1);
    block_free_group(b);
    block_free_group(pin);
}

/* Note [Looking one list down]: a request whose size is not a power of two
 * is met from a big-enough group on the list below before a fresh
 * megablock is taken. */
static void test_block_alloc_looks_one_list_down(void **state)
{
    (void)state;
    heap_reset();
    BlockDesc *x = block_alloc_group(5);
    /* The remaining 247 blocks sit on list 7 (128..255); 247 rounds up to
     * list 8, which does not exist. */
    BlockDesc *y = block_alloc_group(BLOCKS_PER_MBLOCK - 5);
    assert_int_equal(mblock_n_in_use(), 1);
    assert_ptr_equal(y + (BLOCKS_PER_MBLOCK - 5), x);
    block_free_group(x);
    checks();
    /* x is a 5-block group on list 2; a 5-block request searches from
     * list 3, finds nothing, and looks down. */
    BlockDesc *z = block_alloc_group(5);
    assert_ptr_equal(z, x);
    assert_int_equal(mblock_n_in_use(), 1);
    /* A 6-block request cannot be met there: a fresh megablock. */
    block_free_group(z);
    BlockDesc *w = block_alloc_group(6);
    assert_int_equal(mblock_n_in_use(), 2);
    checks();
    block_free_group(w);
    block_free_group(y);
}

/* --------------------------------------------------------------------------
 * Freeing and coalescing
 * ----------------------------------------------------------------------- */

static void test_block_alloc_coalesce_neighbours(void **state)
{
    (void)state;
    heap_reset();
    /* Carved from the top of one fresh megablock: pin1 at the very top,
     * then a, b, c below it, then pin2, then the rest (241 blocks). */
    BlockDesc *pin1 = block_alloc_group(1);
    BlockDesc *a = block_alloc_group(2);
    BlockDesc *b = block_alloc_group(3);
    BlockDesc *c = block_alloc_group(4);
    BlockDesc *pin2 = block_alloc_group(1);
    assert_ptr_equal(a + 2, pin1);
    assert_ptr_equal(b + 3, a);
    assert_ptr_equal(c + 4, b);
    assert_ptr_equal(pin2 + 1, c);
    assert_int_equal(mblock_n_in_use(), 1);
    assert_int_equal(block_n_free(), BLOCKS_PER_MBLOCK - 11);

    /* Outer groups first: they stay separate groups. */
    block_free_group(a);
    block_free_group(c);
    checks();
    assert_ptr_equal(a->free, FREE_MARKER);
    assert_int_equal(a->blocks, 2);
    assert_ptr_equal(c->free, FREE_MARKER);
    assert_int_equal(c->blocks, 4);
    assert_int_equal(block_n_free(), BLOCKS_PER_MBLOCK - 11 + 6);

    /* Then the middle: one group of 9 headed by c, tail at a's last block. */
    block_free_group(b);
    checks();
    assert_ptr_equal(c->free, FREE_MARKER);
    assert_int_equal(c->blocks, 9);
    BlockDesc *tail = c + 8;
    assert_int_equal(tail->blocks, 0);
    assert_ptr_equal(tail->link, c);
    assert_false(a->free == FREE_MARKER && a->blocks != 0);
    assert_false(b->free == FREE_MARKER && b->blocks != 0);
    assert_int_equal(block_n_free(), BLOCKS_PER_MBLOCK - 2);

    /* An 8-block request is split off the top of the 9-block group (its
     * list is the first one that must hold a big enough group), leaving c
     * as a one-block group; freeing it merges them again. */
    BlockDesc *d = block_alloc_group(8);
    assert_ptr_equal(d, c + 1);
    assert_int_equal(c->blocks, 1);
    checks();
    block_free_group(d);
    assert_int_equal(c->blocks, 9);

    /* Freeing pin2 merges everything below pin1; freeing pin1 empties the
     * megablock, which goes back to the megablock layer. */
    block_free_group(pin2);
    checks();
    assert_int_equal(block_n_free(), BLOCKS_PER_MBLOCK - 1);
    StgWord mfree = mblock_n_free();
    block_free_group(pin1);
    checks();
    assert_int_equal(block_n_free(), 0);
    assert_int_equal(mblock_n_in_use(), 0);
    assert_int_equal(mblock_n_free(), mfree + 1);
}

static void test_block_alloc_whole_megablocks_returned(void **state)
{
    (void)state;
    heap_reset();
    enum { N = 2 * BLOCKS_PER_MBLOCK };
    BlockDesc *bds[N];
    for (int i = 0; i < N; i++)
        bds[i] = block_alloc_group(1);
    assert_int_equal(mblock_n_in_use(), 2);
    assert_int_equal(block_n_free(), 0);
    char *first_mb = group_mblock(bds[0]);

    /* Free the first megablock's blocks in a random order; the megablock
     * is returned the moment its last block is freed. */
    rng_state = test_seed;
    BlockDesc *mine[BLOCKS_PER_MBLOCK];
    int n_mine = 0, n_other = 0;
    BlockDesc *other[N];
    for (int i = 0; i < N; i++) {
        if (group_mblock(bds[i]) == first_mb)
            mine[n_mine++] = bds[i];
        else
            other[n_other++] = bds[i];
    }
    assert_int_equal(n_mine, BLOCKS_PER_MBLOCK);
    for (int i = n_mine - 1; i > 0; i--) {
        int j = (int)rng_below((unsigned)i + 1);
        BlockDesc *t = mine[i];
        mine[i] = mine[j];
        mine[j] = t;
    }
    StgWord mfree = mblock_n_free();
    for (int i = 0; i < n_mine; i++) {
        assert_int_equal(mblock_n_in_use(), 2);
        block_free_group(mine[i]);
        checks();
    }
    assert_int_equal(mblock_n_in_use(), 1);
    assert_int_equal(mblock_n_free(), mfree + 1);
    assert_int_equal(block_n_free(), 0);

    block_free_chain(NULL);
    for (int i = 0; i < n_other; i++)
        other[i]->link = i + 1 < n_other ? other[i + 1] : NULL;
    block_free_chain(other[0]);
    checks();
    assert_int_equal(mblock_n_in_use(), 0);
    assert_int_equal(mblock_n_free(), mfree + 2);
}

static void test_block_alloc_free_chain(void **state)
{
    (void)state;
    assert_nothing_allocated();
    BlockDesc *head = NULL;
    StgWord total = 0;
    for (StgWord n = 1; n <= 40; n++) {
        BlockDesc *bd = block_alloc_group(n % 7 + 1);
        total += n % 7 + 1;
        bd->link = head;
        head = bd;
    }
    BlockDesc *big = block_alloc_group(300);
    big->link = head;
    head = big;
    assert_int_equal(block_n_allocated(), total + 300);
    block_free_chain(head);
    assert_nothing_allocated();
}

/* --------------------------------------------------------------------------
 * Megablock groups
 * ----------------------------------------------------------------------- */

/* Note [The young-group map]: each megablock counts its groups of
 * generation 0, through allocation, block_set_gen_no and freeing. */
static void test_block_alloc_young_map(void **state)
{
    (void)state;
    assert_nothing_allocated();
    BlockDesc *a = block_alloc_group(1);
    BlockDesc *b = block_alloc_group(7);
    char *mb = group_mblock(a);
    assert_ptr_equal(group_mblock(b), mb);
    assert_int_equal(block_young_groups_in_mblock(mb), 2);
    assert_int_equal(block_young_groups_in_mblock(a->start), 2);   /* any address in it */

    block_set_gen_no(a, 1);
    assert_int_equal(a->gen_no, 1);
    assert_int_equal(block_young_groups_in_mblock(mb), 1);
    block_set_gen_no(a, 2);   /* between old generations: no change */
    assert_int_equal(block_young_groups_in_mblock(mb), 1);
    block_set_gen_no(b, 1);
    assert_int_equal(block_young_groups_in_mblock(mb), 0);
    block_set_gen_no(b, 1);
    assert_int_equal(block_young_groups_in_mblock(mb), 0);
    block_set_gen_no(b, 0);   /* back to generation 0 */
    assert_int_equal(block_young_groups_in_mblock(mb), 1);

    /* Freeing an old group leaves the count; freeing a young one drops it. */
    block_free_group(a);
    assert_int_equal(block_young_groups_in_mblock(mb), 1);
    block_free_group(b);
    assert_int_equal(block_young_groups_in_mblock(mb), 0);

    /* The most groups a megablock holds, one block each, then a megablock
     * group: counted in its first megablock only. */
    enum { N = BLOCKS_PER_MBLOCK };
    BlockDesc *bds[N];
    for (int i = 0; i < N; i++)
        bds[i] = block_alloc_group(1);
    mb = group_mblock(bds[0]);
    assert_int_equal(block_young_groups_in_mblock(mb), N);
    BlockDesc *big = block_alloc_group(BLOCKS_PER_MBLOCK + 1);
    char *big_mb = group_mblock(big);
    assert_int_equal(block_young_groups_in_mblock(big_mb), 1);
    assert_int_equal(block_young_groups_in_mblock(big_mb + MBLOCK_SIZE), 0);
    for (int i = 0; i < N; i++)
        block_free_group(bds[i]);
    block_free_group(big);
    assert_int_equal(block_young_groups_in_mblock(mb), 0);
    assert_int_equal(block_young_groups_in_mblock(big_mb), 0);
    checks();
}

static void test_block_alloc_megablock_groups(void **state)
{
    (void)state;
    assert_nothing_allocated();
    static const struct { StgWord n, mblocks; } cases[] = {
        {253, 2}, {300, 2}, {508, 2}, {509, 3}, {600, 3}, {764, 3}, {765, 4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        StgWord n = cases[i].n, m = cases[i].mblocks;
        assert_true(n <= MBLOCK_GROUP_BLOCKS(m));
        assert_true(n > MBLOCK_GROUP_BLOCKS(m - 1));
        BlockDesc *bd = block_alloc_group(n);
        assert_fresh_head(bd, n);
        char *mb = group_mblock(bd);
        assert_int_equal((StgWord)mb & MBLOCK_MASK, 0);
        assert_ptr_equal(bd, MBLOCK_FIRST_BDESCR(mb));
        assert_ptr_equal(bd->start, MBLOCK_FIRST_BLOCK(mb));
        assert_int_equal(mblock_n_in_use(), m);
        assert_int_equal(block_n_allocated(), n);
        memset(bd->start, 0x22, n * BLOCK_SIZE);
        checks();
        StgWord mfree = mblock_n_free();
        block_free_group(bd);
        checks();
        assert_int_equal(mblock_n_in_use(), 0);
        assert_int_equal(mblock_n_free(), mfree + m);
    }

    /* Megablock groups mixed with small groups. */
    BlockDesc *s1 = block_alloc_group(5);
    BlockDesc *g300 = block_alloc_group(300);
    BlockDesc *s2 = block_alloc_group(1);
    BlockDesc *g600 = block_alloc_group(600);
    assert_int_equal(mblock_n_in_use(), 1 + 2 + 3);
    assert_int_equal(block_n_allocated(), 5 + 300 + 1 + 600);
    checks();
    block_free_group(g300);
    checks();
    /* Its megablocks are reused for small groups: their old contents,
     * including what lay where descriptors go, must not confuse us. */
    enum { N_SMALL = 2 * BLOCKS_PER_MBLOCK };
    BlockDesc *small[N_SMALL];
    for (int i = 0; i < N_SMALL; i++)
        small[i] = block_alloc_group(1);
    checks();
    for (int i = 0; i < N_SMALL; i++)
        block_free_group(small[i]);
    block_free_group(g600);
    block_free_group(s1);
    block_free_group(s2);
    assert_nothing_allocated();
}

/* Fills a megablock group's memory with 0xff (every word looks like the
 * free marker), frees it, reuses the megablocks for small groups, and
 * checks that coalescing is not fooled by the old contents (Note [Zeroing
 * the descriptors of a fresh megablock]).  Debug builds overwrite freed
 * memory with 0xaa, so the test has teeth only at STRATA_DEBUG < 2. */
static void test_block_alloc_reused_memory_does_not_fool_coalescing(void **state)
{
    (void)state;
    heap_reset();
    BlockDesc *big = block_alloc_group(MBLOCK_GROUP_BLOCKS(3));
    memset(big->start, 0xff, MBLOCK_GROUP_BLOCKS(3) * BLOCK_SIZE);
    block_free_group(big);
    rng_state = test_seed ^ 0xff;
    enum { N = 3 * BLOCKS_PER_MBLOCK };
    BlockDesc *bds[N];
    for (int i = 0; i < N; i++) {
        bds[i] = block_alloc_group(1);
        memset(bds[i]->start, 0xff, BLOCK_SIZE);
    }
    for (int i = N - 1; i > 0; i--) {
        int j = (int)rng_below((unsigned)i + 1);
        BlockDesc *t = bds[i];
        bds[i] = bds[j];
        bds[j] = t;
    }
    for (int i = 0; i < N; i++) {
        block_free_group(bds[i]);
        if (i % 16 == 0)
            checks();
    }
    assert_nothing_allocated();
}

/* Descriptors other than a group's head are the caller's while the group
 * is allocated (Note [Finding the free group before a group]).  Scribble
 * plausible and implausible values into them, then free everything in a
 * random order: coalescing must not be misled. */
static void scribble_inner_descriptors(BlockDesc *bd, StgWord n)
{
    BlockDesc *first = MBLOCK_FIRST_BDESCR(group_mblock(bd));
    StgWord last = n <= BLOCKS_PER_MBLOCK ? n : BLOCKS_PER_MBLOCK;
    for (StgWord k = 1; k < last; k++) {
        BlockDesc *d = bd + k;
        switch (rng_below(5)) {
        case 0: /* a tail-like descriptor pointing outside the megablock */
            d->blocks = 0;
            d->link = (BlockDesc *)(uintptr_t)0x10;
            break;
        case 1: /* pointing into the descriptor area, misaligned */
            d->blocks = 0;
            d->link = (BlockDesc *)((char *)first + 24);
            break;
        case 2: /* pointing at the megablock's first descriptor, often a
                   real free head whose group ends elsewhere */
            d->blocks = 0;
            d->link = first;
            break;
        case 3: /* pointing after itself */
            d->blocks = 0;
            d->link = d + 1;
            break;
        default: /* a head-like descriptor */
            d->blocks = 1 + rng_below(300);
            d->free = bd->start;
            d->link = NULL;
            break;
        }
    }
}

static void test_block_alloc_ignores_caller_written_descriptors(void **state)
{
    (void)state;
    heap_reset();
    rng_state = test_seed ^ 0x5c;
    enum { N = 600 };
    BlockDesc *bds[N];
    for (int i = 0; i < N; i++) {
        StgWord n = rng_below(30) == 0 ? 253 + rng_below(300) : 1 + rng_below(8);
        bds[i] = block_alloc_group(n);
        scribble_inner_descriptors(bds[i], n);
    }
    for (int i = N - 1; i > 0; i--) {
        int j = (int)rng_below((unsigned)i + 1);
        BlockDesc *t = bds[i];
        bds[i] = bds[j];
        bds[j] = t;
    }
    for (int i = 0; i < N; i++) {
        block_free_group(bds[i]);
        checks();
        /* Reuse some of the space straight away, scribbling again. */
        if (i % 3 == 0 && i + 1 < N) {
            StgWord n = 1 + rng_below(4);
            BlockDesc *bd = block_alloc_group(n);
            scribble_inner_descriptors(bd, n);
            block_free_group(bd);
            checks();
        }
    }
    assert_nothing_allocated();
}

/* --------------------------------------------------------------------------
 * Failure injection
 * ----------------------------------------------------------------------- */

static void test_block_alloc_fails_cleanly(void **state)
{
    (void)state;
    heap_reset();
    /* A fresh megablock must be committed: make that fail. */
    os_mem_fail_after(1);
    assert_null(block_alloc_group(1));
    assert_nothing_allocated();
    checks();
    BlockDesc *a = block_alloc_group(1);
    assert_fresh_head(a, 1);

    os_mem_fail_after(1);
    assert_null(block_alloc_group(300));
    assert_int_equal(block_n_allocated(), 1);
    checks();
    BlockDesc *big = block_alloc_group(300);
    assert_fresh_head(big, 300);
    block_free_group(big);
    block_free_group(a);

    /* Requests beyond the reservation, or beyond what a descriptor's
     * 32-bit size can say, fail the same way. */
    assert_null(block_alloc_group((StgWord)1 << 31));
    assert_null(block_alloc_group((StgWord)1 << 33));
    checks();

    /* With a committed free megablock on hand, no OS call is needed. */
    assert_true(mblock_n_free() >= 1);
    os_mem_fail_after(1);
    BlockDesc *b = block_alloc_group(1);
    assert_non_null(b);
    os_mem_fail_after(0);
    block_free_group(b);
}

/* --------------------------------------------------------------------------
 * Debug fill and sanitizer poisoning
 * ----------------------------------------------------------------------- */

/* .inv.asan: free blocks and a megablock group's slack are poisoned,
 * descriptors never are. */

static void test_block_alloc_poisons_free_blocks(void **state)
{
    (void)state;
#if defined(STRATA_ASAN)
    heap_reset();
    BlockDesc *pin = block_alloc_group(1);
    BlockDesc *a = block_alloc_group(3);
    char *p = (char *)a->start;
    assert_null(__asan_region_is_poisoned(p, 3 * BLOCK_SIZE));
    block_free_group(a);
    assert_true(__asan_address_is_poisoned(p));
    assert_true(__asan_address_is_poisoned(p + 3 * BLOCK_SIZE - 1));
    /* Descriptors are never poisoned. */
    assert_null(__asan_region_is_poisoned(MBLOCK_FIRST_BDESCR(group_mblock(pin)),
                                          BLOCKS_PER_MBLOCK * BDESCR_SIZE));
    BlockDesc *b = block_alloc_group(3);
    assert_ptr_equal(b, a);
    assert_null(__asan_region_is_poisoned(p, 3 * BLOCK_SIZE));
    block_free_group(b);

    /* Megablock groups: the slack after the last block stays poisoned. */
    BlockDesc *big = block_alloc_group(300);
    char *q = (char *)big->start;
    assert_null(__asan_region_is_poisoned(q, 300 * BLOCK_SIZE));
    assert_true(__asan_address_is_poisoned(q + 300 * BLOCK_SIZE));
    block_free_group(big);
    assert_true(__asan_address_is_poisoned(q));
    block_free_group(pin);
#else
    skip_in_build("ASan poisoning (build-san/, --enable-sanitizers)");
#endif
}

static void test_block_alloc_fills_freed_blocks(void **state)
{
    (void)state;
#if STRATA_DEBUG >= 2 && !defined(STRATA_ASAN)
    heap_reset();
    BlockDesc *pin = block_alloc_group(1);
    BlockDesc *a = block_alloc_group(2);
    unsigned char *p = (unsigned char *)a->start;
    memset(p, 0x11, 2 * BLOCK_SIZE);
    block_free_group(a);
    for (StgWord i = 0; i < 2 * BLOCK_SIZE; i++)
        if (p[i] != 0xaa)
            fail_msg("byte %lu of a freed group is %#x, not 0xaa", (unsigned long)i, p[i]);
    block_free_group(pin);
#else
    skip_in_build("the debug fill without ASan (build-debug2/, --enable-debug=2)");
#endif
}

/* --------------------------------------------------------------------------
 * Misuse and corruption are caught
 * ----------------------------------------------------------------------- */

/* Child bodies: no cmocka assertions in these. */

static void child_double_free(void)
{
    BlockDesc *pin = block_alloc_group(1);
    BlockDesc *a = block_alloc_group(1);
    block_free_group(a);
    block_free_group(a);
    (void)pin;
}

static void child_double_free_merged(void)
{
    BlockDesc *pin = block_alloc_group(1);
    BlockDesc *a = block_alloc_group(2);
    BlockDesc *b = block_alloc_group(2);
    block_free_group(b);
    block_free_group(a); /* merges into the group before it */
    block_free_group(a);
    (void)pin;
}

static void child_double_free_mega(void)
{
    BlockDesc *big = block_alloc_group(300);
    block_free_group(big);
    block_free_group(big);
}

static void child_zero_blocks(void)
{
    (void)block_alloc_group(0);
}

/* An isolated free group of 3 blocks, for the corruption tests. */
static BlockDesc *make_isolated_free_group(void)
{
    BlockDesc *pin1 = block_alloc_group(1);
    BlockDesc *a = block_alloc_group(3);
    BlockDesc *pin2 = block_alloc_group(1);
    block_free_group(a);
    (void)pin1;
    (void)pin2;
    block_check();
    return a;
}

static void child_corrupt_tail(void)
{
    BlockDesc *a = make_isolated_free_group();
    a[2].link = NULL;
    block_check();
}

static void child_corrupt_size(void)
{
    BlockDesc *a = make_isolated_free_group();
    a->blocks = 4; /* wrong list, bad tail */
    block_check();
}

static void child_corrupt_marker(void)
{
    BlockDesc *a = make_isolated_free_group();
    a->free = a->start;
    block_check();
}

static void child_corrupt_back(void)
{
    BlockDesc *a = make_isolated_free_group();
    a->u.back = a; /* a heads its list, so back must be NULL */
    block_check();
}

static void test_block_alloc_misuse_panics(void **state)
{
    (void)state;
    assert_child_panicked(child_double_free);
    assert_child_panicked(child_double_free_merged);
    assert_child_panicked(child_double_free_mega);
    assert_child_panicked(child_zero_blocks);
}

static void test_block_alloc_check_catches_corruption(void **state)
{
    (void)state;
    assert_child_panicked(child_corrupt_tail);
    assert_child_panicked(child_corrupt_size);
    assert_child_panicked(child_corrupt_marker);
    assert_child_panicked(child_corrupt_back);
}

/* --------------------------------------------------------------------------
 * Randomised test against a model
 * ----------------------------------------------------------------------- */

#define MODEL_MAX_GROUPS 512

typedef struct {
    BlockDesc *bd;
    StgWord n;
    uint64_t tag;
} ModelGroup;

/* Writes the tag into the first word of every block of the group (for a
 * megablock group that includes the later megablocks' descriptor areas). */
static void model_stamp(const ModelGroup *g)
{
    for (StgWord i = 0; i < g->n; i++) {
        uint64_t v = g->tag + i;
        memcpy((char *)g->bd->start + i * BLOCK_SIZE, &v, sizeof v);
    }
}

static void model_verify(const ModelGroup *g)
{
    assert_int_equal(g->bd->blocks, g->n);
    assert_ptr_equal(Bdescr(g->bd->start), g->bd);
    for (StgWord i = 0; i < g->n; i++) {
        uint64_t v;
        memcpy(&v, (char *)g->bd->start + i * BLOCK_SIZE, sizeof v);
        assert_int_equal(v, g->tag + i);
    }
}

static StgWord random_group_size(void)
{
    unsigned r = rng_below(100);
    if (r < 60)
        return 1;
    if (r < 85)
        return 2 + rng_below(15);
    if (r < 98)
        return 17 + rng_below(BLOCKS_PER_MBLOCK - 16);
    return BLOCKS_PER_MBLOCK + 1 + rng_below(500);
}

static void test_block_alloc_random_against_model(void **state)
{
    (void)state;
    assert_nothing_allocated();
    rng_state = test_seed;
    ModelGroup *live = calloc(MODEL_MAX_GROUPS, sizeof *live);
    assert_non_null(live);
    size_t n_live = 0;
    StgWord model_blocks = 0, peak_mblocks = 0, peak_free = 0;

    for (int step = 0; step < 20000; step++) {
        unsigned op = rng_below(100);
        /* Drift between growing and shrinking phases. */
        unsigned alloc_pct = (step / 2000) % 2 == 0 ? 60 : 40;
        if (op < alloc_pct && n_live < MODEL_MAX_GROUPS) {
            StgWord n = random_group_size();
            BlockDesc *bd = block_alloc_group(n);
            assert_non_null(bd);
            assert_fresh_head(bd, n);
            live[n_live] = (ModelGroup){bd, n, rng_next() & ~(uint64_t)0xffff};
            model_stamp(&live[n_live]);
            n_live++;
            model_blocks += n;
        } else if (op < 99 && n_live > 0) {
            size_t k = rng_below((unsigned)n_live);
            model_verify(&live[k]);
            block_free_group(live[k].bd);
            model_blocks -= live[k].n;
            live[k] = live[--n_live];
        } else {
            mblock_return_free(rng_below(4));
        }
        checks();
        assert_int_equal(block_n_allocated(), model_blocks);
        if (mblock_n_in_use() > peak_mblocks)
            peak_mblocks = mblock_n_in_use();
        if (block_n_free() > peak_free)
            peak_free = block_n_free();
    }
    print_message("random model: peak %lu megablocks in use, %lu blocks free\n",
                  (unsigned long)peak_mblocks, (unsigned long)peak_free);
    for (size_t k = 0; k < n_live; k++) {
        model_verify(&live[k]);
        block_free_group(live[k].bd);
    }
    free(live);
    checks();
    assert_nothing_allocated();
}

/* --------------------------------------------------------------------------
 * Driver
 * ----------------------------------------------------------------------- */

int main(void)
{
    test_seed = harness_seed("test_block_alloc");

    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_block_alloc_head_fields, after_test),
        cmocka_unit_test_teardown(test_block_alloc_alignment, after_test),
        cmocka_unit_test_teardown(test_block_alloc_single_block_reuses_freed, after_test),
        cmocka_unit_test_teardown(test_block_alloc_looks_one_list_down, after_test),
        cmocka_unit_test_teardown(test_block_alloc_coalesce_neighbours, after_test),
        cmocka_unit_test_teardown(test_block_alloc_whole_megablocks_returned, after_test),
        cmocka_unit_test_teardown(test_block_alloc_free_chain, after_test),
        cmocka_unit_test_teardown(test_block_alloc_megablock_groups, after_test),
        cmocka_unit_test_teardown(test_block_alloc_young_map, after_test),
        cmocka_unit_test_teardown(test_block_alloc_reused_memory_does_not_fool_coalescing,
                                  after_test),
        cmocka_unit_test_teardown(test_block_alloc_ignores_caller_written_descriptors,
                                  after_test),
        cmocka_unit_test_teardown(test_block_alloc_fails_cleanly, after_test),
        cmocka_unit_test_teardown(test_block_alloc_poisons_free_blocks, after_test),
        cmocka_unit_test_teardown(test_block_alloc_fills_freed_blocks, after_test),
        cmocka_unit_test_teardown(test_block_alloc_misuse_panics, after_test),
        cmocka_unit_test_teardown(test_block_alloc_check_catches_corruption, after_test),
        cmocka_unit_test_teardown(test_block_alloc_random_against_model, after_test),
    };
    return cmocka_run_group_tests(tests, harness_mblock_setup, harness_mblock_teardown);
}
