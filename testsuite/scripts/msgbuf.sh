#!/usr/bin/env bash
# testsuite/scripts/msgbuf.sh -- bench/workloads/msgbuf's strata program
# (the latency benchmark's message buffer), built by make check: both
# kinds of message keep the last window intact through collections under
# the sanity checker and a tiny nursery (the checksum is that of the
# messages the window must hold), the worst push is reported, bad
# arguments get the usage line, and strata-events pauses reads its
# eventlog with one pause per collection, and with --nonmoving-gc one
# more per sync run in a pause of its own; -s's SYNC line is printed at
# -N1 under --nonmoving-gc only.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

prog=$top_builddir/bench/workloads/msgbuf/msgbuf
events=$top_builddir/utils/strata-events/strata-events
[ -x "$prog" ] || setup_fail "$prog has not been built"
cd "$test_tmp" || exit 1

# want_checksum WINDOW PUSHES: the first, middle and last byte (all
# i mod 256) of each message i the window holds at the end.
want_checksum() {
    awk -v w="$1" -v n="$2" 'BEGIN {
        s = 0
        for (i = (n > w ? n - w : 0); i < n; i++) s += 3 * (i % 256)
        print s }'
}

# The 4096-message window (4 MiB, 32 cards of its array) is pushed three
# windows' worth: every slot is overwritten twice after the array is old,
# in about 2,000 checked minor collections and 5 major ones (20000
# pushes, 3,300 and 7, took 1.9 times the CPU).
for mode in pinned movable; do
    for size in "200 5000" "1000 300" "1 0" "4096 12288"; do
        read -r w n <<<"$size"
        # shellcheck disable=SC2086 # the size is two words
        expect_status 0 "$prog" $size $mode +RTS -DS -A8k -RTS
        want="msgbuf window=$w pushes=$n checksum=$(want_checksum "$w" "$n")"
        [ "$(cat "$out")" = "$want" ] && pass ||
            fail "msgbuf $size $mode: printed '$(cat "$out")', expected '$want'"
        grep -qE '^worst push: [0-9]+\.[0-9]{3} ms$' "$err" && pass ||
            fail "msgbuf $size $mode: no worst push on stderr: $(cat "$err")"
    done
done
# pinned is the default.
expect_status 0 "$prog" 300 3000
expect_stderr_contains "checksum=$(want_checksum 300 3000)" "$out"

usage="usage: $prog WINDOW PUSHES [pinned|movable] [+RTS ... -RTS]"
for args in "" "10" "abc 10" "0 10" "10 -1" "10 10x" "10 10 sideways" "10 10 movable extra"; do
    # shellcheck disable=SC2086 # the arguments are words
    expect_status 2 "$prog" $args
    expect_stderr_contains "$usage"
done

# Its eventlog: as many pauses as the summary counts collections.
if [ -x "$events" ]; then
    expect_status 0 "$prog" 2000 40000 movable +RTS -A64k -l-ag -olmsgbuf.eventlog -s -RTS
    colls=$(awk '/^  Gen +[0-9]+ +[0-9]+ colls/ { n += $3 } END { print n + 0 }' "$err")
    expect_status 0 "$events" pauses msgbuf.eventlog
    pauses=$(sed -n 's/^pauses: \([0-9]*\) .*/\1/p' "$out")
    [ "$colls" -gt 10 ] && [ "$pauses" = "$colls" ] && pass ||
        fail "strata-events pauses found $pauses pauses in a run of $colls collections: $(cat "$out")"
    grep -q 'stops of the world' "$err" && fail "-N1 -s printed the SYNC line: $(grep SYNC "$err")"
    # With --nonmoving-gc each cycle's sync is a pause of its own
    # (CONC_SYNC_BEGIN to CONC_SYNC_END), or inside the pause of the
    # collection that ran it: one pause per collection, and one per sync
    # -s counts as a pause of its own, none counted twice.  -N1 prints the
    # SYNC line (the stops wait for the mark thread).
    expect_status 0 "$prog" 20000 200000 +RTS --nonmoving-gc -l-ag -olnm.eventlog -s -RTS
    expect_stderr_contains "checksum=$(want_checksum 20000 200000)" "$out"
    expect_stderr_contains 'stops of the world'
    cycles=$(sed -n 's/^  CONC    time .*; \([0-9]*\) cycles, .*/\1/p' "$err")
    own=$(sed -n 's/^  CONC    sync  \([0-9]*\) pauses, .*/\1/p' "$err")
    colls=$(awk '/^  Gen +[0-9]+ +[0-9]+ colls/ { n += $3 } END { print n + 0 }' "$err")
    expect_status 0 "$events" pauses nm.eventlog
    read -r gcs syncs both < <(sed -n 's/^pauses: [0-9]* (\([0-9]*\) GC, \([0-9]*\) sync, \([0-9]*\) both).*/\1 \2 \3/p' "$out")
    [ "${cycles:-0}" -ge 1 ] && [ "${syncs:-x}" = "${own:-y}" ] &&
        [ $((${gcs:-0} + ${both:-0})) = "$colls" ] && pass ||
        fail "strata-events pauses found ${gcs:-?} GC, ${syncs:-?} sync and ${both:-?} both for $colls collections, ${own:-?} syncs of their own, ${cycles:-?} cycles: $(cat "$out")"
    expect_status 0 "$events" check nm.eventlog
else
    setup_fail "$events has not been built"
fi

finish
