/*
 * testsuite/unit/require.h -- skipping a unit test, by the same rule as the
 * shell tests' skip (testsuite/scripts/lib.sh):
 *
 *   skip_missing(dep, why)   something the test needs (dep: a program, a
 *                            tool) is missing here: the test skips, saying
 *                            so, unless STRATA_REQUIRE ("all", or a comma-
 *                            separated list that names dep) asks for dep;
 *                            then it fails, naming dep.
 *   skip_in_build(why)       the test checks what only another build of
 *                            the matrix compiles in (ASan poisoning, the
 *                            debug fill): it skips here.  scripts/test.sh
 *                            fails a test that every build skipped, so
 *                            each one runs somewhere.
 *
 * Include after <cmocka.h>.
 */
#ifndef STRATA_TEST_REQUIRE_H
#define STRATA_TEST_REQUIRE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True if STRATA_REQUIRE is "all" or a comma-separated list naming dep. */
static inline bool test_required(const char *dep)
{
    const char *list = getenv("STRATA_REQUIRE");
    size_t n = strlen(dep);
    while (list != NULL && *list != '\0') {
        size_t len = strcspn(list, ",");
        if ((len == 3 && strncmp(list, "all", 3) == 0) ||
            (len == n && strncmp(list, dep, n) == 0))
            return true;
        list += len;
        if (*list == ',')
            list++;
    }
    return false;
}

#define skip_missing(dep, why)                                                                \
    do {                                                                                      \
        if (test_required(dep))                                                               \
            fail_msg("missing %s (STRATA_REQUIRE=%s): %s", (dep), getenv("STRATA_REQUIRE"),   \
                     (why));                                                                  \
        printf("SKIP: missing %s: %s\n", (dep), (why));                                       \
        skip();                                                                               \
    } while (0)

#define skip_in_build(why)                                                                    \
    do {                                                                                      \
        printf("SKIP: not in this build: %s\n", (why));                                       \
        skip();                                                                               \
    } while (0)

#endif
