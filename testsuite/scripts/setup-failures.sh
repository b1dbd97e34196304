#!/usr/bin/env bash
# testsuite/scripts/setup-failures.sh -- the interactive suites stop at
# once, with one clear line, when their setup cannot work here: tui.sh
# with a tmux that cannot open a pseudo-terminal, html-browser.sh with a
# browser that does not start.  (Before, tui.sh recorded the failure and
# then waited out every later step, about 16 minutes.)  The `timeout` is
# a guard against that hang, not a measurement.
set -u
. "$(dirname "$0")/lib.sh"

cd "$test_tmp" || exit 1
scripts=$top_srcdir/testsuite/scripts

# A tmux that fails the way it does without a pseudo-terminal.
mkdir fakebin
cat >fakebin/tmux <<'SH'
#!/bin/sh
echo "open terminal failed: not a terminal" >&2
exit 1
SH
chmod +x fakebin/tmux

# run_broken NAME SCRIPT [VAR=VALUE...]: runs SCRIPT with the fake tools
# first on PATH; it must exit 1 (not time out) with exactly one FAIL line,
# a setup line.
run_broken() {
    local name=$1 script=$2 got=0
    shift 2
    env PATH="$test_tmp/fakebin:$PATH" "$@" timeout 600 bash "$scripts/$script" \
        >"$name.out" 2>"$name.err" || got=$?
    if [ "$got" -ne 1 ]; then
        fail "$script with $name exited $got, expected 1; its output:"
        cat "$name.out" "$name.err" | head -n 20 | sed 's/^/    /' >&2
        return
    fi
    pass
    local fails
    fails=$(grep -c ': FAIL: ' "$name.err")
    if [ "$fails" = 1 ] && grep -q "^$script: FAIL: setup: " "$name.err"; then
        pass
    else
        fail "$script with $name printed $fails FAIL lines, expected one setup line:"
        head -n 20 "$name.err" | sed 's/^/    /' >&2
    fi
}

run_broken no-pty tui.sh
expect_stderr_contains "tui.sh: FAIL: setup: tmux cannot start a session (open terminal failed: not a terminal)" no-pty.err

if [ -x "$top_builddir/utils/strata-html/strata-html" ] &&
    [ -d "$top_builddir/utils/node_modules/puppeteer-core" ]; then
    run_broken no-browser html-browser.sh STRATA_CHROMIUM=/bin/false
    expect_stderr_contains "html-browser.sh: FAIL: setup: chromium (/bin/false) does not start: the browser did not start" no-browser.err
fi

finish
