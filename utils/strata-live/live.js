// utils/strata-live/live.js -- strata-live's page: the report of
// strata-html (report.js, drawn from the data embedded in the page) kept up
// to date, with a header line of the program's figures and buttons for
// the control commands.  It polls /live/status (Note [The page polls] in
// PageHttp.c) and, when the status's data_version moves, fetches
// /live/data.json and hands it to strataReport.update.  Buttons POST
// /live/control with the page's token (Note [Who may press the page's
// buttons] in PageGuard.c).  window.strataLive holds what the browser
// test reads: the version drawn, the updates made and their times.
'use strict';
(function () {
const POLL_MS = 100;
const config = JSON.parse(document.getElementById('strata-live-config').textContent);
const report = window.strataReport;
const fmtBytes = report.fmtBytes;
const el = report.el;   // an element with attributes ('text': its text) and children
// update_ms: parsing and drawing each update; seen_ms: from the poll that
// first saw a census not yet drawn to its drawing (the poll period, up to
// 100 ms, comes before that).
const state = { version: -1, updates: 0, update_ms: [], seen_ms: [], errors: 0, status: null,
                sent: [] };
let drawnCensuses = -1, newSince = null;
window.strataLive = state;

const style = el('style', {});
style.textContent = '#live-bar{font:14px sans-serif;padding:6px 10px;background:#f3f5f8;' +
    'border-bottom:1px solid #ccd;display:flex;flex-wrap:wrap;gap:6px 14px;align-items:center}' +
    '#live-bar .fig b{font-weight:600}#live-bar .dot{font-size:18px;line-height:1}' +
    '#live-bar .dot.on{color:#2a9d3a}#live-bar .dot.off{color:#999}' +
    '#live-bar button{font-size:13px}#live-bar .why,#live-bar .said{color:#555;font-size:12px}';
document.head.append(style);

// The header line: figures, then the buttons.
const bar = el('div', { id: 'live-bar' });
const dot = el('span', { class: 'dot off', text: '\u25cf' });
const figs = {};
bar.append(dot);
for (const [key, title] of [['state', ''], ['heap', 'heap'], ['live', 'live'], ['era', 'era'],
                            ['gcs', 'GCs'], ['pause', 'last pause'], ['censuses', 'censuses']]) {
    const b = el('b', { 'data-figure': key, text: '-' });
    figs[key] = b;
    bar.append(el('span', { class: 'fig' }, title ? title + ' ' : '', b));
}
const buttons = el('span', { class: 'buttons' });
bar.append(buttons);
const said = el('span', { class: 'said', 'data-live': 'said' });
const why = el('span', { class: 'why', 'data-live': 'no-send' });
for (const [cmd, title] of [['era', 'New era'], ['census', 'Census now'], ['gc', 'Major GC'],
                            ['flush', 'Flush']]) {
    const b = el('button', { type: 'button', 'data-command': cmd, text: title });
    b.addEventListener('click', () => send(cmd, title));
    buttons.append(b);
}
bar.append(why, said);

// The buttons work only while a program is connected: say why not, on
// the bar and on each button, whenever that changes (a file or a pipe has
// no socket; a socket's program may not have started, or may have ended
// and be started again).
function noSendWhy(s) {
    if (!config.can_send) return config.no_send_why;
    if (s === undefined) return 'waiting for strata-live\'s first figures';
    if (s === null) return 'strata-live is not answering: nothing can be sent';
    if (s.connected) return null;
    return s.censuses || s.streams
        ? 'the program\'s stream has ended (it exited): there is no program to send to until ' +
          'it runs again (strata-live connects to it then)'
        : 'no program is connected yet: the buttons work once strata-live is reading its stream';
}
function showSendState(s) {
    const text = noSendWhy(s);
    // What the last press said is stale once nothing can be sent.
    if (text !== null && why.textContent !== text) said.textContent = '';
    for (const b of buttons.querySelectorAll('button')) {
        b.disabled = text !== null;
        b.title = text || '';
    }
    why.textContent = text || '';
    why.hidden = text === null;
}
showSendState(undefined);
document.body.insertBefore(bar, document.body.firstChild);

function seconds(s) {
    if (s === null) return '-';
    return s >= 1 ? s.toFixed(2) + ' s' : s >= 1e-3 ? (s * 1e3).toFixed(2) + ' ms'
                                                     : (s * 1e6).toFixed(0) + ' \u00b5s';
}

function showStatus(s) {
    state.status = s;
    dot.className = 'dot ' + (s.connected ? 'on' : 'off');
    figs.state.textContent = s.connected ? 'live' : (s.censuses ? 'stream ended' : 'waiting');
    figs.heap.textContent = s.heap_size_bytes === null ? '-' : fmtBytes(s.heap_size_bytes);
    figs.live.textContent = s.heap_live_bytes === null ? '-' : fmtBytes(s.heap_live_bytes);
    figs.era.textContent = s.era === null ? '-' : String(s.era);
    figs.gcs.textContent = String(s.gcs);
    figs.pause.textContent = seconds(s.last_pause_s);
    figs.censuses.textContent = String(s.censuses);
    showSendState(s);
}

async function send(cmd, title) {
    said.textContent = title + ': sending...';
    try {
        const r = await fetch('/live/control?cmd=' + encodeURIComponent(cmd), {
            method: 'POST', headers: { 'X-Strata-Token': config.token } });
        const text = (await r.text()).trim();
        state.sent.push({ cmd, status: r.status, text });
        said.textContent = title + ': ' + (r.ok ? text + ' (shown at the next census)' : text);
    } catch (e) {
        said.textContent = title + ': ' + e;
    }
}

async function fetchData() {
    const r = await fetch('/live/data.json', { cache: 'no-store' });
    if (!r.ok) throw new Error('/live/data.json: ' + r.status);
    const t0 = performance.now();
    const d = await r.json();
    if (d.data_version === state.version) return;
    report.update(d.report);
    state.version = d.data_version;
    state.updates++;
    const now = performance.now();
    state.update_ms.push(now - t0);
    if (state.update_ms.length > 100) state.update_ms.shift();
    drawnCensuses = d.report.profiles[0].censuses;
    if (newSince !== null && drawnCensuses >= state.status.censuses) {
        state.seen_ms.push(now - newSince);
        if (state.seen_ms.length > 100) state.seen_ms.shift();
        newSince = null;
    }
    document.body.setAttribute('data-live-version', String(state.version));
}

async function poll() {
    try {
        const r = await fetch('/live/status', { cache: 'no-store' });
        if (!r.ok) throw new Error('/live/status: ' + r.status);
        const s = await r.json();
        showStatus(s);
        if (newSince === null && drawnCensuses >= 0 && s.censuses > drawnCensuses)
            newSince = performance.now();
        if (s.data_version !== state.version) await fetchData();
    } catch (e) {
        state.errors++;
        dot.className = 'dot off';
        figs.state.textContent = 'strata-live is not answering';
        showSendState(null);
    }
    setTimeout(poll, POLL_MS);
}
poll();
})();
