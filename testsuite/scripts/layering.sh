#!/usr/bin/env bash
# testsuite/scripts/layering.sh -- the layering check (scripts/check-layers.sh,
# docs/design/layers.md) passes on the tree, and fails, naming file and
# line, on violations planted in a copy: the storage manager reading the
# flags, a floor of the storage manager reaching up (the heap floor into
# the collector, the collector into allocation), the eventlog writer reading
# the storage manager's caller, the base library reading the runtime's
# messages, the reader reading the writer, a tool compiling against the
# runtime, a tool reading another tool's header, the report library
# reading a tool's, the debugger's client reading the eventlog reader, OS
# headers outside support/os/ (the debug stub's sockets, the profiler's
# open).
set -u
. "$(dirname "$0")/lib.sh"

check=$top_srcdir/scripts/check-layers.sh

expect_status 0 bash "$check" "$top_srcdir"
grep -q '^layers: OK ([1-9][0-9]* includes checked)$' "$out" && pass ||
    fail "the check did not say OK: $(cat "$out" "$err")"

cd "$test_tmp" || exit 1
mkdir tree
for d in includes base support wire sm eventlog reader profiling rts ghc utils; do
    cp -R "$top_srcdir/$d" tree/
done
rm -rf tree/utils/node_modules

# plant FILE TEXT: inserts TEXT as line 3 of FILE in the copy.
plant() {
    sed -i "3i $2" "tree/$1"
}
plant sm/alloc/Storage.c '#include "RtsFlags.h"'
plant sm/heap/Heap.c '#include "GC.h"'
plant sm/block/BlockAlloc.c '#include "Capability.h"'
plant sm/GC.c '#include "Storage.h"'
plant eventlog/EventLog.c '#include "ProfHeap.h"'
plant utils/strata-events/main.c '#include "Storage.h"'
plant wire/DebugWire.c '#include "Messages.h"'
plant base/StrIndex.c '#include "Messages.h"'
plant reader/IpeTable.c '#include "EventLog.h"'
plant rts/debug/DebugServer.c '#include <sys/socket.h>'
plant profiling/ElfSymbols.c '#include <unistd.h>'
plant support/os/File.c '#include <sys/mman.h>'
plant utils/strata-debug/main.c '#include <poll.h>'
plant utils/strata-live/Send.c '#include "CmdOptions.h"'
plant utils/report/Profile.c '#include "LivePage.h"'
plant utils/debug-client/Search.c '#include "EventLogReader.h"'
plant utils/cli/Cli.c '#include "TextOut.h"'

plant ghc/StubHeap.c '#include "strata/Closures.h"'
plant ghc/StubRoots.c '#include "Storage.h"'
plant ghc/StubView.c '#include "os/Thread.h"'
plant ghc/StubServer.c '#include <sys/socket.h>'
expect_status 1 bash "$check" tree
expect_stderr_contains 'sm/alloc/Storage.c:3: layer sm-alloc includes "RtsFlags.h" (rts/RtsFlags.h, layer rts), which it may not: sm-alloc may include includes base support wire sm-block sm-heap sm sm-alloc'
expect_stderr_contains 'sm/heap/Heap.c:3: layer sm-heap includes "GC.h" (sm/GC.h, layer sm), which it may not: sm-heap may include includes base support wire sm-block sm-heap'
expect_stderr_contains 'sm/block/BlockAlloc.c:3: layer sm-block includes "Capability.h" (sm/heap/Capability.h, layer sm-heap)'
expect_stderr_contains 'sm/GC.c:3: layer sm includes "Storage.h" (sm/alloc/Storage.h, layer sm-alloc)'
expect_stderr_contains 'eventlog/EventLog.c:3: layer eventlog includes "ProfHeap.h" (profiling/ProfHeap.h, layer profiling)'
expect_stderr_contains 'utils/strata-events/main.c:3: layer tool-strata-events includes "Storage.h" (sm/alloc/Storage.h, layer sm-alloc)'
expect_stderr_contains 'utils/strata-live/Send.c:3: layer tool-strata-live includes "CmdOptions.h" (utils/strata-debug/CmdOptions.h, layer tool-strata-debug), which it may not'
expect_stderr_contains 'utils/report/Profile.c:3: layer utils-report includes "LivePage.h" (utils/strata-live/LivePage.h, layer tool-strata-live)'
expect_stderr_contains 'utils/debug-client/Search.c:3: layer utils-debug-client includes "EventLogReader.h" (reader/EventLogReader.h, layer reader)'
expect_stderr_contains 'utils/cli/Cli.c:3: layer utils-cli includes "TextOut.h" (wire/TextOut.h, layer wire), which it may not: utils-cli may include includes base utils-cli'
expect_stderr_contains 'wire/DebugWire.c:3: layer wire includes "Messages.h" (support/Messages.h, layer support)'
expect_stderr_contains 'base/StrIndex.c:3: layer base includes "Messages.h" (support/Messages.h, layer support)'
expect_stderr_contains 'reader/IpeTable.c:3: layer reader includes "EventLog.h" (eventlog/EventLog.h, layer eventlog)'
expect_stderr_contains 'rts/debug/DebugServer.c:3: layer rts includes <sys/socket.h>, an OS header: only support/os/ may'
expect_stderr_contains 'profiling/ElfSymbols.c:3: layer profiling includes <unistd.h>, an OS header'
grep -q 'support/os/File.c' "$err" && fail "support/os/ was refused an OS header: $(cat "$err")" || pass
grep -q 'utils/strata-debug/main.c:3:.*<poll.h>' "$err" && fail "a tool was refused an OS header: $(cat "$err")" || pass
expect_stderr_contains 'ghc/StubHeap.c:3: the GHC stub includes "strata/Closures.h" (includes/strata/Closures.h): of includes/ and support/ it may include only strata/DebugProtocol.h and Messages.h SocketPath.h'
expect_stderr_contains 'ghc/StubRoots.c:3: layer ghc-stub includes "Storage.h" (sm/alloc/Storage.h, layer sm-alloc)'
expect_stderr_contains 'ghc/StubView.c:3: the GHC stub includes "os/Thread.h" (support/os/Thread.h)'
grep -q 'ghc/StubServer.c' "$err" && fail "the GHC stub was refused an OS header: $(cat "$err")" || pass
expect_stderr_contains 'layers: 18 forbidden include(s)'

finish
