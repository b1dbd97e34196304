# testsuite/scripts/live-lib.sh -- strata-live helpers shared by
# strata-live.sh and live-e2e.sh (sourced after lib.sh; $live is the
# binary).  A script may define cleanup_live, run before a failed start.

# start_live NAME ARGS...: strata-live on any free port, stderr to NAME.err,
# standard input from $live_stdin (default /dev/null); sets live_pid and url.
start_live() {
    local name=$1 port= i
    shift
    "$live" --listen 127.0.0.1:0 "$@" 2>"$name.err" >/dev/null <"${live_stdin:-/dev/null}" &
    live_pid=$!
    for i in $(seq 200); do
        port=$(sed -n 's|.*serving http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$name.err")
        [ -n "$port" ] && break
        sleep 0.05
    done
    if [ -z "$port" ]; then
        if declare -F cleanup_live >/dev/null; then cleanup_live; fi
        setup_fail "strata-live did not start: $(cat "$name.err")"
    fi
    url=http://127.0.0.1:$port
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
