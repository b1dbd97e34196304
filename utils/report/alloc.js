// utils/report/alloc.js -- the report page's "Allocation sites" view: a
// profile's sampled allocations (+RTS --alloc-sample; the JSON's
// "alloc_sites", docs/strata-html.md) as an icicle flame graph of call
// paths, drawn with ECharts' custom series (the library draws; this file
// lays the rectangles out).  The root is every sample of the eras chosen;
// below it the outermost frames (main, a thread's start), and each row the
// callees, down to the frame that allocated, each as wide as its share of
// the metric chosen: bytes or objects, still alive or ever allocated.  The
// era filter answers "who allocated what era 3 still holds" (bytes alive,
// eras 3 to 3).  Clicking a node zooms the x axis to it; "whole graph"
// zooms out.  Loaded before report.js, which adds the view when a profile
// has samples and passes its helpers (lib): el, fmtBytes, makeChart.
'use strict';
window.strataAllocView = (function () {
const METRICS = [
    // label, bucket index, bytes?
    ['bytes alive', 2, true],
    ['objects alive', 3, false],
    ['bytes allocated', 4, true],
    ['objects allocated', 5, false],
];
const ROW_PX = 22;

function frameText(a, f) {
    const fr = a.frames[f];
    if (!fr) return 'frame ' + f;
    const [fn, file, line] = fr;
    return (fn || '?') + (file ? ' (' + file + (line ? ':' + line : '') + ')' : '');
}

// The call tree of the buckets of eras lo..hi, outermost frame first.
function callTree(a, lo, hi, k) {
    const root = { label: 'all', kids: new Map(), value: 0 };
    for (const b of a.buckets) {
        const era = b[1], v = b[k];
        if (era < lo || era > hi || !(v > 0)) continue;
        root.value += v;
        const frames = a.stacks[b[0]] || [];
        let n = root;
        for (let i = frames.length - 1; i >= 0; i--) {
            let c = n.kids.get(frames[i]);
            if (!c) {
                c = { label: frameText(a, frames[i]), kids: new Map(), value: 0 };
                n.kids.set(frames[i], c);
            }
            c.value += v;
            n = c;
        }
    }
    return root;
}

// [x0, x1, depth, label, value] per node, children left to right by value.
function layout(root) {
    const items = [];
    let depth = 0;
    (function place(n, x0, d) {
        items.push([x0, x0 + n.value, d, n.label, n.value]);
        depth = Math.max(depth, d + 1);
        let x = x0;
        for (const c of [...n.kids.values()].sort((p, q) => q.value - p.value)) {
            place(c, x, d + 1);
            x += c.value;
        }
    })(root, 0, 0);
    return { items, depth };
}

// A warm colour per function name, as flame graphs draw them.
function hue(label) {
    let h = 0;
    for (let i = 0; i < label.length; i++) h = (h * 31 + label.charCodeAt(i)) >>> 0;
    return 'hsl(' + (h % 55) + ',' + (60 + h % 25) + '%,' + (55 + (h >> 8) % 15) + '%)';
}

function erasOf(a) {
    return [...new Set(a.buckets.map(b => b[1]))].sort((x, y) => x - y);
}

function escapeHtml(s) {
    return String(s).replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}

// lib: el, fmtBytes, echarts, charts (the page's, for resizing and
// disposal), profile(i) (input i of the data of now, for live updates)
// and addUpdater(fn) (fn draws the data of now in place, or returns false).
return function draw(container, p, lib, input) {
    let a = p.alloc_sites;
    if (!a) {
        container.append(lib.el('p', { class: 'note', text:
            'No sampled allocations in this input (run the program with +RTS --alloc-sample -l).' }));
        return;
    }
    let eras = erasOf(a);
    const state = { metric: 0, lo: eras[0] || 0, hi: eras[eras.length - 1] || 0, zoomed: false };
    const controls = lib.el('div', { class: 'controls' });
    const selects = {};
    const pick = (attr, options, value, set) => {
        const s = lib.el('select', { 'data-control': attr });
        fill(s, options, value);
        s.addEventListener('change', () => { set(Number(s.value)); state.zoomed = false; redraw(); });
        selects[attr] = s;
        return s;
    };
    function fill(s, options, value) {
        s.textContent = '';
        options.forEach(([text, v]) => {
            const o = lib.el('option', { value: String(v), text });
            if (v === value) o.selected = true;
            s.append(o);
        });
    }
    const eraOptions = () => eras.map(e => ['era ' + e, e]);
    controls.append(
        lib.el('label', {}, 'Show ', pick('alloc-metric', METRICS.map((m, i) => [m[0], i]), 0,
                                        v => { state.metric = v; })),
        lib.el('label', {}, ' of eras ', pick('alloc-era-lo', eraOptions(), state.lo,
                                             v => { state.lo = v; })),
        lib.el('label', {}, ' to ', pick('alloc-era-hi', eraOptions(), state.hi,
                                        v => { state.hi = v; })));
    const whole = lib.el('button', { type: 'button', 'data-control': 'alloc-whole', text: 'whole graph' });
    controls.append(' ', whole);
    const summary = lib.el('p', { class: 'summary', 'data-summary': 'alloc' });
    const div = lib.el('div', { class: 'chart flame', 'data-chart': 'alloc-flame' });
    container.append(controls, summary, div);
    const chart = lib.echarts.init(div, null, { renderer: 'svg' });
    lib.charts.push(chart);
    let current = null;

    function build() {
        const [name, k, bytes] = METRICS[state.metric];
        const lo = Math.min(state.lo, state.hi), hi = Math.max(state.lo, state.hi);
        current = layout(callTree(a, lo, hi, k));
        const fmt = v => bytes ? lib.fmtBytes(v) : Math.round(v).toLocaleString('en');
        const total = current.items[0][4];
        summary.textContent = `${a.samples} samples, one per ${lib.fmtBytes(a.rate_bytes)} ` +
            `allocated, ${a.alive} alive at the end; ${name} of ` +
            (hi !== lo ? `eras ${lo}\u2013${hi}` : `era ${lo}`) + `: ${fmt(total)} (estimated), by call path`;
        const option = {
            animation: false,
            grid: { left: 10, right: 10, top: 10, bottom: 10 },
            tooltip: { formatter: q => `${escapeHtml(q.value[3])}<br>${fmt(q.value[4])}` +
                       (total > 0 ? ` (${(100 * q.value[4] / total).toFixed(1)}%)` : '') },
            yAxis: { type: 'value', min: 0, max: current.depth, inverse: true, show: false },
            series: [{
                type: 'custom', clip: true, data: current.items,
                encode: { x: [0, 1], y: 2 },
                renderItem: (params, api) => {
                    const s = api.coord([api.value(0), api.value(2)]);
                    const e = api.coord([api.value(1), api.value(2) + 1]);
                    const w = e[0] - s[0], label = String(api.value(3));
                    const fits = Math.floor((w - 6) / 7);
                    return {
                        type: 'rect',
                        shape: { x: s[0], y: s[1], width: Math.max(w - 1, 0.5), height: e[1] - s[1] - 1 },
                        style: { fill: hue(label), stroke: '#ffffff', lineWidth: 0.5 },
                        textContent: { style: { text: fits >= 3 ? (label.length > fits ?
                            label.slice(0, fits - 1) + '\u2026' : label) : '', fontSize: 11,
                            fill: '#222222' } },
                        textConfig: { position: 'insideLeft' },
                    };
                },
            }],
        };
        if (!state.zoomed)   /* a live update keeps the zoom */
            option.xAxis = { type: 'value', min: 0, max: Math.max(total, 1), show: false };
        return option;
    }
    function redraw() {
        chart.setOption(build(), { replaceMerge: ['series'] });
        div.style.height = (current.depth * ROW_PX + 20) + 'px';
        div.setAttribute('data-nodes', String(current.items.length));
        div.setAttribute('data-total', String(current.items[0][4]));
        chart.resize();
    }
    chart.on('click', q => {
        state.zoomed = true;
        chart.setOption({ xAxis: { min: q.value[0], max: q.value[1] } });
    });
    whole.addEventListener('click', () => {
        state.zoomed = false;
        chart.setOption({ xAxis: { min: 0, max: Math.max(current.items[0][4], 1) } });
    });
    chart.setOption({ xAxis: { type: 'value', min: 0, max: 1, show: false } });
    redraw();
    lib.addUpdater(() => {
        const q = lib.profile(input);
        if (!q || !q.alloc_sites) return false;
        a = q.alloc_sites;
        const wasLast = state.hi === eras[eras.length - 1];
        eras = erasOf(a);
        if (wasLast && eras.length) state.hi = eras[eras.length - 1];   /* follow new eras */
        fill(selects['alloc-era-lo'], eraOptions(), state.lo);
        fill(selects['alloc-era-hi'], eraOptions(), state.hi);
        redraw();
        return true;
    });
};
})();
