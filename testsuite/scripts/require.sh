#!/usr/bin/env bash
# testsuite/scripts/require.sh -- STRATA_REQUIRE turns a skip into a
# failure that names what is missing, so that CI (.ci/run sets
# STRATA_REQUIRE=all) cannot pass by skipping a suite.  The missing
# dependencies are faked: a chromium and a python3 that are not there
# (STRATA_CHROMIUM, STRATA_PYTHON3), a ghc-pkg that knows no ghc-events, a
# build tree without the bintrees example (top_builddir) for a unit test.  Without STRATA_REQUIRE the same
# runs skip (exit 77), saying why.
set -u
. "$(dirname "$0")/lib.sh"

cd "$test_tmp" || exit 1
scripts=$top_srcdir/testsuite/scripts

mkdir fakebin
printf '#!/bin/sh\nexit 1\n' >fakebin/ghc-pkg
chmod +x fakebin/ghc-pkg

# expect_exit NAME STATUS CMD...: runs CMD (output to NAME.out, NAME.err),
# which must exit STATUS.
expect_exit() {
    local name=$1 want=$2 got=0
    shift 2
    "$@" >"$name.out" 2>"$name.err" || got=$?
    if [ "$got" -eq "$want" ]; then
        pass
    else
        fail "$name: '$*' exited $got, expected $want; its output:"
        cat "$name.out" "$name.err" | head -n 20 | sed 's/^/    /' >&2
    fi
}

# html-browser.sh: chromium is the first thing it misses when strata-html
# was built; otherwise it misses node (strata-html was not configured).
if [ -x "$top_builddir/utils/strata-html/strata-html" ]; then
    browser_dep=chromium
else
    browser_dep=node
fi
for req in all "ghc,$browser_dep"; do
    expect_exit "browser-$req" 1 env STRATA_REQUIRE="$req" STRATA_CHROMIUM="$test_tmp/no-chromium" \
        bash "$scripts/html-browser.sh"
    expect_stderr_contains "html-browser.sh: FAIL: missing $browser_dep (STRATA_REQUIRE=$req): " \
        "browser-$req.err"
done
expect_exit browser-unset 77 env -u STRATA_REQUIRE STRATA_CHROMIUM="$test_tmp/no-chromium" \
    bash "$scripts/html-browser.sh"
expect_stderr_contains "html-browser.sh: SKIP: " browser-unset.out
# A list that does not name the dependency still skips.
expect_exit browser-other 77 env STRATA_REQUIRE=ghc STRATA_CHROMIUM="$test_tmp/no-chromium" \
    bash "$scripts/html-browser.sh"

# interop.sh without ghc-events (or without ghc, where it is not installed).
if command -v ghc >/dev/null 2>&1; then interop_dep=ghc-events; else interop_dep=ghc; fi
expect_exit interop-all 1 env STRATA_REQUIRE=all PATH="$test_tmp/fakebin:$PATH" \
    bash "$scripts/interop.sh"
expect_stderr_contains "interop.sh: FAIL: missing $interop_dep (STRATA_REQUIRE=all): " interop-all.err
expect_exit interop-unset 77 env -u STRATA_REQUIRE PATH="$test_tmp/fakebin:$PATH" \
    bash "$scripts/interop.sh"

# One part of a script (skip_part): strata-events.sh without python3 runs
# its other checks, then fails naming python3, or says SKIPPED.
no_python3=STRATA_PYTHON3=$test_tmp/no-python3
expect_exit python3-all 1 env STRATA_REQUIRE=all "$no_python3" bash "$scripts/strata-events.sh"
expect_stderr_contains "strata-events.sh: FAIL: missing python3 (STRATA_REQUIRE=all): python3 ($test_tmp/no-python3) is not installed" \
    python3-all.err
expect_exit python3-unset 0 env -u STRATA_REQUIRE "$no_python3" bash "$scripts/strata-events.sh"
expect_stderr_contains "SKIPPED: python3 ($test_tmp/no-python3) is not installed" python3-unset.out

# A unit test (cmocka, testsuite/unit/require.h): the eventlog writer's
# test of a real program's log needs examples/bintrees.
writer=$top_builddir/testsuite/unit/test_eventlog_writer
expect_exit writer-all 1 env STRATA_REQUIRE=all top_builddir="$test_tmp/empty" "$writer"
cat writer-all.out writer-all.err >writer-all.both   # cmocka: errors to stderr
expect_stderr_contains "missing examples/bintrees (STRATA_REQUIRE=all): the example has not been built" \
    writer-all.both
expect_exit writer-unset 0 env -u STRATA_REQUIRE top_builddir="$test_tmp/empty" "$writer"
expect_stderr_contains "SKIP: missing examples/bintrees" writer-unset.out

finish
