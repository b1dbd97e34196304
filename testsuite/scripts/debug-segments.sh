#!/usr/bin/env bash
# testsuite/scripts/debug-segments.sh -- strata-debug's view of the
# non-moving generation (+RTS --nonmoving-gc, issue 50): segment_fill puts
# a known number of 88-byte records in the segments, over four eras, and
# forgets some; fragmentation must count them by size class (slots in use,
# live objects and bytes, held bytes) live and from a snapshot, the census
# must give each record its era, the TUI must show the same rows, a
# segment entry that cannot be is refused by name, and an older stub's
# segments are said to be unlisted.
set -u
. "$(dirname "$0")/lib.sh"

dbg=$top_builddir/utils/strata-debug/strata-debug
fill=$top_builddir/testsuite/programs/segment_fill
cd "$test_tmp" || exit 1
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$test_tmp"' EXIT
need_python3 "the segments' figures" || finish

# 20,000 records in eras of 5,000; the first 3,000 (of era 1) forgotten.
n=20000 dropped=3000
sock=$test_tmp/fill.sock
"$fill" $n 4 $dropped +RTS --nonmoving-gc -DS --debug-socket="$sock" -RTS >fill.out 2>fill.err &
pid=$!
wait_socket "$sock" || finish
for _ in $(seq 100); do
    grep -q '^segment_fill: objects=' fill.out && break
    sleep 0.1
done
grep -q "^segment_fill: objects=$n eras=4 dropped=$dropped record_bytes=88$" fill.out && pass ||
    fail "segment_fill did not get ready: $(cat fill.out fill.err | head -c 300)"

# check_class JSON-FILE WHAT: the 88-byte class holds exactly the records.
check_class() {
    "$python3" - "$1" $n $dropped <<'EOF' 2>"$err" && pass || fail "$2: $(tail -1 "$err")"
import json, sys
d = json.load(open(sys.argv[1]))
n, dropped = int(sys.argv[2]), int(sys.argv[3])
k = [c for c in d['segments'] if c['slot_bytes'] == 88]
assert len(k) == 1, d['segments']
k = k[0]
per = k['slots'] // k['segments']
assert k['slots'] == k['segments'] * per, k
# One collection filled the class's segments in order: full ones, then one.
assert k['segments'] == (n + per - 1) // per, (k, per)
assert k['slots_used'] == n and k['slots_free'] == k['slots'] - n, k
assert k['live_objects'] == n - dropped and k['live_bytes'] == (n - dropped) * 88, k
assert k['used_bytes'] == n * 88, k
assert k['held_bytes'] % k['segments'] == 0 and k['held_bytes'] >= k['slots'] * 88, k
assert d['segment_blocks_unlisted'] == 0, d
EOF
}

"$dbg" fragmentation --socket "$sock" --json >frag.json 2>"$err" && pass ||
    fail "fragmentation --json failed: $(head -c 300 "$err")"
check_class frag.json "fragmentation --json (live)"

expect_status 0 "$dbg" fragmentation --socket "$sock"
grep -q '^non-moving segments: [1-9][0-9]*, [0-9]* bytes held, [0-9]* bytes live' "$out" && pass ||
    fail "fragmentation lacks the segments' summary line"
grep -Eq "^ +88 +[0-9]+ +[0-9]+ +$n +[0-9]+ +$((n - dropped)) +$(((n - dropped) * 88)) " "$out" &&
    pass || fail "fragmentation lacks the 88-byte class's row: $(grep -A3 '^non-moving' "$out")"

# The same from a snapshot.
expect_status 0 "$dbg" snapshot fill.snap --socket "$sock"
"$dbg" fragmentation --snapshot fill.snap --json >snapfrag.json 2>"$err" && pass ||
    fail "fragmentation --json --snapshot failed: $(head -c 300 "$err")"
check_class snapfrag.json "fragmentation --json (snapshot)"

# The TUI's fragmentation view (key 4) has the same rows.
if command -v tmux >/dev/null 2>&1; then
    T() { tmux -S "$test_tmp/tmux.sock" "$@"; }
    T new-session -d -x 140 -y 50 "$dbg tui --snapshot fill.snap"
    found=
    for _ in $(seq 100); do
        T send-keys 4 2>/dev/null
        T capture-pane -p >screen 2>/dev/null
        grep -Eq "^ +88 +[0-9]+ +[0-9]+ +$n +[0-9]+ +$((n - dropped)) " screen && found=1 && break
        sleep 0.1
    done
    T kill-server 2>/dev/null
    [ -n "$found" ] && pass || fail "the TUI's fragmentation view lacks the 88-byte class: $(head -c 600 screen)"
else
    skip_part tmux "tmux is not installed: the TUI's fragmentation view not checked"
fi

# Each record keeps the era it was allocated in: 2,000 of era 1 left, 5,000
# of each other.  A segment holds records of two eras where an era ends:
# one block entry per era run, longer than a block.
for era in 1 2 3 4; do
    want=$([ $era = 1 ] && echo $((5000 - dropped)) || echo 5000)
    "$dbg" census --snapshot fill.snap --era $era-$era --json >census.json 2>"$err" ||
        { fail "census --era $era failed: $(head -c 300 "$err")"; continue; }
    "$python3" -c "
import json, sys
d = json.load(open('census.json'))
b = [b for b in d['buckets'] if b['label'] == 'Record']
assert len(b) == 1 and b[0]['objects'] == $want and b[0]['bytes'] == $want * 88, (b, $want)
" 2>"$err" && pass || fail "census of era $era: $(tail -1 "$err")"
done

# A segment entry that cannot be (more slots in use than it has) is refused
# by name: the snapshot's first segment entry altered, its checksum redone.
# And a snapshot as a stub from before segments wrote it (kind 1, the 7
# bytes 0) says that its segments cannot be broken down.
cat >alter.py <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
old_stub = sys.argv[3] == 'old-stub'
def checksum(p):
    h, m = 1469598103934665603, (1 << 64) - 1
    i = 0
    while i + 8 <= len(p):
        h = ((h ^ struct.unpack_from('<Q', p, i)[0]) * 1099511628211) & m
        i += 8
    tail = int.from_bytes(bytes(p[i:]), 'little')
    h = ((h ^ tail) * 1099511628211) & m
    return ((h ^ len(p)) * 1099511628211) & m
found = 0
for i in range(0, len(d) - 40):
    nb, flags, gen, kind = struct.unpack_from('<IHHB', d, i + 24)
    if kind == 6 and flags & 2048 and gen == 1:
        n_slots = struct.unpack_from('<H', d, i + 36)[0]
        if old_stub:
            d[i + 32:i + 40] = b'\x01' + bytes(7)
            found += 1
        elif n_slots > 0 and nb == 8:
            struct.pack_into('<H', d, i + 38, n_slots + 1)
            found = 1
            break
if not found:
    sys.exit('no segment entry found')
struct.pack_into('<Q', d, len(d) - 8, checksum(d[:-8]))
open(sys.argv[2], 'wb').write(d)
EOF
"$python3" alter.py fill.snap bad.snap bad 2>"$err" && pass || fail "could not alter the snapshot: $(tail -1 "$err")"
"$python3" alter.py fill.snap old.snap old-stub 2>"$err" && pass ||
    fail "could not make an old stub's snapshot: $(tail -1 "$err")"
expect_status 0 "$dbg" fragmentation --snapshot old.snap
grep -Eq '^non-moving segments: [1-9][0-9]* blocks, listed as small blocks by this program.s older debug stub \(no slots, no size classes\)$' "$out" &&
    pass || fail "an old stub's segments were not named as such: $(grep -i segment "$out" | head -3)"
"$dbg" fragmentation --snapshot old.snap --json >old.json 2>"$err" &&
    "$python3" -c "
import json; d = json.load(open('old.json'))
assert d['segments'] == [] and d['segment_blocks_unlisted'] >= 8, (d['segments'], d['segment_blocks_unlisted'])
" 2>"$err" && pass || fail "an old stub's snapshot in --json: $(tail -1 "$err")"
expect_status 1 "$dbg" fragmentation --snapshot bad.snap
grep -Eq 'malformed block entry [0-9]+: a segment of [0-9]+ slots of [0-9]+ words, [0-9]+ in use, in 8 blocks' "$err" &&
    pass || fail "an impossible segment entry was not named: $(head -c 300 "$err")"

kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
pid=
finish
