#!/usr/bin/env bash
# testsuite/scripts/debug-diff.sh -- strata-debug diff as a user runs it:
# two snapshots of examples/leak a few phases apart (the new sessions, and
# only they, are new and alive, held by the static cache), a steady heap
# whose short-lived trees are built and dropped between the snapshots
# (in neither "new and alive" nor the survivors), snapshot --new-era and
# mark, a snapshot of format 1, and bad input.
set -u
. "$(dirname "$0")/lib.sh"

ex=$top_builddir/examples
dbg=$top_builddir/utils/strata-debug/strata-debug
cd "$test_tmp" || exit 1
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$test_tmp"' EXIT

# A count as diff prints it, with thousands separators: 1234567 -> 1,234,567.
grp() {
    printf '%s\n' "$1" | sed -E ':a; s/([0-9])([0-9]{3})($|,)/\1,\2\3/; ta'
}

# The objects of a label in a census (--by type) of snapshot $1.
census_count() {
    "$dbg" census --snapshot "$1" --by type | awk -v l="$2" '$3 == l { print $2 }'
}

# --- the leak: two snapshots, phases apart ---------------------------------------
sock=$test_tmp/leak.sock
"$ex/leak" 100000 20000 +RTS --debug-socket="$sock" -RTS >leak.out 2>leak.err &
pids+=($!)
wait_socket "$sock" || finish
sleep 0.3
expect_status 0 "$dbg" snapshot a.snap --socket "$sock" --new-era
grep -Eq '^era ([0-9]+) was current; the program resumes in era [0-9]+' "$out" && pass ||
    fail "snapshot --new-era does not say which era the program resumes in: $(cat "$out")"
a_era=$(sed -E 's/^era ([0-9]+) .*/\1/' "$out")
sleep 0.5
expect_status 0 "$dbg" snapshot b.snap --socket "$sock"
# At once, with no retry: the stub serves the last client's end before a
# new connection (serve_client in rts/debug/DebugServer.c), so a client
# that follows one that has exited is never refused as busy.
expect_status 0 "$dbg" mark --socket "$sock" --json
grep -q '"command": *"mark"' "$out" && grep -q '"new_era": *[0-9]' "$out" && pass ||
    fail "mark --json: $(cat "$out")"

expect_status 0 "$dbg" diff a.snap b.snap
cp "$out" diff.txt
# The first group of "new and alive" is SessionEntry, with a path to the cache.
first=$(sed -n '/^new and alive/{n;p;q}' diff.txt)
[[ $first == "1. "*"SessionEntry (CONSTR)  [remember in Cache, examples/leak.c:49:5-60]" ]] && pass ||
    fail "diff: the first new group is not SessionEntry: $first"
cache_line=$(grep -n '^static StgMutVar session_cache = ' "$top_srcdir/examples/leak.c" | cut -d: -f1)
sed -n '/^new and alive/,/^[0-9]* groups* shown/p' diff.txt | sed -n '3,/root:/p' |
    grep -q "^    root: static closure session_cache (.*examples/leak.c:$cache_line)$" && pass ||
    fail "diff: the SessionEntry path does not end at session_cache (leak.c:$cache_line)"
# Exactly the sessions made between A and B: the cache only grows.
na=$(census_count a.snap SessionEntry)
nb=$(census_count b.snap SessionEntry)
new=$(printf '%s\n' "$first" | sed -E 's/^1\. ([0-9,]+) objects.*/\1/; s/,//g')
[ -n "$na" ] && [ "$nb" -gt "$na" ] && [ "$new" -eq $((nb - na)) ] && pass ||
    fail "diff: $new new SessionEntry, but A has $na and B $nb"
grep -q "^A: a.snap, era $a_era, taken " diff.txt && pass ||
    fail "diff: A's moment is not era $a_era: $(head -1 diff.txt)"
# Every session of A survives; A started an era, so the footer says that
# nothing newer counts as alive at A.
grep -Eq "^ +$(grp "$na") +[0-9,]+ +$(grp "$na") +[0-9,]+ 100\.0%  SessionEntry \(CONSTR\)$" diff.txt &&
    pass || fail "diff: not all $na SessionEntry of A survive: $(grep SessionEntry diff.txt | tail -1)"
grep -qx "A started era $((a_era + 1)) as the program resumed, so everything allocated after A is newer: these were all alive at A" diff.txt &&
    pass || fail "diff: the survivors' footer does not say that A started era $((a_era + 1)): $(tail -1 diff.txt)"
# Growth: SessionEntry gained its objects.
grep -Eq "^ +$(grp "$na") +[0-9,]+ +$(grp "$nb") +[0-9,]+ +\+[0-9,]+  SessionEntry \(CONSTR\)" diff.txt &&
    pass || fail "diff: growth has no SessionEntry line $na -> $nb"
# Every count in one form: with thousands separators, no bare 1234.
! grep -Eq '(^| )[+-]?[0-9]{4,}( |$)' diff.txt && pass ||
    fail "diff: a count without thousands separators: $(grep -E '(^| )[+-]?[0-9]{4,}( |$)' diff.txt | head -3)"

expect_status 0 "$dbg" diff a.snap b.snap --json --limit 2
if need_python3 "diff --json"; then
    "$python3" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == 1 and d["command"] == "diff", d
assert d["a"]["era"] < d["b"]["era"] and len(d["growth"]) == 2
g = d["new"]["groups"][0]
assert g["info"]["label"] == "SessionEntry" and g["objects"] == int(sys.argv[2]), g
assert g["retainers"]["root"]["func"] == "session_cache", g["retainers"]["root"]
assert any(s["label"].startswith("SessionEntry") and s["alive_objects"] == s["a_objects"]
           for s in d["survivors"])
' "$out" "$((nb - na))" && pass || fail "diff --json: $(head -c 600 "$out")"
fi
expect_status 0 "$dbg" diff a.snap b.snap --by type --limit 3
grep -Eq '^ +[0-9,]+ +[0-9,]+ +[0-9,]+ +[0-9,]+ +\+[0-9,]+  SessionEntry$' "$out" && pass ||
    fail "diff --by type: $(cat "$out")"
expect_status 0 "$dbg" diff a.snap --socket "$sock"
grep -q '^new and alive' "$out" && pass || fail "diff against the live program: $(cat "$out")"
# B was taken without --new-era (mark came after it): the footer says that
# what the program allocated in B's era after B counts as alive at B ...
b_era=$(sed -En 's/^B: b\.snap, era ([0-9]+),.*/\1/p' diff.txt)
expect_status 0 "$dbg" diff b.snap --socket "$sock"
grep -qx "A records no new era, so objects allocated in era $b_era after A (before the next era began) count as alive at A (take A with snapshot --new-era to tell them apart)" "$out" &&
    pass || fail "diff from a plain snapshot: the footer: $(tail -1 "$out")"
# ... and, with B still in that era, that all of it does.
expect_status 0 "$dbg" diff b.snap b.snap
grep -qx "A records no new era and B is still in era $b_era, so objects allocated after A count as alive at A (take A with snapshot --new-era to tell them apart)" "$out" &&
    pass || fail "diff of one era: the footer: $(tail -1 "$out")"

# --- a tree built and dropped between the snapshots --------------------------------
depth=10
sock2=$test_tmp/steady.sock
"$top_builddir/bench/debug/steady-heap" $depth +RTS --debug-socket="$sock2" -RTS >s.out 2>s.err &
pids+=($!)
wait_socket "$sock2" || finish
sleep 0.3
expect_status 0 "$dbg" snapshot s1.snap --socket "$sock2" --new-era
sleep 0.3
expect_status 0 "$dbg" snapshot s2.snap --socket "$sock2"
expect_status 0 "$dbg" diff s1.snap s2.snap
# The long-lived tree survives whole (A may also hold part of a depth-4
# tree, dead by B); of the depth-4 trees built since A (thousands), at
# most the one being built is alive.
tree=$(( (1 << (depth + 1)) - 1 ))
grep -Eq "^ +[0-9,]+ +[0-9,]+ +$(grp $tree) +[0-9,]+ +[0-9.]+%  Node \(CONSTR_2_0\)$" "$out" && pass ||
    fail "diff: the long-lived tree of $tree Nodes does not survive whole: $(grep Node "$out")"
# The section must be there, with its count: nothing new is alive but
# that tree, so at most 31 objects.
new_objects=$(sed -En 's/^new and alive: ([0-9,]+) objects \(.*/\1/p' "$out" | tr -d ,)
if [ -z "$new_objects" ]; then
    fail "diff: no \"new and alive: N objects\" section: $(cat "$out")"
else
    [ "$new_objects" -le 31 ] && pass ||
        fail "diff: $new_objects new objects alive, more than one depth-4 tree (31): $(sed -n '/^new and alive/,/groups* shown/p' "$out")"
fi

# --- snapshots of format 1 still read; bad input ------------------------------------
expect_status 2 "$dbg" diff a.snap b.snap c.snap
expect_stderr_contains "takes two heaps, A and B; 'c.snap' is a third"
expect_status 2 "$dbg" diff a.snap
expect_stderr_contains "expects A.snap and then B.snap or --socket PATH"
expect_status 1 "$dbg" diff b.snap a.snap
expect_stderr_contains "is older than A"
expect_status 1 "$dbg" diff a.snap s1.snap
expect_stderr_contains "A is of program 'leak', B of 'steady-heap'"
expect_status 2 "$dbg" diff a.snap b.snap --by colour
expect_stderr_contains "--by expects info, type, module or era, got 'colour'"
head -c 1000 a.snap >cut.snap
expect_status 1 "$dbg" diff cut.snap b.snap
expect_stderr_contains "A: cut.snap: corrupt snapshot: checksum mismatch"
expect_status 1 "$dbg" diff a.snap missing.snap
expect_stderr_contains "missing.snap: cannot open"
expect_status 1 "$dbg" mark --snapshot a.snap
expect_stderr_contains "mark: a snapshot cannot start a new era"
expect_status 2 "$dbg" census --snapshot a.snap --new-era
expect_stderr_contains "strata-debug: census: unknown option: --new-era"
# Snapshots of format 1 (no moment) and 2 (no new era) still read, with
# the same answers; a version this strata-debug does not know is refused,
# naming it.
if need_python3 "snapshots of formats 1 and 2 and version 9"; then
    "$python3" - a.snap v1.snap v2.snap v9.snap v3.snap <<'PY'
import struct, sys

def seal(d):
    h = 1469598103934665603   # the offset basis Snapshot.c uses
    m = 2**64 - 1
    full = len(d) // 8 * 8
    for i in range(0, full, 8):
        h = ((h ^ struct.unpack("<Q", d[i:i + 8])[0]) * 0x100000001b3) & m
    tail = int.from_bytes(d[full:], "little")
    h = ((h ^ tail) * 0x100000001b3) & m
    h = ((h ^ len(d)) * 0x100000001b3) & m
    return bytes(d) + struct.pack("<Q", h)

d = bytearray(open(sys.argv[1], "rb").read()[:-8])
at = 12 + 40
for _ in range(2):   # program, strata version
    at += 2 + struct.unpack("<H", d[at:at + 2])[0]
# Formats 1 to 3 have no allocation sites (format 4's last field: a count
# of 0 here); 1 has no moment (8 bytes after VERSION), 2 no new era (8 more).
assert d[-4:] == bytes(4)
d = d[:-4]
v1 = d[:at] + d[at + 16:]
v1[8:12] = struct.pack("<I", 1)
open(sys.argv[2], "wb").write(seal(v1))
v2 = d[:at + 8] + d[at + 16:]
v2[8:12] = struct.pack("<I", 2)
open(sys.argv[3], "wb").write(seal(v2))
v3 = bytearray(d)
v3[8:12] = struct.pack("<I", 3)
open(sys.argv[5], "wb").write(seal(v3))
d[8:12] = struct.pack("<I", 9)
open(sys.argv[4], "wb").write(seal(d))
PY
    "$dbg" census --snapshot a.snap --by info >census-v4.txt
    for v in v1 v2 v3; do
        expect_status 0 "$dbg" census --snapshot $v.snap --by info
        cmp -s "$out" census-v4.txt && pass || fail "a snapshot of format ${v#v} answers differently"
    done
    expect_status 0 "$dbg" diff v1.snap b.snap
    grep -q "^A: v1.snap, era $a_era$" "$out" && pass ||
        fail "diff: a format-1 A has no time, but its era: $(head -1 "$out")"
    # Format 2 has the time but not the new era: the footer says only what A records.
    expect_status 0 "$dbg" diff v2.snap b.snap
    grep -q "^A: v2.snap, era $a_era, taken " "$out" && grep -q "^A records no new era, so objects allocated in era $a_era after A" "$out" &&
        pass || fail "diff: a format-2 A: $(head -1 "$out") ... $(tail -1 "$out")"
    expect_status 1 "$dbg" census --snapshot v9.snap
    expect_stderr_contains "snapshot version 9, this strata-debug reads versions 1 to 4"
fi
finish
