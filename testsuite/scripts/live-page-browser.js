// testsuite/scripts/live-page-browser.js -- strata-live's page in Debian's
// chromium, headless (puppeteer-core, as html-browser.js): opens the page
// while a program runs, checks that new censuses are drawn, presses the
// buttons, waits for the stream to end and writes the data the page drew
// last (for live-page.sh to set against ghc-events' reading of the -ol
// file).  Prints one line per check ("ok: ..." or "FAIL: ..."), "opened"
// once the page has painted, and the measured times ("first_paint_ms",
// "update_ms"); exits 1 if a check failed.  (live-page-poller.js makes the
// same requests and checks of the server without the browser.)  Any request that is not the page's own server fails the run
// (the page fetches nothing from outside strata-live).
//
//     node live-page-browser.js socket URL SHOT_PREFIX OUT.json
//          the leak example, -he, over its socket: censuses as they come
//     node live-page-browser.js buttons URL SHOT_PREFIX OUT.json
//          live_target, -he, censuses and eras on request only: "Census
//          now" and "New era", each pressed once where once is the
//          contract; prints "stop" when the program may be stopped
//     node live-page-browser.js file URL SHOT_PREFIX OUT.json
//          a log followed with --file: no buttons, censuses, the end
//     node live-page-browser.js perf URL SHOT_PREFIX LOG FROM COUNT BANDS
//          the scale check: first paint, then COUNT censuses appended to LOG
//          (live-page-synth.js) one by one, each update timed
//
// The pages open in the script's shared chromium, in a context of their
// own, or in a chromium of their own (browser-session.js).
'use strict';
const fs = require('fs');
const path = require('path');
const legendDom = require('./legend-dom.js');
const browserSession = require('./browser-session.js');
const [mode, url, shots, ...rest] = process.argv.slice(2);

let failures = 0;
function check(ok, what, detail) {
    if (ok) console.log('ok: ' + what);
    else { failures++; console.log('FAIL: ' + what + (detail === undefined ? '' : ': ' + JSON.stringify(detail))); }
}
const sleep = ms => new Promise(r => setTimeout(r, ms));

// What the page drew: its data's censuses, the eras its last census
// holds, the header line, the buttons.
function drawn() {
    const p = window.strataReport.data.profiles[0];
    const lastEras = p.table.filter(r => r.era !== null && r.last_bytes > 0).map(r => r.era);
    return {
        censuses: p.censuses, version: window.strataLive.version,
        status: window.strataLive.status, updates: window.strataLive.updates,
        lastEras, lastEra: lastEras.length ? Math.max(...lastEras) : null,
        rows: p.table.length, state: document.querySelector('[data-figure="state"]').textContent,
        figures: [...document.querySelectorAll('#live-bar .fig')].map(f => f.textContent).join(' | '),
        buttons: [...document.querySelectorAll('#live-bar button')].map(b => ({ cmd: b.dataset.command, disabled: b.disabled })),
        noSend: (document.querySelector('[data-live="no-send"]') || {}).textContent || null,
        areas: document.querySelectorAll('[data-pane="area"] path[fill-opacity="0.85"]').length,
    };
}

// Waits (ms at most, a bound that only ends a hang) until pred holds of
// what the page drew; a check named what.
async function waitFor(page, what, pred, ms) {
    const end = Date.now() + ms;
    let d;
    while (Date.now() < end) {
        d = await page.evaluate(drawn);
        if (pred(d)) { check(true, what); return d; }
        await sleep(100);
    }
    check(false, what, d);
    return null;
}

// Presses a button and waits for the answer to its POST (the page's
// sent list grows); returns the answer.
async function press(page, cmd) {
    const n = (await page.evaluate(() => window.strataLive.sent.length));
    await page.click(`#live-bar button[data-command="${cmd}"]`);
    await page.waitForFunction(k => window.strataLive.sent.length > k, { timeout: 60000 }, n);
    return page.evaluate(k => window.strataLive.sent[k], n);
}

async function metric(page, name) {
    const text = await page.evaluate(() => fetch('/metrics').then(r => r.text()));
    const line = text.split('\n').find(l => l.startsWith(name + '{'));
    return line ? +line.split(' ').pop() : null;
}

async function open(browser) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1500, height: 1000 });
    const origin = new URL(url).origin;
    page.on('pageerror', e => check(false, 'no script error', e.message));
    page.on('request', r => { if (!r.url().startsWith(origin + '/')) check(false, 'only the page\'s own requests', r.url()); });
    const t0 = Date.now();
    await page.goto(url, { waitUntil: 'load', timeout: 120000 });
    await page.waitForSelector('body[data-ready="1"]', { timeout: 120000 });
    const firstPaint = Date.now() - t0;
    await legendDom.install(page);
    const fcp = await page.evaluate(() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null);
    console.log(`first_paint_ms ${firstPaint} (first-contentful-paint ${fcp === null ? '-' : Math.round(fcp)})`);
    return page;
}

// The Area chart's legend names its bands whole, in the chart's order (a
// long -hi label wraps; none is cut): those the scrolling legend shows.
async function legendWhole(page) {
    await page.click('nav.tabs button[data-view="area"]');
    await sleep(300);
    const r = await page.evaluate(() => {
        const svg = document.querySelector('[data-pane="area"] .chart svg');
        const p = window.strataReport.data.profiles[0];
        const want = p.chart.bands.filter(b => b.present).map(b => b.name)
            .concat(p.chart.other && p.chart.other.bands ? ['OTHER'] : []);
        const got = window.readLegend(svg, svg.getBoundingClientRect().right - 300)
            .map(t => t.text).filter(t => t !== 'Markers');
        return { want, got };
    });
    check(r.got.length >= Math.min(r.want.length, 10) &&
          r.got.every((t, k) => t === r.want[k]), 'the legend shows each band\'s whole name', r);
}

async function ended(page, shotName) {
    const d = await waitFor(page, 'the page shows the stream ended, with its last data',
        d => d.state === 'stream ended' && d.status && d.version === d.status.data_version, 300000);
    check(d && d.censuses === d.status.censuses, 'the data drawn at the stream\'s end hold every census the status counts',
          d && { drawn: d.censuses, status: d.status.censuses });
    await legendWhole(page);
    await page.screenshot({ path: `${shots}-${shotName}.png`, fullPage: true });
    await page.click('nav.tabs button[data-view="detailed"]');
    await sleep(300);
    await page.screenshot({ path: `${shots}-${shotName}-detailed.png`, fullPage: true });
    return d;
}

// The four buttons are disabled, and the page says why (matching re).
function buttonsOff(d, re) {
    return d.buttons.length === 4 && d.buttons.every(b => b.disabled) && re.test(d.noSend || '');
}

async function socketRun(page, out) {
    // Opened before the program starts (live-page.sh starts it once this
    // page has painted, and it then waits for strata-live's back-off of
    // 100 ms or more): the first figures say nothing is connected, and
    // the buttons are disabled, saying why.
    const w = await waitFor(page, 'the first figures arrive', d => d.status !== null, 10000);
    check(w && w.state === 'waiting' && buttonsOff(w, /no program is connected yet/),
          'before the program connects the buttons are disabled, saying why', w);
    const first = await waitFor(page, 'a census is drawn', d => d.censuses >= 1 && d.areas > 0, 60000);
    if (!first) return;
    let d = await page.evaluate(drawn);
    check(d.buttons.length === 4 && d.buttons.every(b => !b.disabled) && !d.noSend,
          'four buttons, enabled while the program runs', d);
    d = await waitFor(page, 'new censuses are drawn as they arrive', d => d.censuses > first.censuses, 60000);
    check(/heap \S+ \S+ \| live \S+ \S+ \| era \d+ \| GCs \d+ \| last pause \S+/.test(d ? d.figures : ''),
          'the header line has heap, live bytes, era, GCs and the last pause', d && d.figures);
    await page.screenshot({ path: `${shots}-running.png`, fullPage: true });
    d = await ended(page, 'ended');
    // The program exited: the buttons say so instead of failing when pressed.
    check(d && buttonsOff(d, /stream has ended \(it exited\)/),
          'after the stream ended the buttons are disabled, saying why', d);
    const seenMs = await page.evaluate(() => window.strataLive.seen_ms);
    console.log('census_seen_to_drawn_ms ' + seenMs.map(x => Math.round(x)).join(' '));
    fs.writeFileSync(out, JSON.stringify(await page.evaluate(() => window.strataReport.data)));
}

// The buttons, on a program that takes censuses and starts eras only when
// asked (live_target with -i0 --no-automatic-heap-samples).  "Census now"
// must give exactly one census a press; "New era" pressed once must give
// era N+1 exactly.  A census shows the new era once it counts something
// made in it, and the program may serve the era and a census at one safe
// point with nothing allocated between: so censuses are pressed until one
// shows it (counted, printed as new_era_censuses, five at most), never
// the era.
const MAX_ERA_CENSUSES = 5;
async function buttonsRun(page, out) {
    // Opened before the program starts (live-page.sh starts it once this
    // page has painted): a press has nowhere to go until its stream has
    // begun, and the buttons are disabled until then.
    let d = await waitFor(page, 'the program\'s stream has begun and the four buttons are enabled',
                          d => d.status && d.status.streams >= 1 && d.buttons.length === 4 &&
                               d.buttons.every(b => !b.disabled), 60000);
    if (!d) return;
    let answer = await press(page, 'census');
    const first = await waitFor(page, 'one press of "Census now": census 1 is drawn', d => d.censuses >= 1, 60000);
    if (!first) return;
    const era0 = first.lastEra;
    check(era0 !== null && first.lastEras.every(e => e === era0), 'census 1 holds one era', first.lastEras);
    answer = await press(page, 'era');
    check(answer.status === 200 && /^sent strata:1/.test(answer.text), 'the "New era" POST was sent', answer);
    let seen = null, k;
    for (k = 1; k <= MAX_ERA_CENSUSES && !seen; k++) {
        await press(page, 'census');
        d = await waitFor(page, `census ${k + 1} is drawn`, d => d.censuses >= k + 1, 60000);
        if (!d) break;
        check(d.lastEra === era0 || d.lastEra === era0 + 1, `census ${k + 1} holds no era past ${era0 + 1}`, d.lastEras);
        if (d.lastEra === era0 + 1) seen = d;
    }
    console.log(`new_era_censuses ${seen ? k - 1 : 'none'}`);
    check(seen !== null, `one press of "New era" gives era ${era0 + 1}, drawn within ${MAX_ERA_CENSUSES} censuses`,
          seen || await page.evaluate(drawn));
    if (seen) await page.screenshot({ path: `${shots}-new-era.png`, fullPage: true });
    const era1 = await metric(page, 'strata_era_current');
    check(era1 === era0 + 1, 'strata_era_current is one more than before the press', { era0, era1 });
    const sent = await page.evaluate(() => window.strataLive.sent);
    const censusPresses = sent.filter(s => s.cmd === 'census').length;
    check(sent.every(s => s.status === 200), 'every POST was accepted', sent);
    d = await page.evaluate(drawn);
    check(d.censuses === censusPresses, `one census a press (${censusPresses} presses)`, d.censuses);
    console.log('stop');
    await ended(page, 'ended');
    fs.writeFileSync(out, JSON.stringify(await page.evaluate(() => window.strataReport.data)));
}

async function fileRun(page, out) {
    const d = await page.evaluate(drawn);
    check(d.buttons.length === 4 && d.buttons.every(b => b.disabled), 'the four buttons are disabled', d.buttons);
    check(/--file/.test(d.noSend || ''), 'the page says why (no socket for a file)', d.noSend);
    const first = await waitFor(page, 'a census is drawn', d => d.censuses >= 1, 60000);
    if (first && first.state === 'live') {
        await waitFor(page, 'new censuses are drawn as they arrive',
                      d => d.censuses > first.censuses || d.state !== 'live', 30000);
        await page.screenshot({ path: `${shots}-running.png`, fullPage: true });
    }
    await ended(page, 'ended');
    fs.writeFileSync(out, JSON.stringify(await page.evaluate(() => window.strataReport.data)));
}

// Appends one census at a time and times its drawing: update_ms is the
// page's own (parse and draw), seen_ms from the append to the new data
// drawn (strata-live's file poll, the page's 100 ms poll, the server's
// rendering, the transfer and the drawing).
async function perfRun(page, log, from, count, bands) {
    const synth = require(path.join(__dirname, 'live-page-synth.js'));
    const start = await waitFor(page, 'the first censuses are drawn', d => d.censuses >= from - 1, 120000);
    if (!start) return;
    await page.screenshot({ path: `${shots}-first.png`, fullPage: true });
    const seen = [];
    for (let k = from; k < from + count; k++) {
        const t0 = Date.now();
        synth.appendCensuses(log, k, 1, bands);
        const d = await waitFor(page, `census ${k} drawn`, d => d.censuses >= k, 30000);
        if (!d) return;
        seen.push(Date.now() - t0);
        await sleep(200);
    }
    const upd = (await page.evaluate(() => window.strataLive.update_ms)).slice(-count);
    console.log('update_ms ' + upd.map(x => Math.round(x)).join(' '));
    console.log('seen_ms ' + seen.join(' '));
    await page.click('nav.tabs button[data-view="detailed"]');
    await sleep(300);
    await page.screenshot({ path: `${shots}-detailed.png`, fullPage: true });
}

(async () => {
    let session;
    try {
        session = await browserSession.open();
        const page = await open(session.browser);
        console.log('opened');
        if (mode === 'socket') await socketRun(page, rest[0]);
        else if (mode === 'buttons') await buttonsRun(page, rest[0]);
        else if (mode === 'file') await fileRun(page, rest[0]);
        else if (mode === 'perf') await perfRun(page, rest[0], +rest[1], +rest[2], +rest[3]);
        else check(false, 'a known mode', mode);
    } catch (e) {
        check(false, 'the browser run', String(e.stack || e));
    } finally {
        if (session) await session.close();
    }
    process.exit(failures ? 1 : 0);
})();
