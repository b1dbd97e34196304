// testsuite/scripts/live-page-poller.js -- strata-live's page server driven
// without a browser: the requests the page's script (utils/strata-live/
// live.js) makes, made the same way (GET /, then /live/status every 100 ms
// and /live/data.json whenever the status's data_version moves; the
// buttons' POST /live/control with the page's token and Origin), with the
// checks live-page-browser.js makes of what the server answered.  The
// sanitizer build runs the page's runs with it (live-page.sh): there the
// server is what is checked, and chromium, which draws the same answers
// in build/, would cost most of the script's CPU.  Every build runs the
// ten pages at once (many) with it: that run checks the server.  Same arguments and
// output as live-page-browser.js ("ok: ..." / "FAIL: ..." lines, "opened"
// once the page and its first status are in, "stop" in buttons mode, OUT
// the report data of the last data.json); exits 1 if a check failed.
//
//     node live-page-poller.js socket|buttons|file URL SHOT_PREFIX OUT.json
//     node live-page-poller.js many URL SHOT_PREFIX N CENSUSES
'use strict';
const fs = require('fs');
const [mode, url, , ...rest] = process.argv.slice(2);
const origin = new URL(url).origin;

let failures = 0;
function check(ok, what, detail) {
    if (ok) console.log('ok: ' + what);
    else { failures++; console.log('FAIL: ' + what + (detail === undefined ? '' : ': ' + JSON.stringify(detail))); }
}
const sleep = ms => new Promise(r => setTimeout(r, ms));

async function get(path, how) {
    const r = await fetch(origin + path, { cache: 'no-store' });
    if (!r.ok) throw new Error(`GET ${path}: ${r.status}`);
    return how === 'text' ? r.text() : r.json();
}

// One page: its config from GET /, then polled as live.js polls.
class Page {
    async open() {
        const html = await get('/', 'text');
        const m = /<script type="application\/json" id="strata-live-config">([^<]*)<\/script>/.exec(html);
        check(m !== null, 'the page holds its live config');
        this.config = m ? JSON.parse(m[1]) : {};
        this.version = -1;
        this.report = null;
        this.sent = [];
        await this.poll();
        return this;
    }
    // One round of live.js's poll: the status, and the data if it moved.
    async poll() {
        this.status = await get('/live/status');
        if (this.status.data_version !== this.version) {
            const d = await get('/live/data.json');
            if (d.data_version !== this.version) { this.report = d.report; this.version = d.data_version; }
        }
        return this.seen();
    }
    // What the page would draw (live-page-browser.js's drawn()).
    seen() {
        const p = this.report ? this.report.profiles[0] : { censuses: 0, table: [] };
        const lastEras = p.table.filter(r => r.era !== null && r.last_bytes > 0).map(r => r.era);
        const s = this.status;
        return { censuses: p.censuses, version: this.version, status: s, lastEras,
                 lastEra: lastEras.length ? Math.max(...lastEras) : null,
                 state: s.connected ? 'live' : (s.censuses ? 'stream ended' : 'waiting') };
    }
    // Polls (every 100 ms, ms at most: a bound that only ends a hang)
    // until pred holds; a check named what.
    async waitFor(what, pred, ms) {
        const end = Date.now() + ms;
        let d;
        while (Date.now() < end) {
            d = await this.poll();
            if (pred(d)) { check(true, what); return d; }
            await sleep(100);
        }
        check(false, what, d);
        return null;
    }
    async press(cmd) {
        const r = await fetch(origin + '/live/control?cmd=' + encodeURIComponent(cmd), {
            method: 'POST', headers: { 'X-Strata-Token': this.config.token, Origin: origin } });
        const answer = { cmd, status: r.status, text: (await r.text()).trim() };
        this.sent.push(answer);
        return answer;
    }
    async ended(out) {
        const d = await this.waitFor('the stream ended, with its last data',
            d => d.state === 'stream ended' && d.version === d.status.data_version, 300000);
        check(d && d.censuses === d.status.censuses, 'the data at the stream\'s end hold every census the status counts',
              d && { data: d.censuses, status: d.status.censuses });
        if (out) fs.writeFileSync(out, JSON.stringify(this.report));
        return d;
    }
}

async function socketRun(page, out) {
    check(page.config.can_send === true, 'a socket: the buttons may send', page.config);
    const w = page.seen();
    check(w.state === 'waiting' && !w.status.connected, 'before the program connects: waiting', w.status);
    const first = await page.waitFor('a census arrives', d => d.censuses >= 1, 60000);
    if (!first) return;
    const d = await page.waitFor('new censuses arrive', d => d.censuses > first.censuses, 60000);
    const s = d ? d.status : {};
    check(d && s.heap_size_bytes > 0 && s.heap_live_bytes > 0 && s.era !== null && s.gcs > 0 &&
          s.last_pause_s !== null, 'the status has heap, live bytes, era, GCs and the last pause', s);
    await page.ended(out);
}

// live-page-browser.js's buttonsRun, through the page's POSTs.
const MAX_ERA_CENSUSES = 5;
async function buttonsRun(page, out) {
    let d = await page.waitFor('the program\'s stream has begun', d => d.status.connected && d.status.streams >= 1, 60000);
    if (!d) return;
    await page.press('census');
    const first = await page.waitFor('one "Census now": census 1 arrives', d => d.censuses >= 1, 60000);
    if (!first) return;
    const era0 = first.lastEra;
    check(era0 !== null && first.lastEras.every(e => e === era0), 'census 1 holds one era', first.lastEras);
    const answer = await page.press('era');
    check(answer.status === 200 && /^sent strata:1/.test(answer.text), 'the "New era" POST was sent', answer);
    let seen = null, k;
    for (k = 1; k <= MAX_ERA_CENSUSES && !seen; k++) {
        await page.press('census');
        d = await page.waitFor(`census ${k + 1} arrives`, d => d.censuses >= k + 1, 60000);
        if (!d) break;
        check(d.lastEra === era0 || d.lastEra === era0 + 1, `census ${k + 1} holds no era past ${era0 + 1}`, d.lastEras);
        if (d.lastEra === era0 + 1) seen = d;
    }
    console.log(`new_era_censuses ${seen ? k - 1 : 'none'}`);
    check(seen !== null, `one "New era" gives era ${era0 + 1}, within ${MAX_ERA_CENSUSES} censuses`, seen || page.seen());
    const metrics = await get('/metrics', 'text');
    const line = metrics.split('\n').find(l => l.startsWith('strata_era_current{'));
    const era1 = line ? +line.split(' ').pop() : null;
    check(era1 === era0 + 1, 'strata_era_current is one more than before the press', { era0, era1 });
    check(page.sent.every(s => s.status === 200), 'every POST was accepted', page.sent);
    const presses = page.sent.filter(s => s.cmd === 'census').length;
    check(page.seen().censuses === presses, `one census a press (${presses} presses)`, page.seen().censuses);
    console.log('stop');
    await page.ended(out);
}

async function fileRun(page, out) {
    check(page.config.can_send === false && /--file/.test(page.config.no_send_why || ''),
          'a file: nothing may be sent, and the page says why', page.config);
    const answer = await page.press('era');
    check(answer.status === 409 && /--file/.test(answer.text), 'a press is refused, saying why', answer);
    page.sent = [];
    const first = await page.waitFor('a census arrives', d => d.censuses >= 1, 60000);
    if (first && first.state === 'live')
        await page.waitFor('new censuses arrive', d => d.censuses > first.censuses || d.state !== 'live', 30000);
    await page.ended(out);
}

// N pages at once, each polling: every one reads the whole log.
async function manyRun(n, censuses) {
    const pages = await Promise.all(Array.from({ length: n }, () => new Page().open()));
    const ends = pages.map((page, i) => page.waitFor(`page ${i + 1} of ${n} reads the log's ${censuses} censuses`,
        d => d.censuses === censuses && d.state === 'stream ended' && d.status.data_version === d.version, 60000));
    await Promise.all(ends);
}

(async () => {
    try {
        if (mode === 'many') { await manyRun(+rest[0], +rest[1]); return; }
        const page = await new Page().open();
        console.log('opened');
        if (mode === 'socket') await socketRun(page, rest[0]);
        else if (mode === 'buttons') await buttonsRun(page, rest[0]);
        else if (mode === 'file') await fileRun(page, rest[0]);
        else check(false, 'a known mode', mode);
    } catch (e) {
        check(false, 'the run', String(e.stack || e));
    }
})().finally(() => process.exit(failures ? 1 : 0));
