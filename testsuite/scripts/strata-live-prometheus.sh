#!/usr/bin/env bash
# testsuite/scripts/strata-live-prometheus.sh -- a real Prometheus (Debian's
# prometheus, on loopback, a temporary config and storage, scraping every
# second) scrapes strata-live while the leak example runs and writes its
# -hi log, which strata-live follows; then Prometheus' HTTP API must have
# strata_heap_census_bytes and strata_heap_live_bytes, and SessionEntry's
# band must equal the last census in the log.  Skips, saying so, without
# prometheus (fails under STRATA_REQUIRE=prometheus or all).
set -u
. "$(dirname "$0")/lib.sh"

command -v prometheus >/dev/null ||
    skip prometheus "prometheus is not installed (apt-get install prometheus): strata-live was not scraped"

command -v curl >/dev/null ||
    skip curl "curl is not installed (apt-get install curl): Prometheus' API was not queried"

ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
live=$top_builddir/utils/strata-live/strata-live
cd "$test_tmp" || exit 1
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
    pids=()
}

# A free loopback port: one nothing answers on (bash's /dev/tcp), below
# the kernel's ephemeral range, where no client socket (curl, Prometheus'
# scrapes, the tests beside this one) can take it before strata-live binds
# it: a port drawn from that range once failed "Address already in use".
free_port() {
    local p low=32768
    read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
    [ "$low" -gt 10001 ] 2>/dev/null || low=32768
    for p in $(shuf -i "10000-$((low - 1))" -n 50); do
        (: <"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
    done
    return 1
}

# Prometheus first, scraping the port strata-live will take; then the
# program (its default run, a few seconds) and strata-live following its
# log as it is written (flushed every 0.2 s, so that there is something
# to follow before the program ends).
live_port=$(free_port) && prom_port=$(free_port) && [ "$live_port" != "$prom_port" ] ||
    setup_fail "no free ports for strata-live and prometheus"
cat >prometheus.yml <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: strata-live
    static_configs:
      - targets: ['127.0.0.1:$live_port']
EOF
prometheus --config.file=prometheus.yml --storage.tsdb.path="$test_tmp/tsdb" \
    --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >prom.log 2>&1 &
pids+=("$!")
api=http://127.0.0.1:$prom_port/api/v1
for i in $(seq 300); do
    curl -sf "http://127.0.0.1:$prom_port/-/ready" >/dev/null && break
    sleep 0.1
done
curl -sf "http://127.0.0.1:$prom_port/-/ready" >/dev/null ||
    { cleanup; setup_fail "prometheus did not start: $(tail -5 prom.log)"; }

# Prometheus takes up a new target some seconds after it starts: wait for
# that, so that its scrapes (up == 0 until strata-live listens) span the run.
for i in $(seq 300); do
    curl -sf "$api/targets" | grep -q '"activeTargets":\[{' && break
    sleep 0.1
done

"$ex/leak" +RTS -hi -l -olleak.eventlog -i0.1 --eventlog-flush-interval=0.2 -RTS \
    >/dev/null 2>leak.err &
leak_pid=$!
pids+=("$leak_pid")
for i in $(seq 200); do [ -s leak.eventlog ] && break; sleep 0.02; done
[ -e leak.eventlog ] || { cleanup; setup_fail "the leak example wrote no log: $(cat leak.err)"; }
"$live" --file leak.eventlog --listen "127.0.0.1:$live_port" --service-name leak-demo 2>live.err &
pids+=("$!")
for i in $(seq 200); do
    grep -q 'serving http://' live.err && break
    sleep 0.05
done
grep -q 'serving http://' live.err || { cleanup; setup_fail "strata-live did not start: $(cat live.err)"; }

wait "$leak_pid" && pass || fail "the leak example failed: $(cat leak.err)"
read -r n_censuses want < <("$events" show leak.eventlog | awk '
    /: An IPE entry: / && /table "SessionEntry_con_info"/ {
        match($0, /info 0x[0-9a-f]+/); addr = substr($0, RSTART + 5, RLENGTH - 5) }
    /: Start of heap profile sample: / { n++; split("", v) }
    /: Heap profile string sample: / {
        b = $0; sub(/.*profile 0, /, "", b); sub(/ bytes.*/, "", b)
        l = $0; sub(/^[^"]*"/, "", l); sub(/"$/, "", l); v[l] = b }
    END { print n, v[addr] }')
[ -n "$want" ] || { cleanup; setup_fail "the log has no SessionEntry band"; }

# query PROMQL: the JSON answer of Prometheus' instant query.
query() {
    curl -sfG "$api/query" --data-urlencode "query=$1"
}

# Waits (up to 60 s) until Prometheus has scraped the last census.
got=
for i in $(seq 300); do
    got=$(query 'strata_heap_census_number{service_name="leak-demo"}' |
        sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
    [ "$got" = "$n_censuses" ] && break
    sleep 0.2
done
if [ "$got" != "$n_censuses" ]; then
    fail "Prometheus never saw census $n_censuses (saw '$got'); prometheus log: $(tail -5 prom.log)"
    cleanup
    finish
fi
pass

# Informational: how often the census Prometheus scraped changed (more
# than 0: it scraped while the program ran).
seen=$(query 'changes(strata_heap_census_number{service_name="leak-demo"}[10m])' |
    sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
echo "the census number changed ${seen:-0} times between Prometheus' scrapes; the log has $n_censuses censuses"

answer=$(query 'strata_heap_census_bytes{service_name="leak-demo"}')
case $answer in
*'"status":"success"'*'"__name__":"strata_heap_census_bytes"'*) pass ;;
*) fail "no strata_heap_census_bytes series: $answer" ;;
esac
answer=$(query 'strata_heap_census_bytes{service_name="leak-demo",info_table="SessionEntry_con_info"}')
value=$(printf '%s' "$answer" | sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
[ "$value" = "$want" ] && pass ||
    fail "Prometheus has SessionEntry at '$value' bytes, the log's last census $want: $answer"
printf '%s' "$answer" | grep -q '"defined_in":"Cache.remember"' && pass ||
    fail "SessionEntry's series lacks defined_in: $answer"
answer=$(query 'strata_heap_live_bytes{service_name="leak-demo"}')
value=$(printf '%s' "$answer" | sed -n 's/.*"value":\[[0-9.]*,"\([0-9]*\)"\].*/\1/p')
last_live=$("$events" show leak.eventlog | sed -n 's/.*Current heap live data: capset 0, \([0-9]*\) bytes.*/\1/p' |
    tail -n 1)
[ -n "$value" ] && [ "$value" = "$last_live" ] && pass ||
    fail "strata_heap_live_bytes in Prometheus is '$value', the log's last HEAP_LIVE $last_live"
# The scrape itself was healthy.
query 'up{job="strata-live"}' | grep -q '"value":\[[0-9.]*,"1"\]' && pass ||
    fail "Prometheus' up for strata-live is not 1: $(query 'up{job="strata-live"}')"

cleanup
finish
