// testsuite/scripts/report-vs-ghc-events.js -- a heap-profile report's data
// (strata-html --json, or the data strata-live's page drew last) against
// ghc-events 0.20's reading of the same log (testsuite/interop/HeapBands.hs):
// the number of censuses, every band's peak and every band's bytes in the
// last census.  Each side reads the log on its own: strata's through its
// reader and heap-profile model, ghc-events through its own parser.
//
//     node report-vs-ghc-events.js REPORT.json PEAKS LAST
//
// PEAKS is `heap-bands LOG`, LAST `heap-bands --last LOG` (or a golden's
// .bands.reference and .last.reference).  Prints "N censuses, M bands" and
// exits 0 when they agree; else prints each difference and exits 1.
'use strict';
const fs = require('fs');

// "censuses N", then "BYTES<TAB>LABEL" lines: { censuses, bands: Map }.
function readBands(file) {
    const [first, ...lines] = fs.readFileSync(file, 'utf8').split('\n').filter(l => l !== '');
    const m = /^censuses (\d+)$/.exec(first || '');
    if (!m) throw new Error(`${file}: no "censuses N" line`);
    const bands = new Map();
    for (const l of lines) {
        const tab = l.indexOf('\t');
        bands.set(l.slice(tab + 1), +l.slice(0, tab));
    }
    return { censuses: +m[1], bands };
}

const [reportFile, peaksFile, lastFile] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(reportFile, 'utf8')).profiles[0];
const peaks = readBands(peaksFile), last = readBands(lastFile);
const problems = [];
if (p.censuses !== peaks.censuses)
    problems.push(`censuses: the report has ${p.censuses}, ghc-events reads ${peaks.censuses}`);
// A band is its sample label; a -hc band is named by its stack (r.name).
const rows = new Map(p.table.map(r => [p.mode === '-hc' ? r.name : r.label, r]));
for (const [label, peak] of peaks.bands) {
    const r = rows.get(label);
    if (!r) problems.push(`band ${JSON.stringify(label)}: not in the report (ghc-events: peak ${peak})`);
    else if (r.peak_bytes !== peak)
        problems.push(`band ${JSON.stringify(label)}: peak ${r.peak_bytes}, ghc-events ${peak}`);
}
for (const [label, r] of rows) {
    if (!peaks.bands.has(label)) problems.push(`band ${JSON.stringify(label)}: not read by ghc-events`);
    const want = last.bands.get(label) || 0;
    if (r.last_bytes !== want)
        problems.push(`band ${JSON.stringify(label)}: ${r.last_bytes} bytes in the last census, ghc-events ${want}`);
}
if (problems.length) {
    console.log(problems.slice(0, 10).join('\n') +
                (problems.length > 10 ? `\n(and ${problems.length - 10} more)` : ''));
    process.exit(1);
}
console.log(`${p.censuses} censuses, ${rows.size} bands`);
