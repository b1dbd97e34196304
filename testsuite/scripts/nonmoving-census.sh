#!/usr/bin/env bash
# testsuite/scripts/nonmoving-census.sh -- heap profiles under
# --nonmoving-gc (Note [A census from the snapshot] in sm/NonMoving.c),
# as a user takes them: examples/leak with -hT, -hi and -he, to the
# eventlog and to a .hp file.  Each automatic census is counted by a
# cycle's mark beside the program, so no cycle runs in a pause except
# exit's (+RTS -s: "N cycles, 1 in a collection's pause"); the censuses
# come out stamped with their snapshots' moments in blocks of their own
# (strata-events check finds no timestamp earlier than the one before
# it, and the censuses' times increase), strata-html reports them, and
# the .hp file's samples are in order.  test_nonmoving_census checks
# that such a census is exact; interop.sh and interop-sid.sh that
# ghc-events 0.17 and 0.20 read these logs.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
html=$top_builddir/utils/strata-html/strata-html
cd "$test_tmp" || exit 1

# cycles_in_pauses FILE: "CYCLES PAUSED" from +RTS -s's CONC line.
cycles_in_pauses() {
    sed -n 's/.*; \([0-9]*\) cycles, \([0-9]*\) in a collection.s pause).*/\1 \2/p' "$1"
}

for mode in hT hi he; do
    expect_status 0 "$ex/leak" 10 400000 +RTS --nonmoving-gc -$mode -i0.01 -l \
        -ol$mode.eventlog -s -RTS
    read -r cycles paused < <(cycles_in_pauses "$err")
    # Only exit's census makes a cycle run whole in its pause.
    [ "${cycles:-0}" -ge 3 ] && [ "${paused:-x}" = 1 ] && pass ||
        fail "-$mode: cycles ${cycles:-?}, in a pause ${paused:-?} (want >= 3, 1): $(grep CONC "$err")"
    taken=$(sed -n 's/.*CENSUS  count \([0-9]*\) taken.*/\1/p' "$err")
    [ "${taken:-0}" -ge 3 ] && pass || fail "-$mode: ${taken:-no} censuses taken"
    expect_status 0 "$events" check $mode.eventlog
    grep -q ': OK: ' "$out" && ! grep -q 'earlier than' "$out" && pass ||
        fail "-$mode: strata-events check: $(cat "$out")"
    # The censuses, in the log's order, at increasing times.
    "$events" show $mode.eventlog | awk '/Start of heap profile sample/ { print $1 + 0 }' \
        >$mode.times
    [ "$(wc -l <$mode.times)" -ge 3 ] && sort -n -c $mode.times 2>/dev/null && pass ||
        fail "-$mode: census times not increasing: $(tr '\n' ' ' <$mode.times)"
    expect_status 0 "$html" --json -o $mode.json $mode.eventlog
    grep -q '"censuses": *[1-9]' $mode.json && pass ||
        fail "-$mode: strata-html's report has no census: $(head -c 300 $mode.json)"
    expect_status 0 "$html" -o $mode.html $mode.eventlog
done

# The .hp file: samples in time order, as many as -s counted (and the
# empty first and last samples hp2ps wants).
expect_status 0 "$ex/leak" 10 400000 +RTS --nonmoving-gc -hT -i0.01 -s -RTS
taken=$(sed -n 's/.*CENSUS  count \([0-9]*\) taken.*/\1/p' "$err")
awk '/^BEGIN_SAMPLE/ { print $2 }' leak.hp >hp.times
[ "$(wc -l <hp.times)" = "$((${taken:-0} + 2))" ] && sort -n -c hp.times 2>/dev/null && pass ||
    fail ".hp: $(wc -l <hp.times) samples (-s: $taken), times $(tr '\n' ' ' <hp.times)"

finish
