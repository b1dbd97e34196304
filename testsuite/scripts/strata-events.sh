#!/usr/bin/env bash
# testsuite/scripts/strata-events.sh -- strata-events on the hand-built
# logs in testsuite/golden/ (made by make-golden.py): `show`, `check` and
# `summary [--json]` must print exactly the .reference files, and bad input
# and bad usage must fail with the documented messages and exit codes
# (docs/strata-events.md).  STRATA_GOLDEN_UPDATE=1 rewrites the references
# instead of comparing (review the diff before committing it); interop.sh
# checks the show references against ghc-events' reading of the same logs,
# field by field (testsuite/interop/ShowEvents.hs).
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

tool=$top_builddir/utils/strata-events/strata-events
[ -x "$tool" ] || skip strata-events "$tool has not been built"
golden=$top_srcdir/testsuite/golden
cd "$golden" || fail "cannot cd to $golden"

# golden STATUS REFERENCE ARG...: runs the tool, expecting STATUS and stdout
# equal to REFERENCE.
golden() {
    local want=$1 ref=$2
    shift 2
    expect_status "$want" "$tool" "$@"
    if [ "${STRATA_GOLDEN_UPDATE:-0}" = 1 ]; then
        cp "$out" "$ref"
    elif diff -u "$ref" "$out" >"$test_tmp/diff"; then
        pass
    else
        fail "'strata-events $*' differs from $ref:"
        head -n 40 "$test_tmp/diff" | sed 's/^/    /' >&2
    fi
}

# --- Golden outputs --------------------------------------------------------
for log in heap-hT ghc92-ipe; do
    golden 0 "$log.show.reference" show "$log.eventlog"
    golden 0 "$log.check.reference" check "$log.eventlog"
    golden 0 "$log.summary.reference" summary "$log.eventlog"
    golden 0 "$log.summary-json.reference" summary --json "$log.eventlog"
done
# Fewer censuses than the interval asked for (the census budget): both
# counts, and the line that says why and names the flag that takes all.
golden 0 heap-budget.summary.reference summary heap-budget.eventlog
golden 0 heap-budget.summary-json.reference summary --json heap-budget.eventlog
# The same shortfall under --census-gc=every-tick, or in GHC's log: no
# budget applied, so none is explained.
for log in heap-every-tick ghc92-ipe heap-hT; do
    expect_status 0 "$tool" summary "$log.eventlog"
    ! grep -q '^census budget' "$out" && pass || fail "$log: summary explains a budget: $(grep '^census budget' "$out")"
    expect_status 0 "$tool" summary --json "$log.eventlog"
    grep -qx '  "census_budget": null,' "$out" && pass || fail "$log: summary --json: $(grep census_budget "$out")"
done
# A run killed in its third census: the census counts, with its one sample.
golden 0 heap-cut.summary.reference summary heap-cut.eventlog
golden 0 heap-cut.summary-json.reference summary --json heap-cut.eventlog
golden 0 bad-order.check.reference check bad-order.eventlog
golden 1 no-end.check.reference check no-end.eventlog
golden 0 no-end.show.reference show no-end.eventlog
expect_stderr_contains "strata-events: no-end.eventlog: warning: offset 74: no data end marker"
# One Latin-1 byte in a user message: ghc-events rejects the log, so check
# must fail and name the event, its offset and time, and the field.
golden 1 bad-utf8.check.reference check bad-utf8.eventlog
# Strings as every tool writes them (Note [One way to write a string] in
# wire/TextOut.c): labels, a marker and an argument in UTF-8 ("Café→λ") as
# they are, in text and in JSON; a tab and an ESC as \x09, \x1b (\u0009,
# \u001b in JSON); invalid bytes as \xNN in text and \\xNN in JSON, so that
# the decoded label reads \xNN too.  check names the first invalid byte.
golden 0 strings.show.reference show strings.eventlog
golden 1 strings.check.reference check strings.eventlog
golden 0 strings.summary.reference summary strings.eventlog
golden 0 strings.summary-json.reference summary --json strings.eventlog
expect_status 0 "$tool" summary --json strings.eventlog
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
print(sorted(b["label"] for b in d["top_by_peak"]) == sorted(["Caf\u00e9\u2192\u03bb",
      "Bad\\xffName\\xc3", "Esc\x1b[2Jape", "tab\there \"q\" \\"])
      and d["args"][0] == "Caf\u00e9\u2192\u03bb.txt"
      and d["markers"][0]["name"] == "phase \u03bb \u2192 2")' "$out" 2>&1)
[ "$got" = True ] && pass || fail "summary --json strings.eventlog does not decode to the labels: $got"
# A block inside a block: counted in a GHC log (ghc-events reads past it),
# a failure in a strata log (strata's writer frames exactly).
golden 0 ghc-nested-block.check.reference check ghc-nested-block.eventlog
golden 1 strata-nested-block.check.reference check strata-nested-block.eventlog
# summary --top N: N buckets in each ranking, 0 = all; a bad N is usage.
expect_status 0 "$tool" summary --top 1 heap-hT.eventlog
[ "$(grep -c '^ *[0-9]*\. ' "$out")" -eq 2 ] && pass || fail "summary --top 1: $(cat "$out")"
expect_status 0 "$tool" summary --top 0 heap-hT.eventlog
[ "$(grep -c '^ *[0-9]*\. ' "$out")" -gt 2 ] && pass || fail "summary --top 0: $(cat "$out")"
expect_status 2 "$tool" summary --top -1 heap-hT.eventlog
expect_stderr_contains "strata-events: summary: --top takes a number of buckets (0 = all), not: -1"
expect_status 2 "$tool" summary --top
expect_stderr_contains "strata-events: summary: --top needs a value (N)"

# pauses: five pauses worked by hand (make-golden.py, pauses()), and a
# GHC 9.10.3 run of bench/workloads/msgbuf at -N2 --nonmoving-gc (window
# 20000, 300000 pushes; scripts/ghc-goldens.sh), with syncs, late worker
# ends and timestamps out of order within blocks.
golden 0 pauses.pauses.reference pauses pauses.eventlog
golden 0 pauses.pauses-mmu.reference pauses --mmu 20ms,100ms,1s pauses.eventlog
golden 0 pauses.pauses-json.reference pauses --json pauses.eventlog
golden 0 ghc910-nonmoving.pauses.reference pauses ghc910-nonmoving.eventlog
# A log with no collection: no pause, every window unpaused.
golden 0 ghc92-ipe.pauses.reference pauses ghc92-ipe.eventlog

if need_python3 "the summary --json references' JSON"; then
    expect_status 0 "$python3" -c '
import json, sys
p = json.load(open(sys.argv[1]))
assert p["pauses"] == 5 and p["gc_and_sync_pauses"] == 1, p
assert p["worst_ns"] == 10000000 and p["worst_at_ns"] == 100000000, p
assert [m["mmu"] for m in p["mmu"]] == [0, 0, 0.86], p' pauses.pauses-json.reference
    for log in heap-hT ghc92-ipe; do
        expect_status 0 "$python3" -c 'import json, sys; json.load(open(sys.argv[1]))' \
            "$log.summary-json.reference"
    done
    # The -hi bucket whose label is the IPE event's address is named by it
    # (closure_desc as a number); the one with no IPE event has "ipe": null.
    expect_status 0 "$python3" -c '
import json, sys
top = {b["label"]: b["ipe"] for b in json.load(open(sys.argv[1]))["top_by_peak"]}
assert top["0x4a0010"] is None, top
assert top["0x409f78"]["table_name"] == "sat_s154_info", top
assert top["0x409f78"]["closure_desc"] == 21, top' ghc92-ipe.summary-json.reference
fi

# --- Bad input ---------------------------------------------------------------
missing=$test_tmp/no-such.eventlog
for cmd in show check summary pauses; do
    expect_status 1 "$tool" "$cmd" "$missing"
    expect_stderr_contains "strata-events: cannot open $missing: No such file or directory"
done

# Cut inside the payload of the heap profile begin event (offset 932; its payload at 944).
trunc=$test_tmp/trunc.eventlog
head -c 955 heap-hT.eventlog >"$trunc"
problem="offset 944: truncated event payload (type 160, need 20 bytes, have 11)"
expect_status 1 "$tool" show "$trunc"
expect_stderr_contains "strata-events: $trunc: $problem"
expect_status 1 "$tool" summary "$trunc"
expect_stderr_contains "strata-events: $trunc: $problem"
expect_status 1 "$tool" check "$trunc"
expect_stderr_contains "$trunc: $problem" "$out"
expect_status 1 "$tool" pauses "$trunc"
expect_stderr_contains "strata-events: $trunc: $problem"
[ ! -s "$out" ] && pass || fail "pauses printed figures for a malformed log: $(cat "$out")"

expect_status 1 "$tool" check make-golden.py
expect_stderr_contains "make-golden.py: offset 0: bad header begin marker" "$out"

# Every prefix of a golden log: check fails with an offset, never crashes.
for n in 0 1 5 40 123 333 601 1000 1667 1668 1669; do
    head -c "$n" heap-hT.eventlog >"$trunc"
    expect_status 1 "$tool" check "$trunc"
    expect_stderr_contains ": offset " "$out"
done

# --- Bad usage ---------------------------------------------------------------
expect_status 2 "$tool"
expect_stderr_contains "strata-events: missing command (show, check, summary, pprof or pauses)
Try 'strata-events --help'."
expect_status 2 "$tool" frobnicate heap-hT.eventlog
expect_stderr_contains "strata-events: unknown command: frobnicate (show, check, summary, pprof or pauses)"
expect_status 2 "$tool" show
expect_stderr_contains "strata-events: show: missing FILE"
expect_status 2 "$tool" show heap-hT.eventlog ghc92-ipe.eventlog
expect_stderr_contains "strata-events: show: too many arguments: ghc92-ipe.eventlog"
expect_status 2 "$tool" check --json heap-hT.eventlog
expect_stderr_contains "strata-events: check: unknown option: --json
Try 'strata-events --help'."
# A misspelt option: the one message every tool gives, naming the one meant.
expect_status 2 "$tool" summary --jsn heap-hT.eventlog
expect_stderr_contains "strata-events: summary: unknown option: --jsn (did you mean --json?)
Try 'strata-events --help'."
expect_status 2 "$tool" summary --json=yes heap-hT.eventlog
expect_stderr_contains "strata-events: summary: --json takes no value (got --json=yes)"
expect_status 2 "$tool" pauses --mmu
expect_stderr_contains "strata-events: pauses: --mmu needs a value (W,...)"
for bad in 10 10m 0ms -1ms 1ms,,10ms 1ms, 3601s 1e3ms ms 1.ms5; do
    expect_status 2 "$tool" pauses --mmu "$bad" pauses.eventlog
    expect_stderr_contains "strata-events: pauses: --mmu takes up to 16 window lengths from 1ns to 3600s, such as 1ms,10ms,100ms or 0.5ms, not: $bad"
done
expect_status 2 "$tool" pauses --mmu 1ms,2ms,3ms,4ms,5ms,6ms,7ms,8ms,9ms,10ms,11ms,12ms,13ms,14ms,15ms,16ms,17ms pauses.eventlog
expect_stderr_contains "not: 1ms,2ms,"
expect_status 0 "$tool" pauses --mmu 250us,0.5ms,1500ns,2s pauses.eventlog
expect_stderr_contains "MMU 250us: 0.0%
MMU 500us: 0.0%
MMU 1500ns: 0.0%
MMU 2s: n/a (the run is shorter)" "$out"
expect_status 2 "$tool" pauses --top 3 pauses.eventlog
expect_stderr_contains "strata-events: pauses: unknown option: --top"
expect_status 0 "$tool" --help
expect_stderr_contains "usage: strata-events show FILE" "$out"

finish
