// testsuite/scripts/legend-dom.js -- what a report chart's legend shows,
// read from its SVG in the page: shared by html-browser.js and
// live-page-browser.js, which install it in the page (install(page)) and
// call window.readLegend(svg, left) there.  A legend name that wraps is
// several lines (<text>s) of one item (one transform): joined, they are
// the name (a line broken at a space keeps the space).  The scroll
// legend's pager ("1/2") is not a name.
'use strict';

function readLegend(svg, left) {
    const items = new Map();
    for (const t of svg.querySelectorAll('text')) {
        const r = t.getBoundingClientRect();
        if (r.left < left || /^\d+\/\d+$/.test(t.textContent)) continue;
        const key = t.getAttribute('transform');
        if (!items.has(key)) items.set(key, []);
        items.get(key).push({ text: t.textContent, r });
    }
    return [...items.values()].map(lines => {
        lines.sort((a, b) => a.r.top - b.r.top);
        return { text: lines.map(l => l.text).join(''), r: lines[0].r };
    }).sort((a, b) => a.r.top - b.r.top);
}

// Makes window.readLegend in page (once per document).
async function install(page) {
    await page.evaluate(src => { window.readLegend = new Function('return ' + src)(); },
                        readLegend.toString());
}

module.exports = { readLegend, install };
