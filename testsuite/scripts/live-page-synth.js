// testsuite/scripts/live-page-synth.js -- writes a synthetic -he eventlog
// for the live page's scale check: N censuses of B bands (eras 1..B, each
// present in every census, with sizes that change from census to census),
// in GHC's format, appended in pieces so that strata-live --file follows it
// as it grows.
//
//     node live-page-synth.js header LOG                 the header and HEAP_PROF_BEGIN
//     node live-page-synth.js censuses LOG FROM COUNT BANDS   censuses FROM.. appended
//     node live-page-synth.js end LOG                    the data end marker
//
// Census k is at k * 10 ms; band e holds e * 1000 + (k * 7919 + e * 104729) % 50000 bytes.
'use strict';
const fs = require('fs');

const EV = { PROGRAM_ARGS: 30, HEAP_SIZE: 50, PROF_BEGIN: 160, SAMPLE_BEGIN: 162,
             SAMPLE_STRING: 164, SAMPLE_END: 165 };
const VAR = 0xffff;

function u16(v) { const b = Buffer.alloc(2); b.writeUInt16BE(v); return b; }
function u32(v) { const b = Buffer.alloc(4); b.writeUInt32BE(v); return b; }
function u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(v)); return b; }

function eventType(id, size, desc) {
    return Buffer.concat([u32(0x65746200), u16(id), u16(size), u32(desc.length),
                          Buffer.from(desc), u32(0), u32(0x65746500)]);
}
function event(type, timeNs, payload, variable) {
    return Buffer.concat([u16(type), u64(timeNs), variable ? u16(payload.length) : Buffer.alloc(0),
                          payload]);
}

function header() {
    const types = [[EV.PROGRAM_ARGS, VAR, 'Program arguments'], [EV.HEAP_SIZE, 12, 'Heap size'],
                   [EV.PROF_BEGIN, VAR, 'Start of heap profile'],
                   [EV.SAMPLE_BEGIN, 8, 'Start of heap profile sample'],
                   [EV.SAMPLE_STRING, VAR, 'Heap profile string sample'],
                   [EV.SAMPLE_END, 8, 'End of heap profile sample']];
    const args = Buffer.from('synthetic-eras\0');
    // HEAP_PROF_BEGIN: id, interval, breakdown 9 (era), seven empty filters.
    const begin = Buffer.concat([Buffer.from([0]), u64(10000000), u32(9), Buffer.alloc(7)]);
    return Buffer.concat([u32(0x68647262), u32(0x68657462)].concat(
        types.map(t => eventType(...t)),
        [u32(0x68657465), u32(0x68647265), u32(0x64617462),
         event(EV.PROGRAM_ARGS, 0, Buffer.concat([u32(0), args]), true),
         event(EV.PROF_BEGIN, 0, begin, true)]));
}

function census(k, bands) {
    const t = k * 10000000;
    const parts = [event(EV.SAMPLE_BEGIN, t, u64(k))];
    for (let e = 1; e <= bands; e++) {
        const bytes = e * 1000 + (k * 7919 + e * 104729) % 50000;
        parts.push(event(EV.SAMPLE_STRING, t,
                         Buffer.concat([Buffer.from([0]), u64(bytes), Buffer.from(String(e) + '\0')]),
                         true));
    }
    parts.push(event(EV.SAMPLE_END, t, u64(k)));
    parts.push(event(EV.HEAP_SIZE, t, Buffer.concat([u32(0), u64(64 << 20)])));
    return Buffer.concat(parts);
}

function appendCensuses(log, from, count, bands) {
    const fd = fs.openSync(log, 'a');
    for (let k = from; k < from + count; k++) fs.writeSync(fd, census(k, bands));
    fs.closeSync(fd);
}

module.exports = { header, census, appendCensuses };

if (require.main === module) {
    const [what, log, ...rest] = process.argv.slice(2);
    if (what === 'header') fs.writeFileSync(log, header());
    else if (what === 'censuses') appendCensuses(log, +rest[0], +rest[1], +rest[2]);
    else if (what === 'end') fs.appendFileSync(log, u16(0xffff));
    else { console.error('usage: see the head of live-page-synth.js'); process.exit(2); }
}
