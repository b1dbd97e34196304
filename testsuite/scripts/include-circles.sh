#!/usr/bin/env bash
# testsuite/scripts/include-circles.sh -- .inv.sm-floors beyond what
# check-layers.sh sees (docs/design/storage.md, Floors): no include circle
# among the storage manager's modules holds a file of the block, heap or
# allocation floor, on the tree; and scripts/include-circles.py --floors
# finds one planted inside the heap floor of a copy (capabilities reading
# the nursery that reads the capabilities), which check-layers.sh, reading
# floors and not modules, lets through.  And utils/ and rts/ hold no
# circle at all (issue 48), which one planted in a copy of the TUI breaks.
set -u
. "$(dirname "$0")/lib.sh"

command -v "$python3" >/dev/null || skip python3 "python3 ($python3) is not installed"
circles=$top_srcdir/scripts/include-circles.py

expect_status 0 "$python3" "$circles" --floors "$top_srcdir"

cd "$test_tmp" || exit 1
mkdir tree
cp -R "$top_srcdir/sm" "$top_srcdir/includes" tree/
sed -i '3i #include "Nursery.h"' tree/sm/heap/Capability.c
expect_status 1 "$python3" "$circles" --floors tree
expect_stderr_contains 'include-circles: a circle holds files of the floors (.inv.sm-floors): '
grep -Eq '^[0-9]+ modules: .*Capability .*Nursery' "$out" && pass ||
    fail "the planted circle was not reported: $(cat "$out")"
expect_status 0 bash "$top_srcdir/scripts/check-layers.sh" tree

expect_status 0 "$python3" "$circles" "$top_srcdir" utils rts
grep -qx 'no include circle' "$out" && pass ||
    fail "utils/ or rts/ has an include circle: $(cat "$out")"
cp -R "$top_srcdir/utils" "$top_srcdir/rts" tree/
rm -rf tree/utils/node_modules
sed -i '3i #include "TuiHeap.h"' tree/utils/strata-debug/tui/TuiHeapState.c
expect_status 0 "$python3" "$circles" tree utils rts
grep -Eq '^[0-9]+ modules: (.* )?TuiHeap .*TuiHeapState' "$out" && pass ||
    fail "the circle planted in the TUI was not reported: $(cat "$out")"

finish
