#!/usr/bin/env bash
# testsuite/scripts/eventlog-socket.sh -- the eventlog over a socket and
# its control commands (issue 25; docs/design/eventlog.md, "The socket
# writer"): a client that connects late gets a whole valid log whose
# censuses match the HEAP_LIVE figures and the -ol file's; two clients at
# once, a reconnect, --eventlog-socket-wait (the stream is then the file,
# byte for byte), TCP from the flag and from GHC's environment variables;
# census, era and custom commands act and bad messages change nothing; a
# client that never reads neither stalls the program nor grows its memory
# past the queue bound; and every flag and path error, with its message.
set -u
. "$(dirname "$0")/lib.sh"

target=$top_builddir/testsuite/programs/live_target
client=$top_builddir/testsuite/programs/evsock_client
events=$top_builddir/utils/strata-events/strata-events
cd "$test_tmp" || exit 1

# census_totals LOG: one line "census TOTAL live HEAP_LIVE" per census,
# HEAP_LIVE being the one posted nearest in time: the same GC's (the
# collector's report and the census hook run one after the other).
census_totals() {
    "$events" show "$1" | awk '
        /\(size / { next }   # the header
        /Current heap live data/ { s = $0; sub(/.*capset [0-9]+, /, "", s); lt[++nl] = $1 + 0; lv[nl] = s + 0; next }
        /Start of heap profile sample/ { t = $1 + 0; sum = 0; next }
        /Heap profile string sample/ { s = $0; sub(/.*profile [0-9]+, /, "", s); sum += s + 0; next }
        /End of heap profile sample/ { ct[++nc] = t; cv[nc] = sum }
        END {
            for (i = 1; i <= nc; i++) {
                best = -1; live = "none"
                for (j = 1; j <= nl; j++) {
                    d = lt[j] - ct[i]; if (d < 0) d = -d
                    if (best < 0 || d < best) { best = d; live = lv[j] }
                }
                print "census", cv[i], "live", live
            }
        }'
}

# wait_for_line FILE TEXT: waits (up to 60 s) until FILE holds TEXT.
wait_for_line() {
    for _ in $(seq 600); do
        grep -qF -e "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# wait_while_running PID FILE TEXT: waits until FILE holds TEXT or PID has
# ended (a program that hangs is ended by make check's timeout).  For a
# step whose length is the program's work: 512 MiB at -A8k under
# ThreadSanitizer is about 40 s of CPU, more than a minute on a loaded
# machine.
wait_while_running() {
    while ! grep -qF -e "$3" "$2" 2>/dev/null; do
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.1
    done
}

# --- A late client, a second one, a reconnect, and control commands -------
sock=$test_tmp/s
"$target" until-stop 60 +RTS -hT -l -i0 --no-automatic-heap-samples \
    --eventlog-socket="$sock" -olfile.eventlog --eventlog-flush-interval=0.05 -s -RTS \
    >prog.out 2>prog.err &
prog=$!
wait_for_line prog.out ready || setup_fail "live_target did not start: $(cat prog.err)"
mode=$(stat -c %a "$sock")
[ "$mode" = 600 ] && pass || fail "the socket has mode $mode, expected 600"
# B reads from now to the end; D reads a little and goes.
"$client" --unix "$sock" -o b.eventlog --ready b.ready 2>b.err &
clientb=$!
expect_status 0 "$client" --unix "$sock" --close-after 100 -o d.eventlog
# C writes every kind of bad message, then a marker, then goes (its last
# message cut short).  A starts once the marker has run: the socket thread
# reads the clients' streams side by side, so A's stop command could
# otherwise run before C's unknown commands, which would then never run.
expect_status 0 "$client" --unix "$sock" --send-hex 00f09e00f0f09e978c07 \
    --send-zeros 1048576 --send nobody:1 --send strata:99 --send eventlog-socket:77 \
    --send live-test:2 --send-hex f09e978c0006737472 --close-after 1
wait_while_running "$prog" prog.out 'marker command ran (command=2)' ||
    fail "C's marker command did not run: $(cat prog.out)"
for _ in $(seq 600); do [ -e b.ready ] && break; sleep 0.1; done   # B is connected
# A asks for four censuses, an era increment, then stops the program.
expect_status 0 "$client" --unix "$sock" -o a.eventlog --send eventlog-socket:5 \
    --send eventlog-socket:5 --send eventlog-socket:5 --send eventlog-socket:5 \
    --send strata:1 --send live-test:1
wait "$prog"
status=$?
wait "$clientb"
[ "$status" -eq 0 ] && pass || fail "live_target exited $status: $(cat prog.err)"
grep -qx 'custom command ran (command=1, data=42, runs=1)' prog.out && pass ||
    fail "the registered command did not run once: $(cat prog.out)"
for log in a b file; do
    expect_status 0 "$events" check $log.eventlog
    census_totals $log.eventlog >$log.censuses
    n=$(wc -l <$log.censuses)
    [ "$n" -eq 4 ] && pass || fail "$log: $n censuses for 4 requests: $(cat $log.censuses)"
    awk '$2 != $4 { bad = 1 } END { exit bad }' $log.censuses && pass ||
        fail "$log: a census total differs from HEAP_LIVE: $(cat $log.censuses)"
done
cmp -s a.censuses file.censuses && cmp -s b.censuses file.censuses && pass ||
    fail "the clients' censuses differ from the file's"
"$events" summary a.eventlog >a.summary
grep -q '^rts: "strata' a.summary && grep -q '^profile: -hT' a.summary && pass ||
    fail "the late client's log lacks the preamble: $(head -5 a.summary)"
# .inv.preamble-once: the late client got each preamble event once, from
# the cache or live, never both -- as many as the file holds.
"$events" show a.eventlog >a.show
"$events" show file.eventlog >file.show
for what in 'Program arguments:' 'Start of heap profile:' 'An IPE entry:'; do
    na=$(grep -c ": $what" a.show)
    nf=$(grep -c ": $what" file.show)
    [ "$na" -eq "$nf" ] && pass || fail "the late client has $na '$what' events, the file $nf"
done
[ "$(head -c 4 d.eventlog | od -An -tx1 | tr -d ' ')" = 68647262 ] && pass ||
    fail "the client that left early did not get the header first"
grep -q 'control bytes skipped' prog.err && pass || fail "+RTS -s has no control line"
# C: 10 garbage bytes, 1 MiB of zeros, 9 cut short; 3 unknown commands
# and the marker.
grep -qE '1,048,595 control bytes skipped \(10 messages, 7 run, 3 unknown, 2 bad' prog.err &&
    pass || fail "+RTS -s control counts: $(grep control prog.err)"
[ ! -e "$sock" ] && pass || fail "the socket file is still there after exit"

# --- --eventlog-socket-wait: the client sees every byte ---------------------
"$client" --unix "$test_tmp/w" -o w.eventlog --send live-test:1 2>w.err &
clientw=$!
expect_status 0 "$target" until-stop 60 +RTS -hT -l --eventlog-socket="$test_tmp/w" \
    --eventlog-socket-wait -olw-file.eventlog -RTS
expect_stderr_contains "eventlog-socket: waiting for a client on $test_tmp/w"
wait "$clientw"
cmp -s w.eventlog w-file.eventlog && pass ||
    fail "with --eventlog-socket-wait the stream differs from the -ol file"

# --- A stream flushed every millisecond keeps up -----------------------------
# Thousands of wake-ups of the socket thread: a lost one leaves the client
# stalled with the bytes queued (until the queue overflows, or exit).  So
# everything in the -ol file 3 s in must reach the client while the program
# still runs (20 s allowed), and nothing is dropped.
"$client" --unix "$test_tmp/f" -o f.eventlog 2>f-client.err &
clientf=$!
"$target" until-stop 60 +RTS -hT -l -i0.01 --eventlog-flush-interval=0.001 \
    --eventlog-socket="$test_tmp/f" --eventlog-socket-wait -olf-file.eventlog -s -RTS \
    >f.out 2>f.err &
prog=$!
wait_for_line f.out ready || setup_fail "live_target did not start: $(cat f.err)"
sleep 3
file_bytes=$(stat -c %s f-file.eventlog)
got=0
for _ in $(seq 200); do
    got=$(stat -c %s f.eventlog 2>/dev/null || echo 0)
    [ "$got" -ge "$file_bytes" ] && break
    sleep 0.1
done
[ "$got" -ge "$file_bytes" ] && pass ||
    fail "the stream stalled: the client has $got bytes 20 s after the file had $file_bytes"
expect_status 0 "$client" --unix "$test_tmp/f" --send live-test:1
wait "$prog" && pass || fail "live_target failed: $(cat f.err)"
wait "$clientf"
cmp -s f.eventlog f-file.eventlog && pass || fail "the stream differs from the -ol file"
grep -qE '^ +0 bytes of eventlog dropped' f.err && pass ||
    fail "bytes were dropped for a client that reads: $(grep dropped f.err)"

# --- TCP, from the flag and from the environment ---------------------------
tcp_run() {
    # The last run's files go first: its "ready" line and port would
    # otherwise be read before this run's redirections empty them.
    rm -f tcp.out tcp.err
    "$target" until-stop 60 "$@" >tcp.out 2>tcp.err &
    prog=$!
    wait_for_line tcp.out ready || setup_fail "live_target did not start: $(cat tcp.err)"
    port=$(sed -n 's/.*listening on TCP 127.0.0.1:\([0-9]*\).*/\1/p' tcp.err)
    expect_status 0 "$client" --tcp "127.0.0.1:$port" -o tcp.eventlog --send strata:2 \
        --send live-test:1
    wait "$prog" && pass || fail "live_target over TCP failed: $(cat tcp.err)"
    expect_status 0 "$events" check tcp.eventlog
}
tcp_run +RTS -hT -l --eventlog-socket-tcp=:0 -RTS
GHC_EVENTLOG_TCP_PORT=0 tcp_run +RTS -hT -l -RTS
# The flag wins over the environment.
GHC_EVENTLOG_SOCKET=$test_tmp/env-unused tcp_run +RTS -hT -l --eventlog-socket-tcp=127.0.0.1:0 -RTS
[ ! -e "$test_tmp/env-unused" ] && pass || fail "the environment's socket was used over the flag"

# --- A client that never reads ---------------------------------------------
# 1 GiB allocated with a census at every major GC: far more eventlog than
# the queue bound (8 MiB) and the socket's buffers hold.
big_flags=(-hT -i0 -A16k -G1 -l)
"$target" alloc 1024 +RTS "${big_flags[@]}" --eventlog-socket="$test_tmp/st" -s \
    -olstall-file.eventlog -RTS >stall.out 2>stall.err &
prog=$!
"$client" --unix "$test_tmp/st" --stall 2>/dev/null &
stalled=$!
wait "$prog"
status=$?
kill "$stalled" 2>/dev/null
wait "$stalled" 2>/dev/null
[ "$status" -eq 0 ] && pass || fail "live_target with a stalled client exited $status"
stall_kb=$(sed -n 's/^VmHWM //p' stall.out)
file_bytes=$(stat -c %s stall-file.eventlog)
[ "$file_bytes" -gt $((16 * 1024 * 1024)) ] && pass ||
    fail "the run wrote only $file_bytes bytes of eventlog: too little to test the bound"
# The bound (.inv.bounded-queue), a block being queued, and the preamble:
# 8 + 2 + 2 MiB, over the peak of a run without a client.  (Not under the
# sanitizers: ASan's quarantine keeps freed blocks resident.)
if [ -z "${SAN_CFLAGS:-}" ]; then
    expect_status 0 "$target" alloc 256 +RTS "${big_flags[@]}" --eventlog-socket="$test_tmp/n" -RTS
    base_kb=$(sed -n 's/^VmHWM //p' "$out")
    [ -n "$base_kb" ] && [ -n "$stall_kb" ] && [ "$stall_kb" -le $((base_kb + 12 * 1024)) ] &&
        pass || fail "peak RSS with a stalled client ${stall_kb} kB, without one ${base_kb} kB"
fi
grep -qE '[1-9][0-9,]* bytes of eventlog dropped for slow socket clients' stall.err && pass ||
    fail "+RTS -s does not report the dropped bytes: $(grep -i dropped stall.err)"

# --- A client that reads after a stall gets a valid log with the notice ---
# It connects (the program waits for it), reads nothing while the program
# allocates 512 MiB, and starts reading before the program ends.
"$client" --unix "$test_tmp/sl" --read-after slow.go -o slow.eventlog 2>/dev/null &
slow=$!
"$target" alloc 512 wait +RTS -hT -i0 -A8k -G1 -l --eventlog-socket="$test_tmp/sl" \
    --eventlog-socket-wait -RTS >slow.out 2>slow.err &
prog=$!
wait_while_running "$prog" slow.out allocated ||
    setup_fail "live_target alloc ended before it said it had allocated: $(cat slow.err)"
touch slow.go
expect_status 0 "$client" --unix "$test_tmp/sl" --send live-test:1
wait "$prog" && pass || fail "live_target with a slow client failed: $(cat slow.err)"
wait "$slow"
expect_status 0 "$events" check slow.eventlog
"$events" show slow.eventlog | grep -qE 'eventlog-socket: dropped [0-9]+ bytes' && pass ||
    fail "the slow client's log has no message naming the dropped bytes"

# --- Flag and path errors --------------------------------------------------
bad() {   # bad MESSAGE FLAGS...: the program refuses to start, saying MESSAGE
    local msg=$1
    shift
    expect_status 1 "$target" alloc 1 +RTS "$@" -RTS
    expect_stderr_contains "$msg"
}
bad "--eventlog-socket= expects a socket path" --eventlog-socket=
bad "--eventlog-socket: expected =PATH" --eventlog-socket
bad "--eventlog-socket-tcp: expected =HOST:PORT" --eventlog-socket-tcp
bad "--eventlog-socket-tcp: expected HOST:PORT (got 'localhost')" --eventlog-socket-tcp=localhost
bad "--eventlog-socket-tcp: expected a port from 0 to 65535 (got '70000')" \
    --eventlog-socket-tcp=:70000
bad "eventlog-socket: --eventlog-socket and --eventlog-socket-tcp were both given" \
    --eventlog-socket="$test_tmp/x" --eventlog-socket-tcp=:0
bad "--eventlog-socket-wait: no socket to wait on" --eventlog-socket-wait
echo keep >regular
bad "eventlog-socket: $test_tmp/regular exists and is not a socket; refusing to replace it" \
    --eventlog-socket="$test_tmp/regular"
[ "$(cat regular)" = keep ] && pass || fail "the regular file was replaced"
long=$test_tmp/$(printf 'x%.0s' $(seq 120))
bad "eventlog-socket: the socket path is too long for a Unix socket (path=$long, bytes=${#long}, max=107)" \
    --eventlog-socket="$long"
bad "eventlog-socket: cannot listen on $test_tmp/no/such/dir/s" --eventlog-socket="$test_tmp/no/such/dir/s"
bad "eventlog-socket: cannot listen on TCP no.such.host.invalid:0" \
    --eventlog-socket-tcp=no.such.host.invalid:0
# In use: another run listens there.
"$target" until-stop 60 +RTS -l --eventlog-socket="$test_tmp/u" -RTS >u.out 2>u.err &
prog=$!
wait_for_line u.out ready || setup_fail "live_target did not start: $(cat u.err)"
bad "eventlog-socket: $test_tmp/u is in use: another program listens on it" \
    --eventlog-socket="$test_tmp/u"
expect_status 0 "$client" --unix "$test_tmp/u" --send live-test:1
wait "$prog"
# Stale: a killed run's socket is replaced.
"$target" until-stop 60 +RTS -l --eventlog-socket="$test_tmp/k" -RTS >k.out 2>k.err &
prog=$!
wait_for_line k.out ready || setup_fail "live_target did not start: $(cat k.err)"
kill -KILL "$prog"
wait "$prog" 2>/dev/null
[ -S "$test_tmp/k" ] && pass || fail "the killed run left no socket to test with"
expect_status 0 "$target" alloc 1 +RTS -l --eventlog-socket="$test_tmp/k" -RTS
# The environment's errors.
GHC_EVENTLOG_TCP_HOST=127.0.0.1 bad "eventlog-socket: GHC_EVENTLOG_TCP_HOST is set (127.0.0.1) but GHC_EVENTLOG_TCP_PORT is not" -l
GHC_EVENTLOG_TCP_PORT=http bad "eventlog-socket: GHC_EVENTLOG_TCP_PORT: expected a port from 0 to 65535 (got 'http')" -l
# Without -l the environment turns nothing on.
GHC_EVENTLOG_SOCKET=$test_tmp/e expect_status 0 "$target" alloc 1
[ ! -e "$test_tmp/e" ] && pass || fail "GHC_EVENTLOG_SOCKET opened a socket without -l"

finish
