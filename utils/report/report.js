// utils/report/report.js -- the report page's own script: reads the
// data strata-html embedded (<script id="strata-data">, the --json format
// of docs/strata-html.md) and builds the views with the inlined libraries:
// Apache ECharts for every chart, Tabulator for the tables.  No chart is
// drawn by hand here; this file only turns the data into their options.
// Charts use ECharts' SVG renderer, so the drawing is in the DOM (the
// browser tests read it).  When everything is drawn, <body> gets
// data-ready="1".  strataReport.update(data) draws new data in place
// (strata-live's page): the shown view's charts and table keep their zoom,
// legend choices, sorting and filters; the other views are drawn again
// when next shown.
'use strict';
(function () {
let data = JSON.parse(document.getElementById('strata-data').textContent);
const app = document.getElementById('app');
let profiles = data.profiles;
const diffMode = profiles.length === 2;

// --- Formatting ------------------------------------------------------------
const UNITS = ['B', 'kB', 'MB', 'GB', 'TB'];
function fmtBytes(v) {
    if (v === null || v === undefined || !isFinite(v)) return '';
    const neg = v < 0;
    let x = Math.abs(v), u = 0;
    while (x >= 1000 && u < UNITS.length - 1) { x /= 1000; u++; }
    const digits = u === 0 ? x.toFixed(0) : x.toPrecision(3);
    // A tiny negative slope rounds to 0: no "-0 B/s".
    return (neg && Number(digits) !== 0 ? '-' : '') + digits + ' ' + UNITS[u];
}
function fmtNum(v, digits) {
    if (v === null || v === undefined || !isFinite(v)) return '';
    return Number(v).toPrecision(digits || 4);
}
function fmtSeconds(v) { return (v >= 1000 ? Number(v).toFixed(0) : String(+Number(v).toPrecision(4))) + ' s'; }
function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
        if (k === 'text') e.textContent = v; else e.setAttribute(k, v);
    }
    for (const k of kids) e.append(k);
    return e;
}

// --- Colours: one per band name (per era for -he), the same in every view.
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1',
    '#ff9da7', '#9c755f', '#bab0ac', '#1f77b4', '#aec7e8', '#ffbb78', '#98df8a', '#d62728',
    '#c5b0d5', '#8c564b', '#e377c2', '#17becf', '#bcbd22'];
function colour(i) {
    if (i === null || i === undefined || i < 0) return '#999999';
    if (i < PALETTE.length) return PALETTE[i];
    return 'hsl(' + ((i * 137.508) % 360).toFixed(1) + ',55%,50%)';
}
const OTHER_COLOUR = '#999999';

const CLOSURE_TYPES = ['INVALID_OBJECT', 'CONSTR', 'CONSTR_1_0', 'CONSTR_0_1', 'CONSTR_2_0',
    'CONSTR_1_1', 'CONSTR_0_2', 'CONSTR_NOCAF', 'FUN', 'FUN_1_0', 'FUN_0_1', 'FUN_2_0',
    'FUN_1_1', 'FUN_0_2', 'FUN_STATIC', 'THUNK', 'THUNK_1_0', 'THUNK_0_1', 'THUNK_2_0',
    'THUNK_1_1', 'THUNK_0_2', 'THUNK_STATIC', 'THUNK_SELECTOR', 'BCO', 'AP', 'PAP', 'AP_STACK',
    'IND', 'IND_STATIC', 'RET_BCO', 'RET_SMALL', 'RET_BIG', 'RET_FUN', 'UPDATE_FRAME',
    'CATCH_FRAME', 'UNDERFLOW_FRAME', 'STOP_FRAME', 'BLOCKING_QUEUE', 'BLACKHOLE',
    'MVAR_CLEAN', 'MVAR_DIRTY', 'TVAR', 'ARR_WORDS', 'MUT_ARR_PTRS_CLEAN', 'MUT_ARR_PTRS_DIRTY',
    'MUT_ARR_PTRS_FROZEN_DIRTY', 'MUT_ARR_PTRS_FROZEN_CLEAN', 'MUT_VAR_CLEAN', 'MUT_VAR_DIRTY',
    'WEAK', 'PRIM', 'MUT_PRIM', 'TSO', 'STACK', 'TREC_CHUNK', 'ATOMICALLY_FRAME',
    'CATCH_RETRY_FRAME', 'CATCH_STM_FRAME', 'WHITEHOLE', 'SMALL_MUT_ARR_PTRS_CLEAN',
    'SMALL_MUT_ARR_PTRS_DIRTY', 'SMALL_MUT_ARR_PTRS_FROZEN_DIRTY',
    'SMALL_MUT_ARR_PTRS_FROZEN_CLEAN', 'COMPACT_NFDATA', 'CONTINUATION'];
function closureType(desc) {
    return /^[0-9]+$/.test(desc) && CLOSURE_TYPES[+desc] ? CLOSURE_TYPES[+desc] : desc;
}

// --- Charts ------------------------------------------------------------------
const charts = [];
// Each drawn chart and table leaves an updater in the pane being drawn:
// it draws the new data in place, or returns false (the pane is then
// drawn again).
let drawingPane = null;
function markerLabelsAttr(div, option) {
    const m = option.series && option.series.find(s => s.markerLabels !== undefined);
    if (m) div.setAttribute('data-marker-labels', String(m.markerLabels));
}
// build() makes the chart's option from the data of now.
function makeChart(container, build, kind) {
    const div = el('div', { class: 'chart', 'data-chart': kind });
    const option = build();
    markerLabelsAttr(div, option);
    container.append(div);
    const chart = echarts.init(div, null, { renderer: 'svg' });
    chart.setOption(option);
    charts.push(chart);
    if (drawingPane) drawingPane.updaters.push(() => {
        const o = build();
        markerLabelsAttr(div, o);
        chart.setOption(o, { replaceMerge: ['series'] });
        return true;
    });
    return chart;
}
// Only the shown pane's charts: a hidden one is resized when its pane is
// shown (resizing every chart at each tab click redrew them all).
function resizeShown() {
    for (const div of app.querySelectorAll('section.pane:not([hidden]) .chart')) {
        const c = echarts.getInstanceByDom(div);
        if (c) c.resize();
    }
}
window.addEventListener('resize', resizeShown);

// Markers as vertical rules with their text, on a series of their own so
// that the legend can hide them too.  With many markers (100-400) every
// label overprinted the next and the dashed rules hid the data: a label
// is drawn only where it stands at least MARKER_LABEL_GAP px right of the
// last one drawn (the rest show when the mouse is on their rule), and the
// rules are thin and faint.  `width` is the chart's width in px.
const MARKER_LABEL_GAP = 16;
function markerSeries(p, width) {
    if (!p.markers.length) return [];
    const plot = Math.max(100, width - 70 - (LEGEND_WIDTH + 20));   // baseOption's grid
    const xMax = axisMax(p);
    let last = -Infinity, shown = 0;
    const data = p.markers.map(m => {
        const x = toX(p, m.time_s), px = xMax > 0 ? x / xMax * plot : 0;
        const show = px - last >= MARKER_LABEL_GAP;
        if (show) { last = px; shown++; }
        return { name: m.text, xAxis: x, label: { show }, emphasis: { label: { show: true } } };
    });
    return [{
        name: 'Markers', type: 'line', data: [], silent: false, color: '#333333',
        markerLabels: shown,
        markLine: {
            symbol: 'none', animation: false,
            lineStyle: { color: '#555555', type: p.markers.length > 50 ? 'solid' : 'dashed',
                         width: 1, opacity: p.markers.length > 50 ? 0.25 : 0.6 },
            // Right of the rule, so that a marker at time 0 does not print
            // over the top y-axis label.
            label: { formatter: m => m.name, position: 'insideEndBottom', fontSize: 10, color: '#333333' },
            emphasis: { lineStyle: { opacity: 1, width: 1.5 } },
            data,
        },
    }];
}

const LEGEND_WIDTH = 300;
// The end of the time axis: the run's end rounded up to two digits.
function niceCeil(v) {
    if (!(v > 0)) return null;
    const e = Math.pow(10, Math.floor(Math.log10(v)) - 1);
    return Math.ceil(v / e) * e;
}

// The x axes are ECharts time axes (see baseOption), whose unit is the
// millisecond and whose ticks are whole seconds at best: a run shorter than
// ten seconds is stretched by a power of ten so that it spans at least ten.
// The end of a chart's time axis: the run's, or for a diff the later of
// the two runs', so that both halves share one time scale.
function runEnd(p) {
    const ps = diffMode ? profiles : [p];
    return Math.max(0, ...ps.map(q => Math.max(q.end_time_s, ...q.chart.times_s)));
}
function xScale(p) {
    if (normTime) return 1000;
    const end = runEnd(p);
    // At least ten (stretched) seconds: below that ECharts ticks whole
    // seconds only, and a 2 s run got two ticks.
    return end >= 10 || !(end > 0) ? 1000 : 1000 * Math.pow(10, Math.ceil(Math.log10(10 / end)));
}
// A diff of runs of very different length can be drawn on a normalised
// time axis instead (--normalise-time, or the header's check box): each
// run's own length is 100 %.
let normTime = diffMode && data.options.normalised_time;
function runLength(p) { return Math.max(p.end_time_s, ...p.chart.times_s); }
function toX(p, seconds) {
    if (seconds === null) return null;
    if (normTime) return runLength(p) > 0 ? 1000 * 100 * seconds / runLength(p) : 0;
    return seconds * xScale(p);
}
function xUnit() { return normTime ? ' %' : ' s'; }
function axisMax(p) { return normTime ? 100 * 1000 : toX(p, niceCeil(runEnd(p))); }

// The tooltip: the time, then every band at it, largest first.
function tooltipFormatter(fmt, scale) {
    return params => {
        if (!params.length) return '';
        const box = el('div', {});
        const x = params[0].value[0] / scale;
        box.append(el('b', { text: normTime ? fmtNum(x, 3) + ' % of the run' : fmtSeconds(x) }));
        const rows = params.filter(q => q.value[1] > 0).sort((a, b) => b.value[1] - a.value[1]);
        for (const q of rows.slice(0, 30)) {
            const line = el('div', {});
            line.append(el('i', { class: 'swatch', style: 'background:' + q.color }),
                        q.seriesName + ': ' + fmt(q.value[1]));
            box.append(line);
        }
        if (rows.length > 30) box.append(el('div', { text: '... ' + (rows.length - 30) + ' more' }));
        return box;
    };
}

function baseOption(p, yFormatter, yMax) {
    const xs = xScale(p);
    return {
        animation: false,
        grid: { left: 70, right: LEGEND_WIDTH + 20, top: 40, bottom: 80 },
        tooltip: { trigger: 'axis', confine: true, formatter: tooltipFormatter(yFormatter, xs) },
        // On the right, every name drawn, each whole: a long one wraps (at
        // spaces), and the tooltip shows it on one line.  A scrolling
        // legend (its pager shows only when the names overflow the plot's
        // height): a plain one wrapped into a second column over the plot.
        legend: { type: 'scroll', orient: 'vertical', right: 5, top: 40, bottom: 10, itemGap: 5,
                  textStyle: { width: LEGEND_WIDTH - 40, overflow: 'break', lineHeight: 14 },
                  tooltip: { show: true } },
        toolbox: { right: LEGEND_WIDTH + 20, top: 5, feature: {
            dataZoom: { yAxisIndex: 'none', title: { zoom: 'zoom (drag a box)', back: 'undo zoom' } },
            restore: { title: 'reset' } } },
        dataZoom: [{ type: 'inside', filterMode: 'none' },
                   { type: 'slider', filterMode: 'none', bottom: 8, height: 24,
                     showDataShadow: p.chart.times_s.length > 1 }],
        // A time axis in milliseconds: with two value axes ECharts stacks
        // the x values instead of the bytes.
        // Ten or so ticks (a 2 s run got two); the axis name below the
        // labels and above the zoom slider.
        xAxis: { type: 'time', name: normTime ? '% of each run' : 'seconds', nameLocation: 'middle',
                 nameGap: 22, min: 0, max: axisMax(p), splitNumber: 10,
                 axisLabel: { formatter: v => String(+(v / xs).toPrecision(3)), hideOverlap: true },
                 axisPointer: { label: { formatter: a => String(+(a.value / xs).toPrecision(4)) + xUnit() } } },
        yAxis: { type: 'value', axisLabel: { formatter: yFormatter }, max: yMax },
    };
}

// The bands of a chart, OTHER last, with their colours.
// Each point is the largest value of the censuses it stands for, and
// min_values their least (the data never averages censuses: a peak in the
// chart is the table's peak).
// In a diff, each half lists only the bands its own run has.
function bandList(p) {
    const list = p.chart.bands.filter(b => b.present).map(b => ({ name: b.name, values: b.values,
                                           mins: b.min_values, colour: colour(b.color) }));
    if (p.chart.other && p.chart.other.bands > 0) list.push({ name: 'OTHER', values: p.chart.other.values,
                                   mins: p.chart.other.min_values, colour: OTHER_COLOUR });
    return list;
}

const yAxisMax = data.options.y_axis_bytes || null;
function sharedMax() {
    if (yAxisMax) return yAxisMax;
    if (!diffMode) return null;
    // Side by side: one scale for both inputs.
    let m = 0;
    for (const p of profiles) {
        const t = p.chart.times_s;
        for (let i = 0; i < t.length; i++) {
            let s = 0;
            for (const b of bandList(p)) s += b.values[i];
            m = Math.max(m, s);
        }
    }
    return m || null;
}

function areaChart(container, p, mode) {
    const i = profiles.indexOf(p);
    return makeChart(container, () => areaOption(container, profiles[i], mode), mode);
}
function areaOption(container, p, mode) {
    const bands = bandList(p);
    const t = p.chart.times_s;
    let values = bands.map(b => b.values), mins = bands.map(b => b.mins);
    let fmt = fmtBytes, yMax = sharedMax(), yName = '';
    if (mode === 'normalised') {
        const totals = t.map((_, i) => values.reduce((s, v) => s + v[i], 0));
        values = values.map(v => v.map((x, i) => totals[i] ? 100 * x / totals[i] : 0));
        fmt = v => fmtNum(v, 3) + ' %'; yMax = 100;
    } else if (mode === 'lines') {
        const tops = values.map(v => Math.max(...v, 0));
        values = values.map((v, k) => v.map(x => tops[k] ? x / tops[k] : 0));
        mins = mins.map((v, k) => v.map(x => tops[k] ? x / tops[k] : 0));
        fmt = v => fmtNum(v, 3); yMax = 1;
        yName = 'each band ÷ its own maximum';
    }
    const opt = baseOption(p, fmt, yMax);
    if (yName) Object.assign(opt.yAxis, { name: yName, nameTextStyle: { align: 'left' } });
    let base = [];
    if (mode === 'stream') {
        // A streamgraph: the same stack, centred on zero by an invisible
        // first layer of minus half the total, so that the bands' shapes,
        // not their offsets, catch the eye.  The y axis then shows
        // thicknesses only, so its labels are hidden.
        const totals = t.map((_, i) => values.reduce((s, v) => s + v[i], 0));
        const half = (yMax || Math.max(0, ...totals)) / 2;
        opt.yAxis = { type: 'value', min: -half, max: half, axisLabel: { show: false },
                      name: 'bytes (thickness)', nameTextStyle: { align: 'left' } };
        // stackStrategy 'all': ECharts stacks negative values apart from
        // positive ones by default, which left the bands uncentred.
        base = [{ name: 'centre', type: 'line', stack: 'bands', stackStrategy: 'all',
                  symbol: 'none', silent: true,
                  lineStyle: { width: 0 }, tooltip: { show: false },
                  data: t.map((x, i) => [toX(p, x), -totals[i] / 2]) }];
    }
    opt.series = base.concat(bands.map((b, k) => ({
        // One census: points (a line of one point draws nothing).
        name: b.name, type: 'line', color: b.colour, sampling: 'max',
        symbol: t.length === 1 ? 'circle' : 'none', symbolSize: 8, showSymbol: t.length === 1,
        stack: mode === 'lines' ? undefined : 'bands', stackStrategy: 'all',
        areaStyle: mode === 'lines' ? undefined : { opacity: 0.85 },
        lineStyle: { width: mode === 'lines' ? 1.5 : 0.5 },
        data: t.map((x, i) => [toX(p, x), values[k][i]]),
    })));
    // Lines: where a point stands for censuses that differ, a thin line at
    // their least value under the line of their largest (same name, so the
    // legend toggles both).
    if (mode === 'lines') {
        bands.forEach((b, k) => {
            if (!mins[k].some((m, i) => m < values[k][i])) return;
            opt.series.push({ name: b.name, type: 'line', symbol: 'none', color: b.colour,
                lineStyle: { width: 0.75, opacity: 0.6 }, tooltip: { show: false },
                data: t.map((x, i) => [toX(p, x), mins[k][i]]) });
        });
    }
    opt.series = opt.series.concat(markerSeries(p, container.clientWidth));
    opt.legend.data = bands.map(b => b.name).concat(p.markers.length ? ['Markers'] : []);
    return opt;
}

// A diff's heap charts share one byte scale too.
function sharedHeapMax() {
    if (yAxisMax) return yAxisMax;
    if (!diffMode) return null;
    let m = 0;
    for (const p of profiles) {
        for (const k of ['size', 'blocks', 'live']) if (p.heap[k]) m = Math.max(m, p.heap[k].peak_bytes);
        m = Math.max(m, ...p.chart.total_max);
    }
    return m || null;
}

function heapChart(container, p) {
    const i = profiles.indexOf(p);
    return makeChart(container, () => heapOption(container, profiles[i]), 'heap');
}
function heapOption(container, p) {
    const opt = baseOption(p, fmtBytes, sharedHeapMax());
    const lines = [['heap size', p.heap.size, '#4e79a7'], ['blocks size', p.heap.blocks, '#f28e2b'],
                   ['live bytes', p.heap.live, '#59a14f']].filter(l => l[1]);
    opt.series = lines.map(([name, s, c]) => ({
        name, type: 'line', symbol: 'none', color: c, step: false,
        data: s.times_s.map((x, i) => [toX(p, x), s.bytes[i]]),
    }));
    // The census total too (the largest of each point's censuses), so that
    // the profile can be set against the heap.
    const t = p.chart.times_s;
    // Black and dashed, drawn over the heap lines: the live-bytes line often
    // runs along it, and two colours blended into a muddy one.
    opt.series.push({ name: 'profiled total', type: 'line', symbol: 'none', color: '#111111',
        lineStyle: { type: 'dashed', width: 1.25 }, z: 3,
        data: t.map((x, i) => [toX(p, x), p.chart.total_max[i]]) });
    opt.series = opt.series.concat(markerSeries(p, container.clientWidth));
    return opt;
}

// --- Sparklines: ECharts renders each to an SVG string (its server-side
// mode), kept per row, so that table redraws need no chart instances.
function sparkFormatter(cell) {
    const row = cell.getRow().getData();
    if (row.sparkSvg === undefined) {
        const c = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 120, height: 26 });
        c.setOption({ animation: false, grid: { left: 1, right: 1, top: 2, bottom: 2 },
            xAxis: { type: 'category', show: false, boundaryGap: false },
            yAxis: { type: 'value', show: false, min: 0 },
            series: [{ type: 'line', symbol: 'none', data: row.spark, color: colour(row.color),
                       areaStyle: { opacity: 0.3 }, lineStyle: { width: 1 } }] });
        row.sparkSvg = c.renderToSVGString();
        c.dispose();
    }
    return '<div class="spark">' + row.sparkSvg + '</div>';
}

// --- Views ---------------------------------------------------------------------
function perProfile(container, draw) {
    // A diff's halves one above the other: each chart gets the page's width.
    const row = el('div', { class: diffMode ? 'before-after' : 'single' });
    container.append(row);
    profiles.forEach((p, i) => {
        const col = el('div', { class: 'column', 'data-input': String(i) });
        if (diffMode) col.append(el('h3', { text: (i ? 'After: ' : 'Before: ') + p.file }));
        row.append(col);
        draw(col, p, i);
    });
}

function detailedTable(container, p) {
    const i = profiles.indexOf(p);
    const hi = p.table.some(r => r.ipe);
    const era = p.mode === '-he';
    const numCol = (title, field, fmt) => ({ title, field, sorter: 'number', hozAlign: 'right',
        headerFilter: 'input', headerFilterPlaceholder: '>= ...',
        headerFilterFunc: (h, v) => { const x = parseFloat(h); return isNaN(x) || v >= x; },
        formatter: c => fmt(c.getValue()) });
    const columns = [
        { title: '', field: 'spark', formatter: sparkFormatter, headerSort: false, width: 130 },
        { title: 'Rank', field: 'rank', sorter: 'number', minWidth: 90, headerFilter: 'input' },
        { title: era ? 'Era' : 'Label', field: 'name', headerFilter: 'input', minWidth: 160,
          maxWidth: 480, cssClass: 'wrap',
          formatter: c => { const s = el('span', {}); s.append(el('i', { class: 'swatch',
              style: 'background:' + colour(c.getRow().getData().color) }), c.getValue()); return s; } },
        numCol('Integrated size', 'integrated_byte_s', v => fmtBytes(v) + '·s'),
        numCol('Std dev', 'stddev_bytes', fmtBytes),
        numCol('Intercept', 'intercept_bytes', fmtBytes),
        numCol('Slope', 'slope_bytes_per_s', v => fmtBytes(v) + '/s'),
        numCol('Fit (R²)', 'r2', v => v === null ? '' : Number(v).toFixed(3)),
    ];
    if (hi) {
        for (const [title, field, f] of [['Description', 'table_name'],
                ['Closure type', 'closure_desc', closureType], ['Type', 'ty_desc'],
                ['Module', 'module'], ['Source location', 'srcloc']]) {
            columns.push({ title, field: 'ipe_' + field, headerFilter: 'input' });
        }
    }
    const rowsOf = q => q.table.map(r => {
        const o = Object.assign({}, r);
        if (r.ipe) {
            for (const k of Object.keys(r.ipe)) o['ipe_' + k] = r.ipe[k];
            o.ipe_closure_desc = closureType(r.ipe.closure_desc);
        }
        return o;
    });
    const div = el('div', { class: 'table', 'data-table': 'detailed' });
    container.append(div);
    const t = new Tabulator(div, {
        data: rowsOf(p), columns, layout: 'fitDataStretch', pagination: true,
        paginationSize: 25, paginationCounter: 'rows', placeholder: 'no band matches',
        initialSort: [],
    });
    // New data in place (sorting, filters and the page kept), unless the
    // IPE columns came or went.
    if (drawingPane) drawingPane.updaters.push(() => {
        const q = profiles[i];
        if (q.table.some(r => r.ipe) !== hi) return false;
        t.replaceData(rowsOf(q));
        return true;
    });
    return t;
}

// --- Cost centres (-hc): the bands' stacks as one collapsible tree, MAIN
// at the root; a node's "inclusive" size is its own bands' plus every
// stack under it, as in eventlog2html's cost-centre view.
function ccsTree(p) {
    const mk = (label, module) => ({ name: label, module: module || '', total: 0, own: 0,
                                     peak: 0, kids: new Map() });
    const root = mk('MAIN', '');
    for (const r of p.table) {
        if (!r.ccs) continue;
        let path = r.ccs;
        if (path.length && path[0].label === 'MAIN') path = path.slice(1);
        let node = root;
        root.total += r.integrated_byte_s;
        for (const c of path) {
            const key = c.label + '\u0000' + (c.module || '');
            if (!node.kids.has(key)) node.kids.set(key, mk(c.label, c.module));
            node = node.kids.get(key);
            node.total += r.integrated_byte_s;
        }
        node.own += r.integrated_byte_s;
        node.peak = Math.max(node.peak, r.peak_bytes);
    }
    const all = root.total;
    const out = n => {
        const o = { name: n.name, module: n.module, total: n.total, own: n.own, peak: n.peak,
                    percent: all ? 100 * n.total / all : 0 };
        const kids = [...n.kids.values()].sort((a, b) => b.total - a.total).map(out);
        if (kids.length) o._children = kids;
        return o;
    };
    return [out(root)];
}

function ccsView(container, p) {
    const tree = ccsTree(p);
    const all = tree[0].total;
    const div = el('div', { class: 'table', 'data-table': 'ccs' });
    container.append(div);
    return new Tabulator(div, {
        data: tree, dataTree: true, layout: 'fitDataStretch',
        // Open the stacks that hold at least 1 % of the profile.
        dataTreeStartExpanded: row => row.getData().total >= 0.01 * all,
        columns: [
            { title: 'Cost centre', field: 'name', headerSort: false, minWidth: 260 },
            { title: 'Module', field: 'module', headerSort: false },
            { title: 'Inclusive', field: 'total', hozAlign: 'right', headerSort: false,
              formatter: c => fmtBytes(c.getValue()) + '·s' },
            { title: '% of all', field: 'percent', hozAlign: 'right', headerSort: false,
              formatter: c => fmtNum(c.getValue(), 3) + ' %' },
            { title: 'Own', field: 'own', hozAlign: 'right', headerSort: false,
              formatter: c => c.getValue() ? fmtBytes(c.getValue()) + '·s' : '' },
            { title: 'Own peak', field: 'peak', hozAlign: 'right', headerSort: false,
              formatter: c => c.getValue() ? fmtBytes(c.getValue()) : '' },
        ],
    });
}

function diffTable(container) {
    const rows = data.diff.map(d => {
        let status = 'same';
        if (d.a_byte_s === 0 && d.b_byte_s > 0) status = 'new';
        else if (d.b_byte_s === 0 && d.a_byte_s > 0) status = 'gone';
        else if (d.change_byte_s > 0.005 * d.a_byte_s) status = 'grew';
        else if (d.change_byte_s < -0.005 * d.a_byte_s) status = 'shrank';
        return Object.assign({ status }, d);
    });
    const div = el('div', { class: 'table', 'data-table': 'diff' });
    container.append(div);
    return new Tabulator(div, {
        data: rows, layout: 'fitDataStretch', pagination: true, paginationSize: 25,
        paginationCounter: 'rows',
        initialSort: [],    // the data's order: the largest change, up or down, first
        columns: [
            { title: 'Band', field: 'name', headerFilter: 'input', minWidth: 160,
              formatter: c => { const s = el('span', {}); s.append(el('i', { class: 'swatch',
                  style: 'background:' + colour(c.getRow().getData().color) }), c.getValue()); return s; } },
            { title: 'Status', field: 'status', headerFilter: 'list',
              headerFilterParams: { values: ['', 'grew', 'shrank', 'same', 'new', 'gone'] } },
            { title: 'Before', field: 'a_byte_s', sorter: 'number', hozAlign: 'right', formatter: c => fmtBytes(c.getValue()) + '·s' },
            { title: 'After', field: 'b_byte_s', sorter: 'number', hozAlign: 'right', formatter: c => fmtBytes(c.getValue()) + '·s' },
            { title: 'Change', field: 'change_byte_s', sorter: 'number', hozAlign: 'right', formatter: c => fmtBytes(c.getValue()) + '·s' },
            { title: 'Change %', field: 'change_percent', sorter: 'number', hozAlign: 'right', formatter: c => c.getValue() === null ? '' : c.getValue() + ' %' },
            { title: 'Peak before', field: 'a_peak_bytes', sorter: 'number', hozAlign: 'right', formatter: c => fmtBytes(c.getValue()) },
            { title: 'Peak after', field: 'b_peak_bytes', sorter: 'number', hozAlign: 'right', formatter: c => fmtBytes(c.getValue()) },
        ],
    });
}

function metaTable(container, p) {
    const rows = [['File', p.file], ['Program', p.program || 'unknown'],
        ['Arguments', p.args.join(' ')], ['RTS', p.rts_identifier || 'unknown'],
        ['Profile', (p.mode ? p.mode + ' ' : '') + '(' + p.mode_name + ')'],
        ['Interval', p.interval_ns === null ? 'unknown' : fmtNum(p.interval_ns / 1e9, 3) + ' s'],
        ['Date', p.date || 'unknown'], ['Censuses', String(p.censuses)],
        ['Bands', String(p.band_count)], ['Events', String(p.events)],
        ['End time', fmtSeconds(p.end_time_s)],
        ['Markers drawn', String(p.markers.length) + (p.markers_dropped ? ' (' + p.markers_dropped + ' more not kept)' : '')],
        ['Generator', document.querySelector('meta[name=generator]').content]];
    const t = el('table', { class: 'meta', 'data-table': 'meta' });
    for (const [k, v] of rows) t.append(el('tr', {}, el('th', { text: k }), el('td', { text: v })));
    container.append(t);
}

const ERAS_SHOWN = 50;   // REPORT_ERA_BANDS: the default chart's bands all shown
// strata-live's page (which holds its config) draws a run still going.
const liveNow = document.getElementById('strata-live-config') !== null;
// The live eras as the chart draws them: an era of its own, or the range
// of old eras it is summed into ("eras 1–50"), in its colour there, oldest
// first (Note [Era bands] in ChartBands.c).
function liveBands(p) {
    const byBand = new Map();
    for (const e of p.eras_live_at_end) {
        const name = e.band || 'era ' + e.era;
        if (!byBand.has(name)) byBand.set(name, { name, color: e.color, bytes: 0, eras: 0, first: e.era });
        const b = byBand.get(name);
        b.bytes += e.bytes; b.eras++;
        if (typeof e.era === 'number' && e.era < b.first) b.first = e.era;
    }
    return [...byBand.values()].sort((a, b) => a.first - b.first);
}
function erasLine(p) {
    if (!p.eras_live_at_end) return null;
    const line = el('p', { class: 'eras', 'data-eras-live': String(p.eras_live_at_end.length) });
    if (!p.eras_live_at_end.length) { line.textContent = 'No era holds live bytes at the end.'; return line; }
    // Hundreds of eras (with --bands 0) would push the charts off the
    // screen: the newest ERAS_SHOWN bands, the older ones summed.
    const all = liveBands(p), shown = all.slice(-ERAS_SHOWN);
    line.append(liveNow ? 'Live in the latest census: ' : 'Live at the end: ');
    if (shown.length < all.length) {
        const older = all.slice(0, all.length - shown.length);
        line.append(el('span', { class: 'eras-older', text: older.reduce((s, b) => s + b.eras, 0) +
            ' older eras (' + fmtBytes(older.reduce((s, b) => s + b.bytes, 0)) + '), then ' }));
    }
    shown.forEach((b, i) => {
        if (i) line.append(', ');
        const text = b.name + ' (' + fmtBytes(b.bytes) + (b.eras > 1 ? ', ' + b.eras + ' eras live' : '') + ')';
        line.append(el('span', { class: 'era-item', 'data-eras': String(b.eras) },
                       el('i', { class: 'swatch', style: 'background:' + colour(b.color) }),
                       el('span', { class: 'era', text })));
    });
    return line;
}

// --- The page: a header and tabs, each view drawn when first shown. --------
function header() {
    const p = profiles[0];
    const h = el('header', {});
    const title = [p.program || p.file].concat(p.args).join(' ');
    h.append(el('h1', { text: diffMode ? 'Before / after: ' + profiles.map(q => q.file).join(' vs ') : title }));
    h.append(el('p', { class: 'summary', text: profiles.map(q =>
        `${q.file}: ${q.mode || ''} ${q.mode_name} profile, ${q.censuses} censuses, ` +
        `${q.band_count} bands, ${fmtSeconds(q.end_time_s)}` + (q.date ? ', ' + q.date : '')).join(' | ') }));
    if (diffMode) {
        const box = el('input', { type: 'checkbox', 'data-control': 'normalised-time' });
        box.checked = normTime;
        box.addEventListener('change', () => { normTime = box.checked; redraw(); });
        h.append(el('label', { class: 'control' }, box,
                    ' compare on a normalised time axis (each run from 0 to 100 %)'));
    }
    for (const q of profiles) {
        if (q.warning) h.append(el('p', { class: 'warning', text: 'Warning: ' + q.file + ': ' + q.warning }));
        const e = erasLine(q);
        if (e) h.append(e);
    }
    return h;
}

let views = [
    ['heap', 'Heap', c => perProfile(c, heapChart)],
    ['area', 'Area', c => perProfile(c, (col, p) => areaChart(col, p, 'area'))],
    ['stream', 'Streamgraph', c => perProfile(c, (col, p) => areaChart(col, p, 'stream'))],
    ['normalised', 'Normalised', c => perProfile(c, (col, p) => areaChart(col, p, 'normalised'))],
    ['lines', 'Lines', c => perProfile(c, (col, p) => areaChart(col, p, 'lines'))],
    ['detailed', 'Detailed', c => perProfile(c, detailedTable)],
];
const baseViews = views;
function viewsOf() {
    const vs = baseViews.slice();
    if (profiles.some(p => p.mode === '-hc'))
        vs.push(['ccs', 'Cost centres', c => perProfile(c, ccsView)]);
    if (diffMode) vs.push(['diff', 'Diff', c => { diffTable(c); }]);
    // alloc.js (inlined before this file) draws sampled allocations.
    if (window.strataAllocView && profiles.some(p => p.alloc_sites))
        vs.push(['alloc', 'Allocation sites',
                 c => perProfile(c, (col, p, i) => window.strataAllocView(col, p, allocLib, i))]);
    vs.push(['meta', 'Meta', c => perProfile(c, metaTable)]);
    return vs;
}

// What alloc.js needs of this file: see its header.
const allocLib = {
    el, fmtBytes, echarts, charts,
    profile: i => profiles[i],
    addUpdater: fn => { if (drawingPane) drawingPane.updaters.push(fn); },
};

let headerEl = null, panes = {};
function show(id) {
    for (const [v] of views) {
        panes[v].pane.hidden = v !== id;
        panes[v].button.classList.toggle('active', v === id);
    }
    const pane = panes[id];
    if (!pane.drawn) {
        pane.drawn = true;
        drawingPane = pane;
        pane.draw(pane.pane);
        drawingPane = null;
    }
    resizeShown();
    if (location.hash !== '#' + id) history.replaceState(null, '', '#' + id);
}
// The header, the tabs and their panes, for the data of now.
function build(current) {
    views = viewsOf();
    app.textContent = '';
    headerEl = header();
    app.append(headerEl);
    const tabs = el('nav', { class: 'tabs' });
    app.append(tabs);
    panes = {};
    for (const [id, title, draw] of views) {
        const button = el('button', { type: 'button', 'data-view': id, text: title });
        button.addEventListener('click', () => show(id));
        tabs.append(button);
        const pane = el('section', { class: 'pane', 'data-pane': id, hidden: '' });
        app.append(pane);
        panes[id] = { pane, button, draw, drawn: false, updaters: [] };
    }
    // A log of sampled allocations alone opens on them.
    const first = panes.alloc && profiles.every(p => !p.censuses) ? 'alloc' : 'area';
    show(panes[current] ? current : first);
}
function clearPane(pane) {
    for (const div of pane.pane.querySelectorAll('.chart')) {
        const c = echarts.getInstanceByDom(div);
        if (c) { charts.splice(charts.indexOf(c), 1); c.dispose(); }
    }
    pane.pane.textContent = '';
    pane.drawn = false;
    pane.updaters = [];
}
function currentView() {
    for (const [v] of views) if (!panes[v].pane.hidden) return v;
    return 'area';
}
// Draws every view again (after the time axis changed).
function redraw() {
    const current = currentView();
    for (const [v] of views) clearPane(panes[v]);
    show(current);
}
// New data (strata-live): the header again, the shown view in place where
// it can be, the others when next shown.
function update(newData) {
    data = newData;
    profiles = data.profiles;
    window.strataReport.data = data;
    const current = currentView();
    const ids = viewsOf().map(v => v[0]).join(' ');
    if (ids !== views.map(v => v[0]).join(' ')) {
        for (const [v] of views) clearPane(panes[v]);
        build(current);
        return;
    }
    const h = header();
    headerEl.replaceWith(h);
    headerEl = h;
    for (const [v] of views) {
        const pane = panes[v];
        if (v !== current) { clearPane(pane); continue; }
        if (!pane.updaters.length || !pane.updaters.every(u => u())) {
            clearPane(pane);
            show(v);
        }
    }
}
build(location.hash.slice(1));
document.body.setAttribute('data-ready', '1');
window.strataReport = { data, charts, show, echarts, fmtBytes, el, update };
})();
