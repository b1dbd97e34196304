#!/usr/bin/env bash
# testsuite/scripts/layering.sh -- the layering check (scripts/check-layers.sh,
# docs/design/layers.md) passes on the tree, and fails, naming file and
# line, on violations planted in a copy: the storage manager reading the
# flags, the eventlog writer reading the storage manager's caller, a tool
# compiling against the runtime.
set -u
. "$(dirname "$0")/lib.sh"

check=$top_srcdir/scripts/check-layers.sh

expect_status 0 bash "$check" "$top_srcdir"
grep -q '^layers: OK ([1-9][0-9]* includes checked)$' "$out" && pass ||
    fail "the check did not say OK: $(cat "$out" "$err")"

cd "$test_tmp" || exit 1
mkdir tree
for d in includes support wire sm eventlog profiling rts utils; do
    cp -R "$top_srcdir/$d" tree/
done
rm -rf tree/utils/node_modules

# plant FILE TEXT: inserts TEXT as line 3 of FILE in the copy.
plant() {
    sed -i "3i $2" "tree/$1"
}
plant sm/Storage.c '#include "RtsFlags.h"'
plant eventlog/EventLog.c '#include "ProfHeap.h"'
plant utils/strata-events/main.c '#include "Storage.h"'
plant wire/DebugWire.c '#include "Messages.h"'

expect_status 1 bash "$check" tree
expect_stderr_contains 'sm/Storage.c:3: layer sm includes "RtsFlags.h" (rts/RtsFlags.h, layer rts), which it may not: sm may include includes support wire sm'
expect_stderr_contains 'eventlog/EventLog.c:3: layer eventlog includes "ProfHeap.h" (profiling/ProfHeap.h, layer profiling)'
expect_stderr_contains 'utils/strata-events/main.c:3: layer utils includes "Storage.h" (sm/Storage.h, layer sm)'
expect_stderr_contains 'wire/DebugWire.c:3: layer wire includes "Messages.h" (support/Messages.h, layer support)'
expect_stderr_contains 'layers: 4 forbidden include(s)'

finish
