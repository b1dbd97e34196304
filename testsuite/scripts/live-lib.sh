# testsuite/scripts/live-lib.sh -- strata-live helpers shared by
# strata-live.sh and live-e2e.sh (sourced after lib.sh; $live is the
# binary).  A failed start leaves nothing running: lib.sh ends a script's
# background processes when it exits.

# start_live NAME ARGS...: strata-live on any free port, stderr to NAME.err,
# standard input from $live_stdin (default /dev/null); sets live_pid, url
# and live_name.
start_live() {
    local name=$1 port= i
    shift
    live_name=$name
    "$live" --listen 127.0.0.1:0 "$@" 2>"$name.err" >/dev/null <"${live_stdin:-/dev/null}" &
    live_pid=$!
    for i in $(seq 200); do
        port=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$name.err")
        [ -n "$port" ] && break
        sleep 0.05
    done
    if [ -z "$port" ]; then
        setup_fail "strata-live did not start: $(cat "$name.err")"
    fi
    url=http://127.0.0.1:$port
}

# live_stderr: what the last strata-live started has written to stderr
# (what it said of its streams), indented, to stderr: for a failure.
live_stderr() {
    echo "    strata-live's stderr ($live_name.err):" >&2
    sed 's/^/      /' "$live_name.err" >&2
}

# stop_live: SIGTERM, which must end it with status 0.
stop_live() {
    local st=0
    kill -TERM "$live_pid"
    wait "$live_pid" || st=$?
    live_pid=
    [ "$st" -eq 0 ] && pass || fail "strata-live exited with $st on SIGTERM"
}

# metric LINE-PREFIX [FILE]: the value of the first /metrics line (or FILE's,
# a saved scrape) starting so.  The prefix goes through ENVIRON: awk -v
# would take its backslashes as escapes.
metric() {
    if [ $# -gt 1 ]; then cat "$2"; else curl -sf "$url/metrics"; fi |
        P=$1 awk 'index($0, ENVIRON["P"]) == 1 { print $NF; exit }'
}

# wait_live_ended NAME: waits (60 s at most, which only ends a hang) until
# strata-live, started as NAME, says the stream it read has ended.
wait_live_ended() {
    local _
    for _ in $(seq 600); do
        grep -q 'stream ended after' "$1.err" && return 0
        sleep 0.1
    done
    return 1
}

# feed_live SRC DST: copies SRC into DST, which strata-live --file follows,
# as a program writes its log: seven eighths of it a piece at a time, each
# piece once strata-live has read some of the one before, then, once
# strata-live has read a census, the last eighth.  Sets
# census_before_whole=yes if it did read one before the log was whole.
# Each wait is for an event in /metrics (strata_live_read_bytes_total,
# strata_heap_census_number), 60 s at most, which only ends a hang.
feed_live() {
    local src=$1 dst=$2 size piece off=0 k read=0
    size=$(stat -c %s "$src")
    piece=$(((size + 7) / 8))
    census_before_whole=no
    : >"$dst"
    for k in 1 2 3 4 5 6 7; do
        tail -c +$((off + 1)) "$src" | head -c "$piece" >>"$dst"
        off=$((off + piece))
        wait_metric_above 'strata_live_read_bytes_total{' "$read" && read=$waited_value
    done
    wait_metric_above 'strata_heap_census_number{' 0 && census_before_whole=yes
    tail -c +$((off + 1)) "$src" >>"$dst"
}

# wait_metric_above PREFIX N: waits (60 s at most) until the /metrics line
# that starts with PREFIX has a value above N, which it leaves in
# waited_value; false if it never does.
wait_metric_above() {
    local _
    for _ in $(seq 600); do
        waited_value=$(metric "$1")
        [ "${waited_value:-0}" -gt "$2" ] 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
