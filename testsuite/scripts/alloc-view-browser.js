// testsuite/scripts/alloc-view-browser.js -- the "Allocation sites" view of
// a report (utils/report/alloc.js) in Debian's chromium, headless: opens
// the page, shows the view, and checks the flame graph against the
// report's own data (REPORT.json, strata-html --json of the same log):
// one rectangle per node of the call tree, the root's total the sum of
// the buckets' bytes alive, the function EXPECT names among the labels,
// the era filter (one era's total, below the whole's), the metric, and a
// click on a node zooming to it.  Saves screenshots SHOT-alloc.png (the
// whole graph), SHOT-alloc-era.png (one era) and SHOT-alloc-allocated.png
// (that era's bytes allocated).  Prints "ok: ..." or "FAIL: ..." lines and
// exits 1 if a check failed.
//
//     node alloc-view-browser.js REPORT.html REPORT.json SHOT_PREFIX FUNCTION ERA
'use strict';
const fs = require('fs');
const path = require('path');

const [report, reportJson, shotPrefix, want, era] = process.argv.slice(2);
const data = JSON.parse(fs.readFileSync(reportJson, 'utf8'));
const browserSession = require('./browser-session.js');

let failures = 0;
function check(ok, what, detail) {
    if (ok) console.log('ok: ' + what);
    else { failures++; console.log('FAIL: ' + what + (detail === undefined ? '' : ': ' + JSON.stringify(detail))); }
}

// The call tree's node count and the bytes alive of eras lo..hi, from the
// data alone (what the view must draw).
function expected(a, lo, hi) {
    const nodes = new Set(['']);
    let total = 0;
    for (const [stack, e, bytes] of a.buckets) {
        if (e < lo || e > hi || !(bytes > 0)) continue;
        total += bytes;
        let key = '';
        const frames = a.stacks[stack] || [];
        for (let i = frames.length - 1; i >= 0; i--) {
            key += '/' + frames[i];
            nodes.add(key);
        }
    }
    return { nodes: nodes.size, total };
}

(async () => {
    const a = data.profiles[0].alloc_sites;
    check(a && a.buckets.length > 0, 'the report has sampled allocations');
    const session = await browserSession.open();
    try {
        const page = await session.browser.newPage();
        await page.setViewport({ width: 1500, height: 900 });
        const errors = [], requests = [];
        page.on('pageerror', e => errors.push(e.message));
        page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
        page.on('request', r => { if (!/^(file|data|about):/.test(r.url())) requests.push(r.url()); });
        await page.goto('file://' + path.resolve(report), { waitUntil: 'load', timeout: 120000 });
        await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
        await page.click('nav.tabs button[data-view="alloc"]');
        await page.waitForSelector('[data-pane="alloc"] [data-chart="alloc-flame"][data-nodes]');
        const read = () => page.$eval('[data-pane="alloc"] [data-chart="alloc-flame"]', d => ({
            nodes: +d.dataset.nodes, total: +d.dataset.total,
            rects: d.querySelectorAll('svg path, svg rect').length,
            labels: [...d.querySelectorAll('svg text')].map(t => t.textContent),
        }));
        const eras = a.buckets.map(b => b[1]);
        const all = expected(a, Math.min(...eras), Math.max(...eras));
        let got = await read();
        check(got.nodes === all.nodes, `${all.nodes} nodes in the call tree`, got.nodes);
        check(Math.abs(got.total - all.total) <= 1, `the root holds ${all.total} bytes alive`, got.total);
        check(got.rects >= got.nodes, 'a rectangle per node', got.rects);
        check(got.labels.some(l => l.startsWith(want)), `a node names ${want}`, got.labels.slice(0, 12));
        const summary = await page.$eval('[data-summary="alloc"]', e => e.textContent);
        check(/samples, one per .* allocated, .* alive at the end; bytes alive of eras? /.test(summary),
              'the summary line', summary);
        await page.screenshot({ path: shotPrefix + '-alloc.png', fullPage: true });

        // One era: "who allocated what era E still holds".
        await page.select('[data-control="alloc-era-lo"]', era);
        await page.select('[data-control="alloc-era-hi"]', era);
        const one = expected(a, +era, +era);
        got = await read();
        check(Math.abs(got.total - one.total) <= 1 && got.nodes === one.nodes,
              `era ${era} alone: ${one.total} bytes alive in ${one.nodes} nodes`, got);
        check(one.total < all.total, `era ${era} holds less than every era`, [one.total, all.total]);
        await page.screenshot({ path: shotPrefix + '-alloc-era.png', fullPage: true });

        await page.select('[data-control="alloc-metric"]', '2');   /* bytes allocated */
        got = await read();
        check(got.total > one.total, `era ${era}: bytes allocated are more than bytes alive`,
              [got.total, one.total]);
        await page.screenshot({ path: shotPrefix + '-alloc-allocated.png', fullPage: true });

        // A click on a node of the second row (the widest, at its left end)
        // zooms the x axis to it; "whole graph" zooms out.
        const axisMax = () => page.$eval('[data-pane="alloc"] [data-chart="alloc-flame"]',
            d => window.strataReport.echarts.getInstanceByDom(d).getOption().xAxis[0].max);
        const box = await (await page.$('[data-pane="alloc"] [data-chart="alloc-flame"]')).boundingBox();
        await page.mouse.click(box.x + 14, box.y + 10 + 22 + 11);
        const zoomed = await axisMax();
        check(zoomed > 0 && zoomed <= got.total, 'a click zooms to the node', [zoomed, got.total]);
        await page.click('[data-control="alloc-whole"]');
        check(await axisMax() === Math.max(got.total, 1), '"whole graph" zooms out', await axisMax());
        check(errors.length === 0, 'no script errors', errors);
        check(requests.length === 0, 'nothing loaded from outside the page', requests);
    } finally {
        await session.close();
    }
    process.exit(failures ? 1 : 0);
})().catch(e => { console.log('FAIL: ' + (e.stack || e)); process.exit(1); });
