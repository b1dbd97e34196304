#!/usr/bin/env bash
# testsuite/scripts/interop.sh -- real consumers read what strata writes,
# and strata's reader reads what GHC writes:
#   - Debian's ghc-events 0.17 parses our -hT and -hi eventlogs (markers,
#     user messages, every heap event) without error, and every -hi label
#     has its IPE event (testsuite/interop/GhcEventsCheck.hs);
#   - it rejects our -he logs (breakdown 9 needs ghc-events >= 0.20): the
#     documented limitation, checked so that we notice if it changes;
#   - hp2ps renders our .hp files;
#   - it parses a log whose user messages were not UTF-8 or too long
#     (strata repairs them);
#   - it parses a stream saved by an eventlog socket client that connected
#     late (the replayed preamble: every -hi label still has its IPE);
#   - it parses a log of sampled allocations (strata's own events, which
#     it skips by their declared sizes);
#   - strata-events reads an eventlog written by GHC 9.0.2 itself;
#   - IPE events derived from DWARF carry names and file:line (IpeDump.hs);
#   - the show goldens of strata-events.sh hold what ghc-events reads in
#     their logs, field by field (ShowEvents.hs).
# Needs ghc and libghc-ghc-events-dev; skips, saying so, without them
# (fails instead under STRATA_REQUIRE=all, as in CI).
set -u
. "$(dirname "$0")/lib.sh"

command -v ghc >/dev/null || skip ghc "ghc is not installed (apt-get install ghc libghc-ghc-events-dev): the ghc-events and hp2ps checks did not run"
ghc-pkg list --simple-output ghc-events 2>/dev/null | grep -q ghc-events ||
    skip ghc-events "ghc-events is not installed (apt-get install libghc-ghc-events-dev): the interop checks did not run"

ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
checker=$top_builddir/testsuite/interop/ghc-events-check
src=$top_srcdir/testsuite/interop/GhcEventsCheck.hs
if [ ! -x "$checker" ] || [ "$src" -nt "$checker" ]; then
    mkdir -p "$top_builddir/testsuite/interop"
    expect_status 0 ghc -O -v0 -package ghc-events -outputdir "$test_tmp/ghc-build" \
        "$src" -o "$checker"
fi
cd "$test_tmp" || exit 1

# Our logs through ghc-events 0.17.
expect_status 0 "$ex/leak" 4 100000 +RTS -hT -l -i0.02 -ollog-hT.eventlog -RTS
expect_status 0 "$checker" log-hT.eventlog
grep -q 'breakdown HeapProfBreakdownClosureType' "$out" || fail "-hT log: $(cat "$out")"
grep -q ' 4 markers' "$out" || fail "-hT log lost markers: $(cat "$out")"
expect_status 0 "$ex/leak" 4 100000 +RTS -hi -l -i0.02 -ollog-hi.eventlog -RTS
expect_status 0 "$checker" log-hi.eventlog
grep -q 'HeapProfBreakdownInfoTable' "$out" || fail "-hi log: $(cat "$out")"
# --nonmoving-gc: censuses counted by the cycles' marks, each posted in a
# block of its own stamped with its snapshot's moment.
for mode in hT hi; do
    expect_status 0 "$ex/leak" 4 100000 +RTS --nonmoving-gc -$mode -l -i0.02 \
        -ollog-nm-$mode.eventlog -RTS
    expect_status 0 "$checker" log-nm-$mode.eventlog
    grep -Eq 'ghc-events OK: .* [1-9][0-9]* samples' "$out" && pass ||
        fail "--nonmoving-gc -$mode log: $(cat "$out")"
done
expect_status 0 "$ex/thunk-leak" 2 +RTS -hi -l -i0.02 -ollog-thunk.eventlog -RTS
expect_status 0 "$checker" log-thunk.eventlog
for mode in hd hy hm; do
    expect_status 0 "$ex/leak" 2 50000 +RTS -$mode -l -ollog-$mode.eventlog -RTS
    expect_status 0 "$checker" log-$mode.eventlog
done
# A GC-heavy run with a flush interval: many blocks, all GC and heap events.
expect_status 0 "$ex/bintrees" 16 +RTS -hT -l -A64k -i0.01 --eventlog-flush-interval=0.01 \
    -olbintrees.eventlog -RTS
expect_status 0 "$checker" bintrees.eventlog
expect_status 0 "$events" check bintrees.eventlog

# Allocation sampling's own events (ids from 1000, declared with their
# sizes) are skipped: the census and markers still read.
expect_status 0 "$ex/leak" 4 100000 +RTS -hT --alloc-sample=16k -l -i0.02 -olsampled.eventlog -RTS
expect_status 0 "$checker" sampled.eventlog
grep -q 'breakdown HeapProfBreakdownClosureType' "$out" && grep -q ' 4 markers' "$out" && pass ||
    fail "a log with sampled allocations: $(cat "$out")"

# Two capabilities: blocks of caps 0 and 1, thread events, the census.
expect_status 0 "$ex/threads" 4 5000 +RTS -N2 -hi -l -i0.01 -A64k -olthreads.eventlog -RTS
expect_status 0 "$checker" threads.eventlog
grep -q 'HeapProfBreakdownInfoTable' "$out" || fail "-N2 log: $(cat "$out")"

# A stream saved by an eventlog socket client (issue 25): the header, the
# preamble a late client is given, and live blocks.
live=$top_builddir/testsuite/programs/live_target
sclient=$top_builddir/testsuite/programs/evsock_client
"$live" until-stop 60 +RTS -hi -l -i0.01 --eventlog-socket="$test_tmp/live.sock" -RTS \
    >live.out 2>live.err &
live_pid=$!
for _ in $(seq 200); do grep -q ready live.out 2>/dev/null && break; sleep 0.1; done
expect_status 0 "$sclient" --unix "$test_tmp/live.sock" -o socket.eventlog \
    --send eventlog-socket:5 --send live-test:1
wait "$live_pid" && pass || fail "live_target failed: $(cat live.err)"
expect_status 0 "$checker" socket.eventlog
grep -q 'HeapProfBreakdownInfoTable' "$out" || fail "socket stream: $(cat "$out")"

# Text that is not UTF-8 (a Latin-1 file name, in the message and in argv)
# and a valid 75001-byte message, which must be cut between characters:
# ghc-events rejected the whole log when either reached it unrepaired.
tt=$top_builddir/testsuite/programs/trace_text
long=a$(printf '\342\202\254%.0s' $(seq 25000))
expect_status 0 "$tt" $'opened caf\xe9.txt' "$long" "after" +RTS -l -oltext.eventlog -RTS
expect_status 0 "$checker" text.eventlog
expect_status 0 "$events" check text.eventlog

# -he: breakdown 9, which ghc-events 0.17 does not know.
expect_status 0 "$ex/leak" 2 50000 +RTS -he -l -ollog-he.eventlog -RTS
expect_status 0 "$events" check log-he.eventlog
expect_status 1 "$checker" log-he.eventlog
expect_stderr_contains "Unknown HeapProfBreakdown"

# .hp files through hp2ps.
if command -v hp2ps >/dev/null; then
    expect_status 0 "$ex/leak" 3 100000 +RTS -hT -i0.02 -RTS
    [ -s leak.hp ] || fail "no leak.hp written"
    expect_status 0 hp2ps -c leak.hp
    [ -s leak.ps ] || fail "hp2ps wrote no leak.ps"
    grep -q 'SessionEntry' leak.ps || fail "leak.ps does not name the SessionEntry band"
else
    printf 'interop.sh: hp2ps not found: .hp rendering not checked\n'
fi

# GHC's own eventlog through our reader.
cat >Tiny.hs <<'HS'
import Debug.Trace (traceMarkerIO)
main :: IO ()
main = do
  traceMarkerIO "start"
  print (sum (map (* 2) [1 .. 200000 :: Int]))
  print (length (show (reverse [1 .. 100000 :: Int])))
HS
expect_status 0 ghc -O -v0 -rtsopts -eventlog Tiny.hs -o tiny
expect_status 0 ./tiny +RTS -hT -l -i0.01 -RTS
expect_status 0 "$events" check tiny.eventlog
expect_status 0 "$events" summary tiny.eventlog
grep -q 'rts: "GHC-9' "$out" || fail "summary of GHC's log lacks its RTS identifier"
grep -q 'profile: -hT' "$out" || fail "summary of GHC's log lacks the profile mode"

# DWARF-derived provenance (docs/design/provenance.md) through ghc-events:
# a -g example's IPE events carry symbol names and file:line; a stripped
# copy's carry neither, and ghc-events reads both logs.
ipe_dump=$top_builddir/testsuite/interop/ipe-dump
ipe_src=$top_srcdir/testsuite/interop/IpeDump.hs
if [ ! -x "$ipe_dump" ] || [ "$ipe_src" -nt "$ipe_dump" ]; then
    expect_status 0 ghc -O -v0 -package ghc-events -outputdir "$test_tmp/ghc-build-ipe" \
        "$ipe_src" -o "$ipe_dump"
fi
node_line=$(grep -n -F 'STRATA_CONSTR_INFO(Node_info' "$top_srcdir/examples/bintrees.c" | cut -d: -f1)
expect_status 0 "$ex/bintrees" 12 +RTS -hi -i0 -A64k -l -oldwarf.eventlog -RTS
expect_status 0 "$checker" dwarf.eventlog
expect_status 0 "$ipe_dump" dwarf.eventlog
grep -q "^0x[0-9a-f]*|Node_info|[0-9]*|||[^|]*examples/bintrees.c|[^|]*examples/bintrees.c:$node_line\$" "$out" &&
    pass || fail "ghc-events: Node_info's IPE lacks its name or examples/bintrees.c:$node_line: $(cat "$out")"
expect_status 0 strip -o bintrees-stripped "$ex/bintrees"
expect_status 0 ./bintrees-stripped 12 +RTS -hi -i0 -A64k -l -olstripped.eventlog -RTS
expect_status 0 "$checker" stripped.eventlog
expect_status 0 "$ipe_dump" stripped.eventlog
grep -q '^0x[0-9a-f]*|Node|[0-9]*||||$' "$out" && pass ||
    fail "ghc-events: a stripped binary's Node IPE should carry only its own name: $(cat "$out")"
grep -q '_info|' "$out" && fail "ghc-events: a stripped binary's IPE events carry symbol names" || pass

# The goldens of strata-events show (testsuite/golden/*.show.reference,
# which strata-events.sh rewrites from strata-events' own output under
# STRATA_GOLDEN_UPDATE=1) against ghc-events' reading of the same logs,
# written in show's layout by ShowEvents.hs: every event's time, capability
# and fields, and the header's types.  What ghc-events keeps nothing of is
# left out on both sides: block markers, and the payload bytes of an event
# type it does not know (its line ends at "N bytes:").  By hand:
#     show-events testsuite/golden/heap-hT.eventlog |
#         diff - <(grep -v ': Block marker: ' testsuite/golden/heap-hT.show.reference)
show_events=$top_builddir/testsuite/interop/show-events
show_src=$top_srcdir/testsuite/interop/ShowEvents.hs
if [ ! -x "$show_events" ] || [ "$show_src" -nt "$show_events" ]; then
    expect_status 0 ghc -O -v0 -package ghc-events -outputdir "$test_tmp/ghc-build-show" \
        "$show_src" -o "$show_events"
fi
for log in heap-hT ghc92-ipe; do
    golden=$top_srcdir/testsuite/golden/$log
    if ! "$show_events" "$golden.eventlog" >"$log.ghc" 2>"$log.ghc.err"; then
        fail "$log: ghc-events 0.17 (show-events): $(cat "$log.ghc.err")"
        continue
    fi
    grep -v ': Block marker: ' "$golden.show.reference" >"$log.golden"
    awk 'NR == FNR { want[FNR] = $0; n = FNR; next }
        {
            if ($0 != want[FNR] && !($0 ~ / bytes:$/ && index(want[FNR], $0 " ") == 1)) {
                printf "line %d: golden     %s\n         ghc-events %s\n", FNR, want[FNR], $0
                bad = 1
            }
            m = FNR
        }
        END { if (m != n) { printf "golden %d lines, ghc-events %d\n", n, m; bad = 1 }; exit bad }' \
        "$log.golden" "$log.ghc" >"$log.diff" && pass ||
        fail "$log.show.reference is not what ghc-events 0.17 reads in $log.eventlog: $(head -n 12 "$log.diff")"
done

finish
