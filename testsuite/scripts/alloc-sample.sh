#!/usr/bin/env bash
# testsuite/scripts/alloc-sample.sh -- allocation sampling as a user runs
# it (+RTS --alloc-sample, docs/alloc-sampling.md):
#   - bad values of the flag, each with its message;
#   - alloc_shares keeps 100 MB from three functions in shares of 60, 30
#     and 10% (small nodes, small byte arrays in boxes, large objects in
#     boxes): at the default rate, `go tool pprof -top
#     -sample_index=inuse_space` of its log gives each its share within 5
#     points, at -N1 and at -N4 (where every capability samples);
#   - the leak example: the function that leaks is the top of inuse_space,
#     and the one that allocates most the top of alloc_space;
#   - every sample of a run under the sanity checker with a tiny nursery
#     and collections in parallel reads back, and the log checks;
#   - under --nonmoving-gc, the samples that die in the non-moving
#     generation are found dead;
#   - strata-events summary lists the top allocation sites, and a log
#     without samples converts as before (a census);
#   - strata-debug prints a sampled object's allocation path in retainers
#     (--sampled: only sampled objects), boundary and diff, live and from
#     a snapshot;
#   - strata-live serves /debug/pprof/heap and /debug/pprof/allocs from a
#     program it connected to late (the samples alive before are sent
#     again), with ?era= filters, and says what is wrong with a bad one or
#     without samples.
# The go checks skip, saying so, without go (and fail under
# STRATA_REQUIRE=go or all).
set -u
. "$(dirname "$0")/lib.sh"

ex=$top_builddir/examples
shares=$top_builddir/testsuite/programs/alloc_shares
events=$top_builddir/utils/strata-events/strata-events
live=$top_builddir/utils/strata-live/strata-live
. "$top_srcdir/testsuite/scripts/live-lib.sh"
cd "$test_tmp" || exit 1

# --- the flag ----------------------------------------------------------------
for bad in 0 7 abc 4q -1 ''; do
    expect_status 1 "$ex/leak" 1 10 +RTS "--alloc-sample=$bad" -RTS
    case $bad in
    0 | 7) expect_stderr_contains "--alloc-sample: size must be at least 8 (got $bad)" ;;
    *) expect_stderr_contains "--alloc-sample: bad size '$bad' (expected a number with an optional k, m, g, t or w suffix, e.g. --alloc-sample=64m)" ;;
    esac
done
expect_status 1 "$ex/leak" 1 10 +RTS --alloc-sample=1000t -RTS
expect_stderr_contains '--alloc-sample: size must be at most 128t (got 1000t)'
expect_status 1 "$ex/leak" 1 10 +RTS --alloc-samples -RTS
expect_stderr_contains 'unknown RTS option: --alloc-samples'
expect_status 1 "$ex/leak" 1 10 +RTS -?
grep -q -- '--alloc-sample\[=<size>\]' "$err" && pass || fail "+RTS -? does not list --alloc-sample"

# --- the log ------------------------------------------------------------------
# Samples and deaths read back, under the sanity checker, with collections
# in parallel and eras moving.
# 4 MB, all of it kept: the checker's work grows with the square of the
# size (8 MB took four times the CPU); 363 checked collections, 3 of them
# major, and about 256 samples, of which fewer than 100 fail the run.
expect_status 0 "$shares" 2 4 +RTS -N2 -qn2 -A8k -DS --alloc-sample=16k -l -olsanity.eventlog -RTS
expect_status 0 "$events" check sanity.eventlog
expect_status 0 "$events" show sanity.eventlog
n=$(grep -c 'strata: sampled allocation: sample' "$out")
[ "$n" -gt 100 ] && pass || fail "sanity run: only $n samples of 4 MB at 16k"
grep -q 'strata: allocation stack frame: frame [0-9]*, function "grow_nodes", file "testsuite/programs/alloc_shares.c"' "$out" &&
    pass || fail "sanity run: no frame names grow_nodes: $(grep 'stack frame' "$out" | head -n 5)"
# The leak example keeps one session in 64; its garbage dies.
expect_status 0 "$ex/leak" 4 100000 +RTS --alloc-sample=64k -l -olleak.eventlog -RTS
expect_status 0 "$events" show leak.eventlog
samples=$(grep -c 'strata: sampled allocation: sample' "$out")
deaths=$(grep -c 'strata: sampled object died' "$out")
[ "$deaths" -gt $((samples * 9 / 10)) ] && [ "$deaths" -lt "$samples" ] && pass ||
    fail "leak: $deaths deaths of $samples samples (most, not all, should die)"
# Under the non-moving collector, whose pause visits the table as a weak
# root source: gc_stress keeps values in its old generation for a while
# and drops them, so samples die in the non-moving generation; under the
# sanity checker each is found dead (an entry left behind would point at
# a swept slot), the rest stay alive.
expect_status 0 "$top_builddir/testsuite/programs/gc_stress" 5000 7 +RTS --nonmoving-gc -A8k -DS \
    --alloc-sample=4k -l -olnonmoving.eventlog -RTS
expect_status 0 "$events" check nonmoving.eventlog
expect_status 0 "$events" summary nonmoving.eventlog --top 1
read -r samples alive < <(sed -n 's/^allocation sampling: .*, \([0-9]*\) samples, \([0-9]*\) alive.*/\1 \2/p' "$out")
[ "${samples:-0}" -gt 1000 ] && [ "$((alive * 10))" -lt "$samples" ] && pass ||
    fail "--nonmoving-gc: ${alive:-?} of ${samples:-?} samples alive at the end (most die)"
# A log without GC events (-l-g) cannot say when a collection ended, so
# its samples count in use at once (Note [In use as of the last
# collection]): alloc_shares keeps everything, so every sample is alive.
expect_status 0 "$shares" 1 8 +RTS -A256k --alloc-sample=16k -l-g -olnogc.eventlog -RTS
expect_status 0 "$events" summary nogc.eventlog --top 1
read -r samples alive < <(sed -n 's/^allocation sampling: .*, \([0-9]*\) samples, \([0-9]*\) alive.*/\1 \2/p' "$out")
[ "${samples:-0}" -gt 100 ] && [ "$alive" = "$samples" ] && pass ||
    fail "-l-g: ${alive:-?} of ${samples:-?} samples alive (all should count without GC events)"

# --- strata-events summary ----------------------------------------------------
expect_status 0 "$events" summary leak.eventlog --top 3
grep -q '^allocation sampling: one sample per 65536 bytes' "$out" && pass ||
    fail "summary: $(cat "$out")"
grep -A1 '^top allocation sites by bytes alive' "$out" | grep -q '1\. .*remember (examples/leak.c:4[89]) <- main (examples/leak.c:' &&
    pass || fail "summary: remember is not the top site by bytes alive: $(cat "$out")"
grep -A1 '^top allocation sites by bytes allocated' "$out" | grep -q '1\. .*handle (examples/leak.c:6[0-9]) <- main' &&
    pass || fail "summary: handle is not the top site by bytes allocated: $(cat "$out")"
expect_status 0 "$events" summary leak.eventlog --json
grep -q '"allocation_sampling": {"rate_bytes": 65536' "$out" && pass || fail "summary --json: $(cat "$out")"
# A log without samples: no allocation section, and pprof writes a census.
expect_status 0 "$ex/leak" 2 20000 +RTS -hT -l -olhT.eventlog -RTS
expect_status 0 "$events" summary hT.eventlog
grep -q 'allocation' "$out" && fail "summary of a log without samples: $(cat "$out")" || pass
expect_status 0 "$events" pprof hT.eventlog -o hT.pb.gz

if ! command -v go >/dev/null; then
    skip_part go "go is not installed (apt-get install golang-go): go tool pprof did not read the sampled profiles"
    finish
fi
export GOFLAGS=-mod=mod GOPATH="$test_tmp/go" GOCACHE="$test_tmp/go-cache"

# share FUNCTION FILE: FUNCTION's flat% of inuse_space in FILE's -top.
share() {
    go tool pprof -top -sample_index=inuse_space "$2" 2>/dev/null |
        awk -v f="$1" '$NF == f { sub("%", "", $2); print $2; found = 1 } END { if (!found) print "missing" }'
}

# within NAME FILE FUNCTION WANT: FUNCTION's share is WANT% within 5 points.
within() {
    local got
    got=$(share "$3" "$2")
    awk -v g="$got" -v w="$4" 'BEGIN { exit !(g != "missing" && g - w <= 5 && w - g <= 5) }' &&
        pass || fail "$1: $3 has $got% of inuse_space, not $4% within 5 points: $(go tool pprof -top -sample_index=inuse_space "$2" 2>&1 | head -n 12)"
}

for n in 1 4; do
    expect_status 0 "$shares" $n 100 +RTS -N$n --alloc-sample -l -olshares$n.eventlog -RTS
    expect_status 0 "$events" pprof shares$n.eventlog -o shares$n.pb.gz
    within "-N$n" shares$n.pb.gz grow_nodes 60
    within "-N$n" shares$n.pb.gz grow_boxes 30
    within "-N$n" shares$n.pb.gz grow_pages 10
done
# At -N4 every capability sampled.
expect_status 0 "$events" show shares4.eventlog
for cap in 0 1 2 3; do
    grep -q "strata: sampled allocation: sample .*, cap $cap, " "$out" && pass ||
        fail "-N4: capability $cap took no sample"
done
# The four types, the era label, the frames' files and lines.
go tool pprof -raw shares1.pb.gz >raw 2>&1
grep -q 'alloc_objects/count alloc_space/bytes inuse_objects/count inuse_space/bytes' raw && pass ||
    fail "shares: not Go's four sample types: $(head -n 5 raw)"
grep -q 'era:\[1\]' raw && pass || fail "shares: no era label: $(head -n 30 raw)"
grep -Eq 'grow_pages testsuite/programs/alloc_shares.c:[0-9]+' raw && pass ||
    fail "shares: grow_pages without its file and line: $(grep -m3 grow_pages raw)"

# --- strata-live --------------------------------------------------------------
# The leak runs a while before strata-live connects: what remember kept
# before then is still in inuse (Note [Samples sampled before strata-live
# connected] in utils/strata-live/main.c).  It stays blocked at its end
# (--eventlog-socket-wait is for the start) only as long as its work takes.
# The samples sent again count in use from the next collection (Note [In
# use as of the last collection] in utils/heapprof/AllocModel.c): a small
# nursery (-A256k) makes that soon, and the heap is read until remember
# tops it (a loaded machine may have run only a few phases by then).
"$ex/leak" 400 100000 +RTS --alloc-sample=64k -A256k --eventlog-socket=$test_tmp/leak.sock \
    --eventlog-flush-interval=0.05 -RTS >/dev/null 2>&1 &
leak_pid=$!
for i in $(seq 100); do [ -S leak.sock ] && break; sleep 0.05; done
sleep 1
start_live live-leak --socket "$test_tmp/leak.sock"
top_of() { go tool pprof -top -sample_index="$1" "$2" 2>/dev/null | awk 'f { print $NF; exit } /flat%/ { f = 1 }'; }
# Until strata-live has read the stream's start, it has no samples and
# answers 503: asked again, as for a leak that has not outgrown them.
code=
for i in $(seq 60); do
    code=$(curl -s -o heap.pb.gz -w '%{http_code}' "$url/debug/pprof/heap")
    [ "$code" = 200 ] && [ "$(top_of inuse_space heap.pb.gz)" = remember ] && break
    sleep 0.5
done
[ "$code" = 200 ] && pass || fail "GET /debug/pprof/heap: status $code: $(head -c 300 heap.pb.gz)"
# Just after connecting, allocs holds mostly the samples still alive that
# the program sent again (remember's); handle's allocations, counted from
# the connection on, outgrow them within a few phases.
for i in $(seq 60); do
    curl -sf -o allocs.pb.gz "$url/debug/pprof/allocs" || break
    [ "$(top_of alloc_space allocs.pb.gz)" = handle ] && break
    sleep 0.5
done
[ -s allocs.pb.gz ] && pass || fail "GET /debug/pprof/allocs failed"
curl -sf -o era1.pb.gz "$url/debug/pprof/heap?era=1" && pass || fail "GET ?era=1 failed"
curl -sf -o early.pb.gz "$url/debug/pprof/heap?era=1-5" && pass || fail "GET ?era=1-5 failed"
code=$(curl -s -o bad-era -w '%{http_code}' "$url/debug/pprof/heap?era=3-2")
[ "$code" = 400 ] && grep -q "bad era '3-2': expected an era N or a range LO-HI" bad-era && pass ||
    fail "?era=3-2: $code $(cat bad-era)"
kill "$leak_pid" 2>/dev/null
wait "$leak_pid" 2>/dev/null
stop_live
[ "$(top_of inuse_space heap.pb.gz)" = remember ] && pass || fail "live heap: $(go tool pprof -top heap.pb.gz 2>&1 | head)"
[ "$(top_of alloc_space allocs.pb.gz)" = handle ] && pass || fail "live allocs: $(go tool pprof -top allocs.pb.gz 2>&1 | head)"
go tool pprof -raw era1.pb.gz 2>/dev/null | grep -o 'era:\[[0-9]*\]' | sort -u >eras
[ "$(cat eras)" = 'era:[1]' ] && pass || fail "?era=1 holds other eras: $(cat eras)"
# Phases 1 to 5 were over before strata-live connected: what they keep
# is there only because the program sent its live samples again.
go tool pprof -top -sample_index=inuse_space early.pb.gz 2>/dev/null | grep -q 'of 0 total' &&
    fail "nothing alive from eras 1-5: the samples before the connection are missing" || pass
go tool pprof -top allocs.pb.gz 2>/dev/null | grep -q '^Type: alloc_space' && pass ||
    fail "/debug/pprof/allocs does not default to alloc_space"
# Without samples: allocs says why; heap is the census, as before.
expect_status 0 "$ex/leak" 2 20000 +RTS -hT -l -olplain.eventlog -RTS
start_live live-plain --file plain.eventlog
sleep 0.5
code=$(curl -s -o no-allocs -w '%{http_code}' "$url/debug/pprof/allocs")
[ "$code" = 503 ] && grep -q 'no sampled allocations: run the program with +RTS --alloc-sample' no-allocs &&
    pass || fail "/debug/pprof/allocs without samples: $code $(cat no-allocs)"
curl -sf -o census.pb.gz "$url/debug/pprof/heap" && pass || fail "the census is no longer served"
stop_live

# --- strata-debug ---------------------------------------------------------------
# A sampled object's allocation path in retainers, boundary and diff, live
# and from a snapshot (Note [Allocation sites in the heap debugger] in
# utils/strata-debug/Print.c).
dbg=$top_builddir/utils/strata-debug/strata-debug
"$ex/leak" 100000 1500000 +RTS --alloc-sample=16k --debug-socket=$test_tmp/dbg.sock -RTS >/dev/null 2>&1 &
leak_pid=$!
for i in $(seq 100); do [ -S dbg.sock ] && break; sleep 0.05; done
# One session in 64 is kept and 1 byte in 16k sampled: the snapshot waits
# until a sampled SessionEntry is alive (a slow build takes seconds).
for i in $(seq 60); do
    "$dbg" retainers --socket dbg.sock --constructor SessionEntry --sampled --limit 1 \
        >ready.out 2>&1 && grep -q 'allocated at remember' ready.out && break
    sleep 0.5
done
expect_status 0 "$dbg" snapshot a.snap --socket dbg.sock --new-era
sleep 1
expect_status 0 "$dbg" retainers --socket dbg.sock --constructor SessionEntry --sampled --limit 2
grep -Eq '^        allocated at remember \(examples/leak.c:49\) <- main \(examples/leak.c:[0-9]+\).* \(sample [0-9]+, era [0-9]+\)$' "$out" &&
    pass || fail "retainers --sampled: no allocation site under the match: $(cat "$out")"
expect_status 0 "$dbg" retainers --socket dbg.sock --constructor SessionEntry --sampled --limit 1 --json
grep -q '"allocated_at":{"sample":[0-9]*,"era":[0-9]*,"bytes":32,"frames":\[{"function":"remember","file":"examples/leak.c","line":49}' "$out" &&
    pass || fail "retainers --json: no allocated_at: $(head -c 600 "$out")"
expect_status 0 "$dbg" boundary --socket dbg.sock --era 1-2 --limit 1
grep -A2 'objects of those eras sampled, allocated at:' "$out" | grep -q 'remember (examples/leak.c:4[89])' &&
    pass || fail "boundary: no allocation sites of the old eras: $(cat "$out")"
expect_status 0 "$dbg" diff a.snap --socket dbg.sock --limit 2
grep -A1 ' of them sampled, allocated at:' "$out" | grep -q 'remember (examples/leak.c:4[89]) <- main' &&
    pass || fail "diff: no allocation sites of the new objects: $(cat "$out")"
expect_status 0 "$dbg" retainers --snapshot a.snap --constructor SessionEntry --sampled --limit 1
grep -q '^        allocated at remember (examples/leak.c:49)' "$out" && pass ||
    fail "a snapshot lost the allocation sites: $(cat "$out")"
expect_status 2 "$dbg" census --socket dbg.sock --sampled
expect_stderr_contains 'strata-debug: census: --sampled applies to retainers only'
kill "$leak_pid" 2>/dev/null
wait "$leak_pid" 2>/dev/null
"$ex/leak" 100000 1500000 +RTS --debug-socket=$test_tmp/plain.sock -RTS >/dev/null 2>&1 &
leak_pid=$!
for i in $(seq 100); do [ -S plain.sock ] && break; sleep 0.05; done
expect_status 1 "$dbg" retainers --socket plain.sock --constructor SessionEntry --sampled
expect_stderr_contains 'retainers --sampled: no sampled object is alive (run the program with +RTS --alloc-sample)'
kill "$leak_pid" 2>/dev/null
wait "$leak_pid" 2>/dev/null

# The leak's log: remember keeps what stays, handle allocates most.
expect_status 0 "$events" pprof leak.eventlog -o leak.pb.gz
[ "$(top_of inuse_space leak.pb.gz)" = remember ] && pass ||
    fail "leak: the top of inuse_space is $(top_of inuse_space leak.pb.gz), not remember"
[ "$(top_of alloc_space leak.pb.gz)" = handle ] && pass ||
    fail "leak: the top of alloc_space is $(top_of alloc_space leak.pb.gz), not handle"

finish
