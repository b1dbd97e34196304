#!/usr/bin/env bash
# testsuite/scripts/strata-live-clients.sh -- strata-live under a
# slow-client attack (Note [Slow clients] in utils/strata-live/HttpLimits.c):
# 1,100 connections that each send the start of a request and then a byte
# every 2 s, from 20 loopback addresses; /metrics must still be served
# (from another address) while the server holds all of them, and every one
# of them must be dropped once its request is overdue.  Then 200 from one
# address: the server holds at most its per-address share, and /metrics is
# still served; libmicrohttpd's line per connection is held to a few.  The driver is testsuite/programs/slow_clients; its waits
# are bounded (10 s for /metrics, 60 s for the drops), which bounds a hang,
# and no figure here is a speed.
set -u
. "$(dirname "$0")/lib.sh"

live=$top_builddir/utils/strata-live/strata-live
slow=$top_builddir/testsuite/programs/slow_clients
cd "$test_tmp" || exit 1
live_pid=
trap '[ -n "$live_pid" ] && kill "$live_pid" 2>/dev/null' EXIT
. "$top_srcdir/testsuite/scripts/live-lib.sh"

# Both sides hold 1,100 sockets: raise the soft open-file limit if needed.
need=1300
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$need" ]; then
    ulimit -S -n "$need" 2>/dev/null ||
        skip ulimit "the open-file limit ($(ulimit -n), hard $(ulimit -H -n)) cannot hold $need descriptors"
fi

# expect_line PATTERN: the driver's output has a line matching PATTERN.
expect_line() {
    grep -Eq "$1" "$out" && pass || fail "slow_clients: no line '$1' in: $(cat "$out")"
}

start_live clients --file "$top_srcdir/testsuite/golden/heap-hT.eventlog"
port=${url##*:}

# 1,100 slow clients, 55 from each of 20 addresses (the share is 64).
expect_status 0 "$slow" "$port" 1100 20 60
expect_line '^slow_clients: connected=1100 failed=0$'
expect_line '^slow_clients: metrics status=200 bytes=[1-9]'
expect_line '^slow_clients: held=1100$'
expect_line '^slow_clients: dropped all after [0-9]+ s$'
grep 'dropped all' "$out" | sed 's/^/deadline: /'

# 200 from one address: the rest of its connections are turned away.
expect_status 0 "$slow" "$port" 200 1 0
expect_line '^slow_clients: metrics status=200 bytes=[1-9]'
held=$(sed -n 's/^slow_clients: held=//p' "$out")
[ -n "$held" ] && [ "$held" -le 64 ] && [ "$held" -ge 1 ] && pass ||
    fail "one address holds '$held' connections, expected 1 to 64"

# The server is itself afterwards, and 1,300 dropped or refused
# connections did not flood its stderr (a few lines a minute).
expect_status 0 "$slow" "$port" 1 1 0
expect_line '^slow_clients: metrics status=200 bytes=[1-9]'
stop_live
lines=$(wc -l <clients.err)
[ "$lines" -le 20 ] && pass || fail "strata-live wrote $lines lines: $(head -c 1000 clients.err)"
finish
