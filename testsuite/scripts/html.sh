#!/usr/bin/env bash
# testsuite/scripts/html.sh -- strata-html on the command line: its options
# and their errors, bad and truncated inputs (one clear message naming the
# file; a truncated log still renders, with a warning), .hp input, --json
# (the integrated sizes agree with strata-events' summary, and every
# band's peak and last census with ghc-events 0.20's reading of the log),
# band selection and ordering, marker filters, --diff, the progress line
# and the self-contained page.  The rendered page is checked in a browser
# by html-browser.sh.
set -u
. "$(dirname "$0")/lib.sh"

html=$top_builddir/utils/strata-html/strata-html
events=$top_builddir/utils/strata-events/strata-events
ex=$top_builddir/examples
golden=$top_srcdir/testsuite/golden
[ -x "$html" ] || skip node "strata-html was not built (node and npm were missing at configure time)"
. "$top_srcdir/testsuite/scripts/sid-lib.sh"
cd "$test_tmp" || exit 1

# json EXPR FILE: prints the value of a JavaScript expression over the JSON
# report in FILE (bound to d; p is its first profile).
json() {
    node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
             const p = d.profiles[0];
             console.log(eval(process.argv[1]));' "$1" "$2"
}

# expect_json EXPR WANT FILE: fail unless json EXPR FILE prints WANT.
expect_json() {
    local got
    got=$(json "$1" "$3" 2>&1)
    if [ "$got" = "$2" ]; then pass; else fail "$3: $1 is '$got', expected '$2'"; fi
}

# --- Usage errors: exit 2, a message naming the problem. -----------------
expect_status 2 "$html"
expect_stderr_contains "missing FILE"
expect_status 2 "$html" --bands abc x.eventlog
expect_stderr_contains "--bands takes a whole number from 0 (all) to 1000000, not: abc"
expect_status 2 "$html" --bands -3 x.eventlog
expect_stderr_contains "--bands takes a whole number"
expect_status 2 "$html" --sort biggest x.eventlog
expect_stderr_contains "--sort takes size, stddev, name, number or gradient, not: biggest"
expect_status 2 "$html" --y-axis -5 x.eventlog
expect_stderr_contains "--y-axis takes a positive number of bytes, not: -5"
expect_status 2 "$html" --y-axis 1e999 x.eventlog
expect_stderr_contains "--y-axis takes a positive number"
expect_status 2 "$html" --frobnicate x.eventlog
expect_stderr_contains "strata-html: unknown option: --frobnicate
Try 'strata-html --help'."
# A misspelt option: the one message every tool gives (docs/command-line.md).
expect_status 2 "$html" --normalize-time x.eventlog
expect_stderr_contains "strata-html: unknown option: --normalize-time (did you mean --normalise-time?)"
expect_status 2 "$html" --reverse=yes x.eventlog
expect_stderr_contains "strata-html: --reverse takes no value (got --reverse=yes)"
expect_status 2 "$html" -o r.html a.eventlog b.eventlog
expect_stderr_contains "-o names one report; several FILEs get one each, beside them"
expect_status 2 "$html" a.eventlog b.eventlog --diff c.eventlog
expect_stderr_contains "--diff compares one FILE with FILE2, not several: b.eventlog"
expect_status 2 "$html" a.eventlog -
expect_stderr_contains "standard input (-) can only be read alone"
expect_status 0 "$html" --version
grep -Eq '^strata-html [0-9.]+ \(echarts [0-9.]+, tabulator-tables [0-9.]+\)$' "$out" ||
    fail "--version printed: $(cat "$out")"
expect_status 2 "$html" x.eventlog -o
expect_stderr_contains "-o needs a value (FILE)"
expect_status 2 "$html" - --diff -
expect_stderr_contains "only one input can be standard input"
expect_status 2 "$html" --normalise-time x.eventlog
expect_stderr_contains "--normalise-time needs --diff FILE2"
expect_status 0 "$html" --help
grep -q -- '--diff FILE2' "$out" || fail "--help does not describe --diff"

# --- Bad inputs: exit 1, one line naming the file and the problem. -------
expect_status 1 "$html" missing.eventlog
expect_stderr_contains "strata-html: cannot open missing.eventlog: No such file or directory"
printf 'hello, world\n' >text.eventlog
expect_status 1 "$html" text.eventlog
expect_stderr_contains "strata-html: text.eventlog: not a GHC eventlog: offset 0:"
: >empty.eventlog
expect_status 1 "$html" empty.eventlog
expect_stderr_contains "strata-html: empty.eventlog: not a GHC eventlog"
[ -e text.eventlog.html ] && fail "a report was written for a bad input"
expect_status 0 "$ex/leak" 2 50000 +RTS -l -olnoprof.eventlog -RTS
expect_status 1 "$html" noprof.eventlog
expect_stderr_contains "strata-html: noprof.eventlog: no heap profile in this eventlog"
[ "$(wc -l <"$err")" -eq 1 ] || fail "more than one line for a log without a profile: $(cat "$err")"

# --- A -hT log: JSON agrees with strata-events' summary. -------------------
expect_status 0 "$ex/leak" 6 150000 +RTS -hT -l -i0.01 -olleak.eventlog -RTS
expect_status 0 "$html" --json leak.eventlog
[ -s leak.eventlog.json ] || fail "--json did not write leak.eventlog.json"
expect_status 0 "$events" summary --json leak.eventlog
cp "$out" summary.json
# .inv.every-census-counts: the integrated sizes, from every census, agree.
node -e '
const fs = require("fs");
const s = JSON.parse(fs.readFileSync("summary.json", "utf8"));
const h = JSON.parse(fs.readFileSync("leak.eventlog.json", "utf8")).profiles[0];
const by = Object.fromEntries(h.table.map(r => [r.label, r]));
let bad = 0;
for (const b of s.top_by_integrated) {
    const r = by[b.label];
    if (!r || Math.abs(r.integrated_byte_s - b.integrated_byte_seconds) > 1e-5 * b.integrated_byte_seconds + 1e-6) {
        console.error("integrated size of " + b.label + ": " + (r && r.integrated_byte_s) + " vs " + b.integrated_byte_seconds); bad = 1; }
}
for (const b of s.top_by_peak)
    if (!by[b.label] || by[b.label].peak_bytes !== b.peak_bytes) { console.error("peak of " + b.label); bad = 1; }
if (h.censuses !== s.samples) { console.error("censuses " + h.censuses + " vs samples " + s.samples); bad = 1; }
if (h.markers.length !== s.markers.length) { console.error("markers"); bad = 1; }
process.exit(bad);' 2>compare.err && pass || fail "strata-html and strata-events disagree: $(cat compare.err)"
# strata-events reads through the same heap-profile model: ghc-events 0.20
# reads the log on its own (every band's peak and last census), where the
# sid chroot is (sid-lib.sh).
if ! sid_build; then
    skip_part ghc-sid "$sid_why: strata-html's report was not checked against ghc-events"
elif "$sid_bin/heap-bands" leak.eventlog >leak.peaks 2>hb.err &&
        "$sid_bin/heap-bands" --last leak.eventlog >leak.last 2>>hb.err; then
    node "$top_srcdir/testsuite/scripts/report-vs-ghc-events.js" leak.eventlog.json leak.peaks \
        leak.last >vs-ghc.out 2>&1 && pass ||
        fail "strata-html's report and ghc-events 0.20's reading of the log differ: $(cat vs-ghc.out)"
else
    fail "heap-bands (ghc-events 0.20) failed: $(cat hb.err)"
fi
expect_json 'p.mode + " " + p.mode_name' '-hT closure type' leak.eventlog.json
expect_json 'p.program.endsWith("examples/leak") && p.args[0]' '6' leak.eventlog.json
expect_json 'p.rts_identifier.startsWith("strata")' 'true' leak.eventlog.json
expect_json 'p.interval_ns' '10000000' leak.eventlog.json
expect_json '/^\d{4}-\d\d-\d\dT/.test(p.date)' 'true' leak.eventlog.json
expect_json 'p.heap.size !== null && p.heap.live !== null && p.heap.blocks !== null' 'true' leak.eventlog.json
expect_json 'p.chart.bands.every(b => b.values.length === p.chart.times_s.length)' 'true' leak.eventlog.json
expect_json 'p.chart.times_s.length <= 400' 'true' leak.eventlog.json
expect_json 'p.markers.map(m => m.text).join()' 'phase 1,phase 2,phase 3,phase 4,phase 5,phase 6' leak.eventlog.json
# SessionEntry leaks: its line rises.  The fit is the least-squares line
# over every census, computed again here from the log's own samples
# (strata-events show: each census's start time and the band's bytes, 0
# where it is absent): how straight the line is depends on how the machine
# ran the program (a loaded one stretches some phases), so R^2 is compared
# with the same data's, not with a threshold.  (Not from the chart: its
# bins merge censuses that a stalled run crowds together.)
expect_status 0 "$events" show leak.eventlog
node -e '
const fs = require("fs");
const p = JSON.parse(fs.readFileSync("leak.eventlog.json", "utf8")).profiles[0];
const r = p.table.find(r => r.label === "SessionEntry");
const t = [], y = [];
for (const line of fs.readFileSync(process.argv[1], "utf8").split("\n")) {
    let m = /^ *([0-9]+): Start of heap profile sample:/.exec(line);
    if (m) { t.push(Number(m[1]) / 1e9); y.push(0); continue; }
    m = /^ *[0-9]+: Heap profile string sample: profile 0, ([0-9]+) bytes, "(.*)"$/.exec(line);
    if (m && m[2] === r.name) y[y.length - 1] += Number(m[1]);
}
const n = t.length, mean = a => a.reduce((s, x) => s + x, 0) / n;
const mt = mean(t), my = mean(y);
const vt = mean(t.map(x => x * x)) - mt * mt, vy = mean(y.map(x => x * x)) - my * my;
const cov = mean(t.map((x, i) => x * y[i])) - mt * my;
const near = (a, b) => Math.abs(a - b) <= 1e-5 * Math.abs(b) + 1e-9;   // JSON keeps 6 digits
const bad = [];
if (n !== p.censuses) bad.push("the log has " + n + " censuses, the report " + p.censuses);
if (!(r.slope_bytes_per_s > 0)) bad.push("slope " + r.slope_bytes_per_s);
if (!near(r.slope_bytes_per_s, cov / vt)) bad.push("slope " + r.slope_bytes_per_s + ", from the log " + cov / vt);
if (!near(r.r2, cov * cov / (vt * vy))) bad.push("R^2 " + r.r2 + ", from the log " + cov * cov / (vt * vy));
if (bad.length) { console.error(bad.join("; ")); process.exit(1); }' "$out" 2>fit.err && pass ||
    fail "SessionEntry's straight-line fit: $(cat fit.err)"

# Bands: the top N by integrated size, the rest summed as OTHER.
expect_status 0 "$html" --json --bands 2 -o b2.json leak.eventlog
expect_json 'p.chart.bands.length + " " + p.chart.other.bands + " " + p.table.length' "2 $((
    $(json 'p.table.length' leak.eventlog.json) - 2)) $(json 'p.table.length' leak.eventlog.json)" b2.json
expect_json 'p.chart.bands.map(b => b.name).join()' 'ARR_WORDS,SessionEntry' b2.json
expect_status 0 "$html" --json --bands 0 -o b0.json leak.eventlog
expect_json 'p.chart.other === null && p.chart.bands.length === p.table.length' 'true' b0.json
# Two bands and OTHER add up, point by point, to all the bands.
node -e '
const fs = require("fs"), total = f => { const c = JSON.parse(fs.readFileSync(f, "utf8")).profiles[0].chart;
    return c.times_s.map((_, i) => c.bands.concat(c.other ? [c.other] : []).reduce((s, b) => s + b.values[i], 0)); };
const a = total("b2.json"), b = total("b0.json");
process.exit(a.length === b.length && a.length > 1 && a.every((x, i) => Math.abs(x - b[i]) <= 8) ? 0 : 1);' &&
    pass || fail "--bands 2: the bands and OTHER do not add up to the whole profile"
expect_status 0 "$html" --json --sort name -o byname.json leak.eventlog
expect_json 'const n = p.chart.bands.map(b => b.name); n.join() === [...n].sort().join()' 'true' byname.json
expect_status 0 "$html" --json --sort name --reverse -o byname-r.json leak.eventlog
expect_json 'const n = p.chart.bands.map(b => b.name); n.join() === [...n].sort().reverse().join()' 'true' byname-r.json
expect_status 0 "$html" --json --sort gradient -o bygrad.json leak.eventlog
expect_json 'const s = p.table.map(r => r.slope_bytes_per_s); s.every((x, i) => !i || s[i - 1] >= x)' 'true' bygrad.json
expect_status 0 "$html" --json --sort stddev -o bystd.json leak.eventlog
expect_json 'const s = p.table.map(r => r.stddev_bytes); s.every((x, i) => !i || s[i - 1] >= x)' 'true' bystd.json
expect_status 0 "$html" --json --y-axis 5000000 -o y.json leak.eventlog
expect_json 'd.options.y_axis_bytes' '5000000' y.json

# Markers: --no-traces, -x, and -i winning over -x.
expect_status 0 "$html" --json --no-traces -o nt.json leak.eventlog
expect_json 'p.markers.length' '0' nt.json
expect_status 0 "$html" --json -x 'phase 2' -o x.json leak.eventlog
expect_json 'p.markers.map(m => m.text).join()' 'phase 1,phase 3,phase 4,phase 5,phase 6' x.json
expect_status 0 "$html" --json -x phase -i 'phase 4' -i 'phase 6' -o xi.json leak.eventlog
expect_json 'p.markers.map(m => m.text).join()' 'phase 4,phase 6' xi.json

# The page: self-contained, the data and the libraries inlined.
expect_status 0 "$html" leak.eventlog
[ -s leak.eventlog.html ] || fail "no leak.eventlog.html"
grep -q 'id="strata-data"' leak.eventlog.html || fail "the page holds no data"
grep -q 'Apache' leak.eventlog.html || fail "the page does not inline ECharts"
grep -q 'Tabulator' leak.eventlog.html || fail "the page does not inline Tabulator"
if grep -Eo '(src|href)="https?://[^"]*"' leak.eventlog.html | head -n 3 | grep -q .; then
    fail "the page loads something from the network"
else
    pass
fi
expect_status 0 "$html" -o - leak.eventlog
grep -q '^<!DOCTYPE html>' "$out" || fail "-o - did not write the page to standard output"
expect_status 0 "$html" --json -o - - <leak.eventlog
expect_json 'p.censuses' "$(json 'p.censuses' leak.eventlog.json)" "$out"
expect_status 1 "$html" -o /nonexistent/dir/r.html leak.eventlog
expect_stderr_contains "strata-html: cannot write /nonexistent/dir/r.html:"

# --- Truncated and unterminated logs render, with a warning. ---------------
size=$(wc -c <leak.eventlog)
# Cut inside an event.  Two thirds in may fall on an event boundary (a log
# that just stops: tested below); then one byte more cannot, since every
# event is at least 10 bytes long.
head -c $((size * 2 / 3)) leak.eventlog >cut.eventlog
"$html" --json cut.eventlog 2>&1 >/dev/null | grep -q 'the report shows the' ||
    head -c $((size * 2 / 3 + 1)) leak.eventlog >cut.eventlog
expect_status 0 "$html" --json cut.eventlog
expect_stderr_contains "strata-html: cut.eventlog: warning: offset"
expect_stderr_contains "the report shows the"
expect_json 'p.warning !== null && p.censuses > 0 && p.censuses <= '"$(json 'p.censuses' leak.eventlog.json)" 'true' cut.eventlog.json
head -c $((size - 2)) leak.eventlog >no-end.eventlog   # drop the data-end marker
expect_status 0 "$html" --json no-end.eventlog -o no-end.json
expect_stderr_contains "strata-html: no-end.eventlog: warning: offset"
expect_stderr_contains "no data end marker"
# A run killed in its third census: the census counts with its one sample,
# as in strata-events and strata-live (Note [One rule per case]).
expect_status 0 "$html" --json "$golden/heap-cut.eventlog" -o heap-cut.json
expect_json 'p.censuses + " " + p.table.map(b => b.name + "=" + b.last_bytes).join(" ")' \
    '3 ARR_WORDS=65536 THUNK_1_0=0' heap-cut.json
head -c 200 leak.eventlog >header-only.eventlog
expect_status 1 "$html" header-only.eventlog
expect_stderr_contains "strata-html: header-only.eventlog:"

# --- Conventions (issue 17 item 7). ------------------------------------------
# Several inputs: one report each; a bad one fails the run, not the others.
cp leak.eventlog again.eventlog
expect_status 1 "$html" --json again.eventlog missing.eventlog leak.eventlog
expect_stderr_contains "strata-html: cannot open missing.eventlog"
[ -s again.eventlog.json ] && [ -s leak.eventlog.json ] && pass ||
    fail "several inputs: not every good input got its report"
# The output is renamed into place: a run that fails half way (here a
# 100 kB file size limit) leaves the old report whole and no temporary file.
printf 'old report\n' >keep.html
( ulimit -f 100; trap '' XFSZ; exec "$html" -o keep.html leak.eventlog ) >/dev/null 2>"$err"
[ "$(cat keep.html)" = "old report" ] && pass || fail "a failed write changed keep.html"
ls keep.html.* >/dev/null 2>&1 && fail "a failed write left $(ls keep.html.*)" || pass
expect_stderr_contains "strata-html: cannot write keep.html: File too large"
# A fresh report gets the usual mode (not mkstemp's 0600).
( umask 022; "$html" -o mode.html leak.eventlog ) && [ "$(stat -c %a mode.html)" = 644 ] && pass ||
    fail "the report's mode is $(stat -c %a mode.html), expected 644"

# --- -he: era order by default, the live eras. ------------------------------
expect_status 0 "$ex/leak" 4 100000 +RTS -he --automatic-era-increment -l -i0.01 -olhe.eventlog -RTS
expect_status 0 "$html" --json he.eventlog
expect_json 'd.options.sort' 'number' he.eventlog.json
expect_json 'const e = p.chart.bands.map(b => +b.name.slice(4)); e.every((x, i) => !i || e[i - 1] < x)' 'true' he.eventlog.json
expect_json 'p.eras_live_at_end.length >= 4 && p.eras_live_at_end.every(e => e.bytes > 0)' 'true' he.eventlog.json
expect_json 'p.table.every(r => r.color === r.era)' 'true' he.eventlog.json   # .inv.same-colour
expect_json 'p.eras_live_at_end.every(e => typeof e.era === "number")' 'true' he.eventlog.json
# 20 phases (21 eras with the last increment): every era charted alone,
# the newest among them, none in OTHER, each live era in its band's colour
# (Note [Era bands] in utils/report/ChartBands.c; 400 eras, with ranges,
# in html-browser.sh).
expect_status 0 "$ex/leak" 20 30000 +RTS -he --automatic-era-increment -l -i0.005 -olhe20.eventlog -RTS
expect_status 0 "$html" --json he20.eventlog
expect_json 'd.options.bands + " " + (p.table.length >= 20) + " " + (p.chart.bands.length === p.table.length) + " " + p.chart.other' '50 true true null' he20.eventlog.json
expect_json 'p.chart.bands.every(b => b.bands === 1 && b.eras[0] === b.eras[1] && b.color === b.eras[0])' 'true' he20.eventlog.json
expect_json 'p.chart.bands[p.chart.bands.length - 1].eras[0] === Math.max(...p.table.map(r => r.era))' 'true' he20.eventlog.json
expect_json 'p.eras_live_at_end.every(e => e.band === "era " + e.era && e.color === e.era)' 'true' he20.eventlog.json
# --bands 10: the newest 8 of the n eras alone, the older ones in 2 ranges
# of 10 (eras 1–10, and 11 on, cut at the oldest era alone).
expect_status 0 "$html" --json --bands 10 -o he20-10.json he20.eventlog
expect_json 'const n = p.table.length; p.chart.bands.map(b => b.name).slice(0, 3).join() === "eras 1–10," + (n - 8 === 11 ? "era 11" : "eras 11–" + (n - 8)) + ",era " + (n - 7) && p.chart.bands.length === 10' 'true' he20-10.json

# --- -hi: IPE fields; a GHC-written log. ------------------------------------
expect_status 0 "$ex/leak" 4 100000 +RTS -hi -l -i0.01 -olhi.eventlog -RTS
expect_status 0 "$html" --json hi.eventlog
expect_json 'const r = p.table.find(r => r.ipe && r.ipe.table_name === "SessionEntry_con_info"); r.ipe.srcloc.startsWith("examples/leak.c:49") && r.ipe.closure_desc' '1' hi.eventlog.json
expect_status 0 "$html" --json "$golden/ghc92-ipe.eventlog" -o ghc92.json
expect_json 'p.rts_identifier' 'GHC-9.1.20210309 rts_l' ghc92.json
expect_json 'p.table.map(r => r.name).join("|")' '0x4a0010|sat_s154_info (Test.hs:5:1-30)' ghc92.json
expect_json 'p.table[1].ipe.ty_desc + " / " + p.table[1].ipe.module + "." + p.table[1].ipe.label' 'Integer -> IO () / Main.main' ghc92.json

# --- -hc: cost-centre stacks (GHC 9.0.2, -prof -fprof-auto; golden). -------
expect_status 0 "$html" --json "$golden/ghc902-hc.eventlog" -o hc.json
expect_json 'p.mode + " " + p.band_count + " " + p.warning' '-hc 9 null' hc.json
expect_json 'const r = p.table[0]; r.name + " " + r.ccs.map(c => c.label).join(">")' 'build/main.xs/main/Main.CAF Main.CAF>main>main.xs>build' hc.json
expect_json 'p.table.find(r => r.name === "MAIN").ccs.length' '0' hc.json
# strata-events summary names the same buckets, with the same sizes.
expect_status 0 "$events" summary --json "$golden/ghc902-hc.eventlog"
cp "$out" hc-summary.json
node -e '
const s = require("./hc-summary.json"), p = require("./hc.json").profiles[0];
const by = Object.fromEntries(p.table.map(r => [r.name, r]));
let bad = s.top_by_integrated.length === 0;
for (const b of s.top_by_integrated) {
    const r = by[b.label];
    if (!r || Math.abs(r.integrated_byte_s - b.integrated_byte_seconds) > 1e-5 * b.integrated_byte_seconds + 1e-6) {
        console.error("-hc bucket " + b.label); bad = true; }
}
process.exit(bad ? 1 : 0);' 2>hc-compare.err && pass || fail "-hc: strata-html and strata-events disagree: $(cat hc-compare.err)"
expect_status 0 "$events" show "$golden/ghc902-hc.eventlog"
grep -q 'Cost center definition: cc 127, label "PINNED", module "SYSTEM"' "$out" ||
    fail "strata-events show does not decode cost centre definitions"
grep -q 'cost-centre sample: profile 0, [0-9]* bytes, stack \[[0-9 ]*\]' "$out" ||
    fail "strata-events show does not decode cost-centre samples"
expect_status 0 "$html" --json -p "$golden/ghc902-hc.hp" -o hc-hp.json
expect_json 'p.mode + " " + p.mode_name' '-hc cost centre stack, .hp file' hc-hp.json
expect_json 'p.table.find(r => r.name.includes("build/")).ccs.map(c => c.label).slice(1).join(">")' 'main>main.xs>build' hc-hp.json
if command -v ghc >/dev/null && printf 'main = print (sum [1 .. 1000000 :: Int])\n' >P.hs &&
        ghc -O -v0 -prof -fprof-auto -rtsopts -eventlog P.hs -o p-prof >/dev/null 2>&1; then
    # Debian's ghc-prof is installed: a fresh -hc log.
    # traceEventIO messages are drawn only with --include-trace-events.
    cat >Cc.hs <<'HS'
import Debug.Trace (traceEventIO, traceMarkerIO)

build :: Int -> [Int]
build n = [1 .. n]

main :: IO ()
main = do
  traceMarkerIO "a marker"
  traceEventIO "a message"
  let xs = build 2000000
  print (sum xs + length xs)
HS
    expect_status 0 ghc -O -v0 -prof -fprof-auto -rtsopts -eventlog Cc.hs -o cc
    expect_status 0 ./cc +RTS -hc -l -i0.005 -RTS
    expect_status 0 "$html" --json cc.eventlog
    expect_json 'p.mode + " " + p.table.some(r => r.name === "build/main.xs/main/Main.CAF")' '-hc true' cc.eventlog.json
    expect_json 'p.markers.map(m => m.kind + ":" + m.text).join()' 'marker:a marker' cc.eventlog.json
    expect_status 0 "$html" --json --include-trace-events cc.eventlog -o cc-msgs.json
    expect_json 'p.markers.map(m => m.kind + ":" + m.text).join()' 'marker:a marker,message:a message' cc-msgs.json
else
    printf 'html.sh: ghc with profiling libraries (ghc-prof) not found: no fresh -hc log checked\n'
fi

# --- .hp files (-p). -----------------------------------------------------
expect_status 0 "$ex/leak" 4 400000 +RTS -hT -i0.01 -RTS
expect_status 0 "$html" --json -p leak.hp
expect_json 'p.source + " " + p.mode_name' 'hp .hp file' leak.hp.json
expect_json 'p.table.some(r => r.label === "SessionEntry") && p.censuses > 1' 'true' leak.hp.json
expect_json 'p.program.endsWith("examples/leak") && p.args[0]' '4' leak.hp.json
expect_status 1 "$html" -p leak.eventlog
expect_stderr_contains "strata-html: leak.eventlog: not a .hp heap profile (line 1 does not start with JOB)"
expect_status 1 "$html" leak.hp
expect_stderr_contains "strata-html: leak.hp: it looks like a .hp heap profile: read it with -p"
{ head -n 12 leak.hp; printf 'this is not hp\n'; } >garbage.hp
expect_status 1 "$html" -p garbage.hp
expect_stderr_contains "strata-html: garbage.hp: line 13: not .hp syntax"
# Drop the last END_SAMPLE line and what follows it: however few samples a
# fast machine takes, the last one is then cut short.
grep -n 'END_SAMPLE' leak.hp | tail -n 1 | cut -d: -f1 >n
head -n "$(($(cat n) - 1))" leak.hp >cut.hp
expect_status 0 "$html" --json -p cut.hp
expect_stderr_contains "warning: the last sample has no END_SAMPLE"

# --- Peaks survive folding (issue 17): 2000 censuses, one spike among
# them; the file ends as GHC's .hp files do, the last census then an empty
# sample at the same time.  The chart's largest point of each band is the
# table's peak, and the last point keeps its full value.
awk 'BEGIN { print "JOB \"spike\""; for (i = 0; i < 2000; i++) { t = sprintf("%.3f", i * 0.001);
      print "BEGIN_SAMPLE " t; print "Base\t1000"; if (i == 1001) print "Spike\t500000";
      print "END_SAMPLE " t }
      print "BEGIN_SAMPLE 1.999"; print "END_SAMPLE 1.999" }' >spike.hp
expect_status 0 "$html" --json -p spike.hp
expect_json 'p.chart.times_s.length < 2000 && p.chart.bands.every(b => Math.max(...b.values) === p.table.find(r => r.name === b.name).peak_bytes)' 'true' spike.hp.json
expect_json 'const s = p.chart.bands.find(b => b.name === "Spike"); Math.max(...s.values) + " " + Math.max(...s.min_values)' '500000 0' spike.hp.json
expect_json 'const b = p.chart.bands.find(b => b.name === "Base"); b.values[b.values.length - 1] + " " + b.min_values[b.min_values.length - 1]' '1000 0' spike.hp.json
expect_json 'Math.max(...p.chart.total_max)' '501000' spike.hp.json

# A .hp whose times go backwards is read, with a warning naming the sample.
printf 'JOB "back"\nBEGIN_SAMPLE 2.0\nA\t10\nEND_SAMPLE 2.0\nBEGIN_SAMPLE 1.5\nA\t20\nEND_SAMPLE 1.5\n' >back.hp
expect_status 0 "$html" --json -p back.hp
expect_stderr_contains "strata-html: back.hp: warning: sample at 1.500000 s goes back in time (the one before is at 2.000000 s)"

# --- Strings as every tool writes them (Note [One way to write a string]
# in wire/TextOut.c): UTF-8 as it is, "fase é 中文", "Café→λ" and a clef
# (U+1D11E); control characters escaped (\u001b, decoding to ESC); each
# invalid byte (a stray continuation byte, a cut-short sequence, an
# overlong '/') as the text \xNN; < > & escaped for the page's <script>.
printf 'JOB "uni"\nBEGIN_SAMPLE 0.1\nfase \303\251 \344\270\255\346\226\207\t100\n\360\235\204\236\t50\nbad\200x\t10\ncut\344\270\t10\nover\300\257\t10\nCaf\303\251\342\206\222\316\273\t5\nctl\033[31m\t5\n<b>&amp;\t5\nEND_SAMPLE 0.1\n' >uni.hp
expect_status 0 "$html" --json -p uni.hp
expect_json 'p.table.map(r => r.name).sort().join("|")' "$(printf '<b>&amp;|Caf\303\251\342\206\222\316\273|bad\\x80x|ctl\033[31m|cut\\xe4\\xb8|fase \303\251 \344\270\255\346\226\207|over\\xc0\\xaf|\360\235\204\236')" uni.hp.json
grep -q "$(printf 'fase \303\251 \344\270\255\346\226\207')" uni.hp.json && pass ||
    fail "uni.hp.json does not hold the UTF-8 label as it is"
grep -q 'ctl\\u001b\[31m' uni.hp.json && pass || fail "uni.hp.json does not escape ESC as \\u001b"
grep -q '"bad\\\\x80x"' uni.hp.json && pass || fail "uni.hp.json does not write the invalid byte as \\\\x80"
grep -q '\\u003cb\\u003e\\u0026amp;' uni.hp.json && pass || fail "uni.hp.json does not escape < > &"
LC_ALL=C grep -q "$(printf '[\001-\037\177]')" uni.hp.json && fail "uni.hp.json holds a control byte" || pass
# The page's title and the data inside it, written the same way.
expect_status 0 "$html" -p uni.hp -o uni.html
grep -q "$(printf 'Caf\303\251\342\206\222\316\273')" uni.html && pass || fail "uni.html does not hold the UTF-8 label"
grep -qF '<b>&amp;' uni.html && fail "uni.html holds a label's <b> unescaped" || pass

# --- --diff. ------------------------------------------------------------------
expect_status 0 "$ex/leak" 2 150000 +RTS -hT -l -i0.01 -olshort.eventlog -RTS
expect_status 0 "$html" --json short.eventlog --diff leak.eventlog -o diff.json
expect_json 'd.profiles.length' '2' diff.json
expect_json 'const r = d.diff.find(r => r.name === "SessionEntry"); r.b_byte_s > r.a_byte_s && r.change_byte_s > 0' 'true' diff.json
expect_json 'd.profiles[0].chart.bands.map(b => b.name).join() === d.profiles[1].chart.bands.map(b => b.name).join()' 'true' diff.json
# Everything shrinks the other way round: the largest loss comes first.
expect_status 0 "$html" --json leak.eventlog --diff short.eventlog -o shrank.json
expect_json 'const a = d.diff.map(r => Math.abs(r.change_byte_s)); d.diff[0].change_byte_s < 0 && a.every((x, i) => !i || a[i - 1] >= x)' 'true' shrank.json
expect_json 'd.options.normalised_time' 'false' shrank.json
expect_status 0 "$html" --json --normalise-time leak.eventlog --diff short.eventlog -o shrank-n.json
expect_json 'd.options.normalised_time' 'true' shrank-n.json
expect_status 0 "$html" --json short.eventlog --diff he.eventlog -o mixed.json
expect_stderr_contains "are profiles of different kinds"
expect_status 1 "$html" short.eventlog --diff text.eventlog
expect_stderr_contains "strata-html: text.eventlog: not a GHC eventlog"

# --- The progress line: an input that takes more than a second. ----------
# Read from a pipe, which can be read only once (.inv.one-pass).
expect_status 0 "$ex/bintrees" 16 +RTS -hT -l -i0.001 -A64k -olbig.eventlog -RTS
half=$(($(wc -c <big.eventlog) / 8))
{ head -c "$half" big.eventlog; sleep 1.5; tail -c +"$((half + 1))" big.eventlog; } |
    "$html" --json -o piped.json - 2>progress.err
status=$?
[ "$status" -eq 0 ] || fail "strata-html on a slow pipe exited with $status: $(cat progress.err)"
expect_stderr_contains "strata-html: -: " progress.err
expect_stderr_contains "MB read" progress.err
expect_status 0 "$html" --json -o quick.json big.eventlog
grep -q 'MB' "$err" && fail "a progress line for an input read in well under a second: $(cat "$err")"

finish
