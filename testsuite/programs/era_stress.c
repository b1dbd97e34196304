/*
 * testsuite/programs/era_stress.c -- keeps objects alive in many eras at
 * once and reports what eras cost in memory: the blocks the heap holds
 * against the bytes that are live, after a major GC.  It also checks that
 * every object lives in a block of its birth era.
 *
 *     era_stress ERAS [OBJECTS] +RTS ... -RTS
 *
 * With ERAS = 1 the figures are the baseline; the extra blocks at 10, 100
 * and 1000 eras are the price of recording eras in block descriptors
 * (docs/design/eras.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

#include "EraRuns.h"
#include "Segment.h"
#include "Storage.h"

STRATA_CONSTR_INFO(Item_info, "Item", 1, 1);   /* next, birth era */

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long eras = argc > 1 ? atol(argv[1]) : 10;
    long objects = argc > 2 ? atol(argv[2]) : 1000000;
    if (eras < 1 || objects < eras) {
        fprintf(stderr, "usage: %s ERAS [OBJECTS] (1 <= ERAS <= OBJECTS)\n", argv[0]);
        hs_exit();
        return 2;
    }
    /* One chain per era; objects are allocated round-robin over the eras,
     * so every era stays live and allocation keeps switching era. */
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array((StgWord)eras);
    for (long i = 0; i < objects; i++) {
        StgWord e = (StgWord)(i % eras);
        setUserEra(e + 1);
        StgClosure *c = strata_alloc_constr(&Item_info);
        STRATA_FIELD(c, 0) = strata_mut_array_read(r[0], e);
        STRATA_WORD(c, 1) = e + 1;
        strata_mut_array_write(r[0], e, c);
    }
    strata_perform_gc(1);
    strata_perform_gc(1);

    StgWord checked = 0;
    for (long e = 0; e < eras; e++)
        for (StgClosure *c = strata_mut_array_read(r[0], (StgWord)e); c != NULL;
             c = STRATA_FIELD(c, 0)) {
            if (heap_object_era(c) != STRATA_WORD(c, 1)) {
                fprintf(stderr, "era_stress: object born in era %lu is in a block of era %lu\n",
                        (unsigned long)STRATA_WORD(c, 1), (unsigned long)heap_object_era(c));
                return 1;
            }
            checked++;
        }
    StgWord live = 0, blocks = 0;
    for (unsigned g = 0; g < storage_n_gens; g++) {
        live += (storage_gens[g].n_words + storage_gens[g].n_large_words) * WORD_SIZE;
        blocks += storage_gens[g].n_blocks + storage_gens[g].n_large_blocks;
    }
    printf("eras=%ld objects=%lu live_bytes=%lu heap_block_bytes=%lu overhead=%.1f%%\n",
           eras, (unsigned long)checked, (unsigned long)live,
           (unsigned long)(blocks * BLOCK_SIZE),
           100.0 * ((double)(blocks * BLOCK_SIZE) - (double)live) / (double)live);
    STRATA_ROOTS_POP(r);
    hs_exit();
    return 0;
}
