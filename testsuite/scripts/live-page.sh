#!/usr/bin/env bash
# testsuite/scripts/live-page.sh -- strata-live's page (issue 32): who may
# press its buttons (curl: a GET changes nothing; a POST from another
# origin, to another Host or without the page's token is refused; the
# page's own POST runs the command), then the page in chromium
# (live-page-browser.js): while examples/leak runs with -he over its
# socket (new censuses drawn); while live_target, which takes censuses and
# starts eras only when asked, runs over its socket ("Census now" gives one
# census a press, one press of "New era" gives the next era, exactly); a
# GHC 9.10.3 -he log followed with --file (no buttons, the file's
# censuses), on ten pages at once; a followed file's end (the status that
# first says the stream ended comes with its last census); and a GHC
# 9.10.3 program's log followed with --file as it grows.  The data each
# page drew last is checked against ghc-events 0.20's reading of the same
# log (every band's peak and last bytes: report-vs-ghc-events.js), from
# the golden's references or from heap-bands, built in the sid chroot
# (sid-lib.sh; those parts skip without it).  In a sanitizer build the same
# runs make the page's requests without chromium (live-page-poller.js).
# A failed check shows what strata-live wrote to stderr.
# STRATA_LIVE_PAGE_SCALE=1 (not in a sanitizer build) adds the scale measurement:
# 5,000 censuses of 1,000 bands, first paint and update times printed, not
# asserted.  Screenshots go to $top_builddir/testsuite/artefacts/live-page/.
set -u
. "$(dirname "$0")/lib.sh"

command -v curl >/dev/null || skip curl "curl is not installed (apt-get install curl): the live page was not checked"
live=$top_builddir/utils/strata-live/strata-live
html=$top_builddir/utils/strata-html/strata-html
[ -x "$html" ] || skip node "strata-live was built without its page (node and npm were missing at configure time)"
chromium=${STRATA_CHROMIUM:-/usr/bin/chromium}
export STRATA_NODE_MODULES=$top_builddir/utils/node_modules
driver=$top_srcdir/testsuite/scripts/live-page-browser.js
poller=$top_srcdir/testsuite/scripts/live-page-poller.js
synth=$top_srcdir/testsuite/scripts/live-page-synth.js
ex=$top_builddir/examples
target=$top_builddir/testsuite/programs/live_target
golden=$top_srcdir/testsuite/golden
shots=$top_builddir/testsuite/artefacts/live-page
mkdir -p "$shots"
cd "$test_tmp" || exit 1
live_pid=
prog_pid=
. "$top_srcdir/testsuite/scripts/live-lib.sh"
. "$top_srcdir/testsuite/scripts/sid-lib.sh"

wait_census() {   # wait_census N: /metrics's census number reaches N
    for _ in $(seq 300); do
        [ "$(metric 'strata_heap_census_number{')" -ge "$1" ] 2>/dev/null && return 0
        sleep 0.1
    done
    fail "census $1 never reached /metrics"
    return 1
}
# status CODE ARGS...: curl's HTTP status for the request is CODE.
status() {
    local want=$1 got
    shift
    got=$(curl -s -o body -w '%{http_code}' "$@")
    [ "$got" = "$want" ] && pass || fail "curl $*: status $got, expected $want: $(cat body)"
}

# ---- 1. who may press the buttons (live_target: censuses and eras on request only)
sock=$test_tmp/guard.sock
"$target" until-stop 120 +RTS -he -l -i0 --no-automatic-heap-samples \
    --eventlog-socket="$sock" --eventlog-socket-wait -RTS >guard.prog.out 2>guard.prog.err &
prog_pid=$!
wait_socket "$sock" 60 || setup_fail "no socket at $sock"
start_live guard --socket "$sock"
host=${url#http://}
census() {   # census N: a census sent for and read
    "$live" --socket "$sock" --send eventlog-socket:census --send strata:flush
    wait_census "$1"
}
census 1
era0=$(metric 'strata_era_current{')
curl -sf "$url/" >page.html || fail "GET / failed"
token=$(sed -n 's/.*"token":"\([0-9a-f]*\)".*/\1/p' page.html | head -n 1)
[ ${#token} -eq 32 ] && pass || fail "the page holds no 32-digit token: '$token'"
grep -q 'id="strata-live-config"' page.html && grep -q 'data-command\|New era' page.html && pass ||
    fail "the page lacks its live script"
ctl=$url/live/control?cmd=era
status 405 "$ctl"
status 405 -H "X-Strata-Token: $token" "$ctl"
for u in / /live/status /live/data.json /metrics; do status 200 "$url$u"; done
status 403 -X POST -H "Origin: http://evil.example" -H "X-Strata-Token: $token" "$ctl"
grep -q "Origin is not the page's own" body && pass || fail "cross-origin refusal says: $(cat body)"
status 403 -X POST -H "Origin: http://$host" -H "X-Strata-Token: $token" -H "Sec-Fetch-Site: cross-site" "$ctl"
status 403 -X POST -H "X-Strata-Token: $token" "$ctl"
status 403 -X POST -H "Origin: http://$host" "$ctl"
# One digit changed (the last, which may be a 0 already).
wrong=${token%?}$([ "${token: -1}" = 0 ] && echo 1 || echo 0)
status 403 -X POST -H "Origin: http://$host" -H "X-Strata-Token: $wrong" "$ctl"
grep -q "token" body && pass || fail "a wrong token's refusal says: $(cat body)"
# DNS rebinding: a foreign name for this address gets neither page nor command.
status 403 -H "Host: rebound.example:${host##*:}" "$url/"
status 403 -X POST -H "Host: rebound.example:${host##*:}" -H "Origin: http://rebound.example:${host##*:}" \
    -H "X-Strata-Token: $token" "$ctl"
status 400 -X POST -H "Origin: http://$host" -H "X-Strata-Token: $token" "$url/live/control?cmd=rm"
census 2
era1=$(metric 'strata_era_current{')
[ -n "$era0" ] && [ "$era1" = "$era0" ] && pass ||
    fail "the refused requests changed the era: $era0 -> $era1"
status 200 -X POST -H "Origin: http://$host" -H "X-Strata-Token: $token" "$ctl"
grep -q '^sent strata:1' body && pass || fail "the page's POST: $(cat body)"
# The new era shows once a census counts something made in it: the
# program may serve the era and the next census at one safe point, with
# nothing made between, so censuses (never the era) are asked for until
# one shows it, five at most, and counted.
n=3
while [ "$n" -le 7 ]; do
    census "$n" || break
    era2=$(metric 'strata_era_current{')
    [ "$era2" != "$era0" ] && break
    n=$((n + 1))
done
echo "guard: the new era showed in census $n ($((n - 2)) after the press)"
[ "$era2" = "$((era0 + 1))" ] && pass || fail "the page's New era: era $era0 -> $era2, expected $((era0 + 1))"
"$live" --socket "$sock" --send live-test:1
wait "$prog_pid" || fail "live_target failed: $(cat guard.prog.err)"
prog_pid=
# A client that goes away mid-request costs nothing: 10 at once, cut short.
curls=()
for _ in $(seq 10); do curl -s -m 0.01 "$url/" -o /dev/null & curls+=($!); done
wait "${curls[@]}"
status 200 "$url/live/status"
stop_live

# The page's runs below: in chromium (live-page-browser.js), except in a
# sanitizer build, where the page's own requests are made without a
# browser (live-page-poller.js, the same checks of the server's answers):
# there the server is what the build checks, and chromium, which draws the
# same answers in build/, cost about half of the script's CPU.
if [ -n "${SAN_CFLAGS:-}" ]; then
    driver=$poller
    echo "a sanitizer build: the page's requests made without chromium (live-page-poller.js)"
else
    [ -x "$chromium" ] || { skip_part chromium "chromium ($chromium) is not installed: the page was not opened"; finish; }
    [ -d "$STRATA_NODE_MODULES/puppeteer-core" ] ||
        { skip_part puppeteer-core "puppeteer-core is not in $STRATA_NODE_MODULES: the page was not opened"; finish; }
    start_browser
fi

# browser_result NAME STATUS: the driver's run for NAME passed (STATUS 0),
# or its failed checks (NAME.browser) are shown.
browser_result() {
    if [ "$2" -eq 0 ]; then
        pass
    else
        fail "$1: the page's checks failed:"
        grep -v '^ok:' "$1.browser" | head -n 20 | sed 's/^/    /' >&2
        live_stderr
    fi
}

# browse NAME MODE ARGS...: the driver, failing on any FAIL line.
browse() {
    local name=$1 st=0
    shift
    node "$driver" "$1" "$url/" "$shots/$name" "${@:2}" >"$name.browser" 2>&1 || st=$?
    browser_result "$name" "$st"
    grep -E '^(first_paint_ms|update_ms|seen_ms)' "$name.browser" | sed "s/^/$name: /"
}

# same_as_ghc_events NAME DRAWN.json PEAKS LAST: the data the page drew
# last and ghc-events 0.20's reading of the log (heap-bands, or a golden's
# references) agree: censuses, every band's peak and last bytes.
same_as_ghc_events() {
    local r
    if r=$(node "$top_srcdir/testsuite/scripts/report-vs-ghc-events.js" "$2" "$3" "$4" 2>&1); then
        pass
        echo "$1: the page drew what ghc-events reads: $r"
    else
        fail "$1: the page's last data and ghc-events 0.20's reading of the log differ:"
        printf '%s\n' "$r" | sed 's/^/    /' >&2
        live_stderr
    fi
}

# vs_ghc_events NAME DRAWN.json LOG: the same, with heap-bands reading LOG
# (skipped without the sid chroot).
have_sid=no
sid_build && have_sid=yes
vs_ghc_events() {
    if [ "$have_sid" = no ]; then
        skip_part ghc-sid "$sid_why: $1's page was not checked against ghc-events"
    elif ! "$sid_bin/heap-bands" "$3" >"$1.peaks" 2>"$1.hb.err" ||
            ! "$sid_bin/heap-bands" --last "$3" >"$1.last" 2>>"$1.hb.err"; then
        fail "$1: heap-bands (ghc-events 0.20) failed: $(cat "$1.hb.err")"
    else
        same_as_ghc_events "$1" "$2" "$1.peaks" "$1.last"
    fi
}

# ---- 2. the leak example, -he, over its socket -----------------------------------
# Its phases start eras 1, 2, ... with their "phase N" markers.  The page
# is open (waiting for the stream) before the program starts, so that it
# sees the whole run.
sock=$test_tmp/leak.sock
start_live leak --socket "$sock"
node "$driver" socket "$url/" "$shots/leak" leak.drawn.json >leak.browser 2>&1 &
drv=$!
for _ in $(seq 600); do grep -q '^opened' leak.browser && break; sleep 0.1; done
"$ex/leak" 20 2000000 +RTS -he -l -i0.05 --eventlog-flush-interval=0.05 --eventlog-socket="$sock" \
    --eventlog-socket-wait -olleak.eventlog -RTS >leak.out 2>leak.prog.err &
prog_pid=$!
st=0
wait "$drv" || st=$?
browser_result leak "$st"
grep -E '^(first_paint_ms|census_seen)' leak.browser | sed "s/^/leak: /"
wait "$prog_pid" || fail "leak failed: $(cat leak.prog.err)"
prog_pid=
vs_ghc_events leak leak.drawn.json leak.eventlog
stop_live

# ---- 2b. the buttons, on a program that waits to be asked -------------------------
sock=$test_tmp/buttons.sock
start_live buttons --socket "$sock"
node "$driver" buttons "$url/" "$shots/buttons" buttons.drawn.json >buttons.browser 2>&1 &
drv=$!
for _ in $(seq 600); do grep -q '^opened' buttons.browser && break; sleep 0.1; done
"$target" until-stop 300 +RTS -he -l -i0 --no-automatic-heap-samples --eventlog-flush-interval=0.05 \
    --eventlog-socket="$sock" --eventlog-socket-wait -olbuttons.eventlog -RTS >buttons.prog.out \
    2>buttons.prog.err &
prog_pid=$!
# The driver says when its presses are done (or it gave up).
while kill -0 "$drv" 2>/dev/null && ! grep -q '^stop$' buttons.browser; do sleep 0.1; done
"$live" --socket "$sock" --send live-test:1 || fail "the stop command was not delivered"
st=0
wait "$drv" || st=$?
browser_result buttons "$st"
grep -E '^new_era_censuses' buttons.browser | sed "s/^/buttons: /"
wait "$prog_pid" || fail "live_target failed: $(cat buttons.prog.err)"
prog_pid=
vs_ghc_events buttons buttons.drawn.json buttons.eventlog
stop_live

# ---- 3. GHC 9.10.3's -he log, followed with --file ------------------------------
start_live ghc910 --file "$golden/ghc910-he.eventlog"
browse ghc910-he file ghc910.drawn.json
same_as_ghc_events ghc910-he ghc910.drawn.json "$golden/ghc910-he.bands.reference" \
    "$golden/ghc910-he.last.reference"
# Ten pages watching at once: what that checks is the server's answers to
# ten clients polling together, so the pages' requests are made without
# chromium in every build (the browser drew this log just above; ten of
# them cost about 15 s of CPU).
driver=$poller browse ghc910-he-ten many 10 14
stop_live

# ---- 3a. the stream's end: the status that says so comes with the last data -------
# The data are rendered at most every 100 ms, and at most every four times
# a rendering's cost, while a stream is read (Note [The live page's data]);
# once it has ended there is nothing left to wait for, so a page told
# "stream ended" must get the last census with it: a reader of the status
# stops there.  100 censuses of 2,000 bands make a rendering costly (about
# 0.1 s); one is made, and the last census and the end are appended at
# once, while a rendering would still be held back.  /metrics, which
# renders nothing, says when strata-live has read the end.
node "$synth" header end.eventlog
node "$synth" censuses end.eventlog 1 100 2000
node "$synth" censuses end.rest 101 1 2000
node "$synth" end end.rest
start_live end --file end.eventlog
wait_census 100
curl -sf "$url/live/status" >end.status0 || fail "GET /live/status failed"
cat end.rest >>end.eventlog
for _ in $(seq 600); do [ "$(metric 'strata_live_connected{')" = 0 ] && break; sleep 0.02; done
curl -sf "$url/live/status" >end.status && curl -sf "$url/live/data.json" >end.data.json ||
    fail "GET /live/status or /live/data.json failed"
if r=$(node -e '
    const fs = require("fs");
    const s = JSON.parse(fs.readFileSync("end.status")), d = JSON.parse(fs.readFileSync("end.data.json"));
    const n = d.report.profiles[0].censuses;
    const bad = s.connected || s.censuses !== 101 || d.data_version !== s.data_version || n !== 101;
    console.log(`connected ${s.connected}, ${s.censuses} censuses read; data version ${s.data_version} ` +
                `in the status, ${d.data_version} fetched, holding ${n} censuses`);
    process.exit(bad ? 1 : 0);' 2>&1); then
    pass
else
    fail "the status that says the stream ended and its data (expected all 101 censuses): $r"
    live_stderr
fi
stop_live

# ---- 3b. the leak example's -hi log, followed with --file: its long
# labels ("SessionEntry_con_info (examples/leak.c:49:5-60)") whole in the legend
"$ex/leak" 6 150000 +RTS -hi -l -i0.01 -olleak-hi.eventlog -RTS >/dev/null || fail "leak -hi failed"
start_live leak-hi --file leak-hi.eventlog
browse leak-hi file leak-hi.drawn.json
stop_live

# ---- 4. a GHC 9.10.3 program's log, followed with --file as it grows ------------
if [ "$have_sid" = no ]; then
    skip_part ghc-sid "$sid_why: the page did not follow a GHC program"
else
    # Run to its end first, without --eventlog-flush-interval (with it GHC
    # 9.10.3 often deadlocks at exit: run_ghc_program), then fed to the
    # file as a program writes its log (feed_live), while the page watches.
    run_ghc_program follow "$sid_bin/sessions-ipe" 6 +RTS -hi -l -i0.05 -olwritten.eventlog -RTS ||
        fail "the GHC program failed: $(cat follow.prog.err)"
    : >follow.eventlog
    start_live follow --file follow.eventlog
    feed_live written.eventlog follow.eventlog &
    feed_pid=$!
    browse ghc910-program file follow.drawn.json
    wait "$feed_pid"
    vs_ghc_events ghc910-program follow.drawn.json follow.eventlog
    stop_live
fi

# ---- 5. scale (measured, not asserted): 5,000 censuses x 1,000 bands ------------
if [ "${STRATA_LIVE_PAGE_SCALE:-0}" = 1 ] && [ -z "${SAN_CFLAGS:-}" ]; then
    node "$synth" header scale.eventlog
    node "$synth" censuses scale.eventlog 1 4990 1000
    start_live scale --file scale.eventlog
    browse scale perf scale.eventlog 4991 10 1000
    ls -l scale.eventlog | awk '{ print "scale: log " $5 " bytes" }'
    grep VmHWM "/proc/$live_pid/status" | sed 's/^/scale: strata-live /'
    stop_live
fi
finish
