#!/usr/bin/env bash
# testsuite/scripts/configure-flags.sh -- configure refuses a bad value of
# --enable-html (--disable-html: no strata-html, no live page), naming
# it, before it checks the compiler; configure.ac reads the option first
# for that.  Runs configure only as far as the refusal, in a scratch
# folder (release build only: nothing built is used).
set -u
. "$(dirname "$0")/lib.sh"

cd "$test_tmp" || exit 1
[ -x "$top_srcdir/configure" ] || setup_fail "$top_srcdir/configure is missing (run autoreconf -fi)"

expect_status 1 "$top_srcdir/configure" -q --enable-html=maybe
expect_stderr_contains "configure: error: --enable-html takes no value, =yes or =no, not 'maybe'"
# Refused before the compiler was looked for: nothing of it in the log.
if grep -q 'checking for gcc' config.log; then
    fail "configure checked the compiler before refusing: $(tail -n 3 config.log)"
else
    pass
fi

finish
