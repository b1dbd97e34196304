#!/usr/bin/env bash
# testsuite/scripts/live-e2e.sh -- the two halves of issue 25 together: a
# real program streaming its eventlog over a Unix socket (+RTS
# --eventlog-socket, with -ol writing the same log to a file at the same
# time) read by strata-live, and control commands sent from the command
# line with strata-live --send.  Checks that a census seen on /metrics
# while the program runs equals the same census in the file; that go tool
# pprof reads /debug/pprof/heap; that a client joining late ends on the
# file's last census; that an era increment sent over the socket shows in
# the -he bands and strata_era_current; and, with +RTS -N2, that every
# capability's blocks are read (allocation, GC counts, census).  The halves
# alone: eventlog-socket.sh and strata-live.sh.
set -u
. "$(dirname "$0")/lib.sh"

command -v curl >/dev/null ||
    skip curl "curl is not installed (apt-get install curl): strata-live's HTTP was not checked"

ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
live=$top_builddir/utils/strata-live/strata-live
target=$top_builddir/testsuite/programs/live_target
cd "$test_tmp" || exit 1
live_pid=
prog_pid=

. "$top_srcdir/testsuite/scripts/live-lib.sh"

# wait_metric_ge LINE-PREFIX N: polls (up to 60 s) until the value is >= N.
wait_metric_ge() {
    local i got=
    for i in $(seq 600); do
        got=$(metric "$1")
        [ "${got:-0}" -ge "$2" ] 2>/dev/null && return 0
        sleep 0.1
    done
    fail "/metrics: '$1' is '$got', never reached $2"
    return 1
}

# wait_line FILE TEXT: waits (up to 60 s) until FILE holds TEXT.
wait_line() {
    for _ in $(seq 600); do
        grep -qF -e "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# band_of LOG N NAME: the bytes of band NAME (an IPE table name, -hi; a
# band label otherwise) in census N of LOG ("last": the last census), and
# the census count, as "bytes count".
band_of() {
    "$events" show "$1" | awk -v want="$2" -v t="$3" '
        /: An IPE entry: / && index($0, "table \"" t "\"") {
            match($0, /info 0x[0-9a-f]+/); addr = substr($0, RSTART + 5, RLENGTH - 5) }
        /: Start of heap profile sample: / { n++; split("", v) }
        /: Heap profile string sample: / {
            b = $0; sub(/.*profile 0, /, "", b); sub(/ bytes.*/, "", b)
            l = $0; sub(/^[^"]*"/, "", l); sub(/"$/, "", l); v[l] = b }
        /: End of heap profile sample: / && (want == n || want == "last") {
            key = addr != "" ? addr : t; got = v[key] }
        END { print (got == "" ? "-" : got), n }'
}

# ---- 1. leak -hi over the socket and into a file at once ----------------------
# --eventlog-socket-wait: strata-live sees every event, so its census
# numbers are the file's.
sock=$test_tmp/leak.sock
"$ex/leak" 12 1500000 +RTS -hi -l -i0.05 --eventlog-flush-interval=0.05 \
    --eventlog-socket="$sock" --eventlog-socket-wait -olleak.eventlog -RTS \
    >leak.prog.out 2>leak.prog.err &
prog_pid=$!
wait_socket "$sock" 60 || setup_fail "no socket at $sock: $(cat ./*.prog.err 2>/dev/null)"
start_live leak --socket "$sock"
wait_metric_ge 'strata_heap_census_number{' 1
# One scrape, so that the census number and the band are the same census's.
curl -sf "$url/metrics" >scrape1
kill -0 "$prog_pid" 2>/dev/null && running=yes || running=no
n1=$(metric 'strata_heap_census_number{' scrape1)
v1=$(grep 'info_table="SessionEntry_con_info"' scrape1 | sed 's/.* //')
wait "$prog_pid" && pass || fail "leak failed: $(cat leak.prog.err)"
read -r want1 n_file < <(band_of leak.eventlog "$n1" SessionEntry_con_info)
[ -n "$v1" ] && [ "$v1" = "$want1" ] && pass ||
    fail "census $n1 (program running: $running): SessionEntry is '$v1' on /metrics, '$want1' in the -ol file"
echo "census $n1 of $n_file read while the program was running: $running"
# The end: the file's last census, every census read.
wait_metric_ge 'strata_live_streams_total{' 1
wait_line leak.err 'stream ended after' || fail "no end of stream: $(cat leak.err)"
read -r want_last _ < <(band_of leak.eventlog last SessionEntry_con_info)
[ "$(metric 'strata_heap_census_number{')" = "$n_file" ] && pass ||
    fail "strata-live read $(metric 'strata_heap_census_number{') censuses, the file has $n_file"
line=$(curl -sf "$url/metrics" | grep 'info_table="SessionEntry_con_info"')
[ "${line##* }" = "$want_last" ] && pass ||
    fail "last census: $line, expected the file's $want_last"
# pprof reads /debug/pprof/heap: the file's last census.
if command -v go >/dev/null; then
    export GOCACHE=$test_tmp/gocache HOME=$test_tmp PPROF_TMPDIR=$test_tmp/pprof
    go tool pprof -top -unit=B -nodefraction=0 "$url/debug/pprof/heap" >pprof.txt 2>pprof.err
    grep -qE "^ *${want_last}B .*SessionEntry_con_info" pprof.txt && pass ||
        fail "go tool pprof on /debug/pprof/heap: SessionEntry is not ${want_last}B: $(cat pprof.txt pprof.err)"
else
    skip_part go "go is not installed (apt-get install golang-go): /debug/pprof/heap not read by go tool pprof"
fi
stop_live

# ---- 2. a client that joins late ends on the file's last census ---------------
sock=$test_tmp/late.sock
"$ex/leak" 12 1500000 +RTS -hi -l -i0.05 --eventlog-flush-interval=0.05 \
    --eventlog-socket="$sock" -ollate.eventlog -RTS >late.prog.out 2>late.prog.err &
prog_pid=$!
wait_socket "$sock" 60 || setup_fail "no socket at $sock: $(cat ./*.prog.err 2>/dev/null)"
start_live late --socket "$sock"
wait "$prog_pid" && pass || fail "leak failed: $(cat late.prog.err)"
wait_line late.err 'stream ended after' || fail "no end of stream: $(cat late.err)"
read -r want_last n_file < <(band_of late.eventlog last SessionEntry_con_info)
line=$(curl -sf "$url/metrics" | grep 'info_table="SessionEntry_con_info"')
[ "${line##* }" = "$want_last" ] && pass ||
    fail "late client's last census: $line, expected the file's $want_last"
n_late=$(metric 'strata_heap_censuses_total{')
[ "${n_late:-0}" -ge 1 ] && [ "$n_late" -le "$n_file" ] && pass ||
    fail "the late client read $n_late censuses of the file's $n_file"
stop_live

# ---- 3. an era increment from the command line (-he) --------------------------
# live_target allocates until it is sent ("live-test", 1); censuses only on
# request.  The era goes up between two requested censuses; the census that
# follows some allocation in the new era shows its band.
sock=$test_tmp/era.sock
"$target" until-stop 120 +RTS -he -l -i0 --no-automatic-heap-samples \
    --eventlog-socket="$sock" --eventlog-socket-wait -olera.eventlog -s -RTS \
    >era.prog.out 2>era.prog.err &
prog_pid=$!
wait_socket "$sock" 60 || setup_fail "no socket at $sock: $(cat ./*.prog.err 2>/dev/null)"
start_live era --socket "$sock"
wait_line era.prog.out ready || setup_fail "live_target did not start: $(cat era.prog.err)"
# strata:flush sends the census now rather than when the buffer fills.
expect_status 0 "$live" --socket "$sock" --send eventlog-socket:census --send strata:flush
wait_metric_ge 'strata_heap_census_number{' 1
era0=$(metric 'strata_era_current{')
[ -n "$era0" ] && [ "$era0" -ge 1 ] && pass || fail "strata_era_current is '$era0' after a -he census"
expect_status 0 "$live" --socket "$sock" --send strata:era
era1=$((era0 + 1))
n=1
for _ in $(seq 50); do
    expect_status 0 "$live" --socket "$sock" --send eventlog-socket:census --send strata:flush
    n=$((n + 1))
    wait_metric_ge 'strata_heap_census_number{' "$n" || break
    curl -sf "$url/metrics" >scrape_era
    grep -q "^strata_heap_census_bytes{.*breakdown=\"era\",band=\"$era1\"" scrape_era && break
    sleep 0.1
done
grep -q "^strata_heap_census_bytes{.*breakdown=\"era\",band=\"$era1\"" scrape_era && pass ||
    fail "no band for era $era1 after strata:era: $(grep census_bytes scrape_era)"
[ "$(metric 'strata_era_current{' scrape_era)" = "$era1" ] && pass ||
    fail "strata_era_current is $(metric 'strata_era_current{' scrape_era), expected $era1"
v_era=$(grep "^strata_heap_census_bytes{.*band=\"$era1\"" scrape_era | sed 's/.* //')
expect_status 0 "$live" --socket "$sock" --send live-test:1
wait "$prog_pid" && pass || fail "live_target failed: $(cat era.prog.err)"
read -r want_era _ < <(band_of era.eventlog "$n" "$era1")
[ -n "$v_era" ] && [ "$v_era" = "$want_era" ] && pass ||
    fail "census $n: era $era1 is '$v_era' on /metrics, '$want_era' in the -ol file"
# Every command was run: n censuses and flushes, one era, the stop.
grep -qE "^ *0 control bytes skipped \($((2 * n + 2)) messages, $((2 * n + 2)) run, 0 unknown, 0 bad" \
    era.prog.err && pass || fail "+RTS -s: $(grep control era.prog.err), expected $((2 * n + 2)) messages run"
stop_live

# --send over TCP, and its errors.
"$target" until-stop 120 +RTS -l --eventlog-socket-tcp=:0 -RTS >tcp.prog.out 2>tcp.prog.err &
prog_pid=$!
wait_line tcp.prog.out ready || setup_fail "live_target did not start: $(cat tcp.prog.err)"
port=$(sed -n 's/.*listening on TCP 127.0.0.1:\([0-9]*\).*/\1/p' tcp.prog.err)
expect_status 0 "$live" --tcp "127.0.0.1:$port" --send live-test:1
wait "$prog_pid" && pass || fail "live_target over TCP failed: $(cat tcp.prog.err)"
grep -qx 'custom command ran (command=1, data=42, runs=1)' tcp.prog.out && pass ||
    fail "the command sent over TCP did not run: $(cat tcp.prog.out)"
expect_status 1 "$live" --socket "$test_tmp/nothing.sock" --send strata:era
expect_stderr_contains "strata-live: --socket $test_tmp/nothing.sock: cannot connect: No such file or directory"
expect_status 2 "$live" --socket s --send strata
expect_stderr_contains "strata-live: --send: expected NAMESPACE:COMMAND, got 'strata'"
expect_status 2 "$live" --socket s --send :1
expect_stderr_contains "strata-live: --send: expected NAMESPACE:COMMAND, got ':1'"
for bad in 256 x era1 -1 ''; do
    expect_status 2 "$live" --socket s --send "strata:$bad"
    expect_stderr_contains "strata-live: --send: the command must be a number from 0 to 255 or a known name (strata:era, strata:gc, strata:flush, eventlog-socket:census, ...), not '$bad'"
done
expect_status 2 "$live" --socket s --send eventlog-socket:era
expect_stderr_contains "not 'era'"
expect_status 2 "$live" --socket s --send "$(printf 'n%.0s' $(seq 256)):1"
expect_stderr_contains 'strata-live: --send: the namespace is longer than 255 bytes (bytes=256)'
expect_status 2 "$live" --file x --send strata:era
expect_stderr_contains 'strata-live: --send needs the program'"'"'s --socket PATH or --tcp HOST:PORT'
expect_status 2 "$live" --socket s --send strata:era --listen :0
expect_stderr_contains 'strata-live: --send serves nothing: --listen, --service-name and --top do not go with it'

# ---- 4. +RTS -N2: every capability's blocks ------------------------------------
sock=$test_tmp/threads.sock
"$ex/threads" 4 100000 +RTS -N2 -hi -l -i0.02 --eventlog-socket="$sock" \
    --eventlog-socket-wait -olthreads.eventlog -RTS >threads.prog.out 2>threads.prog.err &
prog_pid=$!
wait_socket "$sock" 60 || setup_fail "no socket at $sock: $(cat ./*.prog.err 2>/dev/null)"
start_live threads --socket "$sock"
wait "$prog_pid" && pass || fail "threads failed: $(cat threads.prog.err)"
wait_line threads.err 'stream ended after' || fail "no end of stream: $(cat threads.err)"
"$events" show threads.eventlog >threads.show
grep -q '^ *[0-9]*: cap 1: ' threads.show && grep -q '^ *[0-9]*: cap 0: ' threads.show && pass ||
    fail "the -N2 log lacks events of both capabilities"
want_alloc=$(awk '/: Total heap memory ever allocated: / {
        c = $2; v = $0; sub(/.*capset [0-9]+, /, "", v); last[c] = v + 0 }
    END { for (c in last) s += last[c]; print s }' threads.show)
[ "$(metric 'strata_heap_allocated_bytes_total{')" = "$want_alloc" ] && pass ||
    fail "allocated: $(metric 'strata_heap_allocated_bytes_total{'), the file's caps sum to $want_alloc"
want_gcs=$(grep -cE '^ *[0-9]+: cap [0-9]+: Finished GC$' threads.show)
[ "$(metric 'strata_gc_collections_total{')" = "$want_gcs" ] && pass ||
    fail "GCs: $(metric 'strata_gc_collections_total{'), the file has $want_gcs"
read -r want_last n_file < <(band_of threads.eventlog last CacheEntry_info)
line=$(curl -sf "$url/metrics" | grep 'info_table="CacheEntry_info"')
[ -n "$want_last" ] && [ "${line##* }" = "$want_last" ] && pass ||
    fail "-N2 last census: $line, expected the file's $want_last"
[ "$(metric 'strata_heap_census_number{')" = "$n_file" ] && pass ||
    fail "-N2: strata-live read $(metric 'strata_heap_census_number{') censuses, the file has $n_file"
stop_live

finish
