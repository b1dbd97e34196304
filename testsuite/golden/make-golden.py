#!/usr/bin/env python3
# testsuite/golden/make-golden.py -- writes the hand-built eventlogs that
# testsuite/scripts/strata-events.sh feeds to strata-events.  Each log is
# built byte by byte from docs/reference/eventlog-format.md, sections 1-2 (big-endian
# framing, block markers, payload layouts), so the inputs do not depend on
# strata's own writer.  Run it from anywhere; it writes next to itself:
#
#   heap-hT.eventlog     a -hT run: identity events, a global block, a cap 0
#                        block with GC and heap events, three censuses,
#                        user markers and messages, a declared type the
#                        reader does not decode (CAPSET_CREATE) and a
#                        declared id no GHC has (250)
#   ghc92-ipe.eventlog   GHC 9.2-style -hi log whose HEAP_PROF_BEGIN and IPE
#                        payloads are byte for byte the examples of reference
#                        §2.4 (20-byte -hT begin, here with breakdown 8) and
#                        §2.5 (the 67-byte IPE), and header-time events
#                        outside any block, as GHC writes them
#   heap-budget.eventlog a -hT run at -i0.01 whose three censuses over 0.1 s
#                        are fewer than the eleven its interval asked for, as
#                        strata's census budget takes them (from a strata
#                        RTS: summary explains the budget)
#   heap-every-tick.eventlog the same run with --census-gc=every-tick: the
#                        budget did not apply (the ticks went unserved)
#   heap-cut.eventlog    a -hT run killed in its third census: that census
#                        has one sample and no SAMPLE_END, and the log no
#                        data end marker (every tool counts the census:
#                        Note [One rule per case] in utils/heapprof/HeapModel.c)
#   no-end.eventlog      one event and no data end marker
#   bad-order.eventlog   a block whose timestamps go backwards (check passes and counts it,
#                        as GHC 9.0 writes such logs)
#   ghc-nested-block.eventlog, strata-nested-block.eventlog
#                        a block inside a block, as GHC 9.10's non-threaded
#                        RTS now and then writes one: check counts it in a
#                        GHC log and fails a strata one
#   bad-utf8.eventlog    a user message with a Latin-1 byte (ghc-events rejects the log;
#                        check must say where)
#   strings.eventlog     labels, a marker and arguments in UTF-8 ("Caf\u00e9\u2192\u03bb"),
#                        with a control character and with invalid bytes:
#                        every output writes them one way (Note [One way to
#                        write a string] in wire/TextOut.c)
#   pauses.eventlog      a -N2 run with five pauses of known length, as GHC
#                        9.10 writes them: requests before the starts, a
#                        worker's late GC_END, a non-moving sync (each event
#                        twice) that a collection overlaps; see pauses()
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

TYPES = {
    9: (0, "Starting GC"),
    10: (0, "Finished GC"),
    11: (0, "Request sequential GC"),
    12: (0, "Request parallel GC"),
    18: (14, "Block marker"),
    19: (0xffff, "User message"),
    25: (6, "Create capability set"),
    29: (0xffff, "RTS name and version"),
    30: (0xffff, "Program arguments"),
    43: (16, "Wall clock time"),
    49: (12, "Total heap memory ever allocated"),
    50: (12, "Current heap size"),
    51: (12, "Current heap live data"),
    58: (0xffff, "User marker"),
    91: (12, "Report the size of the heap in blocks"),
    160: (0xffff, "Start of heap profile"),
    162: (8, "Start of heap profile sample"),
    164: (0xffff, "Heap profile string sample"),
    165: (8, "End of heap profile sample"),
    169: (0xffff, "An IPE entry"),
    200: (0, "Begin concurrent mark phase"),
    201: (4, "End concurrent mark phase"),
    202: (0, "Begin concurrent GC synchronisation"),
    203: (0, "End concurrent mark synchronisation"),
    204: (0, "Begin concurrent sweep phase"),
    205: (0, "End concurrent sweep phase"),
    250: (3, "A future event with a 3-byte payload"),
}


def u8(v): return struct.pack(">B", v)
def u16(v): return struct.pack(">H", v)
def u32(v): return struct.pack(">I", v)
def u64(v): return struct.pack(">Q", v)
def cstr(s): return (s if isinstance(s, bytes) else s.encode()) + b"\0"


def header(ids):
    out = b"hdrb" + b"hetb"
    for i in ids:
        size, desc = TYPES[i]
        d = desc.encode()
        out += b"etb\0" + u16(i) + u16(size) + u32(len(d)) + d + u32(0) + b"ete\0"
    return out + b"hete" + b"hdre" + b"datb"


def event(etype, t, payload=b""):
    size = TYPES[etype][0]
    if size == 0xffff:
        return u16(etype) + u64(t) + u16(len(payload)) + payload
    assert len(payload) == size, (etype, len(payload), size)
    return u16(etype) + u64(t) + payload


def block(cap, start, end, events, size_adjust=0):
    body = b"".join(events)
    size = 24 + len(body) + size_adjust
    return event(18, start, u32(size) + u64(end) + u16(cap)) + body


def heap_ev(etype, t, nbytes, capset=0):
    return event(etype, t, u32(capset) + u64(nbytes))


def prof_begin(t, breakdown, interval_ns, filters=("",) * 7):
    return event(160, t, u8(0) + u64(interval_ns) + u32(breakdown)
                 + b"".join(cstr(f) for f in filters))


def sample(t, era, buckets):
    evs = [event(162, t, u64(era))]
    evs += [event(164, t, u8(0) + u64(n) + cstr(label)) for label, n in buckets]
    evs.append(event(165, t, u64(era)))
    return evs


def data_end():
    return u16(0xffff)


def heap_ht():
    # Every type but those added for pauses.eventlog, whose header this
    # log predates.
    ids = sorted(i for i in TYPES if i not in (11, 12) and not 200 <= i <= 205)
    g = [
        event(25, 100, u32(0) + u16(2)),
        event(29, 110, u32(0) + b"strata-0.1 rts_v"),
        event(30, 120, u32(0) + b"".join(cstr(a) for a in
                                         ["./prog", "10", "+RTS", "-hT", "-i0.05", "-RTS"])),
        event(43, 130, u32(1) + u64(1700000000) + u32(250000000)),
        prof_begin(140, 7, 50000000),
    ]
    g += sample(1000000, 0, [("THUNK_1_0", 4096), ("ghc-prim:GHC.Types.:", 8192)])
    g += sample(51000000, 0, [("THUNK_1_0", 16384), ("ghc-prim:GHC.Types.:", 2048),
                              ("ARR_WORDS", 1024)])
    g += sample(101000000, 0, [("ghc-prim:GHC.Types.:", 32768), ("ARR_WORDS", 1024),
                               ("weird \"label\"\t\u00e9", 8)])
    c0 = [
        event(19, 500000, b"hello from main"),
        event(58, 600000, b"phase 1"),
        event(9, 900000),
        event(10, 950000),
        heap_ev(49, 950001, 1 << 20),
        heap_ev(50, 950002, 4 << 20),
        heap_ev(91, 950003, 3 << 20),
        heap_ev(51, 950004, 123456),
        event(250, 960000, b"\x01\x02\x03"),
        event(58, 50000000, b"phase 2"),
        event(9, 50900000),
        event(10, 50950000),
        heap_ev(50, 50950002, 8 << 20),
        heap_ev(91, 50950003, 6 << 20),
        heap_ev(51, 50950004, 654321),
        event(58, 100000000, b""),
    ]
    return (header(ids) + block(0xffff, 90, 101000001, g)
            + block(0, 400000, 100000001, c0) + data_end())


def ghc92_ipe():
    ids = [18, 29, 30, 160, 162, 164, 165, 169]
    # Reference §2.4: the 20-byte HEAP_PROF_BEGIN observed for -hT, except
    # for the breakdown (8, -hi) so that the IPE below is meaningful.
    begin = bytes.fromhex("00" "00000000" "05f5e100" "00000008") + b"\0" * 7
    assert len(begin) == 20
    # Reference §2.5: the real GHC 9.2 IPE payload, 67 bytes.
    ipe = (bytes.fromhex("0000000000409f78") + cstr("sat_s154_info") + cstr("21")
           + cstr("Integer -> IO ()") + cstr("main") + cstr("Main")
           + cstr("Test.hs:5:1-30"))
    assert len(ipe) == 67
    pre = [
        event(29, 0, u32(0) + b"GHC-9.1.20210309 rts_l"),
        event(30, 0, u32(0) + cstr("Test") + cstr("+RTS") + cstr("-hi") + cstr("-l")),
        event(169, 0, ipe),
    ]
    g = [event(160, 1000, begin)]
    g += sample(2000, 0, [("0x409f78", 48), ("0x4a0010", 4800)])
    g += sample(102000, 0, [("0x409f78", 96)])
    return header(ids) + b"".join(pre) + block(0xffff, 1000, 102000, g) + data_end()


def heap_budget(rts=("-hT", "-i0.01")):
    ids = [18, 29, 30, 160, 162, 164, 165]
    g = [
        event(29, 110, u32(0) + b"strata-0.1 rts_v"),
        event(30, 120, u32(0) + b"".join(cstr(a) for a in
                                         ["./prog", "+RTS", *rts, "-RTS"])),
        prof_begin(140, 7, 10000000),
    ]
    for t in (1000000, 51000000, 101000000):
        g += sample(t, 0, [("THUNK_1_0", 4096)])
    return header(ids) + block(0xffff, 90, 101000001, g) + data_end()


def heap_cut():
    ids = [18, 30, 160, 162, 164, 165]
    g = [
        event(30, 120, u32(0) + b"".join(cstr(a) for a in
                                         ["./prog", "+RTS", "-hT", "-i0.05", "-RTS"])),
        prof_begin(140, 7, 50000000),
    ]
    g += sample(1000000, 0, [("THUNK_1_0", 4096), ("ARR_WORDS", 512)])
    g += sample(51000000, 0, [("THUNK_1_0", 8192)])
    g += sample(101000000, 0, [("ARR_WORDS", 65536)])[:-1]   # no SAMPLE_END
    return header(ids) + block(0xffff, 90, 101000001, g)


def no_end():
    return header([19]) + event(19, 5, b"last words")


def bad_order():
    ids = [9, 10, 18]
    return (header(ids) + block(0, 100, 300, [event(9, 200), event(10, 150)])
            + data_end())


def bad_utf8():
    ids = [18, 19, 30]
    return (header(ids) + block(0, 100, 300, [
        event(30, 110, u32(0) + cstr("./prog") + cstr("caf\u00e9.txt")),
        event(19, 120, b"opened caf\xe9.txt"),
    ]) + data_end())


def nested_block(ident):
    ids = [9, 10, 18, 29]
    return (header(ids) + event(29, 50, u32(0) + ident.encode())
            + block(0, 100, 300, [event(9, 110),
                                  block(0xffff, 120, 130, [event(10, 125)])])
            + data_end())


def pauses():
    """Pauses (ms): [10, 13] GC; [50, 51] GC; [100, 110] sync [100, 108]
    and a GC [106, 110] merged; [110.5, 112] GC, whose request comes
    before cap 1's late end of the one before; [150, 152] GC.  The run is
    0 to 200 ms: 17.5 ms paused, worst 10 at 100, p99 10, median 2, MMU
    1 and 10 ms 0%, 20 ms 42.5% ([100, 120] holds 11.5), 100 ms 86%
    ([10, 110] holds 14)."""
    ids = [9, 10, 11, 12, 18, 30, 50, 200, 201, 202, 203, 204, 205]
    ms = 1000000
    g = [
        event(30, 0, u32(0) + cstr("./msgbuf") + cstr("+RTS") + cstr("-N2")),
        event(200, 60 * ms), event(201, 99 * ms, u32(12345)),
        event(202, 100 * ms), event(202, 100 * ms + 300),
        event(203, 108 * ms), event(203, 108 * ms + 200),
        event(204, 112 * ms), event(205, 140 * ms),
    ]
    c0 = [
        event(12, 10 * ms), event(9, 12 * ms), event(10, 13 * ms),
        event(11, 50 * ms), event(9, 50 * ms), event(10, 51 * ms),
        event(12, 106 * ms), event(9, 107 * ms), event(10, 110 * ms),
        event(12, 110 * ms + 500000), event(9, 110 * ms + 700000), event(10, 112 * ms),
        event(11, 150 * ms), event(9, 150 * ms), event(10, 152 * ms),
        heap_ev(50, 200 * ms, 64 << 20),
    ]
    c1 = [
        event(9, 11 * ms + 900000), event(10, 13 * ms + 500000),
        event(9, 106 * ms + 500000), event(10, 111 * ms),
        event(9, 111 * ms + 200000), event(10, 112 * ms + 500000),
    ]
    return (header(ids) + block(0xffff, 0, 140 * ms, g) + block(0, 10 * ms, 200 * ms, c0)
            + block(1, 11 * ms, 113 * ms, c1) + data_end())


def strings():
    ids = [18, 30, 58, 160, 162, 164, 165]
    g = [
        event(30, 120, u32(0) + b"".join(cstr(a) for a in
                                         ["./prog", "Caf\u00e9\u2192\u03bb.txt", "+RTS", "-hT", "-RTS"])),
        prof_begin(140, 7, 50000000),
    ]
    labels = ["Caf\u00e9\u2192\u03bb", b"Bad\xffName\xc3", "Esc\x1b[2Jape", "tab\there \"q\" \\"]
    g += sample(1000000, 0, [(l, 1024 * (i + 1)) for i, l in enumerate(labels)])
    g += sample(51000000, 0, [(l, 2048 * (i + 1)) for i, l in enumerate(labels)])
    c0 = [event(58, 600000, "phase \u03bb \u2192 2".encode())]
    return (header(ids) + block(0xffff, 90, 51000001, g) + block(0, 400000, 600001, c0)
            + data_end())


LOGS = {
    "heap-hT.eventlog": heap_ht,
    "ghc92-ipe.eventlog": ghc92_ipe,
    "heap-budget.eventlog": heap_budget,
    "heap-every-tick.eventlog": lambda: heap_budget(("-hT", "-i0.01", "--census-gc=every-tick")),
    "heap-cut.eventlog": heap_cut,
    "no-end.eventlog": no_end,
    "bad-order.eventlog": bad_order,
    "bad-utf8.eventlog": bad_utf8,
    "ghc-nested-block.eventlog": lambda: nested_block("GHC-9.10.3 rts_v"),
    "strata-nested-block.eventlog": lambda: nested_block("strata-0.1 rts_v"),
    "pauses.eventlog": pauses,
    "strings.eventlog": strings,
}

if __name__ == "__main__":
    for name, build in LOGS.items():
        with open(os.path.join(HERE, name), "wb") as f:
            f.write(build())
