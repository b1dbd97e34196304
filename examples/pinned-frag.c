/*
 * examples/pinned-frag.c -- pinned-memory fragmentation.
 *
 * Each round allocates many small pinned byte arrays (I/O buffers, say)
 * and keeps one in a thousand, in a ring of 10000 slots (so old kept
 * buffers die too and the heap reaches a steady state).  Pinned objects are never moved, so a pinned
 * block stays allocated while any object in it lives: the heap holds far
 * more pinned blocks than the live buffers need.  The profile shows it
 * (ARR_WORDS in -hT counts the whole blocks that are kept), and the
 * program prints the figures at the end.
 *
 * Usage: pinned-frag [ROUNDS of 50000 buffers (default 1000)]
 */
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    if (rounds < 1) {
        fprintf(stderr, "usage: %s [ROUNDS (>= 1)]\n", argv[0]);
        hs_exit();
        return 2;
    }
    const long per_round = 50000, keep_every = 1000, size = 100;
    const StgWord ring = 10000;
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_mut_array(ring);   /* the kept buffers */
    unsigned long kept = 0;
    for (long round = 0; round < rounds; round++) {
        for (long i = 0; i < per_round; i++) {
            r[1] = strata_alloc_pinned_bytes(size);
            ((unsigned char *)STRATA_BYTES_PTR(r[1]))[0] = (unsigned char)i;
            if (i % keep_every == 0)
                strata_mut_array_write(r[0], kept++ % ring, r[1]);
        }
    }
    strata_perform_gc(1);
    unsigned long live = kept < ring ? kept : ring;
    printf("kept %lu pinned buffers of %ld bytes alive (%lu bytes)\n", live, size,
           live * (unsigned long)(size + 2 * sizeof(StgWord)));
    STRATA_ROOTS_POP(r);
    hs_exit();
    return 0;
}
