#!/usr/bin/env bash
# testsuite/scripts/sizes.sh -- the size check (scripts/check-sizes.sh,
# docs/HACKING.md "Sizes") passes on the tree, and fails, naming file,
# line and length, on what is planted in a copy: a function of 101 lines
# in a tool and in the runtime, a tool's file, a runtime file and a header
# of 801 lines, and an allow-list entry whose function is short.  A
# function of exactly 100 lines and a file of exactly 800 pass, and an
# allowed long function passes.
set -u
. "$(dirname "$0")/lib.sh"

check=$top_srcdir/scripts/check-sizes.sh

expect_status 0 bash "$check" "$top_srcdir"
grep -q '^sizes: OK ([1-9][0-9]* functions in [1-9][0-9]* files checked)$' "$out" && pass ||
    fail "the check did not say OK: $(cat "$out" "$err")"

cd "$test_tmp" || exit 1
mkdir tree
for d in base support wire sm eventlog reader profiling rts ghc utils; do
    cp -R "$top_srcdir/$d" tree/
done
rm -rf tree/utils/node_modules

# function NAME N: a C function NAME whose body, braces included, is N lines.
function_of() {
    printf 'static int %s(int x)\n{\n' "$1"
    for ((i = 0; i < $2 - 3; i++)); do
        printf '    x += %d;\n' "$i"
    done
    printf '    return x;\n}\n'
}
function_of tool_too_long 101 >>tree/utils/strata-events/ShowCmd.c
function_of tool_just_fits 100 >>tree/utils/strata-events/CheckCmd.c
function_of runtime_too_long 101 >>tree/sm/alloc/Storage.c
function_of runtime_allowed 120 >>tree/rts/RtsFlags.c
n=$(wc -l <tree/sm/block/BlockAlloc.c)
for ((i = n; i < 800; i++)); do echo "/* filler */"; done >>tree/sm/block/BlockAlloc.c
n=$(wc -l <tree/sm/GC.c)
for ((i = n; i < 801; i++)); do echo "/* filler */"; done >>tree/sm/GC.c
n=$(wc -l <tree/eventlog/EventBuffers.h)
for ((i = n; i < 801; i++)); do echo "/* filler */"; done >>tree/eventlog/EventBuffers.h
for ((i = 0; i < 801; i++)); do echo "/* filler */"; done >tree/utils/strata-events/filler.c
show_start=$(($(wc -l <"$top_srcdir/utils/strata-events/ShowCmd.c") + 2))
storage_start=$(($(wc -l <"$top_srcdir/sm/alloc/Storage.c") + 2))

STRATA_SIZES_ALLOWED='rts/RtsFlags.c:runtime_allowed reader/IpeTable.c:evr_ipe_table_find' \
    expect_status 1 bash "$check" tree
expect_stderr_contains "utils/strata-events/ShowCmd.c:$show_start: function tool_too_long is 101 lines long; at most 100"
expect_stderr_contains "sm/alloc/Storage.c:$storage_start: function runtime_too_long is 101 lines long; at most 100"
expect_stderr_contains 'utils/strata-events/filler.c: 801 lines; a file has at most 800'
expect_stderr_contains 'sm/GC.c: 801 lines; a file has at most 800'
expect_stderr_contains 'eventlog/EventBuffers.h: 801 lines; a file has at most 800'
expect_stderr_contains 'reader/IpeTable.c:evr_ipe_table_find: allowed over 100 lines but is not'
expect_stderr_contains 'sizes: 6 over the limit'
for ok in tool_just_fits runtime_allowed BlockAlloc.c; do
    grep -q "$ok" "$err" && fail "$ok was refused: $(cat "$err")" || pass
done

finish
