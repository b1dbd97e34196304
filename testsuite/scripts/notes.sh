#!/usr/bin/env bash
# testsuite/scripts/notes.sh -- the Notes and invariants check
# (scripts/check-notes.sh, docs/HACKING.md) passes on the tree, and fails,
# naming file and line, on a copy where a Note is cited but never written
# and where a design document names an invariant tag that no code cites.
set -u
. "$(dirname "$0")/lib.sh"

check=$top_srcdir/scripts/check-notes.sh

expect_status 0 bash "$check" "$top_srcdir"
grep -Eq '^notes: OK \([1-9][0-9]* notes, [1-9][0-9]* citations with a file, [1-9][0-9]* invariants\)$' "$out" && pass ||
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
# Two citations that name the wrong file (the Note is in sm/Evac.c), one
# on a line, one broken before "in"; and two that name it rightly.
sed -i "3i * (Note${sp}[Sharing work] in Scav.c)" tree/sm/GCThread.h
sed -i "3i * (Note${sp}[Sharing work]\\n * in sm/Scav.c)" tree/sm/WSDeque.h
sed -i "3i * (Note${sp}[Sharing work] in Evac.c, Note${sp}[Sharing work] in\\n * sm/Evac.c)" tree/sm/Scav.c
printf '\n- `%s`: a planted invariant no code cites.\n' "$tag" >>tree/docs/design/gc.md
expect_status 1 bash "$check" tree
grep -qx 'sm/GC.c:3: Note \[A note nobody wrote\] is cited but defined nowhere' "$out" && pass ||
    fail "the missing Note was not named: $(cat "$out")"
grep -q '^docs/design/gc.md:[0-9]*: \.inv\.planted-orphan is named in the docs but no code checks or cites it$' "$out" &&
    pass || fail "the orphan invariant was not named: $(cat "$out")"
grep -qx 'sm/GCThread.h:3: Note \[Sharing work\] is cited in Scav.c but defined in sm/Evac.c' "$out" &&
    pass || fail "the citation of the wrong file was not named: $(cat "$out")"
grep -qx 'sm/WSDeque.h:3: Note \[Sharing work\] is cited in sm/Scav.c but defined in sm/Evac.c' "$out" &&
    pass || fail "the citation broken before 'in' was not read: $(cat "$out")"
grep -Eq '^notes: 4 problem\(s\)' "$out" && pass || fail "expected exactly 4 problems: $(cat "$out")"

# Written as a Note (title, then a line of ~) in a design document, the
# citation is satisfied once it names that file; cited in a test, so is
# the tag; the citations that named the wrong file name the right one.
printf '\nNote%s[A note nobody wrote]\n~~~~~~~~~~~~~~~~~~~~~~~~~~\nNow written.\n' "$sp" >>tree/docs/design/gc.md
printf '/* %s */\n' "$tag" >>tree/testsuite/unit/test_gc.c
sed -i '3s/Nowhere\.c/gc.md/' tree/sm/GC.c
sed -i '3s/Scav\.c/Evac.c/' tree/sm/GCThread.h
sed -i '4s/Scav\.c/Evac.c/' tree/sm/WSDeque.h
expect_status 0 bash "$check" tree

finish
