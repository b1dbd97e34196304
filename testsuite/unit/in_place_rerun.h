/*
 * testsuite/unit/in_place_rerun.h -- runs a test binary's tests a second
 * time with --promote-in-place=always, where a minor GC gives the whole
 * nursery to generation 1 without copying it.  Note [Promoting the
 * nursery in place] in sm/PromoteInPlace.h says that roots, weak pointers
 * and stable names stay right then; test_weak and test_stable_name check
 * it by running all their tests that way too.
 *
 *   IN_PLACE_RERUN(tests)    in main: the group as it is, then under the
 *                            flag; the number of failed tests
 *   in_place_teardown        the tests' teardown (hs_exit): in the second
 *                            run, a test that made a minor GC must have
 *                            promoted in place at least once, or the run
 *                            checked nothing new
 *   in_place_always()        true in the second run
 */
#ifndef STRATA_TEST_IN_PLACE_RERUN_H
#define STRATA_TEST_IN_PLACE_RERUN_H

#include "harness.h"

#include "Heap.h"
#include "PromoteInPlace.h"
#include "Storage.h"

#define IN_PLACE_FLAG "--promote-in-place=always"

static inline bool in_place_always(void)
{
    return storage_config.promote_in_place == PROMOTE_IN_PLACE_ALWAYS;
}

static inline int in_place_teardown(void **state)
{
    (void)state;
    StgWord minor = storage_n_gens > 1
        ? storage_gens[0].collections - storage_gens[1].collections : 0;
    StgWord in_place = promote_in_place_count();
    hs_exit();
    if (harness_extra_flag != NULL && minor > 0 && in_place == 0) {
        print_error("under " IN_PLACE_FLAG ", %lu minor GCs and none promoted in place\n",
                    (unsigned long)minor);
        return -1;
    }
    return 0;
}

/* Not in the non-moving rerun (GHCRTS=--nonmoving-gc), which refuses the
 * flag at -G2: its generation 1 is the non-moving one.  The comma
 * operators order the two runs: as the operands of a +, which are
 * unsequenced, GCC set the flag before the first run, so both ran under
 * it. */
static int in_place_first_failed;

#define IN_PLACE_RERUN(tests)                                                        \
    (in_place_first_failed = cmocka_run_group_tests_name(#tests, tests, NULL, NULL),  \
     harness_nonmoving_rerun()                                                       \
         ? in_place_first_failed                                                     \
         : (harness_extra_flag = IN_PLACE_FLAG,                                      \
            in_place_first_failed + cmocka_run_group_tests_name(                     \
                                        #tests " under " IN_PLACE_FLAG, tests, NULL, NULL)))

#endif /* STRATA_TEST_IN_PLACE_RERUN_H */
