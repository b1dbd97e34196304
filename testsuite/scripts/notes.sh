#!/usr/bin/env bash
# testsuite/scripts/notes.sh -- the Notes and invariants check
# (scripts/check-notes.sh, docs/HACKING.md) passes on the tree, and fails,
# naming file and line, on a copy where a Note is cited but never written
# and where a design document names an invariant tag that no code cites.
set -u
. "$(dirname "$0")/lib.sh"

check=$top_srcdir/scripts/check-notes.sh

expect_status 0 bash "$check" "$top_srcdir"
grep -Eq '^notes: OK \([1-9][0-9]* notes, [1-9][0-9]* invariants\)$' "$out" && pass ||
    fail "the check did not say OK: $(cat "$out" "$err")"

cd "$test_tmp" || exit 1
mkdir tree
for d in base support wire sm eventlog reader profiling rts ghc includes utils testsuite bench \
    examples scripts docs; do
    cp -R "$top_srcdir/$d" tree/
done
rm -rf tree/utils/node_modules
cp "$top_srcdir/README.md" tree/

# A citation of a Note nobody wrote, and a tag only the docs know.
# Both are spelt in pieces here, so that this script (which the check
# reads, in the copy too) neither cites the Note nor the tag itself.
sp=' '
tag=.inv.planted-
tag=${tag}orphan
sed -i "3i * See Note${sp}[A note nobody wrote] in Nowhere.c." tree/sm/GC.c
printf '\n- `%s`: a planted invariant no code cites.\n' "$tag" >>tree/docs/design/gc.md
expect_status 1 bash "$check" tree
grep -qx 'sm/GC.c:3: Note \[A note nobody wrote\] is cited but defined nowhere' "$out" && pass ||
    fail "the missing Note was not named: $(cat "$out")"
grep -q '^docs/design/gc.md:[0-9]*: \.inv\.planted-orphan is named in the docs but no code checks or cites it$' "$out" &&
    pass || fail "the orphan invariant was not named: $(cat "$out")"
grep -Eq '^notes: 2 problem\(s\)' "$out" && pass || fail "expected exactly 2 problems: $(cat "$out")"

# Written as a Note (title, then a line of ~) in a design document, the
# citation is satisfied; cited in a test, so is the tag.
printf '\nNote%s[A note nobody wrote]\n~~~~~~~~~~~~~~~~~~~~~~~~~~\nNow written.\n' "$sp" >>tree/docs/design/gc.md
printf '/* %s */\n' "$tag" >>tree/testsuite/unit/test_gc.c
expect_status 0 bash "$check" tree

finish
