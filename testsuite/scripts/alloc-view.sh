#!/usr/bin/env bash
# testsuite/scripts/alloc-view.sh -- the "Allocation sites" view
# (utils/report/alloc.js) in Debian's chromium, headless: strata-html's
# report of examples/leak run with --alloc-sample=16k (its eras are its
# phases), checked by alloc-view-browser.js against the report's own data
# (strata-html --json): the flame graph's nodes and total, remember (the
# leaking function) among its labels, the era filter, the metric, zoom.
# Then strata-live's page on the same program over its socket: its data
# carries the samples and the page offers the view.  Screenshots go to
# $top_builddir/testsuite/artefacts/alloc/.
set -u
. "$(dirname "$0")/lib.sh"

html=$top_builddir/utils/strata-html/strata-html
live=$top_builddir/utils/strata-live/strata-live
[ -x "$html" ] || skip node "strata-html was not built (node and npm were missing at configure time)"
driver=$top_srcdir/testsuite/scripts/alloc-view-browser.js
ex=$top_builddir/examples
shots=$top_builddir/testsuite/artefacts/alloc
mkdir -p "$shots"
cd "$test_tmp" || exit 1
need_browser

# ---- 1. strata-html's report of an eventlog ------------------------------------
# Run by name, found on PATH, as a user types it: the report's title (and
# the screenshot in docs/alloc-sampling.md) shows the command, not this
# build's absolute path.
PATH=$ex:$PATH expect_status 0 leak 12 100000 +RTS --alloc-sample=16k -l -olleak.eventlog -RTS
expect_status 0 "$html" -o leak.html leak.eventlog
expect_status 0 "$html" --json -o leak.json leak.eventlog
node -e 'const a = require("./leak.json").profiles[0].alloc_sites;
    process.exit(a && a.rate_bytes === 16384 && a.samples > 1000 && a.alive > 10 ? 0 : 1)' && pass ||
    fail "the report's alloc_sites: $(node -e 'console.log(JSON.stringify(require("./leak.json").profiles[0].alloc_sites).slice(0, 300))')"
# A log without samples has none, and no such view.
expect_status 0 "$ex/leak" 2 1000 +RTS -hT -l -olplain.eventlog -RTS
expect_status 0 "$html" --json -o plain.json plain.eventlog
node -e 'process.exit(require("./plain.json").profiles[0].alloc_sites === null ? 0 : 1)' && pass ||
    fail "a log without samples has alloc_sites in its report"
# Era 3 of 12: what the third phase allocated and the end still holds.
if node "$driver" leak.html leak.json "$shots/leak" remember 3 >leak.browser 2>&1; then
    pass
else
    fail "leak: the browser checks failed:"
    grep -v '^ok:' leak.browser | head -n 30 | sed 's/^/    /' >&2
fi

# ---- 2. strata-live's page ---------------------------------------------------------
if ! command -v curl >/dev/null; then
    skip_part curl "curl is not installed: strata-live's page was not checked"
    finish
fi
. "$top_srcdir/testsuite/scripts/live-lib.sh"
live_pid=
sock=$test_tmp/leak.sock
start_live live --socket "$sock"
"$ex/leak" 6 200000 +RTS --alloc-sample=16k --eventlog-socket="$sock" --eventlog-socket-wait \
    -RTS >live.out 2>live.err || fail "leak over the socket failed: $(cat live.err)"
# The stream has ended; what strata-live drew stays served.
for _ in $(seq 100); do
    curl -sf "$url/live/data.json" >data.json && node -e 'const a = require("./data.json").report.profiles[0].alloc_sites;
        process.exit(a && a.samples > 100 ? 0 : 1)' 2>/dev/null && break
    sleep 0.1
done
node -e 'const a = require("./data.json").report.profiles[0].alloc_sites;
    process.exit(a && a.samples > 100 && a.frames.some(f => f && f[0] === "remember") ? 0 : 1)' && pass ||
    fail "strata-live's data has no samples naming remember: $(head -c 300 data.json)"
curl -sf "$url/" | grep -q 'strataAllocView' && pass || fail "strata-live's page lacks the allocation view"
stop_live
finish
