// testsuite/scripts/html-browser.js -- opens a strata-html report in
// Debian's chromium, headless, and checks the rendered DOM against an
// expectation file written by html-browser.sh; saves a screenshot of every
// view.  Prints one line per check ("ok: ..." or "FAIL: ...") and
// "render_ms N" (load to every view drawn); exits 1 if a check failed.
//
//     node html-browser.js REPORT.html SHOT_PREFIX EXPECT.json
//
// The page opens in the script's shared chromium, in a context of its own,
// or in a chromium of its own (browser-session.js); any request other than
// file: or data: fails the run (the page must be self-contained).
// puppeteer-core is found in $STRATA_NODE_MODULES.
'use strict';
const fs = require('fs');
const path = require('path');

const [report, shotPrefix, expectFile] = process.argv.slice(2);
const expect = JSON.parse(fs.readFileSync(expectFile, 'utf8'));
const legendDom = require('./legend-dom.js');
const browserSession = require('./browser-session.js');

let failures = 0;
function check(ok, what, detail) {
    if (ok) console.log('ok: ' + what);
    else { failures++; console.log('FAIL: ' + what + (detail === undefined ? '' : ': ' + JSON.stringify(detail))); }
}

// What a chart's SVG shows, read from the DOM in the page.
function readChart(pane, column) {
    const col = document.querySelectorAll(`[data-pane="${pane}"] .column`)[column || 0];
    const div = col && col.querySelector('.chart');
    const svg = div && div.querySelector('svg');
    if (!svg) return null;
    const box = svg.getBoundingClientRect();
    const legendLeft = box.right - 300;     // LEGEND_WIDTH in report.js
    const texts = [...svg.querySelectorAll('text')].map(t => ({ text: t.textContent, r: t.getBoundingClientRect() }));
    const legend = window.readLegend(svg, legendLeft);   // legend-dom.js
    const q = sel => [...svg.querySelectorAll(sel)];
    // The y axis labels, left of the plot ("1.20 MB"), in bytes.
    const units = { B: 1, kB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12 };
    const yLabels = texts.filter(t => t.r.right <= box.left + 75)
        .map(t => /^(-?[\d.]+) (B|kB|MB|GB|TB)$/.exec(t.text)).filter(Boolean)
        .map(m => parseFloat(m[1]) * units[m[2]]);
    return {
        legend: legend.map(t => t.text),
        legendBoxes: legend.map(t => ({ x: t.r.left + 5, y: t.r.top + t.r.height / 2 })),
        areas: q('path[fill-opacity="0.85"]').length,
        lines: q('path[stroke-width="1.5"]').length,
        markerRules: q('path[stroke="#555555"]').length,
        yMax: yLabels.length ? Math.max(...yLabels) : null,
        width: box.width,
        markerLabels: +div.getAttribute('data-marker-labels'),
        texts: texts.map(t => t.text),
    };
}

// Shows the area view and waits (up to 10 s) until its first chart has
// drawn its legend: shown again after another view, the chart is drawn
// anew, and under load that takes a moment.  The checks after it report
// what was there if it never came.
async function showAreaChart(page) {
    await page.click('nav.tabs button[data-view="area"]');
    const drawn = `((${readChart})('area', 0) || { legend: [] }).legend.length > 0`;
    await page.waitForFunction(drawn, { timeout: 10000 }).catch(() => {});
}

// Per band of the area chart of input `column`: the largest y in the
// chart's option (what ECharts was given to draw) and the detailed table's
// peak for that band (.inv.peak-shown).
function chartPeaks(column) {
    const r = window.strataReport;
    const col = document.querySelectorAll('[data-pane="area"] .column')[column || 0];
    const chart = r.echarts.getInstanceByDom(col.querySelector('.chart'));
    const table = r.data.profiles[column || 0].table;
    // A range of old eras ("eras 1–50") has no row: its eras' rows say
    // how high it may go (at most their peaks' sum, at least the largest).
    const ranges = new Map(r.data.profiles[column || 0].chart.bands.filter(b => b.bands > 1).map(b => [b.name, b]));
    return chart.getOption().series.filter(s => s.name !== 'Markers' && s.name !== 'OTHER')
        .map(s => { const row = table.find(t => t.name === s.name), top = Math.max(0, ...s.data.map(d => d[1]));
                    if (!ranges.has(s.name)) return { name: s.name, chart: top, table: row ? row.peak_bytes : 0 };
                    const b = ranges.get(s.name), peaks = table.filter(t => t.era >= b.eras[0] && t.era <= b.eras[1]).map(t => t.peak_bytes);
                    const ok = top >= Math.max(0, ...peaks) && top <= peaks.reduce((a, x) => a + x, 0);
                    return { name: s.name, chart: top, table: ok ? top : [Math.max(0, ...peaks), peaks.reduce((a, x) => a + x, 0)] }; });
}

// A legend text names `want`: whole (long names wrap; none is cut).
function legendNames(text, want) {
    return text === want;
}

(async () => {
    const session = await browserSession.open();
    try {
        const page = await session.browser.newPage();
        await page.setViewport({ width: 1500, height: 1000 });
        const errors = [], requests = [];
        page.on('pageerror', e => errors.push(e.message));
        page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
        page.on('request', r => { if (!/^(file|data|about):/.test(r.url())) requests.push(r.url()); });
        const t0 = Date.now();
        await page.goto('file://' + path.resolve(report), { waitUntil: 'load', timeout: 120000 });
        await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
        const firstMs = Date.now() - t0;
        await legendDom.install(page);
        const views = await page.$$eval('nav.tabs button', bs => bs.map(b => b.dataset.view));
        check(JSON.stringify(views) === JSON.stringify(expect.views), 'views ' + expect.views.join(','), views);
        for (const v of views) {
            await page.click(`nav.tabs button[data-view="${v}"]`);
            await page.waitForFunction(v => !document.querySelector(`[data-pane="${v}"]`).hidden, {}, v);
        }
        const allMs = Date.now() - t0;
        console.log('render_ms first=' + firstMs + ' all=' + allMs);

        const header = await page.$eval('header', h => h.textContent);
        for (const s of expect.header_contains || [])
            check(header.includes(s), 'header mentions ' + JSON.stringify(s), header);
        if (expect.eras_live !== undefined) {
            // One item per chart band: an era, or a range of old ones.
            const n = await page.$$eval('header .eras .era-item', es => es.reduce((s, e) => s + +e.dataset.eras, 0));
            check(n === expect.eras_live, expect.eras_live + ' eras live at the end', n);
            // Each in the colour the Area chart draws it in, under its name there.
            await showAreaChart(page);
            const bad = await page.evaluate(() => {
                const rgb = c => { const e = document.createElement('i'); e.style.color = c; document.body.append(e);
                                   const v = getComputedStyle(e).color; e.remove(); return v; };
                const chart = window.strataReport.echarts.getInstanceByDom(document.querySelector('[data-pane="area"] .chart'));
                const series = chart.getOption().series;
                return [...document.querySelectorAll('header .eras .era-item')].map(e => {
                    const name = e.querySelector('.era').textContent.replace(/ \(.*$/, '');
                    const s = series.find(x => x.name === name);
                    return { name, header: getComputedStyle(e.querySelector('.swatch')).backgroundColor,
                             chart: s ? rgb(s.color) : null };
                }).filter(x => x.header !== x.chart);
            });
            check(bad.length === 0, 'each live era has its chart band\'s colour and name in the header', bad.slice(0, 5));
        }

        // Charts: bands drawn, legend labels, markers.
        for (const [i, col] of (expect.columns || []).entries()) {
            for (const pane of ['area', 'stream', 'normalised', 'lines']) {
                await page.click(`nav.tabs button[data-view="${pane}"]`);
                const c = await page.evaluate(readChart, pane, i);
                const where = `${pane}[${i}]`;
                check(c !== null, where + ' chart drawn');
                if (!c) continue;
                const drawn = pane === 'lines' ? c.lines : c.areas;
                check(drawn === col.bands, `${where}: ${col.bands} bands drawn`, drawn);
                if (pane === 'area' && col.stack_max > 0)
                    check(c.yMax >= col.stack_max * 0.999 && c.yMax <= col.stack_max * 2.6,
                        `${where}: the byte axis (top ${c.yMax}) fits the stacked total ${col.stack_max}`, c.yMax);
                const want = col.legend.concat(col.markers && col.markers.length ? ['Markers'] : []);
                check(c.legend.length === want.length && c.legend.every((t, k) => legendNames(t, want[k])),
                    `${where}: legend ${JSON.stringify(want)}`, c.legend);
                if (col.markers) {
                    check(c.markerRules === col.markers.length, `${where}: ${col.markers.length} marker rules`, c.markerRules);
                    // Labels closer than 16 px to the last drawn one are
                    // thinned (see marker_labels_at_most), so how many show
                    // depends on the run's timing: the first always does,
                    // and the count drawn is the count the page chose.
                    if (col.markers.length) {
                        const drawn = c.texts.filter(t => col.markers.includes(t)).length;
                        check(c.texts.includes(col.markers[0]) && drawn >= 1 && drawn === c.markerLabels,
                            `${where}: marker labels drawn (${c.markerLabels} of ${col.markers.length})`, [drawn, c.markerLabels]);
                    }
                }
            }
            await page.click('nav.tabs button[data-view="area"]');
            const peaks = await page.evaluate(chartPeaks, i);
            check(peaks.length > 0 && peaks.every(b => b.chart === b.table),
                `area[${i}]: each band's largest point is the table's peak`, peaks.filter(b => b.chart !== b.table));
            await page.click('nav.tabs button[data-view="heap"]');
            const h = await page.evaluate(readChart, 'heap', i);
            check(h !== null && h.legend.length >= col.heap_lines, `heap[${i}]: at least ${col.heap_lines} series`, h && h.legend);
        }

        // A diff: every chart has the page's width, both halves of a view
        // share one byte scale.
        if (expect.diff) {
            for (const pane of ['heap', 'area']) {
                await page.click(`nav.tabs button[data-view="${pane}"]`);
                const a = await page.evaluate(readChart, pane, 0), b = await page.evaluate(readChart, pane, 1);
                check(a && b && a.yMax !== null && a.yMax === b.yMax, `${pane}: both halves share one byte scale`, [a && a.yMax, b && b.yMax]);
                check(a && b && a.width > 1200 && b.width > 1200, `${pane}: each half is as wide as the page`, [a && a.width, b && b.width]);
            }
        }
        if (expect.diff_first) {
            await page.click('nav.tabs button[data-view="diff"]');
            const sel = '[data-pane="diff"] [data-table="diff"] .tabulator-row';
            await page.waitForSelector(sel);
            const name = await page.$eval(sel + ' .tabulator-cell[tabulator-field="name"]', e => e.textContent);
            check(name === expect.diff_first, 'the diff table opens with the largest change, ' + expect.diff_first, name);
        }
        if (expect.normalised_time_toggle) {
            await page.click('nav.tabs button[data-view="area"]');
            await page.click('[data-control="normalised-time"]');
            await page.waitForFunction(() => document.querySelector('[data-pane="area"] .chart svg'));
            const ends = await page.evaluate(() => [...document.querySelectorAll('[data-pane="area"] .column')].map(col => {
                const o = window.strataReport.echarts.getInstanceByDom(col.querySelector('.chart')).getOption();
                return { max: o.xAxis[0].max, last: Math.max(...o.series.filter(s => s.data.length).map(s => s.data[s.data.length - 1][0])) };
            }));
            check(ends.length === 2 && ends.every(e => e.max === 100000 && e.last > 75000 && e.last <= 100000),
                'normalised time: both runs end near 100 %', ends);
            await page.screenshot({ path: `${shotPrefix}-area-normalised-time.png`, fullPage: true });
            await page.click('[data-control="normalised-time"]');
        }

        // Small things (issue 17 item 6), on every report.
        {
            await page.click('nav.tabs button[data-view="area"]');
            const r = await page.evaluate(() => {
                const R = window.strataReport, p = R.data.profiles[0];
                const div = document.querySelector('[data-pane="area"] .chart');
                const box = div.querySelector('svg').getBoundingClientRect();
                const opt = R.echarts.getInstanceByDom(div).getOption();
                const marks = new Set(p.markers.map(m => m.text));
                const texts = [...div.querySelectorAll('svg text')];
                const markerLeft = Math.min(1e9, ...texts.filter(t => marks.has(t.textContent)).map(t => t.getBoundingClientRect().left - box.left));
                const xTicks = texts.filter(t => { const q = t.getBoundingClientRect();
                    return q.top > box.top + box.height - 80 - 2 && q.top < box.top + box.height - 55 && /^[\d.]+$/.test(t.textContent); }).length;
                return { negZero: R.fmtBytes(-0.3), legendTip: !!(opt.legend[0].tooltip && opt.legend[0].tooltip.show),
                         single: p.chart.times_s.length === 1, showSymbol: opt.series[0].showSymbol,
                         markerLeft, xTicks, end: p.end_time_s };
            });
            check(r.negZero === '0 B', 'a tiny negative size shows as 0 B, not -0 B', r.negZero);
            check(r.legendTip, 'the legend shows a cut name whole on hover');
            if (r.single) check(r.showSymbol === true, 'a single census is drawn as points', r.showSymbol);
            if (r.markerLeft !== 1e9)
                check(r.markerLeft >= 69, 'marker labels stay right of the y-axis labels', r.markerLeft);
            check(r.xTicks >= 4, 'the time axis has at least 4 tick labels', r.xTicks);
            // The streamgraph's stack is centred on the middle of the plot.
            await page.click('nav.tabs button[data-view="stream"]');
            const st = await page.evaluate(() => {
                const svg = document.querySelector('[data-pane="stream"] .chart svg');
                const box = svg.getBoundingClientRect();
                const areas = [...svg.querySelectorAll('path[fill-opacity="0.85"]')].map(a => a.getBoundingClientRect())
                    .filter(r => r.height > 0);
                if (!areas.length) return null;
                const top = Math.min(...areas.map(r => r.top)), bottom = Math.max(...areas.map(r => r.bottom));
                const gTop = box.top + 40, gBottom = box.bottom - 80;   // baseOption's grid
                return { off: Math.abs((top + bottom) / 2 - (gTop + gBottom) / 2) / (gBottom - gTop) };
            });
            if (st !== null) check(st.off < 0.1, 'the streamgraph is centred', st);
            await page.click('nav.tabs button[data-view="lines"]');
            const lines = await page.evaluate(readChart, 'lines', 0);
            check(lines && lines.texts.includes('each band ÷ its own maximum'), 'the Lines view names its y axis', lines && lines.texts.slice(0, 8));
            await page.click('nav.tabs button[data-view="detailed"]');
            await page.waitForSelector('[data-pane="detailed"] .tabulator-col-title');
            const rank = await page.$$eval('[data-pane="detailed"] .tabulator-col-title', es => {
                const e = es.find(e => e.textContent === 'Rank'); return e ? e.scrollWidth <= e.clientWidth : null; });
            check(rank === true, 'the Rank heading is not cut', rank);
            const nowrap = await page.$$eval('header .eras .era-item', es => es.every(e => getComputedStyle(e).whiteSpace === 'nowrap'));
            check(nowrap, 'each live era stays on one line');
        }

        // Many markers: labels thinned to what fits, the rest on hover.
        if (expect.marker_labels_at_most) {
            await page.click('nav.tabs button[data-view="area"]');
            const r = await page.evaluate(() => {
                const div = document.querySelector('[data-pane="area"] .chart');
                const texts = [...div.querySelectorAll('svg text')].map(t => t.textContent);
                return { attr: +div.getAttribute('data-marker-labels'), drawn: texts.filter(t => /^tick \d+$/.test(t)).length };
            });
            check(r.drawn >= 2 && r.drawn <= expect.marker_labels_at_most && r.drawn === r.attr,
                `at most ${expect.marker_labels_at_most} marker labels drawn`, r);
        }

        // -hc: the cost-centre tree shows these names (opened where big).
        if (expect.ccs_tree) {
            await page.click('nav.tabs button[data-view="ccs"]');
            const sel = '[data-pane="ccs"] [data-table="ccs"] .tabulator-row';
            await page.waitForSelector(sel);
            const names = await page.$$eval(sel + ' .tabulator-cell[tabulator-field="name"]', es => es.map(e => e.textContent.trim()));
            for (const want of expect.ccs_tree)
                check(names.includes(want), 'cost-centre tree shows ' + JSON.stringify(want), names.slice(0, 12));
            check(names[0] === 'MAIN', 'cost-centre tree has MAIN at the root', names[0]);
        }

        // Labels the legend must show as written (UTF-8 decoded, not byte by byte).
        for (const want of expect.legend_has || []) {
            await showAreaChart(page);
            const c = await page.evaluate(readChart, 'area', 0);
            check(c.legend.some(t => legendNames(t, want)), 'legend shows ' + JSON.stringify(want), c.legend);
        }

        // The legend toggles a band.
        if (expect.toggle) {
            await showAreaChart(page);
            const before = await page.evaluate(readChart, 'area', 0);
            const k = before.legend.findIndex(t => legendNames(t, expect.toggle));
            check(k >= 0, 'legend has ' + expect.toggle, before.legend);
            if (k >= 0) {
                await page.mouse.click(before.legendBoxes[k].x, before.legendBoxes[k].y);
                await page.mouse.move(1, 1);    // no hover emphasis left behind
                await new Promise(r => setTimeout(r, 300));
                const after = await page.evaluate(readChart, 'area', 0);
                check(after.areas === before.areas - 1, 'clicking the legend hides ' + expect.toggle,
                    [before.areas, after.areas]);
                await page.mouse.click(before.legendBoxes[k].x, before.legendBoxes[k].y);
                await page.mouse.move(1, 1);
            }
        }

        // Tables: row counts, cells, filters.
        for (const t of expect.tables || []) {
            await page.click(`nav.tabs button[data-view="${t.view}"]`);
            const sel = `[data-pane="${t.view}"] [data-table="${t.table}"]`;
            await page.waitForSelector(sel + ' .tabulator-row');
            const total = () => page.$eval(sel + ' .tabulator-page-counter',
                e => +(/of (\d+)/.exec(e.textContent) || [0, -1])[1]);
            check(await total() === t.rows, `${t.table} table: ${t.rows} rows`, await total());
            for (const cols of t.columns || []) {
                const titles = await page.$$eval(sel + ' .tabulator-col-title', es => es.map(e => e.textContent));
                check(titles.includes(cols), `${t.table} table has column ${JSON.stringify(cols)}`, titles);
            }
            for (const cells of t.row_with || []) {
                const rows = await page.$$eval(sel + ' .tabulator-row', rs => rs.map(r => r.textContent));
                check(rows.some(r => cells.every(c => r.includes(c))), `${t.table} table has a row with ${JSON.stringify(cells)}`, rows.slice(0, 5));
            }
            if (t.sparklines) {
                const n = await page.$$eval(sel + ' .spark svg path', ps => ps.length);
                check(n > 0, `${t.table} table draws sparklines`, n);
            }
            if (t.filter) {
                const input = `${sel} .tabulator-col[tabulator-field="${t.filter.field}"] input`;
                await page.type(input, t.filter.text);
                await page.waitForFunction((s, n) => {
                    const e = document.querySelector(s + ' .tabulator-page-counter');
                    return e && new RegExp('of ' + n + ' ').test(e.textContent + ' ');
                }, { timeout: 5000 }, sel, t.filter.rows).catch(() => {});
                check(await total() === t.filter.rows,
                    `${t.table} table: filter ${t.filter.field}~${JSON.stringify(t.filter.text)} leaves ${t.filter.rows}`, await total());
                await page.screenshot({ path: `${shotPrefix}-${t.view}-filtered.png`, fullPage: true });
                await page.$eval(input, e => { e.value = ''; e.dispatchEvent(new Event('keyup')); e.dispatchEvent(new Event('input')); });
            }
        }

        for (const v of views) {
            await page.click(`nav.tabs button[data-view="${v}"]`);
            await page.screenshot({ path: `${shotPrefix}-${v}.png`, fullPage: true });
        }
        check(errors.length === 0, 'no script errors', errors);
        check(requests.length === 0, 'no network requests', requests);   // .inv.self-contained
    } finally {
        await session.close();
    }
    process.exit(failures ? 1 : 0);
})().catch(e => { console.log('FAIL: ' + (e && e.stack || e)); process.exit(1); });
