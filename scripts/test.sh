#!/usr/bin/env bash
# scripts/test.sh -- the README's second Quick start command: `make check`
# in the release build (build/), in the sanitizer build at debug level 3
# (build-san/) and in a debug level 2 build without sanitizers
# (build-debug2/: the debug fill, which ASan's poisoning replaces in
# build-san/), these two without RELEASE_ONLY_TESTS, each built
# incrementally, and the threaded tests in a
# ThreadSanitizer build (build-tsan/).  The four builds run side by side,
# sharing STRATA_TEST_JOBS (4) jobs at a time (run_lanes); each build's
# output is printed whole when it ends.  Ends with one line,
# "N passed, N failed", totalled over every build, for CI to read.
# docs/HACKING.md says what runs in which build.
#
# STRATA_TEST_QUICK=1 skips the sanitizer and debug builds (for local
# iteration).  STRATA_REQUIRE=all (set by .ci/run) makes every test that
# would skip for want of a dependency fail instead, naming it
# (testsuite/scripts/lib.sh, testsuite/unit/require.h), and fails a unit
# test that every build skipped.
set -euo pipefail

# shellcheck source=scripts/deps.sh
. "$(dirname "${BASH_SOURCE[0]}")/deps.sh"
cd "$STRATA_ROOT"

# At -O1, not autoconf's -O2: the build took 185 s of CPU at -O2 and 120 at
# -O1 (configure, everything and the check programs), its tests the same
# (programs.sh, test_gc, threads.sh, msgbuf.sh, alloc-sample.sh: 75.9 and
# 82.2 s at -O2, 77.3 and 74.0 at -O1), and ASan and UBSan report the same
# at -O1 (the level their documentation recommends).
SAN_CONFIG=(--enable-sanitizers --enable-debug=3 --enable-werror "CFLAGS=-g -O1")
# build-debug2/ at -O1 too: its lane (`--lane debug2`: configure, build,
# tests) cost 249.0 s of CPU at -O1 and 265.3 at -O2, its tests alone (the
# lane again in the built tree) 184.9 and 183.5 (side by side, load 6-8).
DEBUG2_CONFIG=(--enable-debug=2 --enable-werror "CFLAGS=-g -O1")
# ThreadSanitizer runs the tests that start threads (capabilities, the
# heap debugger's server, the ticker) at debug level 2.  None of them uses
# strata-html or strata-live's page: built without them (no `npm ci`).
# At autoconf's -O2, not -O1 as build-san/: the whole lane (`--lane tsan`,
# build and tests) cost 408.7 s of CPU at -O1 and 414.6 at -O2, its tests
# (all but eventlog-socket.sh, and the -N2 rerun) 290.4 at -O1 and 283.1
# at -O2 (one run each, side by side, load 7-22): what -O1 saves in the
# build, the instrumented tests give back.
TSAN_CONFIG=(--enable-sanitizers=thread --enable-debug=2 --enable-werror --disable-html)
TSAN_TESTS="testsuite/scripts/threads.sh testsuite/scripts/blackhole-cycle.sh testsuite/scripts/par-gc.sh testsuite/scripts/eventlog-socket.sh testsuite/scripts/debug.sh testsuite/unit/test_debug testsuite/unit/test_control"
# The collector's tests run a second time with two capabilities and two GC
# threads (GHCRTS, read by every strata program), so that each of them
# exercises the parallel collector too: in the release build, and in the
# ThreadSanitizer build, where a race fails them.  test_weak and
# test_stable_name run each of their tests under --promote-in-place=always
# as well (testsuite/unit/in_place_rerun.h), so weak pointers, finalizers,
# stable names and promotion in place are raced here too.
PAR_GC_RTS="-N2 -qn2"
PAR_GC_UNIT_TESTS="testsuite/unit/test_gc testsuite/unit/test_minor_gc testsuite/unit/test_eras testsuite/unit/test_roots testsuite/unit/test_sanity testsuite/unit/test_census testsuite/unit/test_weak testsuite/unit/test_apply testsuite/unit/test_stable_name testsuite/unit/test_promote_in_place"
# The non-moving generation's own tests start every runtime with
# --nonmoving-gc: at -N2 their syncs and sweeps run in parallel
# collections (all of them, at -qn2).
NONMOVING_UNIT_TESTS="testsuite/unit/test_nonmoving testsuite/unit/test_nonmoving_census testsuite/unit/test_nonmoving_pauses"
# First: test_nonmoving is the longest of the ThreadSanitizer -N2 rerun
# (make starts the tests in the order given), which ran it last, alone
# for three minutes at the end of the whole suite.
PAR_GC_UNIT_TESTS="$NONMOVING_UNIT_TESTS $PAR_GC_UNIT_TESTS"
# The scripts add gc_stress and era_stress (random mutators) and the
# profiler's runs: under ThreadSanitizer they would take 2.5 minutes more,
# and par-gc.sh already runs its own stress program there.
PAR_GC_TESTS="testsuite/scripts/programs.sh testsuite/scripts/profiling.sh $PAR_GC_UNIT_TESTS"

# The same collector tests run once more with the non-moving old
# generation (issue 50): in the release build, and in the sanitizer build,
# whose level-3 assertions and AddressSanitizer check its segments.
# Not test_promote_in_place: promotion in place into a non-moving
# generation 1 is refused (its objects must be in segments).  Nor the
# non-moving generation's own tests, which the first pass ran with the
# flag already (the rerun would repeat them exactly).
NONMOVING_RTS="--nonmoving-gc"
NONMOVING_TESTS=
for t in $PAR_GC_TESTS; do
    case " testsuite/unit/test_promote_in_place $NONMOVING_UNIT_TESTS " in
        *" $t "*) ;;
        *) NONMOVING_TESTS+="${NONMOVING_TESTS:+ }$t" ;;
    esac
done

# Tests of what no build setting changes, run in the release build only:
# the report pages in chromium (about 90 s a build; strata-html itself
# runs under the sanitizers in html.sh), and the checks that read the
# sources and run nothing that was built (the layers, the sizes, the
# Notes, citations, include circles, README's layout, bench/'s tables,
# configure's refusal of a bad option).
RELEASE_ONLY_TESTS="testsuite/scripts/html-browser.sh testsuite/scripts/alloc-view.sh"
RELEASE_ONLY_TESTS+=" testsuite/scripts/readme-layout.sh"
RELEASE_ONLY_TESTS+=" testsuite/scripts/layering.sh testsuite/scripts/sizes.sh"
RELEASE_ONLY_TESTS+=" testsuite/scripts/notes.sh testsuite/scripts/self-contained.sh"
RELEASE_ONLY_TESTS+=" testsuite/scripts/include-circles.sh testsuite/scripts/bench-figures.sh"
RELEASE_ONLY_TESTS+=" testsuite/scripts/configure-flags.sh"

# Not in build-debug2/: the live page in chromium (live-page.sh).  What
# that build adds, the debug fill of the runtime's heap, its programs
# exercise no differently than the collector's tests do; the page, its
# server and their programs run in build-san/ with the level-3
# assertions (a superset of level 2's) and ASan, and in build/.
DEBUG2_EXCLUDED_TESTS="$RELEASE_ONLY_TESTS testsuite/scripts/live-page.sh"

# make -j starts the tests in the order given: the longest first (longest
# in the sanitizer build first), so that a build's tests do not end with
# one of them running alone.
SLOW_TESTS="testsuite/scripts/html-browser.sh testsuite/scripts/live-page.sh"
SLOW_TESTS+=" testsuite/scripts/programs.sh testsuite/scripts/threads.sh"
SLOW_TESTS+=" testsuite/scripts/doc-examples.sh testsuite/scripts/msgbuf.sh"

# Each build is a lane (lane_NAME below): its build, then its tests and
# reruns.  The lanes run side by side (run_lanes), the longest first.
LANES=(tsan san release debug2)
# How many compilers or tests run at once, over all lanes: one a lane, so
# that all four start at once.  A lane's make takes one job without a
# slot of the jobserver's and more only from it, so each lane runs one job
# at a time while every slot is held by a lane; with 3 slots, debug2's
# lane waited for the first lane to end (the release lane, 673 s into the
# last quiet 15:32 run), and ended the run 253 s later.  Four jobs on the
# two cores also keep them busy while tests wait (for a socket, a browser,
# a program's exit): two at a time left them idle for about 40% of the
# release build's tests.  Against three, four cost no more CPU (the
# release build's unit tests and four scripts: 50.0 and 48.4 s of CPU at
# four jobs, 51.6 and 54.0 at three) and ended sooner at the same load.
STRATA_TEST_JOBS=${STRATA_TEST_JOBS:-4}

LOG_TAIL_LINES=150

total_passed=0
total_failed=0

# Adds the counts in DIR/test-suite.log's header to the totals; an error
# or an unexpected pass counts as a failure.  The header ends where the
# logs of the failed tests (which may hold lines of their own) begin.
count_results() {
    local passed failed
    read -r passed failed < <(awk '
        /^\.\. contents::/ { exit }
        /^# PASS:/ { p += $3 }
        /^# (FAIL|ERROR|XPASS):/ { f += $3 }
        END { print p + 0, f + 0 }' "$1/test-suite.log")
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
}

# Prints the log of every test in DIR that failed, errored or passed
# unexpectedly (automake's .trs files record each result).
print_failed_logs() {
    local trs log
    { find "$1" -name '*.trs' -exec grep -l -E '^:test-result: (FAIL|ERROR|XPASS)' {} + ||
        true; } | sort | while IFS= read -r trs; do
            log=${trs%.trs}.log
            printf '\n---------- %s ----------\n' "$log"
            if [ "$(wc -l <"$log")" -gt "$LOG_TAIL_LINES" ]; then
                printf '(last %d lines)\n' "$LOG_TAIL_LINES"
            fi
            tail -n "$LOG_TAIL_LINES" "$log"
        done
}

# Says plainly which tests were skipped in DIR, and why (their SKIP lines).
say_skipped() {
    local dir=$1 trs
    # grep finds nothing when nothing was skipped: not an error.
    { grep -l '^:test-result: SKIP' "$dir"/testsuite/*/*.trs 2>/dev/null || true; } |
        while read -r trs; do
            printf '%s: SKIPPED %s: %s\n' "${0##*/}" "${trs%.trs}" \
                "$(grep -h 'SKIP:' "${trs%.trs}.log" | head -n 1)"
        done
}

# The tests of the built DIR (or $CHECK_TESTS), less those named in
# $CHECK_EXCLUDE, those of $SLOW_TESTS first, in its order.
tests_in_order() {
    local t kept= slow= rest=
    for t in ${CHECK_TESTS:-$(make -s -C "$1" print-tests)}; do
        case " ${CHECK_EXCLUDE:-} " in
            *" $t "*) ;;
            *) kept+=" $t" ;;
        esac
    done
    for t in $SLOW_TESTS; do
        case "$kept " in
            *" $t "*) slow+="$t " ;;
        esac
    done
    for t in $kept; do
        case " $SLOW_TESTS " in
            *" $t "*) ;;
            *) rest+="$t " ;;
        esac
    done
    echo "$slow$rest"
}

# The check programs of the built DIR that `make check` is to build:
# with CHECK_UNIT_TESTS set, only the unit tests it names (and every
# other program: the scripts' own), else all (nothing printed).
check_programs() {
    local p kept=
    [ -n "${CHECK_UNIT_TESTS:-}" ] || return 0
    for p in $(make -s -C "$1" print-check-programs); do
        case "$p" in
            testsuite/unit/*)
                case " $CHECK_UNIT_TESTS " in
                    *" $p "*) kept+=" $p" ;;
                esac ;;
            *) kept+=" $p" ;;
        esac
    done
    echo "$kept"
}

# Builds DIR with the given configure arguments and runs `make check`
# there (CHECK_TESTS: only those; CHECK_EXCLUDE: all but those; the slow
# ones first; CHECK_UNIT_TESTS: build only those unit tests).  A build
# that fails, or tests that never run, count as one failure.
check_build() {
    local dir=$1
    shift
    local start=$SECONDS
    # A subshell, so that a failed configure (die) ends this step only.
    if ! (strata_build "$dir" "$@"); then
        echo "(counting the failed build of $dir/ as one failed test)"
        total_failed=$((total_failed + 1))
        return
    fi
    say "testing ($dir/)"
    rm -f "$dir/test-suite.log"
    local tests programs
    tests=$(tests_in_order "$dir")
    programs=$(check_programs "$dir")
    if make -s -C "$dir" check TESTS="$tests" ${programs:+check_PROGRAMS="$programs"}; then
        count_results "$dir"
        say_skipped "$dir"
    elif [ -f "$dir/test-suite.log" ]; then
        count_results "$dir"
        printf '\n%s: failing tests in %s/, their logs:\n' "${0##*/}" "$dir"
        print_failed_logs "$dir"
    else
        echo "(the tests in $dir/ did not run; counting that as one failed test)"
        total_failed=$((total_failed + 1))
    fi
    say "$dir/ done in $((SECONDS - start))s"
}

# Runs the collector's tests (TESTS) again in the built DIR under
# GHCRTS=RTS.
check_rerun() {
    local dir=$1 rts=$2 tests=$3 start=$SECONDS programs
    say "testing the collector with GHCRTS='$rts' ($dir/)"
    rm -f "$dir/test-suite.log"
    programs=$(check_programs "$dir")
    if GHCRTS=$rts make -s -C "$dir" check TESTS="$tests" ${programs:+check_PROGRAMS="$programs"}; then
        count_results "$dir"
    elif [ -f "$dir/test-suite.log" ]; then
        count_results "$dir"
        printf '\n%s: failing tests in %s/ under GHCRTS=%s, their logs:\n' "${0##*/}" "$dir" \
            "$rts"
        print_failed_logs "$dir"
    else
        echo "(the tests in $dir/ under GHCRTS=$rts did not run; counting that as one failed test)"
        total_failed=$((total_failed + 1))
    fi
    say "$dir/ with GHCRTS='$rts' done in $((SECONDS - start))s"
}

# Unit tests that some build skips because only another build compiles in
# what they check (require.h's skip_in_build) must pass in one of the
# builds "$@": lists those that did not, and under STRATA_REQUIRE counts
# each as a failure.
check_every_test_ran() {
    local name
    # The per-test lines only ("[  SKIPPED ] 2 test(s), ..." is a summary).
    while read -r name; do
        if [ -n "${STRATA_REQUIRE:-}" ]; then
            printf '%s: FAIL: %s was skipped in every build (%s)\n' "${0##*/}" "$name" "$*"
            total_failed=$((total_failed + 1))
        else
            printf '%s: SKIPPED in every build (%s): %s\n' "${0##*/}" "$*" "$name"
        fi
    done < <(
        for dir in "$@"; do
            cat "$dir"/testsuite/unit/*.log 2>/dev/null || true
        done | awk '
            /^\[  SKIPPED \] test_/ { skipped[$4] = 1 }
            /^\[       OK \] test_/ { ran[$4] = 1 }
            END { for (t in skipped) if (!(t in ran)) print t }' | sort)
}

# The builds' lanes: each configures and builds its tree, then runs its
# tests and reruns there, in order (a rerun reuses the tree's logs).
lane_release() {
    check_build build "${STRATA_RELEASE_CONFIG[@]}"
    [ -d build ] && check_rerun build "$PAR_GC_RTS" "$PAR_GC_TESTS"
    [ -d build ] && check_rerun build "$NONMOVING_RTS" "$NONMOVING_TESTS"
}
lane_san() {
    CHECK_EXCLUDE=$RELEASE_ONLY_TESTS check_build build-san "${SAN_CONFIG[@]}"
    [ -d build-san ] && check_rerun build-san "$NONMOVING_RTS" "$NONMOVING_TESTS"
}
lane_debug2() {
    CHECK_EXCLUDE=$DEBUG2_EXCLUDED_TESTS check_build build-debug2 "${DEBUG2_CONFIG[@]}"
}
# The ThreadSanitizer build compiles only the unit tests it runs (15 of
# 41): the others cost about 0.7 s of CPU each to build there (6 of them
# 4.3 s), about 19 s in all.
lane_tsan() {
    local CHECK_UNIT_TESTS="$TSAN_TESTS $PAR_GC_UNIT_TESTS"
    CHECK_TESTS=$TSAN_TESTS check_build build-tsan "${TSAN_CONFIG[@]}"
    [ -d build-tsan ] && check_rerun build-tsan "$PAR_GC_RTS" "$PAR_GC_UNIT_TESTS"
}

# scripts/test.sh --lane NAME DIR (run by run_lanes' makefile): lane NAME,
# its counts written to DIR/NAME.counts.
run_one_lane() {
    local name=$1 dir=$2
    "lane_$name"
    echo "$total_passed $total_failed" >"$dir/$name.counts"
}

# Runs the lanes "$@" side by side under one make jobserver of
# STRATA_TEST_JOBS slots: a lane's makes (run without -j) take their jobs
# (a compiler, a test) from it, so that at most that many run at any time
# in all, and a slot one lane leaves (its configure, the last test of its
# tree) goes to another lane's build or tests.  As many lanes as slots
# start at once, the others as those end (the order of "$@": the longest
# first); the last one alone gets every slot.  Each lane's output is
# printed whole when it ends, and its counts are added to the totals.  A
# lane that leaves no counts (it died) counts as one failure.  A test.sh
# ended by a signal ends every lane's build and tests with it (end_lanes),
# and removes the folder.
lanes_dir=
lanes_pid=
# descendants PID: every process below PID, parents before children.
descendants() {
    local kid
    for kid in $(ps -o pid= --ppid "$1" 2>/dev/null); do
        echo "$kid"
        descendants "$kid"
    done
}
end_lanes() {
    if [ -n "$lanes_pid" ]; then
        # Every process below the lanes' make, not its process group: each
        # test runs under timeout(1), in a group of its own (timeout passes
        # the signal on to it).
        # shellcheck disable=SC2046 # one PID per word
        kill -TERM $(descendants "$lanes_pid") "$lanes_pid" 2>/dev/null || true
        lanes_pid=
    fi
    [ -z "$lanes_dir" ] || rm -rf "$lanes_dir"
    lanes_dir=
}
run_lanes() {
    local dir lane passed failed
    dir=$(mktemp -d "${TMPDIR:-/tmp}/strata-lanes.XXXXXX")
    lanes_dir=$dir
    trap end_lanes EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    {
        printf 'all: %s\n' "$*"
        printf '%s:\n' "$*"
        # The + gives the recipe make's jobserver, which the lane's own
        # makes (run without -j) share.
        printf '\t+@%q %q --lane $@ %q >%q/$@.out 2>&1; cat %q/$@.out\n' \
            "$BASH" "$STRATA_ROOT/scripts/test.sh" "$dir" "$dir" "$dir"
    } >"$dir/lanes.mk"
    say "running the lanes $* side by side ($STRATA_TEST_JOBS jobs at a time in all)"
    # In the background, so that a signal's trap runs at once (bash runs it
    # only once a foreground command ends).
    make -s -j"$STRATA_TEST_JOBS" -f "$dir/lanes.mk" &
    lanes_pid=$!
    wait "$lanes_pid" || true
    lanes_pid=
    for lane in "$@"; do
        if [ -f "$dir/$lane.counts" ] && read -r passed failed <"$dir/$lane.counts"; then
            total_passed=$((total_passed + passed))
            total_failed=$((total_failed + failed))
        else
            echo "(the $lane lane did not finish; counting that as one failed test)"
            total_failed=$((total_failed + 1))
        fi
    done
    end_lanes
}

main() {
    if [ "${1:-}" = --lane ]; then
        STRATA_MAKE_JOBS=   # strata_build's make: the lanes' jobserver decides
        run_one_lane "$2" "$3"
        return
    fi
    deps_ensure_required
    deps_ensure_html
    deps_ensure_live
    # Once for all builds, so that a broken configure.ac fails only once.
    if ! (strata_autoreconf); then
        echo "(counting the failed autoreconf as one failed test)"
        total_failed=1
    elif [ "${STRATA_TEST_QUICK:-0}" = 1 ]; then
        run_lanes release
        say "skipped the sanitizer and debug builds (STRATA_TEST_QUICK=1)"
    else
        run_lanes "${LANES[@]}"
        check_every_test_ran build build-san build-debug2
    fi
    printf '%d passed, %d failed\n' "$total_passed" "$total_failed"
    [ "$total_failed" -eq 0 ]
}

main "$@"
