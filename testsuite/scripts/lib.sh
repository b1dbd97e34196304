# shellcheck shell=bash
# testsuite/scripts/lib.sh -- helpers for the shell tests `make check` runs.
#
# A test script starts with
#     #!/usr/bin/env bash
#     set -u
#     . "$(dirname "$0")/lib.sh"
# and ends with `finish`.  The makefile exports top_builddir and top_srcdir
# (absolute paths); run one script with `make check TESTS=<script>`.
#
#   expect_status STATUS CMD [ARG...]   run CMD, stdout to $out, stderr to
#                                       $err; fail unless it exits STATUS
#   expect_stderr_contains TEXT [FILE]  fail unless FILE ($err by default)
#                                       contains TEXT, a fixed string
#   fail MSG                            record a failure, MSG to stderr
#   setup_fail MSG                      the test cannot run here (tmux, a
#                                       browser, the program under test did
#                                       not start): one line, exit 1 at once
#   skip DEP MSG                        DEP (a tool, a package, root) is
#                                       missing: exit 77, automake's SKIP;
#                                       a FAIL naming DEP instead when
#                                       STRATA_REQUIRE asks for DEP
#   skip_part DEP MSG                   the same for one part of a script:
#                                       print "SKIPPED: MSG" and go on, or
#                                       record the failure when required
#   need_python3 WHAT                   true if python3 ($python3) is there;
#                                       else skip_part python3 naming WHAT as
#                                       not checked, and false
#   wait_socket PATH [SECONDS]          wait (20 s by default) until PATH is
#                                       a socket; else record a failure
#                                       naming PATH and return 1
#   run_ghc_program NAME CMD [ARG...]   run a program GHC 9.10.3 built to
#                                       its end (stdout NAME.out, stderr
#                                       NAME.prog.err), again if it hangs
#                                       at exit; its status
#   release_first_pass                  true in the release build without
#                                       GHCRTS (the full-length cases)
#   finish                              print "N passed, N failed (S s)",
#                                       exit 0/1
#
# STRATA_REQUIRE is "all" (what .ci/run sets) or a comma-separated list of
# dependencies (e.g. "ghc,chromium"); the unit tests read it too
# (testsuite/unit/require.h).  See docs/HACKING.md.
#
# $test_tmp is a scratch directory, removed when the script exits (so do
# not set an EXIT trap of your own).  The script's background processes
# still running then (a server, the program under test, a browser driver)
# are ended too, whichever way it exits: finish, setup_fail, skip, or make
# check's SIGTERM.

: "${top_builddir:?is not set: run this test through make check}"
: "${top_srcdir:?is not set: run this test through make check}"

test_name=${0##*/}
tests_passed=0
tests_failed=0
test_tmp=$(mktemp -d "${TMPDIR:-/tmp}/strata-test.XXXXXX")
# The background jobs bash still counts as running (`jobs -r`): its own
# children, never a process it has already waited for.
end_background_jobs() {
    local pids
    pids=$(jobs -rp)
    # shellcheck disable=SC2086 # one PID per line, split on purpose
    [ -z "$pids" ] || kill $pids 2>/dev/null || true
}
trap 'end_background_jobs; rm -rf "$test_tmp"' EXIT
# make check ends a test that runs past STRATA_TEST_TIMEOUT with SIGTERM
# (Makefile.am): say so, and what the script was waiting on.
on_timeout() {
    printf '%s: FAIL: stopped by SIGTERM (make check ends a test after STRATA_TEST_TIMEOUT seconds); its processes:\n' \
        "$test_name" >&2
    ps -o pid=,etime=,args= --ppid $$ 2>/dev/null | grep -v ' ps -o ' | sed 's/^/    /' >&2
    printf '%d passed, %d failed\n' "$tests_passed" "$((tests_failed + 1))"
    exit 1
}
trap on_timeout TERM
out=$test_tmp/stdout
err=$test_tmp/stderr

pass() { tests_passed=$((tests_passed + 1)); }

fail() {
    printf '%s: FAIL: %s\n' "$test_name" "$*" >&2
    tests_failed=$((tests_failed + 1))
}

setup_fail() {
    printf '%s: FAIL: setup: %s\n' "$test_name" "$*" >&2
    printf '%d passed, %d failed\n' "$tests_passed" "$((tests_failed + 1))"
    exit 1
}

# need_browser: skips the script unless chromium and puppeteer-core are
# there (it sets $chromium and exports STRATA_NODE_MODULES), then starts
# the script's browser (start_browser).
need_browser() {
    chromium=${STRATA_CHROMIUM:-/usr/bin/chromium}
    [ -x "$chromium" ] ||
        skip chromium "chromium ($chromium) is not installed (apt-get install chromium; scripts/test.sh installs it)"
    export STRATA_NODE_MODULES=$top_builddir/utils/node_modules
    [ -d "$STRATA_NODE_MODULES/puppeteer-core" ] ||
        skip puppeteer-core "puppeteer-core is not installed in $STRATA_NODE_MODULES (make runs npm ci)"
    start_browser
}

# start_browser: one headless chromium for the whole script, which the
# drivers' runs connect to (STRATA_BROWSER_WS, exported;
# browser-session.js) instead of each starting and closing one of their
# own; it ends with the script (end_background_jobs).  Fails once, at
# setup, if the browser cannot start: every check would otherwise time out
# on its own.  Run it in $test_tmp (it writes browser.out there).
start_browser() {
    local pid _
    node "$top_srcdir/testsuite/scripts/browser-session.js" --serve >browser.out 2>&1 &
    pid=$!
    for _ in $(seq 1200); do
        grep -q '^ws://' browser.out && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    STRATA_BROWSER_WS=$(grep -m 1 '^ws://' browser.out) ||
        setup_fail "chromium (${chromium:-${STRATA_CHROMIUM:-/usr/bin/chromium}}) does not start: $(grep -v '^ *at ' browser.out | head -n 1)"
    export STRATA_BROWSER_WS
}

# True if STRATA_REQUIRE asks for the dependency $1.
required() {
    case ",${STRATA_REQUIRE:-}," in
    *,all,* | *,"$1",*) return 0 ;;
    esac
    return 1
}

skip() {
    local dep=$1
    shift
    if required "$dep"; then
        printf '%s: FAIL: missing %s (STRATA_REQUIRE=%s): %s\n' "$test_name" "$dep" \
            "$STRATA_REQUIRE" "$*" >&2
        printf '%d passed, %d failed\n' "$tests_passed" "$((tests_failed + 1))"
        exit 1
    fi
    printf '%s: SKIP: %s\n' "$test_name" "$*"
    exit 77
}

skip_part() {
    local dep=$1
    shift
    if required "$dep"; then
        fail "missing $dep (STRATA_REQUIRE=$STRATA_REQUIRE): $*"
    else
        echo "SKIPPED: $*"
    fi
}

# python3 is a required Debian package (scripts/deps.sh); STRATA_PYTHON3
# names another interpreter (require.sh names one that is not there).
python3=${STRATA_PYTHON3:-python3}
need_python3() {
    command -v "$python3" >/dev/null 2>&1 && return 0
    skip_part python3 "python3 ($python3) is not installed (apt-get install python3): $* not checked"
    return 1
}

# True when the tests run again with the non-moving old generation
# (scripts/test.sh's GHCRTS=--nonmoving-gc), which refuses -G1 and, at
# -G2, --promote-in-place=always: the runs that need those say so and are
# left to the first pass.
nonmoving_rerun() {
    case " ${GHCRTS:-} " in
    *" --nonmoving-gc "* | *" -xn "*) return 0 ;;
    esac
    return 1
}

# True in the release build's first pass (no sanitizer, no assertions, no
# GHCRTS), where a few scripts run their longest sanity-checked cases in
# full; the other builds and the reruns run the same cases shorter
# (docs/HACKING.md, "What scripts/test.sh runs where").
release_first_pass() {
    [ -z "${SAN_CFLAGS:-}" ] && [ -z "${GHCRTS:-}" ] &&
        grep -q '^#define STRATA_DEBUG 0$' "$top_builddir/config.h"
}

expect_status() {
    local want=$1 got=0
    shift
    "$@" >"$out" 2>"$err" || got=$?
    if [ "$got" -eq "$want" ]; then
        pass
    else
        fail "'$*' exited with $got, expected $want; its stderr begins:"
        head -n 20 "$err" | sed 's/^/    /' >&2
    fi
}

expect_stderr_contains() {
    local file=${2:-$err} what=${2:-the stderr of the last command}
    if grep -qF -e "$1" "$file"; then
        pass
    else
        fail "expected '$1' in $what, which begins:"
        head -n 20 "$file" | sed 's/^/    /' >&2
    fi
}

wait_socket() {
    local tries=$((${2:-20} * 10))
    for _ in $(seq "$tries"); do
        [ -S "$1" ] && return 0
        sleep 0.1
    done
    fail "no socket appeared at $1"
    return 1
}

# GHC 9.10.3's runtime often deadlocks in hs_exit when
# --eventlog-flush-interval is set (so the tests do not set it): hs_exit
# joins the ticker thread while the ticker, in an eventlog flush, waits for
# a capability hs_exit holds (gdb: exitTicker in pthread_join;
# acquireAllCapabilities in the ticker).  Its work and output are done by
# then, but it never exits and its log never gets its end.  As a guard
# against such a hang, a run still going after 90 s (a run takes seconds)
# is killed and run again, three times at most.
run_ghc_program() {
    local name=$1 try st=0
    shift
    for try in 1 2 3; do
        st=0
        timeout --kill-after=5 90 "$@" >"$name.out" 2>"$name.prog.err" || st=$?
        [ "$st" -ne 124 ] && [ "$st" -ne 137 ] && return "$st"
        echo "$name: GHC 9.10.3's program did not exit within 90 s (try $try of 3)"
    done
    return "$st"
}

finish() {
    # The time lets a slow suite be traced to its script (automake's logs
    # keep no times).
    printf '%d passed, %d failed (%d s)\n' "$tests_passed" "$tests_failed" "$SECONDS"
    [ "$tests_failed" -eq 0 ] && exit 0
    exit 1
}
