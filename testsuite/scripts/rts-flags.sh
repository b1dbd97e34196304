#!/usr/bin/env bash
# testsuite/scripts/rts-flags.sh -- RTS flags on a real program: bad flags
# make examples/bintrees print GHC's message and the +RTS -? hint on
# stderr and exit 1; good flags (on the command line and in GHCRTS) run it
# to completion, and -s/-S/--info print what they should.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

prog=$top_builddir/examples/bintrees
[ -x "$prog" ] || skip "${prog##*/}" "$prog has not been built"
name=${prog##*/}
hint="$name: use \`+RTS -?' for a list of RTS options"
all=$test_tmp/all   # stdout and stderr together

# run STATUS ARG...: runs the program (without any inherited GHCRTS) on
# depth 4 and the given arguments, expecting STATUS.
run() {
    local want=$1
    shift
    expect_status "$want" env -u GHCRTS "$prog" 4 "$@"
}

# bad MESSAGE ARG...: the arguments must be rejected with MESSAGE.
bad() {
    local message=$1
    shift
    run 1 "$@"
    expect_stderr_contains "$name: $message"
    expect_stderr_contains "$hint"
}

# --- Bad flags -----------------------------------------------------------
bad "unknown RTS option: -hZ" +RTS -hZ -RTS
bad "-A: size must be at least 8k (got 4k)" +RTS -A4k -RTS
bad "-G: number of generations must be at least 1 (got 0)" +RTS -G0 -RTS
bad "-F: factor must be greater than 0 (got -1)" +RTS -F-1 -RTS
bad "-M: bad size 'foo'" +RTS -Mfoo -RTS
bad "bad value for -i" +RTS -i-1 -RTS
bad "bad value for --exit-wait" +RTS --exit-wait=-1 -RTS
bad "bad value for --exit-wait" +RTS --exit-wait=soon -RTS
bad "--exit-wait: expected =<secs> (got nothing)" +RTS --exit-wait -RTS
bad "--census-gc: expected budget or every-tick (got 'sometimes')" +RTS -hT --census-gc=sometimes -RTS
bad "--census-gc: expected =budget or =every-tick (got nothing)" +RTS --census-gc -RTS
bad "--prefault: expected auto, always or never (got 'sometimes')" +RTS --prefault=sometimes -RTS
bad "--prefault: expected =auto, =always or =never (got nothing)" +RTS --prefault -RTS
bad "--promote-in-place: expected auto, always or never (got 'sometimes')" +RTS --promote-in-place=sometimes -RTS
bad "--promote-in-place: expected =auto, =always or =never (got nothing)" +RTS --promote-in-place -RTS
bad "unknown RTS option: --nonmoving-gc=yes" +RTS --nonmoving-gc=yes -RTS
bad "flag -xn given an argument when none was expected: -xn2" +RTS -xn2 -RTS
bad "unknown RTS option: -xq" +RTS -xq -RTS
# Flags the non-moving generation cannot honour are named, in either order.
bad "--nonmoving-gc cannot be used with -G1" +RTS --nonmoving-gc -G1 -RTS
bad "-F: factor must be greater than 0 (got 0)" +RTS --nonmoving-gc -F0 -RTS
bad "--nonmoving-gc cannot be used with -G1" +RTS -G1 -xn -RTS
bad "--nonmoving-gc cannot be used with --promote-in-place=always at -G2" \
    +RTS --promote-in-place=always --nonmoving-gc -RTS
bad "-ol expects filename" +RTS -ol -RTS
bad "unknown trace option: Z" +RTS -lZ -RTS
bad "-A: size must be at most 128t (got 99999999999999g)" +RTS -A99999999999999g -RTS
bad "flag -? given an argument when none was expected: -?x" +RTS '-?x' -RTS
bad "unexpected RTS argument: foo" +RTS foo -RTS
bad "multiple heap profile options" +RTS -hT -hi -RTS
# An unterminated +RTS group runs to the end of the arguments.
bad "unknown RTS option: -hZ" +RTS -hZ

# In GHCRTS, too.
expect_status 1 env GHCRTS='-A4k' "$prog" 4
expect_stderr_contains "$name: -A: size must be at least 8k (got 4k)"
expect_stderr_contains "$hint"

# -? prints the usage text and exits 1, as GHC does (no hint needed).
run 1 +RTS '-?' -RTS
cat "$out" "$err" >"$all"
expect_stderr_contains "Usage:" "$all"
expect_stderr_contains "-A<size>" "$all"

# A stats file that cannot be opened.
run 1 +RTS "-s$test_tmp/no-such-dir/stats" -RTS
expect_stderr_contains "$name: cannot open stats file $test_tmp/no-such-dir/stats: "

# --- Good flags ----------------------------------------------------------
run 0 +RTS -A64k -G3 -F1.5 -s -RTS
expect_stderr_contains "bytes allocated in the heap"
expect_stderr_contains "  Gen  2 "          # -G3: three generation lines
expect_stderr_contains "  Productivity "

run 0 +RTS -A64k -RTS +RTS -G3 -RTS          # several groups
run 0 +RTS -A1.5m -M64m -i0.5 -l-s --eventlog-flush-interval=1 \
    "-ol$test_tmp/run.eventlog" -RTS

expect_status 0 env GHCRTS='-A64k' "$prog" 4
expect_status 0 env GHCRTS='-A64k -G3' "$prog" 4 +RTS -G2 -RTS

run 0 +RTS -S -RTS
expect_stderr_contains "    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts"
expect_stderr_contains "bytes allocated in the heap"   # -S implies -s

run 0 +RTS "-s$test_tmp/stats.txt" -RTS
if [ -f "$test_tmp/stats.txt" ]; then
    expect_stderr_contains "bytes allocated in the heap" "$test_tmp/stats.txt"
else
    fail "+RTS -s$test_tmp/stats.txt wrote no file"
fi

# The prefault helper: -s says how much of the heap the helper faulted
# in; never, and it says nothing.  At depth 16 (a sixth of depth 18's
# work) the helper faults in 3 MiB when always and 4 MiB by default, so a
# never that is ignored is seen.
expect_status 0 env -u GHCRTS "$prog" 16 +RTS --prefault=always -s -RTS
expect_stderr_contains "MiB faulted in ahead of the heap (prefault helper)"
expect_status 0 env -u GHCRTS "$prog" 16 +RTS --prefault=never -s -RTS
if grep -q "faulted in ahead" "$err"; then
    fail "--prefault=never: -s still reports memory faulted in ahead"
fi

# Promotion in place: at depth 18 the trees of depth 16 and 18 outgrow a
# 64 KiB nursery, so most minor GCs find it nearly all alive and promote
# it whole; -s says how much, and with never it says nothing.
expect_status 0 env -u GHCRTS "$prog" 18 +RTS -A64k -s -RTS
expect_stderr_contains "bytes promoted in place ("
expect_status 0 env -u GHCRTS "$prog" 18 +RTS -A64k --promote-in-place=never -s -RTS
if grep -q "promoted in place" "$err"; then
    fail "--promote-in-place=never: -s still reports bytes promoted in place"
fi

# The non-moving old generation, by either name; -G3 keeps promotion in
# place into generation 1, which copies.
for nm in --nonmoving-gc -xn; do
    run 0 +RTS $nm -A64k -DS -RTS
    expect_stderr_contains "long lived tree of depth 6" "$out"
done
run 0 +RTS --nonmoving-gc -G3 --promote-in-place=always -A64k -DS -RTS
# -F is the generation's peak over what the last mark found live (Note [A
# cycle's budget from what its mark found live]); -s gives the mark
# thread's CPU time.
run 0 +RTS --nonmoving-gc -F1.2 -A64k -DS -s -RTS
expect_stderr_contains "long lived tree of depth 6" "$out"
if ! grep -Eq '^  CONC    time +[0-9]+\.[0-9]{3}s  \( *[0-9.]+s elapsed marking' "$err"; then
    fail "--nonmoving-gc -s: no mark thread CPU time on the CONC time line"
fi
# ... and what the collections did for a cycle that lagged (Note [A
# collection helps a lagging cycle]).
if ! grep -Eq '^  CONC    help  [0-9]+ collections helped a lagging cycle: [0-9]+ objects' "$err"; then
    fail "--nonmoving-gc -s: no CONC help line"
fi

run 0 +RTS --info -RTS
cat "$out" "$err" >"$all"
expect_stderr_contains ' [("GHC RTS", "NO")' "$all"
expect_stderr_contains ' ,("RTS name", "strata")' "$all"

finish
