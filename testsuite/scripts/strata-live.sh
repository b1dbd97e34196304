#!/usr/bin/env bash
# testsuite/scripts/strata-live.sh -- strata-live end to end: the leak
# example's -hi -l log read from a file (complete, then one still being
# written, then replaced by another run's), from standard input, from a
# Unix socket (before anything listens, and again when the "program"
# restarts) and from TCP; /metrics checked against the census in the log
# (strata-events show), /debug/pprof/heap through go tool pprof against
# strata-events pprof; and every flag and path error with its message.
# Prometheus itself scrapes it in strata-live-prometheus.sh.
set -u
. "$(dirname "$0")/lib.sh"

command -v curl >/dev/null ||
    skip curl "curl is not installed (apt-get install curl): strata-live's HTTP was not checked"

ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
live=$top_builddir/utils/strata-live/strata-live
serve_log=$top_builddir/testsuite/programs/serve_log
cd "$test_tmp" || exit 1
live_pid=

. "$top_srcdir/testsuite/scripts/live-lib.sh"

# wait_metric LINE-PREFIX VALUE: polls /metrics (up to 30 s) until the line
# has VALUE; fails, naming what it saw, if it never does.
wait_metric() {
    local i got=
    for i in $(seq 300); do
        got=$(metric "$1")
        [ "$got" = "$2" ] && { pass; return 0; }
        sleep 0.1
    done
    fail "/metrics: '$1' is '$got', expected '$2'"
    return 1
}

# census_of LOG TABLE: "census-count bytes" -- how many censuses LOG has, and
# the bytes of TABLE's band (the IPE table name, -hi) or of the band
# labelled TABLE (other breakdowns) in the last of them.
census_of() {
    "$events" show "$1" | awk -v t="$2" '
        /: An IPE entry: / && index($0, "table \"" t "\"") {
            match($0, /info 0x[0-9a-f]+/); addr = substr($0, RSTART + 5, RLENGTH - 5) }
        /: Start of heap profile sample: / { n++; split("", v) }
        /: Heap profile string sample: / {
            b = $0; sub(/.*profile 0, /, "", b); sub(/ bytes.*/, "", b)
            l = $0; sub(/^[^"]*"/, "", l); sub(/"$/, "", l); v[l] = b }
        END { key = addr != "" ? addr : t; print n, v[key] }'
}

# --- flag and path errors (exit 2), and errors at start (exit 1) ----------------
expect_status 2 "$live"
expect_stderr_contains 'strata-live: no eventlog source: give one of --socket PATH, --tcp HOST:PORT, --file LOG or -'
expect_status 2 "$live" --file a --socket b
expect_stderr_contains 'strata-live: give one eventlog source, not 2'
expect_status 2 "$live" --frobnicate
expect_stderr_contains "strata-live: unknown option: --frobnicate
Try 'strata-live --help'."
expect_status 2 "$live" --listn 127.0.0.1:0
expect_stderr_contains 'strata-live: unknown option: --listn (did you mean --listen?)'
expect_status 2 "$live" --top
expect_stderr_contains 'strata-live: --top needs a value (N)'
expect_status 2 "$live" some.eventlog
expect_stderr_contains 'strata-live: unexpected argument: some.eventlog (a log file is given with --file)'
for opt in --socket --tcp --file --listen --service-name --top; do
    expect_status 2 "$live" "$opt"
    expect_stderr_contains "strata-live: $opt needs a value"
done
for bad in 0 x 10001 -1 5k; do
    expect_status 2 "$live" - --top "$bad"
    expect_stderr_contains "strata-live: --top takes a number of bands from 1 to 10000, not '$bad'"
done
expect_status 2 "$live" - --service-name ''
expect_stderr_contains 'strata-live: --service-name: the name is empty'
expect_status 2 "$live" - --listen localhost
expect_stderr_contains "strata-live: --listen: expected HOST:PORT, got 'localhost' (no ':')"
expect_status 2 "$live" - --listen 127.0.0.1:70000
expect_stderr_contains "strata-live: --listen: port must be a number from 0 to 65535, got '70000'"
expect_status 2 "$live" --tcp 127.0.0.1:0
expect_stderr_contains "strata-live: --tcp: port must be a number from 1 to 65535, got '0'"
expect_status 2 "$live" --tcp 127.0.0.1:http
expect_stderr_contains "strata-live: --tcp: port must be a number from 1 to 65535, got 'http'"
long=$(printf 'x%.0s' $(seq 120))
expect_status 2 "$live" --socket "/tmp/$long"
expect_stderr_contains "strata-live: --socket /tmp/$long: path too long for a Unix socket (bytes=125, max=107)"
: >plain-file
expect_status 2 "$live" --socket plain-file
expect_stderr_contains 'strata-live: --socket plain-file: not a socket (a file or device)'
expect_status 2 "$live" --socket .
expect_stderr_contains 'strata-live: --socket .: not a socket (a directory)'
expect_status 2 "$live" --file missing.eventlog
expect_stderr_contains 'strata-live: --file missing.eventlog: No such file or directory'
expect_status 2 "$live" --file .
expect_stderr_contains 'strata-live: --file .: is a directory'
expect_status 1 "$live" --tcp no-such-host.invalid:9000 --listen 127.0.0.1:0
expect_stderr_contains 'strata-live: --tcp no-such-host.invalid:9000: cannot resolve no-such-host.invalid'
expect_status 1 "$live" --file "$top_srcdir/README.md" --listen 127.0.0.1:0
expect_stderr_contains 'strata-live: '"$top_srcdir"'/README.md: offset 0: bad header begin marker "hdrb" (not an eventlog?)'
expect_status 1 "$live" - --listen 256.1.1.1:0 </dev/null
expect_stderr_contains 'strata-live: --listen 256.1.1.1:0: cannot resolve 256.1.1.1'
# A port in use: strata-live's own (serving a log read from stdin).
live_stdin=$top_srcdir/testsuite/golden/heap-hT.eventlog start_live busy -
busy_port=${url##*:}
expect_status 1 "$live" - --listen "127.0.0.1:$busy_port" </dev/null
expect_stderr_contains "strata-live: --listen 127.0.0.1:$busy_port: cannot listen: Address already in use"
stop_live

# --- a complete log, from a file ----------------------------------------------
# Long enough (~0.15 s of CPU) for several ticks, each taking a census
# (every-tick): under the budget a loaded machine got one census only.
expect_status 0 "$ex/leak" 20 100000 +RTS -hi -l -olhi.eventlog -i0.01 --census-gc=every-tick -RTS
read -r n_hi want_hi < <(census_of hi.eventlog SessionEntry_con_info)
[ "${n_hi:-0}" -ge 2 ] && [ -n "$want_hi" ] ||
    setup_fail "the leak log has no censuses with SessionEntry ($n_hi, '$want_hi')"
start_live file --file hi.eventlog --service-name 'leak "test"' --top 3
wait_metric 'strata_heap_census_number{service_name="leak \"test\""}' "$n_hi"
got=$(metric 'strata_heap_census_bytes{service_name="leak \"test\"",breakdown="info_table",band="0x')
line=$(curl -sf "$url/metrics" | grep 'info_table="SessionEntry_con_info"')
[ "${line##* }" = "$want_hi" ] && pass ||
    fail "SessionEntry's band: '$line', expected the log's $want_hi bytes"
case $line in
*'defined_in="Cache.remember",source="examples/leak.c:'*'closure_type="CONSTR"'*) pass ;;
*) fail "SessionEntry's band lacks its provenance labels: $line" ;;
esac
[ -n "$got" ] || fail "no info_table band series"
# At most --top bands, and the rest summed as other.
bands=$(curl -sf "$url/metrics" | grep -c '^strata_heap_census_bytes{')
n_bands=$(metric 'strata_heap_census_bands{')
if [ "$n_bands" -gt 3 ]; then
    [ "$bands" -eq 4 ] && pass || fail "--top 3 with $n_bands bands gave $bands series"
    curl -sf "$url/metrics" | grep -q '^strata_heap_census_bytes{.*band="other"} [0-9]' && pass ||
        fail "no band=\"other\" series"
fi
total=$(metric 'strata_heap_census_total_bytes{')
sum=$(curl -sf "$url/metrics" | awk '/^strata_heap_census_bytes\{/ { s += $NF } END { print s }')
[ "$total" = "$sum" ] && pass || fail "the shown bands sum to $sum, the census to $total"
for m in strata_heap_size_bytes strata_heap_live_bytes strata_heap_blocks_bytes \
         strata_heap_allocated_bytes_total strata_gc_collections_total \
         strata_gc_copied_bytes_total strata_gc_pause_seconds_count; do
    v=$(metric "$m{")
    [ -n "$v" ] && [ "$v" != 0 ] && pass || fail "$m is '$v'"
done
curl -sf "$url/metrics" | grep -q '^strata_program_info{service_name="leak \\"test\\"",pid="[0-9][0-9]*",rts="strata-0.1.0 rts_strata",program=".*examples/leak"} 1$' &&
    pass || fail "strata_program_info: $(curl -sf "$url/metrics" | grep '^strata_program_info')"
[ "$(metric 'strata_heap_live_bytes{')" = "$("$events" show hi.eventlog |
    sed -n 's/.*Current heap live data: capset 0, \([0-9]*\) bytes.*/\1/p' | tail -n 1)" ] && pass ||
    fail "strata_heap_live_bytes is not the log's last HEAP_LIVE"
code=$(curl -s -o /dev/null -w '%{http_code}' "$url/nothing")
[ "$code" = 404 ] && pass || fail "/nothing answered $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url/metrics")
[ "$code" = 405 ] && pass || fail "POST /metrics answered $code"

# /debug/pprof/heap: the same profile as strata-events pprof --last.
expect_status 0 "$events" pprof hi.eventlog --last -o want.pb.gz
curl -sf -o got.pb.gz "$url/debug/pprof/heap" && pass || fail "GET /debug/pprof/heap failed"
if command -v go >/dev/null; then
    export GOCACHE=$test_tmp/gocache HOME=$test_tmp PPROF_TMPDIR=$test_tmp/pprof
    top() {
        go tool pprof -top -unit=B -nodefraction=0 "$1" 2>/dev/null | grep -E '^ *[0-9]+B '
    }
    top want.pb.gz >want.txt
    top "$url/debug/pprof/heap" >got.txt
    [ -s want.txt ] && cmp -s want.txt got.txt && pass ||
        fail "go tool pprof on /debug/pprof/heap: $(cat got.txt); strata-events pprof: $(cat want.txt)"
    grep -q "$want_hi"'B .*SessionEntry_con_info' got.txt && pass ||
        fail "pprof's SessionEntry band is not $want_hi bytes: $(cat got.txt)"
else
    skip_part go "go is not installed (apt-get install golang-go): /debug/pprof/heap not read by go tool pprof"
fi
stop_live

# --- a log still being written: followed to its end ------------------------------
half=$(($(stat -c %s hi.eventlog) / 2 + 7))   # cut inside an event
head -c "$half" hi.eventlog >growing.eventlog
start_live grow --file growing.eventlog
for i in $(seq 100); do
    [ "$(metric 'strata_live_events_total{')" -gt 0 ] 2>/dev/null && break
    sleep 0.1
done
[ "$(metric 'strata_live_connected{')" = 1 ] && pass || fail "not reading the growing log"
tail -c "+$((half + 1))" hi.eventlog >>growing.eventlog
wait_metric 'strata_heap_census_number{' "$n_hi"
line=$(curl -sf "$url/metrics" | grep 'info_table="SessionEntry_con_info"')
[ "${line##* }" = "$want_hi" ] && pass || fail "followed log: $line, expected $want_hi"
wait_metric 'strata_live_connected{' 0
# Another run replaces the file: a second stream, with its own figures.
expect_status 0 "$ex/leak" 3 30000 +RTS -hT -l -olhT.eventlog -RTS
read -r n_hT want_hT < <(census_of hT.eventlog ARR_WORDS)
cp hT.eventlog next.eventlog && mv next.eventlog growing.eventlog
wait_metric 'strata_live_streams_total{' 2
wait_metric 'strata_heap_census_number{' "$n_hT"
wait_metric 'strata_heap_census_bytes{service_name="leak",breakdown="closure_type",band="ARR_WORDS"' "$want_hT"
curl -sf "$url/metrics" | grep -q 'breakdown="info_table"' &&
    fail "the first run's -hi bands outlived its stream" || pass
stop_live

# --- standard input ----------------------------------------------------------------
live_stdin=hi.eventlog start_live stdin -
wait_metric 'strata_heap_census_number{' "$n_hi"
line=$(curl -sf "$url/metrics" | grep 'info_table="SessionEntry_con_info"')
[ "${line##* }" = "$want_hi" ] && pass || fail "stdin: $line, expected $want_hi"
grep -q 'stream ended after [0-9]* events; serving its last figures' stdin.err && pass ||
    fail "stdin: no end-of-stream message: $(cat stdin.err)"
stop_live
# A run killed in its third census: the end of the stream ends that census,
# which is then the one served (as in strata-events and strata-html).
live_stdin=$top_srcdir/testsuite/golden/heap-cut.eventlog start_live cut -
wait_metric 'strata_heap_census_number{' 3
wait_metric 'strata_heap_census_bytes{service_name="prog",breakdown="closure_type",band="ARR_WORDS"' 65536
stop_live

# Strings as every tool writes them (Note [One way to write a string] in
# wire/TextOut.c): in a label value "Café→λ" as it is; a tab, an ESC and
# invalid bytes as \\xNN (Prometheus reads back \xNN, as a terminal shows
# it); '"' and '\' as the format asks.  The page's data: the same labels
# in JSON, decoding to what strata-events shows.
live_stdin=$top_srcdir/testsuite/golden/strings.eventlog start_live strings -
wait_metric 'strata_heap_census_number{' 2
curl -sf "$url/metrics" >strings.metrics
for band in "$(printf 'Caf\303\251\342\206\222\316\273')" 'Bad\\xffName\\xc3' 'Esc\\x1b[2Jape' \
    'tab\\x09here \"q\" \\'; do
    grep -qF "band=\"$band\"" strings.metrics && pass ||
        fail "/metrics lacks band=\"$band\": $(grep '^strata_heap_census_bytes' strings.metrics)"
done
grep -qa "$(printf '\033')" strings.metrics && fail "/metrics holds an ESC" || pass
if curl -sf "$url/live/data.json" >strings.json; then
    got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = sorted(r["name"] for r in d["report"]["profiles"][0]["table"])
print(names == sorted(["Caf\u00e9\u2192\u03bb", "Bad\\xffName\\xc3", "Esc\x1b[2Jape",
                       "tab\there \"q\" \\"]) or names)' strings.json 2>&1)
    [ "$got" = True ] && pass || fail "/live/data.json's names: $got"
fi
stop_live

# A stream that is not an eventlog on stdin: the reader's message, exit 1;
# nothing at all (an empty pipe) is not one either.
expect_status 1 "$live" - --listen 127.0.0.1:0 <"$top_srcdir/README.md"
expect_stderr_contains 'strata-live: -: offset 0: bad header begin marker'
expect_status 1 timeout 30 "$live" - --listen 127.0.0.1:0 </dev/null
expect_stderr_contains 'strata-live: -: offset 0: truncated header (need 4 bytes for header begin marker'

# --- a Unix socket: waited for, then read again when the program restarts --------
start_live unix --socket "$test_tmp/ev.sock"
"$serve_log" --unix "$test_tmp/ev.sock" hi.eventlog hT.eventlog >serve.out 2>serve.err &
serve_pid=$!
wait_metric 'strata_live_streams_total{' 2
wait_metric 'strata_heap_census_bytes{service_name="leak",breakdown="closure_type",band="ARR_WORDS"' "$want_hT"
wait "$serve_pid" && pass || fail "serve_log failed: $(cat serve.err)"
grep -q "strata-live: waiting for $test_tmp/ev.sock to accept" unix.err && pass ||
    fail "no waiting message: $(cat unix.err)"
stop_live

# A connection reset before the first byte (the program exited while
# strata-live sat in its listen queue): the next stream is awaited, and
# strata-live does not exit as it does for a stream that is not an eventlog.
# Before any stream it is a lost connection, reported and counted; after a
# whole stream (its data end marker read) it is that program's exit: not
# reported, not counted, and that stream's figures stay served (Note [A
# program's exit is the end] in utils/strata-live/main.c).
start_live reset --socket "$test_tmp/rs.sock"
"$serve_log" --unix "$test_tmp/rs.sock" @reset hi.eventlog @reset @reset >serve.out 2>serve.err &
serve_pid=$!
wait_metric 'strata_heap_census_number{' "$n_hi"
wait "$serve_pid" && pass || fail "serve_log failed: $(cat serve.err)"
wait_metric 'strata_live_stream_errors_total{' 1
[ "$(grep -c 'Connection reset by peer' reset.err)" -eq 1 ] && pass ||
    fail "not one reset reported (the first): $(cat reset.err)"
wait_metric 'strata_heap_census_number{' "$n_hi"
line=$(curl -sf "$url/metrics" | grep 'info_table="SessionEntry_con_info"')
[ "${line##* }" = "$want_hi" ] && pass || fail "after a reset: '$line', expected $want_hi"
wait_metric 'strata_live_streams_total{' 1
stop_live

# The same with a real program: after each run's normal exit strata-live
# reports the end of the stream and nothing else, however its reconnect
# meets the exiting program, and waits for the next run. Each run waits
# for its client (--eventlog-socket-wait): a run of 0.3 s could otherwise
# start and end between two of strata-live's reconnect tries, which back
# off to seconds, and the stream count would wait for a run it never saw.
start_live exits --socket "$test_tmp/exits.sock"
for run in 1 2 3; do
    expect_status 0 "$ex/leak" 20 100000 +RTS -hT -l --eventlog-socket="$test_tmp/exits.sock" \
        --eventlog-socket-wait -RTS
    wait_metric 'strata_live_streams_total{' "$run"
    sleep 0.5   # let a reconnect meet the exit
done
wait_metric 'strata_live_stream_errors_total{' 0
[ "$(grep -c 'stream ended after [0-9]* events; serving its last figures' exits.err)" -eq 3 ] &&
    ! grep -Eq 'read error|no data end marker|truncated' exits.err && pass ||
    fail "a normal exit was reported as more than its end: $(cat exits.err)"
stop_live

# --- TCP ------------------------------------------------------------------------
# A file of its own: the Unix runs above left "listening 0" in serve.out, and
# this loop can read before the background shell has truncated it.
rm -f tcp-serve.out
"$serve_log" --tcp 0 hi.eventlog >tcp-serve.out 2>serve.err &
serve_pid=$!
for i in $(seq 100); do
    tcp_port=$(sed -n 's/^listening //p' tcp-serve.out 2>/dev/null)
    [ -n "$tcp_port" ] && break
    sleep 0.05
done
[ -n "$tcp_port" ] || setup_fail "serve_log did not listen: $(cat serve.err)"
start_live tcp --tcp "127.0.0.1:$tcp_port"
wait_metric 'strata_heap_census_number{' "$n_hi"
line=$(curl -sf "$url/metrics" | grep 'info_table="SessionEntry_con_info"')
[ "${line##* }" = "$want_hi" ] && pass || fail "tcp: $line, expected $want_hi"
wait "$serve_pid" && pass || fail "serve_log failed: $(cat serve.err)"
stop_live

# --- a FIFO no program writes: SIGTERM ends the wait in open(), exit 0 ----------
mkfifo nowriter.fifo
start_live fifo --file nowriter.fifo
stop_live

finish
