#!/usr/bin/env bash
# testsuite/scripts/interop-sid.sh -- the newest GHC and ghc-events (Debian
# sid's GHC 9.10.3 and ghc-events 0.20, from the chroot scripts/ghc-sid.sh
# makes; .ci/run makes it) against strata:
#   - ghc-events 0.20 parses strata's logs of every heap profile mode,
#     -he included (0.17 cannot read it), and one with sampled
#     allocations and --nonmoving-gc -hT/-hi/-he logs (censuses in
#     blocks stamped with their snapshots), with the checks of
#     GhcEventsCheck.hs, and reads the
#     same censuses and band peaks as strata-events summary (HeapBands.hs);
#   - it still reads the committed GHC 9.10 goldens as their
#     .bands.reference and .last.reference files say (scripts/ghc-goldens.sh
#     wrote them);
#   - strata-live --file follows a GHC 9.10.3 program's log as it grows,
#     an eighth at a time (feed_live), reads a census before the log is
#     whole, and ends on the last census as ghc-events reads it, every
#     band.  The program runs to its end first, without
#     --eventlog-flush-interval: with it GHC 9.10.3 often deadlocks at
#     exit (run_ghc_program in lib.sh).
# The checkers are built in the chroot, statically, and kept there by the
# hash of their sources (sid-lib.sh), so the suite builds them once.
# Without the chroot it skips, naming ghc-sid (a failure under
# STRATA_REQUIRE=all, as in CI).
set -u
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/sid-lib.sh"
sid_setup "ghc-events 0.20 did not read strata's logs"

ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
live=$top_builddir/utils/strata-live/strata-live
golden=$top_srcdir/testsuite/golden
. "$top_srcdir/testsuite/scripts/live-lib.sh"
. "$top_srcdir/testsuite/scripts/bands-lib.sh"
cd "$test_tmp" || exit 1

sid_build || setup_fail "$sid_why"
checker=$sid_bin/ghc-events-check
bands=$sid_bin/heap-bands
bin=$sid_bin
"$sid" version >versions
grep -qx '0\.20\..*' versions && pass || fail "the chroot's ghc-events is not 0.20: $(cat versions)"

# agree NAME LOG: ghc-events 0.20 parses LOG, and reads strata-events
# summary's censuses and band peaks.
agree() {
    expect_status 0 "$checker" "$2"
    grep -q 'ghc-events OK' "$out" || fail "$1: $(cat "$out" "$err")"
    # Each stage on its own: a pipeline's status would be sort_bands'.
    if ! "$bands" "$2" >"$1.raw" 2>"$1.ghc.err"; then
        fail "$1: heap-bands (ghc-events 0.20) failed: $(cat "$1.ghc.err")"
        return
    fi
    sort_bands <"$1.raw" >"$1.ghc"
    summary_bands "$2" >"$1.strata" || fail "$1: strata-events summary failed"
    same_bands "$1: ghc-events 0.20 and strata-events summary disagree" "$1.ghc" "$1.strata"
}

# ---- strata's logs of every mode through ghc-events 0.20 ---------------------
for mode in hT hi he hd hy hm; do
    expect_status 0 "$ex/leak" 4 100000 +RTS -$mode -l -i0.02 -ollog-$mode.eventlog -RTS
    agree "log-$mode" "log-$mode.eventlog"
done
# --nonmoving-gc: censuses from the cycles' snapshots, in stamped blocks.
for mode in hT hi he; do
    expect_status 0 "$ex/leak" 4 100000 +RTS --nonmoving-gc -$mode -l -i0.02 \
        -ollog-nm-$mode.eventlog -RTS
    agree "log-nm-$mode" "log-nm-$mode.eventlog"
done
# Sampled allocations (strata's own events, skipped by their sizes) beside
# a census: ghc-events 0.20, which eventlog2html reads logs with, still
# reads the census as strata-events does, at -N2 with two capabilities'
# samples.
expect_status 0 "$top_builddir/testsuite/programs/alloc_shares" 2 16 +RTS -N2 -hT --alloc-sample=16k \
    -l -i0.05 -olsampled.eventlog -RTS
agree sampled sampled.eventlog
expect_status 0 "$checker" log-he.eventlog
grep -q 'HeapProfBreakdownEra' "$out" && pass || fail "-he log: $(cat "$out")"
expect_status 0 "$ex/leak" 4 100000 +RTS -he --automatic-era-increment -l -i0.02 -olauto.eventlog -RTS
agree auto-era auto.eventlog
n_eras=$(($(wc -l <auto-era.ghc) - 1))
[ "$n_eras" -ge 3 ] && pass || fail "-he --automatic-era-increment: ghc-events read $n_eras era bands"
expect_status 0 "$ex/thunk-leak" 2 +RTS -hi -l -i0.02 -olthunk.eventlog -RTS
agree thunk-leak thunk.eventlog
expect_status 0 "$ex/threads" 4 5000 +RTS -N2 -hi -l -i0.01 -A64k -olthreads.eventlog -RTS
agree threads-N2 threads.eventlog

# ---- the committed GHC 9.10 goldens, read again -------------------------------
for log in "$golden"/ghc910-*.eventlog; do
    name=${log##*/}
    name=${name%.eventlog}
    # Not GhcEventsCheck: GHC's -hi labels include closures of libraries
    # built without -finfo-table-map, which have no IPE event.
    "$bands" "$log" >"$name.raw" 2>"$name.err" || fail "$name: ghc-events 0.20: $(cat "$name.err")"
    sort_bands <"$name.raw" >"$name.ghc"
    same_bands "$name: ghc-events 0.20 no longer reads what $name.bands.reference says" \
        "$golden/$name.bands.reference" "$name.ghc"
    "$bands" --last "$log" >"$name.last" 2>"$name.err" || fail "$name: ghc-events 0.20: $(cat "$name.err")"
    same_bands "$name: ghc-events 0.20 no longer reads the last census $name.last.reference has" \
        "$golden/$name.last.reference" "$name.last"
done

# ---- strata-live --file following a GHC 9.10.3 program -------------------------
# The program is built -threaded, as a server watched live would be.
if command -v curl >/dev/null; then
    run_ghc_program follow "$bin/sessions-ipe" 10 +RTS -hi -l -i0.05 -olwritten.eventlog -RTS && pass || fail "the GHC program failed: $(cat follow.prog.err)"
    : >follow.eventlog
    start_live follow --file follow.eventlog --top 10000
    feed_live written.eventlog follow.eventlog
    [ "$census_before_whole" = yes ] && pass ||
        fail "strata-live read no census of the log before it was whole (7/8 of it)"
    # With --eventlog-flush-interval GHC 9.10.3 also now and then writes a
    # log that ghc-events cannot read past some offset (a flush on its timer
    # lands in the middle of an event).  Should GHC write such a log here,
    # strata-live must stop at the same offset, with the same words, as
    # strata-events; otherwise it must end on the file's last census.
    if "$bands" --last follow.eventlog >follow.ghc 2>follow.ghc.err; then
        wait_live_ended follow || fail "strata-live did not see the log end: $(cat follow.err)"
        curl -sf "$url/metrics" >follow.metrics || fail "/metrics did not answer"
        metrics_census follow.metrics >follow.live || fail "no census in /metrics"
        same_bands "strata-live's last census of the followed log is not ghc-events'" \
            follow.ghc follow.live
        echo "strata-live followed $(head -n 1 follow.live) of a GHC 9.10.3 program's log"
    else
        echo "GHC 9.10.3 wrote a log ghc-events cannot read: $(head -n 1 follow.ghc.err)"
        "$events" check follow.eventlog >follow.check
        problem=$(sed -n 's/^follow\.eventlog: \(offset [0-9]*: .*\)$/\1/p' follow.check)
        [ -n "$problem" ] || fail "ghc-events rejects the log but strata-events check does not: $(cat follow.check)"
        for _ in $(seq 300); do grep -qF -e "$problem" follow.err && break; sleep 0.1; done
        grep -qF -e "follow.eventlog: $problem" follow.err && pass ||
            fail "strata-live did not stop where strata-events does ($problem): $(cat follow.err)"
    fi
    stop_live
else
    skip_part curl "curl is not installed: strata-live did not follow a GHC 9.10 program"
fi

finish
