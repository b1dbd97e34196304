#!/usr/bin/env bash
# testsuite/scripts/ghc-logs.sh -- every tool reads the newest GHC's logs:
# the GHC 9.10.3 golden eventlogs (testsuite/golden/ghc910-*.eventlog,
# made by scripts/ghc-goldens.sh: -hi and -hT of a -finfo-table-map
# program, -he, -hc, -hy and -hd of a -prof one) through strata-events
# check, show, summary (text and JSON) and pprof, strata-html and
# strata-live --file.  `strata-events summary` must agree with ghc-events
# 0.20's reading of the same log (NAME.bands.reference: the census count
# and every band's peak), and strata-live's last census with its reading
# of that census (NAME.last.reference: every band's bytes).  Needs
# nothing but the build: the logs are committed; interop-sid.sh reads
# them again with ghc-events itself.
set -u
. "$(dirname "$0")/lib.sh"

golden=$top_srcdir/testsuite/golden
events=$top_builddir/utils/strata-events/strata-events
html=$top_builddir/utils/strata-html/strata-html
live=$top_builddir/utils/strata-live/strata-live
. "$top_srcdir/testsuite/scripts/live-lib.sh"
. "$top_srcdir/testsuite/scripts/bands-lib.sh"
cd "$test_tmp" || exit 1

logs=(ghc910-hi ghc910-hT ghc910-he ghc910-hc ghc910-hy ghc910-hd)
for name in "${logs[@]}"; do
    log=$golden/$name.eventlog
    [ -s "$log" ] || { fail "$name.eventlog is missing (scripts/ghc-goldens.sh makes it)"; continue; }
    expect_status 0 "$events" check "$log"
    grep -q "^$log: OK: " "$out" || fail "$name: check: $(cat "$out")"
    expect_status 0 "$events" show "$log"
    grep -q 'malformed' "$out" && fail "$name: show found a malformed event: $(grep -m1 malformed "$out")"
    grep -q '"GHC-9\.10\.' "$out" || fail "$name: show lacks GHC 9.10's RTS identifier"
    case $name in
    ghc910-hi | ghc910-hT)
        n_ipe=$(grep -c ': An IPE entry: ' "$out")
        n_slip=$(grep -c ': An IPE entry: .*(declares [0-9]* bytes, has [0-9]*)$' "$out")
        [ "$n_ipe" -gt 10 ] && [ "$n_slip" -eq "$n_ipe" ] && pass ||
            fail "$name: $n_ipe IPE events, $n_slip read with GHC 9.10's length"
        ;;
    esac
    # summary: the same censuses and band peaks as ghc-events reads.
    summary_bands "$log" >"$name.bands" || fail "$name: strata-events summary failed"
    same_bands "$name: strata-events summary and ghc-events disagree" \
        "$golden/$name.bands.reference" "$name.bands"
    expect_status 0 "$events" summary --json "$log"
    grep -q "\"samples\": $(head -n 1 "$name.bands" | cut -d' ' -f2)," "$out" ||
        fail "$name: summary --json's samples: $(grep '"samples"' "$out")"
    expect_status 0 "$events" pprof "$log" -o "$name.pb.gz"
    gzip -t "$name.pb.gz" 2>/dev/null && [ -s "$name.pb.gz" ] && pass ||
        fail "$name: pprof wrote no gzipped profile"
    if [ -x "$html" ]; then
        expect_status 0 "$html" "$log" -o "$name.html"
        [ -s "$name.html" ] && grep -q 'GHC-9\.10\.' "$name.html" && pass ||
            fail "$name: strata-html's report lacks the log's RTS identifier"
    else
        skip_part node "strata-html was not built (node and npm were missing at configure time)"
    fi
done

# -hi: the report names a band by its IPE (GHC 9.10's table name).
if [ -x "$html" ]; then
    expect_status 0 "$html" --json "$golden/ghc910-hi.eventlog" -o hi.json
    grep -q 'Session_Main_[0-9]*_con_info' hi.json && pass ||
        fail "ghc910-hi: strata-html's data names no band by its IPE's table name"
fi
expect_status 0 "$events" summary "$golden/ghc910-hi.eventlog"
grep -Eq '"0x[0-9a-f]+"  Session_Main_[0-9]+_con_info  Main\.' "$out" && pass ||
    fail "ghc910-hi: summary does not name a band from its IPE: $(head -n 20 "$out")"

# strata-live --file on each finished log ends on its last census, every
# band of it as ghc-events 0.20 reads it (NAME.last.reference).
if command -v curl >/dev/null; then
    for name in "${logs[@]}"; do
        start_live "$name" --file "$golden/$name.eventlog" --top 10000
        wait_live_ended "$name" || fail "$name: strata-live did not end: $(cat "$name.err")"
        curl -sf "$url/metrics" >"$name.metrics" || fail "$name: /metrics did not answer"
        metrics_census "$name.metrics" >"$name.live" || fail "$name: no census in /metrics"
        same_bands "$name: strata-live's last census is not ghc-events' ($name.last.reference)" \
            "$golden/$name.last.reference" "$name.live"
        stop_live
    done
else
    skip_part curl "curl is not installed: strata-live --file on GHC 9.10's logs not checked"
fi

finish
