#!/usr/bin/env bash
# testsuite/scripts/html-browser.sh -- strata-html's reports in a real
# browser: Debian's chromium, headless, driven by html-browser.js
# (puppeteer-core from utils/package-lock.json), opens reports made from
# -hT, -hi and -he logs of the examples, from logs GHC 9.0.2 and GHC 9.10.3
# wrote (the latter's -he golden), from a .hp
# file and from a --diff, and checks the rendered DOM: the views, the
# number of bands drawn in each chart, the legend labels, the marker rules,
# the detailed table's rows, IPE columns and sparklines, the table filter
# and the legend toggle.  Expected bands and labels come from the report's
# own data (strata-html --json on the same log) plus fixed facts about the
# examples (SessionEntry at examples/leak.c:49, the phase markers).
# Screenshots of every view are kept in $top_builddir/testsuite/artefacts/html/.
set -u
. "$(dirname "$0")/lib.sh"

html=$top_builddir/utils/strata-html/strata-html
[ -x "$html" ] || skip node "strata-html was not built (node and npm were missing at configure time)"
driver=$top_srcdir/testsuite/scripts/html-browser.js
ex=$top_builddir/examples
shots=$top_builddir/testsuite/artefacts/html
mkdir -p "$shots"
cd "$test_tmp" || exit 1
need_browser

# expectations NAME REPORT-JSON [EXTRA-JSON]: writes NAME.expect.json from
# the report's data: the views, per input the chart bands (OTHER last) and
# markers, the detailed table's row count; EXTRA (a JSON object) is merged
# on top.
expectations() {
    node - "$1" "$2" "${3:-{\}}" <<'JS'
const fs = require('fs');
const [name, reportJson, extra] = process.argv.slice(2);
const d = JSON.parse(fs.readFileSync(reportJson, 'utf8'));
const diff = d.profiles.length === 2;
const e = {
    views: ['heap', 'area', 'stream', 'normalised', 'lines', 'detailed'].concat(
        d.profiles.some(p => p.mode === '-hc') ? ['ccs'] : [], diff ? ['diff'] : [],
        d.profiles.some(p => p.alloc_sites) ? ['alloc'] : [], ['meta']),
    columns: d.profiles.map(p => {
        const other = p.chart.other && p.chart.other.bands > 0;
        const legend = p.chart.bands.filter(b => b.present).map(b => b.name).concat(other ? ['OTHER'] : []);
        const all = p.chart.bands.concat(other ? [p.chart.other] : []);
        const stack_max = diff ? 0 : Math.max(0, ...p.chart.times_s.map((_, i) => all.reduce((s, b) => s + b.values[i], 0)));
        return { bands: legend.length, legend, markers: p.markers.map(m => m.text), stack_max,
                 heap_lines: ['size', 'blocks', 'live'].filter(k => p.heap[k]).length };
    }),
    tables: [{ view: 'detailed', table: 'detailed', rows: d.profiles[0].table.length }],
    diff: diff,
};
Object.assign(e, JSON.parse(extra));
if (e.more_tables) e.tables = e.tables.concat(e.more_tables);
fs.writeFileSync(name + '.expect.json', JSON.stringify(e));
JS
}

# browse NAME REPORT.html: runs the driver, failing on any FAIL line.
browse() {
    local name=$1 report=$2
    if node "$driver" "$report" "$shots/$name" "$name.expect.json" >"$name.browser" 2>&1; then
        pass
    else
        fail "$name: the browser checks failed:"
        grep -v '^ok:' "$name.browser" | head -n 30 | sed 's/^/    /' >&2
    fi
    grep '^render_ms' "$name.browser" | sed "s/^/$name: /"
}

# report NAME LOG [OPTIONS...]: the HTML and JSON reports of LOG.
report() {
    local name=$1 log=$2
    shift 2
    expect_status 0 "$html" "$@" -o "$name.html" "$log"
    expect_status 0 "$html" "$@" --json -o "$name.json" "$log"
}

# -hT: the leak example; its markers are the six phases.
expect_status 0 "$ex/leak" 6 150000 +RTS -hT -l -i0.01 -olleak-hT.eventlog -RTS
report leak-hT leak-hT.eventlog
expectations leak-hT leak-hT.json '{"toggle":"SessionEntry","header_contains":["-hT closure type"],
  "tables":[{"view":"detailed","table":"detailed","rows":'"$(node -e 'console.log(require("./leak-hT.json").profiles[0].table.length)')"',
  "sparklines":true,"row_with":[["SessionEntry"]],"filter":{"field":"name","text":"SessionEntry","rows":1}}]}'
grep -q '"phase 6"' leak-hT.json || fail "leak -hT: the sixth phase marker is missing from the data"
browse leak-hT leak-hT.html

# -hi: bands named from IPE events; the table has the provenance columns.
expect_status 0 "$ex/leak" 6 150000 +RTS -hi -l -i0.01 -olleak-hi.eventlog -RTS
report leak-hi leak-hi.eventlog
expectations leak-hi leak-hi.json '{"header_contains":["-hi info table"],
  "tables":[{"view":"detailed","table":"detailed","rows":'"$(node -e 'console.log(require("./leak-hi.json").profiles[0].table.length)')"',
  "columns":["Description","Closure type","Type","Module","Source location"],
  "row_with":[["SessionEntry_con_info","CONSTR","examples/leak.c:49"]],
  "filter":{"field":"ipe_srcloc","text":"leak.c:49","rows":1}}]}'
browse leak-hi leak-hi.html

# -hi with --bands 2: two bands and OTHER; markers filtered to one phase.
report leak-hi-2 leak-hi.eventlog --bands 2 -x phase -i 'phase 3'
expectations leak-hi-2 leak-hi-2.json
node -e 'const p=require("./leak-hi-2.json").profiles[0]; process.exit(p.chart.bands.length===2 && p.chart.other && p.markers.length===1 && p.markers[0].text==="phase 3" ? 0 : 1)' ||
    fail "leak -hi --bands 2 -x phase -i 'phase 3': wrong bands or markers in the data"
browse leak-hi-2 leak-hi-2.html

# thunk-leak -hi: a thunk band with its source location.
expect_status 0 "$ex/thunk-leak" 3 +RTS -hi -l -i0.01 -olthunk-hi.eventlog -RTS
report thunk-hi thunk-hi.eventlog
grep -q 'examples/thunk-leak.c' thunk-hi.json || fail "thunk-leak -hi: no IPE source location in the data"
expectations thunk-hi thunk-hi.json '{"header_contains":["-hi info table"]}'
browse thunk-hi thunk-hi.html

# -he, 400 phases (400 eras or more): past 50 the newest 40 are charted
# alone and the older ones in at most 10 ranges of whole multiples of a
# round width, each drawn in its first era's colour; every era in exactly
# one band, in era order, and the header's items are the chart's bands,
# each in its colour there (Note [Era bands] in utils/report/ChartBands.c;
# 20 eras, each alone, in html.sh).
expect_status 0 "$ex/leak" 400 2000 +RTS -he --automatic-era-increment -l -i0.005 -olleak-he400.eventlog -RTS
report leak-he400 leak-he400.eventlog
node - <<'JS' || fail "leak -he, 400 eras: the chart's bands break the era rule"
const p = require('./leak-he400.json').profiles[0], b = p.chart.bands;
const eras = p.table.map(r => r.era).sort((x, y) => x - y), newest = eras.slice(-40), n = eras.length;
const ranges = b.filter(x => x.bands > 1), alone = b.filter(x => x.bands === 1);
const bandOf = e => b.filter(x => x.eras[0] <= e && e <= x.eras[1]);
const problems = [
    n >= 400 || 'eras: ' + n,
    p.chart.other === null || 'OTHER is drawn',
    b.length <= 50 && ranges.length <= 10 || `${b.length} bands, ${ranges.length} ranges`,
    JSON.stringify(alone.map(x => x.eras[0])) === JSON.stringify(newest) || 'the newest 40 are not alone',
    b.every((x, i) => !i || b[i - 1].eras[1] < x.eras[0]) || 'bands not in era order',
    b.every(x => x.color === x.eras[0]) || "a band not in its first era's colour",
    ranges.every(x => /^eras \d+–\d+$/.test(x.name)) || 'range names: ' + ranges.map(x => x.name),
    eras.every(e => bandOf(e).length === 1) || 'an era in no band or two',
    b.reduce((s, x) => s + x.bands, 0) === n || 'the bands do not add up to the ' + n + ' eras',
    p.eras_live_at_end.every(e => { const x = bandOf(e.era)[0]; return x && e.band === x.name && e.color === x.color; }) ||
        'a live era is not given its chart band and colour',
].filter(x => x !== true);
if (problems.length) { console.log(problems.join('; ')); process.exit(1); }
JS
live=$(node -e 'console.log(require("./leak-he400.json").profiles[0].eras_live_at_end.length)')
expectations leak-he400 leak-he400.json '{"eras_live":'"$live"',"header_contains":["Live at the end: eras 1–50 (","era 400 ("]}'
browse leak-he400 leak-he400.html

# -he written by GHC 9.10.3 (the golden of scripts/ghc-goldens.sh, a -prof
# program run with --automatic-era-increment): the same era view as for
# strata's own -he logs, the eras in order with one colour each, GHC's
# three phase markers.
report ghc910-he "$top_srcdir/testsuite/golden/ghc910-he.eventlog"
live=$(node -e 'console.log(require("./ghc910-he.json").profiles[0].eras_live_at_end.length)')
[ "$live" -ge 10 ] || fail "GHC 9.10 -he: $live eras live at the end, expected at least 10"
node -e 'const p=require("./ghc910-he.json").profiles[0]; const e=p.chart.bands.map(b=>+b.name.slice(4)); process.exit(p.mode==="-he" && e.every((x,i)=>!i||e[i-1]<x) && p.chart.bands.every(b=>b.color===+b.name.slice(4)) && p.markers.map(m=>m.text).join()==="phase 1,phase 2,phase 3" ? 0 : 1)' ||
    fail "GHC 9.10 -he: bands not in era order with one colour per era, or markers lost"
expectations ghc910-he ghc910-he.json '{"eras_live":'"$live"',"header_contains":["-he era profile, 14 censuses","Live at the end: era 1"]}'
browse ghc910-he ghc910-he.html

# bintrees -hT: a GC-heavy run.
expect_status 0 "$ex/bintrees" 14 +RTS -hT -l -i0.005 -olbintrees.eventlog -RTS
report bintrees bintrees.eventlog
expectations bintrees bintrees.json '{"toggle":"Node"}'
browse bintrees bintrees.html

# A .hp file (-p).
expect_status 0 "$ex/leak" 4 150000 +RTS -hT -i0.01 -RTS
report leak-hp leak.hp -p
expectations leak-hp leak-hp.json '{"header_contains":[".hp file"]}'
browse leak-hp leak-hp.html

# A profile of a single census: one point per band, still drawn cleanly;
# a UTF-8 label shows as its characters in the legend (not "fase Ã©").
printf 'JOB "one"\nDATE "x"\nSAMPLE_UNIT "seconds"\nVALUE_UNIT "bytes"\nBEGIN_SAMPLE 0.50\nfase \303\251 \344\270\255\346\226\207\t100\nBar\t50\nEND_SAMPLE 0.50\n' >one.hp
report one one.hp -p
expectations one one.json '{"legend_has":["fase é 中文"]}'
browse one one.html

# 2000 censuses and a one-census spike: the chart keeps the spike (each
# band's largest point equals the table's peak, checked for every report).
awk 'BEGIN { print "JOB \"spike\""; for (i = 0; i < 2000; i++) { t = sprintf("%.3f", i * 0.001);
      print "BEGIN_SAMPLE " t; print "Base\t1000"; if (i == 1001) print "Spike\t500000";
      print "END_SAMPLE " t } }' >spike.hp
report spike spike.hp -p
expectations spike spike.json
browse spike spike.html

# 301 markers (MARK lines of a .hp, renamed "tick N" as traceMarker texts
# would be): at most one label per 16 px of the plot's ~1100 px, every
# rule still drawn.
awk 'BEGIN { print "JOB \"ticks\""; for (i = 0; i <= 300; i++) { t = sprintf("%.3f", i * 0.01);
      print "MARK " t; print "BEGIN_SAMPLE " t; print "Base\t" (1000 + i); print "END_SAMPLE " t } }' >ticks.hp
report ticks ticks.hp -p
node - <<'JS'
// Markers of a .hp are all "MARK": give each its own text, as traceMarker would.
const fs = require('fs');
for (const f of ['ticks.json', 'ticks.html']) {
    let t = fs.readFileSync(f, 'utf8'), k = 0;
    t = t.replace(/"kind":"marker","text":"[^"]*"/g, () => '"kind":"marker","text":"tick ' + (k++) + '"');
    fs.writeFileSync(f, t);
}
JS
expectations ticks ticks.json '{"marker_labels_at_most":70}'
browse ticks ticks.html

# --diff: a short and a long run of the leak; SessionEntry grew.
expect_status 0 "$ex/leak" 3 150000 +RTS -hT -l -i0.01 -olshort.eventlog -RTS
report diff short.eventlog --diff leak-hT.eventlog
expectations diff diff.json '{"more_tables":[{"view":"diff","table":"diff","rows":'"$(node -e 'console.log(require("./diff.json").diff.length)')"',
  "row_with":[["SessionEntry","grew"]]}]}'
browse diff diff.html

# The other way round everything shrinks: the diff table still opens with
# the largest change (by absolute value); on a normalised time axis both
# runs span 0-100 %.
report diff-shrank leak-hT.eventlog --diff short.eventlog
node -e 'const d=require("./diff-shrank.json").diff, a=d.map(r=>Math.abs(r.change_byte_s)); process.exit(d[0].change_byte_s < 0 && a.every((x,i)=>!i||a[i-1]>=x) ? 0 : 1)' ||
    fail "diff-shrank: the diff data is not ordered by absolute change"
expectations diff-shrank diff-shrank.json '{"diff_first":'"$(node -e 'console.log(JSON.stringify(require("./diff-shrank.json").diff[0].name))')"',"normalised_time_toggle":true}'
browse diff-shrank diff-shrank.html

# Bands only one run has: each half's legend lists its own bands only.
printf 'JOB "a"\nBEGIN_SAMPLE 0.0\nA\t100\nB\t50\nEND_SAMPLE 0.0\nBEGIN_SAMPLE 1.0\nA\t200\nB\t50\nEND_SAMPLE 1.0\n' >a.hp
printf 'JOB "b"\nBEGIN_SAMPLE 0.0\nB\t70\nC\t10\nEND_SAMPLE 0.0\nBEGIN_SAMPLE 4.0\nB\t90\nC\t30\nEND_SAMPLE 4.0\n' >b.hp
report diff-hp a.hp --diff b.hp -p
expectations diff-hp diff-hp.json '{"more_tables":[{"view":"diff","table":"diff","rows":3,"row_with":[["A","gone"],["C","new"]]}]}'
node -e 'const e=require("./diff-hp.expect.json"); process.exit([...e.columns[0].legend].sort().join()==="A,B" && [...e.columns[1].legend].sort().join()==="B,C" ? 0 : 1)' ||
    fail "diff-hp: the expected legends are not each run's own bands"
browse diff-hp diff-hp.html

# Cost-centre profiles (-hc) of a -prof -fprof-auto program, written by
# GHC 9.0.2 (golden: its eventlog and .hp): the bands are named by their
# stacks, and the Cost centres view shows the tree, MAIN at the root and
# the program's own stack opened down to build.
report ghc-hc "$top_srcdir/testsuite/golden/ghc902-hc.eventlog"
expectations ghc-hc ghc-hc.json '{"header_contains":["-hc cost centre stack"],"legend_has":["build/main.xs/main/Main.CAF"],
  "ccs_tree":["MAIN","Main.CAF","main.xs","build","GHC.IO.Encoding.CAF"]}'
browse ghc-hc ghc-hc.html
report ghc-hc-hp "$top_srcdir/testsuite/golden/ghc902-hc.hp" -p
expectations ghc-hc-hp ghc-hc-hp.json '{"header_contains":["-hc cost centre stack"],"ccs_tree":["MAIN","main.xs","build"]}'
browse ghc-hc-hp ghc-hc-hp.html

# A log written by GHC itself: the golden one (GHC 9.1, -hi with an IPE),
# and one Debian's ghc writes now when it is installed.
report ghc92 "$top_srcdir/testsuite/golden/ghc92-ipe.eventlog"
expectations ghc92 ghc92.json '{"header_contains":["-hi info table"],
  "tables":[{"view":"detailed","table":"detailed","rows":2,"row_with":[["sat_s154_info","Test.hs:5:1-30","Integer -> IO ()"]]}]}'
browse ghc92 ghc92.html
if command -v ghc >/dev/null; then
    # xs is used twice, so it is built and kept: enough live heap and run
    # time (7-15 censuses at -i0.005) that GHC always takes a census; a
    # fused loop could finish before the first one.
    cat >Tiny.hs <<'HS'
import Debug.Trace (traceMarkerIO)
main :: IO ()
main = do
  traceMarkerIO "start"
  let xs = [1 .. 1000000 :: Int]
  print (sum xs + length xs)
  traceMarkerIO "fase é 中文"
  print (length (show (reverse [1 .. 500000 :: Int])))
HS
    expect_status 0 ghc -O -v0 -rtsopts -eventlog Tiny.hs -o tiny
    expect_status 0 ./tiny +RTS -hT -l -i0.005 -RTS
    report ghc-tiny tiny.eventlog
    grep -q '"rts_identifier":"GHC-9' ghc-tiny.json || fail "GHC's log: no GHC RTS identifier in the data"
    grep -q "\"$(printf 'fase \303\251 \344\270\255\346\226\207')\"" ghc-tiny.json ||
        fail "GHC's log: the UTF-8 marker is not written as it is (Note [One way to write a string])"
    expectations ghc-tiny ghc-tiny.json '{"header_contains":["-hT closure type"]}'
    browse ghc-tiny ghc-tiny.html
else
    printf 'html-browser.sh: ghc not found: the report of a freshly GHC-written log was not checked\n'
fi

finish
