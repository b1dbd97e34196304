/*
 * testsuite/unit/test_block_index.c -- the debug client's block index
 * (utils/debug-client/BlockIndex.c, Note [Block index]): every lookup
 * gives the binary search's answer, at block and megablock boundaries,
 * for era segments sharing a 4 KB block, for large objects spanning
 * blocks and megablocks, and for layouts too sparse to index.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "BlockIndex.h"

#define KB ((uint64_t)4096)
#define MB ((uint64_t)1 << 20)
#define HEAP ((uint64_t)0x4200000000)   /* a megablock-aligned base */

/* The reference: the last block starting at or below addr, if it holds addr. */
static const DbgBlock *linear_find(const DbgBlock *bs, size_t n, uint64_t addr)
{
    const DbgBlock *last = NULL;
    for (size_t i = 0; i < n && bs[i].start <= addr; i++)
        last = &bs[i];
    return last != NULL && addr < last->start + last->used_bytes ? last : NULL;
}

/* Checks the index of bs against the reference at every block's edges,
 * every megablock edge near them, and a few addresses in between. */
static void check_layout(const DbgBlock *bs, size_t n, bool expect_on)
{
    BlockIndex ix = {0};
    assert_int_equal(block_index_build(&ix, bs, n), 0);
    assert_int_equal(ix.on, expect_on);
    assert_int_equal(block_index_check(&ix, bs, n), 0);
    for (size_t i = 0; i < n; i++) {
        uint64_t s = bs[i].start, e = s + bs[i].used_bytes;
        uint64_t probes[] = {s - 8, s, s + 8, e - 8, e, e + 8,
                             s & ~(MB - 1), (s & ~(MB - 1)) - 8, (e | (MB - 1)) + 1,
                             e | (MB - 1), (s | (KB - 1)) + 1, s | (KB - 1),
                             s + (e - s) / 2};
        for (size_t k = 0; k < sizeof probes / sizeof probes[0]; k++)
            assert_ptr_equal(block_index_find(&ix, bs, n, probes[k]),
                             linear_find(bs, n, probes[k]));
    }
    assert_null(block_index_find(&ix, bs, n, 0));
    assert_null(block_index_find(&ix, bs, n, 0x401000));   /* a static's address */
    block_index_free(&ix);
}

static void test_block_index_finds_block_and_megablock_edges(void **state)
{
    (void)state;
    DbgBlock bs[] = {
        {.start = HEAP, .used_bytes = KB, .n_blocks = 1},              /* mblock's first */
        {.start = HEAP + KB, .used_bytes = 16, .n_blocks = 1},         /* a partly used block */
        {.start = HEAP + 5 * KB, .used_bytes = 3 * KB, .n_blocks = 1}, /* gap before */
        {.start = HEAP + MB - KB, .used_bytes = KB, .n_blocks = 1},    /* mblock's last */
        {.start = HEAP + MB, .used_bytes = KB, .n_blocks = 1},         /* next mblock's first */
        {.start = HEAP + 3 * MB + 2 * KB, .used_bytes = 0, .n_blocks = 1},   /* empty */
        {.start = HEAP + 3 * MB + 2 * KB, .used_bytes = 8, .n_blocks = 1},
    };
    check_layout(bs, sizeof bs / sizeof bs[0], true);
}

static void test_block_index_finds_era_segments_in_one_block(void **state)
{
    (void)state;
    /* Later era segments of one 4 KB block count no blocks of their own. */
    DbgBlock bs[] = {
        {.start = HEAP, .used_bytes = 1024, .n_blocks = 1, .era = 1},
        {.start = HEAP + 1024, .used_bytes = 8, .n_blocks = 0, .era = 2},
        {.start = HEAP + 1040, .used_bytes = 2000, .n_blocks = 0, .era = 3},
        {.start = HEAP + 3072, .used_bytes = 1024, .n_blocks = 0, .era = 4},
        {.start = HEAP + KB, .used_bytes = 24, .n_blocks = 1, .era = 4},
    };
    check_layout(bs, sizeof bs / sizeof bs[0], true);
}

static void test_block_index_finds_large_objects_spanning_megablocks(void **state)
{
    (void)state;
    DbgBlock bs[] = {
        {.start = HEAP, .used_bytes = KB, .n_blocks = 1},
        /* A large object of 2.5 MB from the second block on: it ends in
         * the third megablock, where a small block follows it. */
        {.start = HEAP + KB, .used_bytes = 5 * MB / 2, .n_blocks = 641},
        {.start = HEAP + KB + 5 * MB / 2 + KB, .used_bytes = KB, .n_blocks = 1},
        /* A group of 3 blocks within one megablock. */
        {.start = HEAP + 8 * MB + 12 * KB, .used_bytes = 3 * KB - 8, .n_blocks = 3},
    };
    check_layout(bs, sizeof bs / sizeof bs[0], true);
    /* The large object's middle megablock has no table of its own. */
    BlockIndex ix = {0};
    assert_int_equal(block_index_build(&ix, bs, 4), 0);
    assert_ptr_equal(block_index_find(&ix, bs, 4, HEAP + MB + 40 * KB), &bs[1]);
    assert_ptr_equal(block_index_find(&ix, bs, 4, HEAP + 2 * MB + 10 * KB), &bs[1]);
    block_index_free(&ix);
}

static void test_block_index_sparse_layout_falls_back(void **state)
{
    (void)state;
    enum { N = 100 };
    DbgBlock bs[N];
    for (size_t i = 0; i < N; i++)   /* one block a megablock: not indexed */
        bs[i] = (DbgBlock){.start = HEAP + i * 16 * MB, .used_bytes = KB, .n_blocks = 1};
    check_layout(bs, N, false);
}

static void test_block_index_matches_search_on_random_layouts(void **state)
{
    (void)state;
    unsigned seed = 18;
    printf("seed %u\n", seed);
    srand(seed);
    enum { N = 600 };
    DbgBlock *bs = calloc(N, sizeof *bs);
    assert_non_null(bs);
    for (int round = 0; round < 10; round++) {
        uint64_t at = HEAP + (uint64_t)(rand() % 4) * MB;
        size_t n = 0;
        while (n < N) {
            at += (uint64_t)(rand() % 3 == 0) * (uint64_t)(rand() % 8) * 8;   /* slop */
            int kind = rand() % 20;
            uint64_t used;
            uint32_t nb = 1;
            if (kind == 0) {                       /* large, up to 3 MB */
                nb = 1 + (uint32_t)(rand() % 768);
                used = (uint64_t)nb * KB - (uint64_t)(rand() % 64) * 8;
            } else if (kind == 1) {
                used = 0;
            } else if (kind < 5) {                 /* an era segment */
                nb = 0;
                used = 8 * (1 + (uint64_t)(rand() % 64));
            } else {
                used = 8 * (1 + (uint64_t)(rand() % 512));
            }
            bs[n++] = (DbgBlock){.start = at, .used_bytes = used, .n_blocks = nb};
            at += used;
            if (rand() % 50 == 0)
                at += (uint64_t)(1 + rand() % 40) * MB;   /* another region */
        }
        check_layout(bs, n, true);
        BlockIndex ix = {0};   /* and anywhere in the span */
        assert_int_equal(block_index_build(&ix, bs, n), 0);
        uint64_t span = bs[n - 1].start + bs[n - 1].used_bytes + MB - HEAP;
        for (int k = 0; k < 5000; k++) {
            uint64_t a = HEAP + ((((uint64_t)rand() << 31) ^ (uint64_t)rand()) % span & ~7ull);
            assert_ptr_equal(block_index_find(&ix, bs, n, a), linear_find(bs, n, a));
        }
        block_index_free(&ix);
    }
    free(bs);
}

/* Megablocks close together are found through the flat array; two heaps
 * a terabyte apart through the map (the flat array would span 10^6
 * megablocks): the same answers either way. */
static void test_block_index_far_regions_use_the_map(void **state)
{
    (void)state;
    enum { N = 64 };
    DbgBlock bs[N];
    for (size_t i = 0; i < N; i++) {
        uint64_t base = i < N / 2 ? HEAP : HEAP + ((uint64_t)1 << 40);
        bs[i] = (DbgBlock){.start = base + (i % (N / 2)) * 8 * KB, .used_bytes = 4 * KB - 8 * i,
                           .n_blocks = 1};
    }
    BlockIndex ix = {0};
    assert_int_equal(block_index_build(&ix, bs, N), 0);
    assert_true(ix.on);
    assert_null(ix.flat);
    block_index_free(&ix);
    check_layout(bs, N, true);
    assert_int_equal(block_index_build(&ix, bs, N / 2), 0);   /* the first heap alone */
    assert_non_null(ix.flat);
    block_index_free(&ix);
    check_layout(bs, N / 2, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_index_finds_block_and_megablock_edges),
        cmocka_unit_test(test_block_index_finds_era_segments_in_one_block),
        cmocka_unit_test(test_block_index_finds_large_objects_spanning_megablocks),
        cmocka_unit_test(test_block_index_sparse_layout_falls_back),
        cmocka_unit_test(test_block_index_matches_search_on_random_layouts),
        cmocka_unit_test(test_block_index_far_regions_use_the_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
