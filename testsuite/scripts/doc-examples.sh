#!/usr/bin/env bash
# testsuite/scripts/doc-examples.sh -- the docs' examples are what the
# programs print now: scripts/doc-examples.py --check runs every command
# of the ```console blocks of docs/strata-debug.md and
# docs/strata-debug-tutorial.md against this build and compares each line
# shown (addresses, counts, eras and times aside; source locations such
# as rts/StgInfo.c:23 exactly), and README.md's RTS flags table with what
# `+RTS -?` prints.  On a difference, run scripts/doc-examples.py (it
# rewrites the docs from the programs' output) and commit the result.
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
fi
finish
