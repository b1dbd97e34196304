#!/usr/bin/env bash
# testsuite/scripts/doc-examples.sh -- the docs' examples are what the
# programs print now: scripts/doc-examples.py --check runs every command
# of the ```console blocks of docs/strata-debug.md and
# docs/strata-debug-tutorial.md against this build, each after waiting
# for the state its block documents (the era a running program is in,
# named by a "doc-examples: wait until" comment beside the block), and
# compares each line shown, addresses, counts and the eras of moments
# normalised (the script says which and why), source locations such as
# rts/StgInfo.c:23 and an object's era exactly; and README.md's RTS flags
# table with what `+RTS -?` prints.  On a difference, run
# scripts/doc-examples.py (it rewrites the docs from one run's output)
# and commit the result.
set -u
. "$(dirname "$0")/lib.sh"

cd "$test_tmp" || exit 1
if need_python3 "the docs' examples against the programs' output"; then
    if "$python3" "$top_srcdir/scripts/doc-examples.py" --check --build "$top_builddir" \
            --work "$test_tmp" >check.out 2>&1; then
        pass
    else
        fail "the docs' examples are not what the programs print (run scripts/doc-examples.py):
$(head -n 40 check.out)"
    fi

    # Bad directives and states never reached: a message that names the
    # line and what was wrong, no traceback, no hang.
    leak='build/examples/leak 100000 20000 +RTS --debug-socket=/tmp/bad.sock -RTS &'
    census='$ strata-debug census --socket /tmp/bad.sock --by era'
    bad_doc() {   # bad_doc EXPECTED LINE...: a doc of these lines fails, saying EXPECTED
        local expected=$1
        shift
        printf '%s\n' "$@" >bad.md
        expect_status 1 "$python3" "$top_srcdir/scripts/doc-examples.py" --check \
            --build "$top_builddir" --work "$test_tmp" --deadline 5 --docs "$test_tmp/bad.md"
        grep -qF -- "$expected" "$out" || fail "bad doc ($*): no '$expected' in: $(cat "$out")"
        if grep -q Traceback "$out" "$err"; then fail "bad doc ($*): a traceback"; fi
    }
    bad_doc "bad.md:1: a doc-examples directive that does not read as" \
        '<!-- doc-examples: wait for /tmp/bad.sock -->' '```console' "\$ $leak" "$census" '```'
    bad_doc 'bad.md:1: a doc-examples directive that names no command of the console block after it (before "strata-debug snapshot")' \
        '<!-- doc-examples: before "strata-debug snapshot", wait until /tmp/bad.sock is in era 2 -->' \
        '```console' "\$ $leak" "$census" '```'
    bad_doc 'bad.md:3 (the console block at line 1): $ strata-debug census --socket /tmp/bad.sock --by era: queries /tmp/bad.sock with no "wait until /tmp/bad.sock ..." directive' \
        '```console' "\$ $leak" "$census" '```'
    bad_doc '/tmp/bad.sock did not reach era 1000000000 within 5 s (last seen: era ' \
        '<!-- doc-examples: wait until /tmp/bad.sock is in era 1000000000 -->' \
        '```console' "\$ $leak" "$census" '```'
    bad_doc 'no socket at /tmp/bad.sock after 5 s (the program exited with status 1: ' \
        '```console' '$ build/examples/leak +RTS --debug-socket=/tmp/bad.sock --no-such-flag -RTS &' '```'
    bad_doc 'waits for new-era+K with no snapshot --new-era before it' \
        '<!-- doc-examples: wait until /tmp/bad.sock is in era new-era+1 -->' \
        '```console' "\$ $leak" "$census" '```'
fi
finish
