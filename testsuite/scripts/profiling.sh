#!/usr/bin/env bash
# testsuite/scripts/profiling.sh -- the heap profiler as a user runs it:
# the .hp file (format, markers, samples), censuses after every major GC
# with -i0, era breakdowns and selectors through the eventlog, the
# examples' leaks visible in the profile, and errors.
set -u
. "$(dirname "$0")/lib.sh"

ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
cd "$test_tmp" || exit 1

# --- .hp output (no -l) ------------------------------------------------------
expect_status 0 "$ex/leak" 3 50000 +RTS -hT -i0.01 -RTS
[ -s leak.hp ] || fail "leak +RTS -hT wrote no leak.hp"
for line in 'JOB "' 'DATE "' 'SAMPLE_UNIT "seconds"' 'VALUE_UNIT "bytes"' \
            'BEGIN_SAMPLE 0.00' 'END_SAMPLE 0.00' 'MARK '; do
    grep -q "^$line" leak.hp && pass || fail ".hp lacks a line starting '$line'"
done
[ "$(grep -c '^MARK ' leak.hp)" -eq 3 ] || fail ".hp should have 3 MARK lines (one per phase)"
[ "$(grep -c '^BEGIN_SAMPLE' leak.hp)" -eq "$(grep -c '^END_SAMPLE' leak.hp)" ] ||
    fail ".hp samples are not balanced"
grep -q "^SessionEntry	[0-9]*$" leak.hp || fail ".hp has no SessionEntry band"
grep -q '+RTS -hT -i0.01 -RTS"$' leak.hp || fail ".hp JOB line lacks the command line"

# --- -i0: a census after every major GC, plus the final one -------------------
expect_status 0 "$ex/bintrees" 12 +RTS -hT -i0 -l -olbt.eventlog -A64k -S -RTS
majors=$(grep -c '(Gen:  1)' "$err")
expect_status 0 "$events" summary bt.eventlog
samples=$(sed -n 's/^samples: //p' "$out")
# One per major GC and one at exit, whose GC is itself major (and is in -S).
[ "$samples" -eq "$majors" ] || fail "-i0: $samples samples for $majors major GCs"

# --- censuses counted during the GC equal a heap walk ---------------------------
# Under -DS every census the GC counts is checked against a walk of the
# heap (a mismatch panics); every per-object breakdown, with an era range.
for mode in -hT -hi -hd -hy -hm "-hT -he2-3" "-hi -he1"; do
    # shellcheck disable=SC2086
    expect_status 0 "$ex/leak" 3 20000 +RTS $mode -i0 -A8k -DS -RTS
done

# --- eras through the eventlog --------------------------------------------------
expect_status 0 "$ex/leak" 4 40000 +RTS -he -i0.002 -l -olhe.eventlog -RTS
expect_status 0 "$events" summary --json he.eventlog
for era in 1 2 3 4; do
    grep -q "\"label\": \"$era\"" "$out" && pass || fail "-he profile has no band for era $era"
done
grep -q '"label": "0"' "$out" && fail "-he counted era 0" || pass
expect_status 0 "$ex/leak" 4 40000 +RTS -he2-3 -he -i0.002 -l -olsel.eventlog -RTS
expect_status 0 "$events" summary --json sel.eventlog
grep -q '"label": "2"' "$out" && grep -q '"label": "3"' "$out" && pass ||
    fail "-he2-3 lost era 2 or 3"
grep -Eq '"label": "(1|4)"' "$out" && fail "-he2-3 counted eras outside 2-3" || pass
expect_status 0 "$ex/leak" 4 40000 +RTS -hi -he3 -i0.002 -l -olhi3.eventlog -RTS
expect_status 0 "$events" summary hi3.eventlog
grep -q 'profile: -hi' "$out" || fail "-hi -he3 is not an info-table profile"
# --automatic-era-increment makes eras without any setUserEra call.
expect_status 0 "$ex/thunk-leak" 2 +RTS -he --automatic-era-increment -i0.005 -l -olauto.eventlog -RTS
expect_status 0 "$events" summary --json --top 0 auto.eventlog
grep -q '"label": "2"' "$out" || fail "--automatic-era-increment made no era 2"

# --- the examples' leaks are visible ---------------------------------------------
expect_status 0 "$ex/thunk-leak" 2 +RTS -hT -i0.005 -l -olthunk.eventlog -RTS
expect_status 0 "$events" summary thunk.eventlog
# The chain of thunks reaches 12.8 MB; which census sees it at its largest
# depends on when major GCs happen, and the Ints it turns into at the end
# (6.4 MB) can outrank a census taken early.  So: among the top two, and
# seen above 4 MB (125,000 unevaluated thunks).
grep -A2 'top buckets by peak' "$out" | awk '$3 == "\"THUNK_1_1\"" && $2 > 4000000 {ok = 1} END {exit !ok}' ||
    fail "thunk-leak: THUNK_1_1 is not a top band above 4 MB"
expect_status 0 "$ex/pinned-frag" 40 +RTS -hT -i0.005 -l -olpinned.eventlog -RTS
expect_status 0 "$events" summary pinned.eventlog
grep -A1 'top buckets by peak' "$out" | grep -q '"ARR_WORDS"' ||
    fail "pinned-frag: ARR_WORDS is not the top band"

# --- leak.c's hand-written provenance names the real allocation sites -----
for table in SessionEntry Request Chunk; do
    span=$(grep -A3 "\"${table}_con_info\"" "$top_srcdir/examples/leak.c" |
        sed -n 's/.*"examples\/leak.c", "\([0-9]*\):.*/\1/p' | head -n 1)
    sed -n "${span}p" "$top_srcdir/examples/leak.c" | grep -q "alloc_constr(&${table}_info)" &&
        pass || fail "examples/leak.c: the provenance of $table points at line $span, not its allocation"
done

# --- errors -------------------------------------------------------------------------
mkdir leak.hp.d && mkdir -p ro && mkdir ro/leak.hp
(cd ro && expect_status 1 "$ex/leak" 1 10 +RTS -hT -RTS)
expect_stderr_contains "heap profile: cannot open leak.hp"
expect_status 1 "$ex/leak" 1 10 +RTS -hZ -RTS
expect_stderr_contains "unknown RTS option: -hZ"
expect_status 1 "$ex/leak" 1 10 +RTS -hT -hi -RTS
expect_stderr_contains "multiple heap profile options"
expect_status 1 "$ex/leak" 1 10 +RTS -he5-2 -RTS
expect_stderr_contains "-he"

# --- censuses asked for and taken (+RTS -s, strata-events summary) ------------------
# census_counts: "TAKEN ASKED" from the CENSUS count line of -s in $err
census_counts() { sed -n 's/^  CENSUS  count \([0-9]*\) taken of \([0-9]*\) asked for.*/\1 \2/p' "$err"; }
# every tick collects at once, as GHC does: each tick's census is its own
expect_status 0 "$ex/leak" 1 20000 +RTS -hT -i0.01 --census-gc=every-tick -s -l -olevery.eventlog -RTS
read -r taken asked <<<"$(census_counts)"
[ -n "${taken:-}" ] && [ "$taken" -ge 1 ] && [ "$taken" = "$asked" ] && pass ||
    fail "--census-gc=every-tick: taken ($taken) is not asked ($asked): $(grep CENSUS "$err")"
expect_stderr_contains "each -i tick and exit, --census-gc=every-tick"
expect_status 0 "$events" summary every.eventlog
grep -q "^samples: $taken\$" "$out" && pass || fail "summary's samples are not -s's $taken: $(cat "$out")"
grep -q '^censuses asked for: [1-9]' "$out" && pass || fail "summary: no censuses asked for: $(cat "$out")"
# the budget (default) may fold ticks, never takes more than were asked for
expect_status 0 "$ex/leak" 1 20000 +RTS -hT -i0.01 -s -RTS
read -r taken asked <<<"$(census_counts)"
[ -n "${taken:-}" ] && [ "$taken" -ge 1 ] && [ "$taken" -le "$asked" ] && pass ||
    fail "budget: taken ($taken) / asked ($asked) wrong: $(grep CENSUS "$err")"
expect_stderr_contains "each -i tick and exit, --census-gc=budget"
# -i0 asks at every major GC
expect_status 0 "$ex/leak" 1 3000 +RTS -hT -i0 -s -RTS
read -r taken asked <<<"$(census_counts)"
[ -n "${taken:-}" ] && [ "$taken" = "$asked" ] && pass || fail "-i0: taken ($taken) is not asked ($asked)"

finish
