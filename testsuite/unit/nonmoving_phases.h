/*
 * testsuite/unit/nonmoving_phases.h -- for the tests of the non-moving
 * collector (+RTS --nonmoving-gc): waiting for a cycle's phase with the
 * program idle, and a sweep beside the program that lists many groups
 * for the collections to give back.
 */
#ifndef STRATA_TEST_NONMOVING_PHASES_H
#define STRATA_TEST_NONMOVING_PHASES_H

#include <unistd.h>

#include "NonMoving.h"

/* Until the phase is no longer phase, the program idle (no collection). */
static inline void idle_while_phase(NonMovingPhase phase)
{
    for (long i = 0; nonmoving_phase_now() == phase; i++) {
        assert_true(i < 120000);   /* two minutes */
        usleep(1000);
    }
}

/* n dead large byte arrays of two blocks each in the generation, found
 * dead by a cycle (start_cycle hangs the test's ballast on its slot
 * until a collection starts one; run_until_phase allocates garbage until
 * the phase) and swept beside the program while it waits without
 * allocating, so that no collection gives any group back before the
 * sweep has listed them all.  r: two rooted slots.  Returns the blocks
 * listed. */
static inline StgWord sweep_dead_large_groups(StgClosure **r, StgWord n,
                                              void (*start_cycle)(StgClosure **),
                                              void (*run_until_phase)(NonMovingPhase))
{
    const StgWord bytes = BLOCK_SIZE + 8;   /* a large group of 2 blocks */
    r[0] = strata_alloc_mut_array(n);
    for (StgWord i = 0; i < n; i++) {
        StgClosure *b = strata_alloc_bytes(bytes);
        strata_mut_array_write(r[0], i, b);
    }
    strata_perform_gc(1);
    assert_true(Bdescr(strata_mut_array_read(r[0], 0))->flags & BF_NONMOVING);
    assert_int_equal(Bdescr(strata_mut_array_read(r[0], 0))->blocks, 2);
    r[0] = NULL;
    nonmoving_hold(NONMOVING_SWEEPING);
    start_cycle(&r[1]);
    run_until_phase(NONMOVING_SWEEPING);
    StgWord before = nonmoving_unfreed_blocks();
    nonmoving_hold(NONMOVING_IDLE);
    idle_while_phase(NONMOVING_SWEEPING);
    return nonmoving_unfreed_blocks() - before;
}

#endif
