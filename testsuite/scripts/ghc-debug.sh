#!/usr/bin/env bash
# testsuite/scripts/ghc-debug.sh -- strata-debug on GHC 9.10.3 programs
# (issue 53, docs/strata-debug-ghc.md): the GHC stub
# (build/ghc/strata-ghc-debug.c) compiled into the programs of
# testsuite/ghc-debug/ by the sid chroot's ghc (scripts/ghc-sid.sh), with
# warnings as errors:
#   - MapHeld: a Data.Map of exactly 100,000 entries; the census counts
#     100,000 Bin nodes and 100,000 keys, and agrees with GHC's own -hT
#     census of the same steady heap, read from its eventlog by ghc-events
#     0.20 (GhcCensus.hs: the last census with the map in it, before the
#     one taken at exit), on every label above 1% of the heap;
#   - Leak (-finfo-table-map): the session cache's retainer path names the
#     function that allocates the entries and the cache, and the
#     fragmentation report the pinned ByteStrings that keep blocks alive;
#     every other command runs on it, the TUI (tmux) shows its frames;
#   - Lazy: exactly 1,000 thunks, 999 duplicate copies, and the bytes each
#     of its two lists retains (dominators); diff and mark on a heap
#     without eras;
#   - Workers (-threaded +RTS -N2): paused again and again mid-work, its
#     output is that of a run never paused;
#   - Eras (-prof, +RTS -he): census by era, the era boundary, a snapshot
#     starting a new era and the diff; the census by era agrees with GHC's
#     -he census;
#   - list and --pid: a program's socket at the default path, and one at a
#     path of its own registered as strata's own stub registers it;
#   - bad input: the stub compiled by another ghc, a heap of another GHC
#     version, a program without the stub or with it never started, one
#     without -threaded, a socket path that is a file, eras on a heap
#     without them.
# The programs are built in the chroot once per version of their sources
# and kept there (sid_programs in sid-lib.sh).  Without the chroot
# it skips, naming ghc-sid (a failure under STRATA_REQUIRE=all, as in CI).
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sid-lib.sh"
sid_setup "strata-debug was not tried on GHC programs"
need_python3 "strata-debug on GHC programs" || finish

dbg=$top_builddir/utils/strata-debug/strata-debug
stub=$top_builddir/ghc/strata-ghc-debug.c
src=$top_srcdir/testsuite/ghc-debug
pids=()
trap 'tmux -S "$test_tmp/tmux.sock" kill-server 2>/dev/null; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$test_tmp"' EXIT
cd "$test_tmp" || exit 1
# The programs' socket directory (list, --pid, the registry) is the test's.
export XDG_RUNTIME_DIR=$test_tmp/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"
reg=$XDG_RUNTIME_DIR/strata/debug

# ---- building the programs (once per version of their sources) -------------
# The stub with warnings as errors, and each program statically linked so
# that it runs on this host.
S='strata-ghc-debug.c -optc-Wall -optc-Wextra -optc-Werror'
sid_programs ghcdebug unthreaded "
    ghc -O -v0 -optl-static -package ghc-events -outputdir c.d GhcCensus.hs -o ghc-census &&
    ghc -O -v0 -threaded -rtsopts -optl-static -outputdir m.d MapHeld.hs $S -o map-held &&
    ghc -O -v0 -threaded -rtsopts -optl-static -finfo-table-map -fdistinct-constructor-tables \
        -outputdir l.d Leak.hs $S -o leak &&
    ghc -O -v0 -threaded -rtsopts -optl-static -finfo-table-map -outputdir z.d Lazy.hs $S -o lazy &&
    ghc -O -v0 -threaded -rtsopts -optl-static -outputdir w.d Workers.hs $S -o workers &&
    ghc -O -v0 -prof -threaded -rtsopts -optl-static -outputdir e.d Eras.hs $S -o eras &&
    ghc -O -v0 -threaded -rtsopts -optl-static -outputdir n.d NoStub.hs -o no-stub &&
    ghc -O -v0 -rtsopts -optl-static -outputdir u.d NoStub.hs $S -o unthreaded" \
    "$src"/*.hs "$stub" || setup_fail "$sid_why"
bin=$sid_bin

# start NAME ENV... -- CMD ARG...: runs CMD in the background (stdout
# NAME.out, stderr NAME.err) with the environment ENV, and waits for its
# "ready" line; the file NAME.stop ends it (stop NAME).
start() {
    local name=$1 envs=()
    shift
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$@" >"$name.out" 2>"$name.err" &
    eval "pid_$name=$!"
    pids+=("$!")
    for _ in $(seq 300); do
        grep -q '^ready$' "$name.out" 2>/dev/null && return 0
        kill -0 "$!" 2>/dev/null || break
        sleep 0.1
    done
    setup_fail "$name did not start: $(cat "$name.out" "$name.err" | head -n 5)"
}

# stop NAME: ends a program start ran and checks that it exits 0.
stop() {
    local pid
    eval "pid=\$pid_$1"
    touch "$1.stop"
    wait "$pid" && pass || fail "$1 exited with $?: $(tail -n 5 "$1.err")"
}

# json_check WHAT FILE PYTHON: the JSON document in FILE as d, then
# PYTHON's assertions about WHAT.
json_check() {
    "$python3" - "$2" "$3" >py.err 2>&1 <<'EOF' && pass || fail "$1: $(tail -n 1 py.err)"
import json, sys
d = json.load(open(sys.argv[1]))
def bucket(label):
    return next((b for b in d["buckets"] if b["label"] == label), {"bytes": 0, "objects": 0})
exec(sys.argv[2])
EOF
}

# agree OURS GHC [prof]: strata-debug's census (--json) and GHC's
# (label<TAB>bytes) of one steady heap: the same bytes on every label over
# 1% of the heap, but for two known differences.  GHC 9.10 counts a pinned
# block as its first byte array only (heapCensusChain takes any large
# block that starts with an ARR_WORDS for one object), strata-debug every
# object of a pinned block that holds a live one: ARR_WORDS may only be
# more.  A -prof census leaves out each object's profiling header (two
# words), which strata-debug counts: with prof, 16 bytes an object come
# off its side, and only eras 2-5 (the program's steady ones) are compared.
agree() {
    "$python3" - "$@" >agree.txt 2>&1 <<'EOF' && pass || fail "the census and GHC's disagree: $(cat agree.txt)"
import json, sys
prof = len(sys.argv) > 3
ours = {b["label"]: b["bytes"] - (16 * b["objects"] if prof else 0)
        for b in json.load(open(sys.argv[1]))["buckets"]}
ghc = {}
for line in open(sys.argv[2]):
    label, n = line.rstrip("\n").rsplit("\t", 1)
    ghc[label] = int(n)
total = sum(ghc.values())
big = sorted(l for l in set(ours) | set(ghc) if max(ours.get(l, 0), ghc.get(l, 0)) * 100 > total)
if prof:
    big = [l for l in big if l in ("2", "3", "4", "5")]
bad = [(l, ours.get(l, 0), ghc.get(l, 0)) for l in big
       if ours.get(l, 0) != ghc.get(l, 0) and not (l == "ARR_WORDS" and ours[l] > ghc.get(l, 0))]
print("labels over 1%%: %s; totals: strata-debug %d, GHC %d" % (big, sum(ours.values()), total))
if bad:
    print("differ (label, strata-debug, GHC):", bad)
sys.exit(1 if bad or not big else 0)
EOF
}

# ---- MapHeld: exactly 100,000 entries, and GHC's own census ------------------
start map STRATA_DEBUG_SOCKET="$test_tmp/map.sock" -- "$bin/map-held" map.stop 100000 \
    +RTS -hT -i0.05 -l -olmap.eventlog -RTS
# A socket at a path of the program's own is registered for list and --pid
# (Note [The socket registry] in support/DebugRegistry.c).
expect_status 0 "$dbg" list
grep -q "^$pid_map *map-held *$test_tmp/map.sock$" "$out" && pass ||
    fail "list does not show map-held at its socket: $(cat "$out")"
[ "$(readlink "$reg/$pid_map-map-held")" = "$test_tmp/map.sock" ] && pass ||
    fail "the registry has no link to map.sock: $(ls -l "$reg")"
expect_status 0 "$dbg" census --socket map.sock --json
cp "$out" map.census.json
json_check "the census of MapHeld" map.census.json '
bin = [b for b in d["buckets"] if b["label"].endswith(":Data.Map.Internal.Bin")]
assert len(bin) == 1 and bin[0]["objects"] == 100000, "100,000 Bin nodes: %s" % bin
assert bucket("main:Main.Key")["objects"] == 100000, "100,000 keys: %s" % bucket("main:Main.Key")'
expect_status 0 "$dbg" retainers --socket map.sock --constructor Bin --limit 1
grep -q '^    root: stack frame' "$out" && pass || fail "a Bin's path does not end at a stack frame: $(cat "$out")"
expect_status 0 "$dbg" snapshot map.snap --socket map.sock
expect_status 0 "$dbg" census --snapshot map.snap --json
cp "$out" map.snap.json
json_check "the census of MapHeld's snapshot" map.snap.json '
assert [b["objects"] for b in d["buckets"] if b["label"].endswith(":Data.Map.Internal.Bin")] == [100000]
assert bucket("main:Main.Key")["objects"] == 100000'
expect_status 0 "$dbg" retainers --snapshot map.snap --constructor Key --limit 1
grep -q '^    root: stack frame' "$out" && pass || fail "the snapshot's path of a Key: $(cat "$out")"
stop map
[ ! -L "$reg/$pid_map-map-held" ] && [ ! -e map.sock ] && pass ||
    fail "map-held left its socket or its link behind: $(ls -l "$reg" map.sock 2>&1)"
expect_status 0 "$bin/ghc-census" map.eventlog main:Main.Key
cp "$out" map.ghc
agree map.census.json map.ghc

# ---- Leak: who holds the sessions, and the pinned blocks they keep ----------
start leak -- "$bin/leak" "$test_tmp/leak.sock" 20000 leak.stop +RTS -hT -i0.05 -l -olleak.eventlog -RTS
expect_status 0 "$dbg" retainers --socket leak.sock --constructor SessionEntry --limit 1
cp "$out" leak.retainers
# The entry's table names the function that allocates it (IPE), the path
# ends at the frame of the function that holds the cache.
grep -q '^    0x[0-9a-f]*  main:Main.SessionEntry  CONSTR_1_1  era 0  small gen [01]  \[remember in Main, .*Leak.hs:' leak.retainers &&
    pass || fail "the session's line does not name remember: $(cat leak.retainers)"
grep -q '^    root: stack frame main[.a-z]* (.*Leak.hs.*), frame [0-9]* slot [0-9]*, thread [0-9]*$' leak.retainers &&
    pass || fail "the path does not end at main's frame: $(cat leak.retainers)"
expect_status 0 "$dbg" fragmentation --socket leak.sock --retainers 2
cp "$out" leak.frag
grep -q '^    0- 10%  *[1-9]' leak.frag && pass || fail "no pinned block under 10% used: $(head -n 16 leak.frag)"
[ "$(grep -c '^object [12], in pinned block 0x[0-9a-f]* ([0-9]* of 4096 bytes live):$' leak.frag)" = 2 ] &&
    pass || fail "fragmentation did not show two pinned blocks' objects: $(cat leak.frag)"
# Each kept block's object is the payload of a session's ByteString.
[ "$(grep -c '^    <- 0x[0-9a-f]*  bytestring-[^ ]*:Data.ByteString.Internal.Type.BS ' leak.frag)" = 2 ] &&
    [ "$(grep -c '^    <- 0x[0-9a-f]*  main:Main.SessionEntry ' leak.frag)" = 2 ] &&
    pass || fail "the pinned objects are not shown held by a session's ByteString: $(cat leak.frag)"
# Every other analysis runs on a GHC heap.
for cmd in "census --retained" "census --by info" "thunks" "duplicates" "dominators --limit 3" \
    "weaks" "roots"; do
    expect_status 0 "$dbg" $cmd --socket leak.sock
    [ -s "$out" ] && pass || fail "$cmd printed nothing"
done
expect_status 0 "$dbg" census --by module --socket leak.sock
grep -q '  Main$' "$out" && pass || fail "census --by module names no module Main: $(cat "$out")"
expect_status 0 "$dbg" gml leak.gml --socket leak.sock
grep -q 'label "main:Main.SessionEntry 0x' leak.gml && pass || fail "the GML graph has no SessionEntry"
# The TUI on a GHC heap: its roots view opens on the stack frames.
if command -v tmux >/dev/null 2>&1; then
    tsock=$test_tmp/tmux.sock
    tmux -S "$tsock" new-session -d -s tui -x 130 -y 40 "$dbg tui --socket $test_tmp/leak.sock" 2>tmux.err ||
        setup_fail "tmux cannot start a session: $(head -n 1 tmux.err)"
    for _ in $(seq 100); do
        tmux -S "$tsock" capture-pane -p -t tui >screen.txt 2>/dev/null
        grep -q '^  - frame [0-9]*: catch frame$' screen.txt && break
        sleep 0.1
    done
    grep -q '^- Stack frames ([0-9]* frames, [0-9]* slots)$' screen.txt &&
        grep -q '^  - frame [0-9]*: catch frame$' screen.txt && ! grep -q '(:0)' screen.txt &&
        pass || fail "the TUI did not show the stack frames: $(cat screen.txt)"
    tmux -S "$tsock" send-keys -t tui q
    for _ in $(seq 50); do tmux -S "$tsock" has-session -t tui 2>/dev/null || break; sleep 0.1; done
    tmux -S "$tsock" kill-server 2>/dev/null
else
    skip_part tmux "tmux is not installed: the TUI was not tried on a GHC heap"
fi
expect_status 0 "$dbg" census --socket leak.sock --json
cp "$out" leak.census.json
stop leak
expect_status 0 "$bin/ghc-census" leak.eventlog main:Main.SessionEntry
cp "$out" leak.ghc
agree leak.census.json leak.ghc

# ---- Lazy: thunks, duplicates, retained sizes, and a diff without eras -------
start lazy STRATA_DEBUG_SOCKET="$test_tmp/lazy.sock" -- "$bin/lazy" lazy.stop
expect_status 0 "$dbg" thunks --socket lazy.sock --json
cp "$out" lazy.thunks.json
json_check "the thunks of Lazy" lazy.thunks.json '
slow = [b for b in d["buckets"] if b["label"].endswith(" (Main)")]
assert [(b["objects"], b["bytes"]) for b in slow] == [(1000, 24000)], "1,000 thunks of slow: %s" % d["buckets"]'
expect_status 0 "$dbg" duplicates --socket lazy.sock --json
cp "$out" lazy.dups.json
json_check "the duplicates of Lazy" lazy.dups.json '
hit = [b for b in d["buckets"] if b["label"].startswith("main:Main.Hit ")]
assert [(b["objects"], b["bytes"]) for b in hit] == [(999, 15984)], "999 copies of Hit 0: %s" % d["buckets"]'
# Each list dominates its cells and what they alone hold: 1,000 cells of 24
# bytes, and 1,000 thunks of 24 bytes or 1,000 Hits of 16.
expect_status 0 "$dbg" dominators --limit 10 --socket lazy.sock --json
cp "$out" lazy.dom.json
json_check "the dominators of Lazy" lazy.dom.json '
cells = {(o["retained_bytes"], o["retained_objects"]) for o in d["objects"]
         if o["closure"]["label"] == "ghc-prim:GHC.Types.:"}
assert {(48000, 2000), (40000, 2000)} <= cells, "the two lists: %s" % d["objects"]'
# Without eras, diff shows growth and says why it cannot tell new from old;
# mark says why it cannot start an era.
expect_status 0 "$dbg" snapshot lazy.snap --socket lazy.sock
expect_status 0 "$dbg" diff lazy.snap --socket lazy.sock --limit 100
grep -q '^ *1,000 *16,000 *1,000 *16,000 *0  main:Main.Hit ' "$out" &&
    grep -q '^new and alive, survivors: not told apart, the heap has no eras (a GHC program has eras only when built with -prof and run with +RTS -he)$' "$out" &&
    pass || fail "the diff of a heap without eras: $(cat "$out")"
expect_status 1 "$dbg" mark --socket lazy.sock
expect_stderr_contains "mark: a new era needs eras, and this heap has none: a GHC program has eras only when built with -prof and run with +RTS -he"
stop lazy

# ---- Workers: paused mid-work, on two capabilities, resumes unharmed --------
expect_status 0 "$bin/workers" 3000 +RTS -N2 -RTS
cp "$out" workers.alone
STRATA_DEBUG_SOCKET=$test_tmp/workers.sock "$bin/workers" 3000 +RTS -N2 -RTS >workers.out 2>workers.err &
workers=$!
pids+=("$workers")
wait_socket workers.sock
paused=0
while kill -0 "$workers" 2>/dev/null && [ "$paused" -lt 5 ]; do
    "$dbg" census --socket workers.sock --stats >census.$paused 2>stats.$paused &&
        grep -q '^total [0-9]* bytes in [0-9]* objects$' census.$paused && paused=$((paused + 1))
done
wait "$workers" && pass || fail "workers exited with $?: $(cat workers.err)"
[ "$paused" -ge 3 ] && pass || fail "only $paused censuses while the workers ran: $(cat stats.* 2>/dev/null)"
cmp -s workers.alone workers.out && pass ||
    fail "the paused run printed $(cat workers.out), the run never paused $(cat workers.alone)"

# ---- Eras: a -prof program run with +RTS -he ---------------------------------
start eras STRATA_DEBUG_SOCKET="$test_tmp/eras.sock" -- "$bin/eras" eras.stop \
    +RTS -he -i0.05 -l -oleras.eventlog -RTS
expect_status 0 "$dbg" census --by era --socket eras.sock --json
cp "$out" eras.census.json
json_check "the census of Eras by era" eras.census.json '
for e in "2", "3", "4", "5":
    assert bucket(e)["bytes"] > 0 and bucket(e)["bytes"] == bucket("3")["bytes"], "era %s: %s" % (e, d["buckets"])'
expect_status 0 "$dbg" boundary --socket eras.sock --era 1-2 --limit 1
grep -q '^1\. [0-9,]* bytes ([0-9,]* objects) kept by 1 ghc-prim:GHC.Types.: (CONSTR_2_0, 0x[0-9a-f]*, era 3)$' "$out" &&
    grep -q '^    -> 0x[0-9a-f]*  ghc-prim:GHC.Types.:  CONSTR_2_0  era 2 ' "$out" &&
    pass || fail "the boundary of eras 1-2 is not the list cell of era 3: $(cat "$out")"
expect_status 0 "$dbg" snapshot eras-a.snap --new-era --socket eras.sock
expect_stderr_contains 'the program resumes in era 7' "$out"
expect_status 0 "$dbg" snapshot eras-b.snap --socket eras.sock
expect_status 0 "$dbg" diff eras-a.snap eras-b.snap
grep -q '^new and alive: [0-9,]* objects ([0-9,]* bytes) of B of eras after 6' "$out" &&
    grep -q '^ *5,000 *200,000 *5,000 *200,000 100.0%  main:Main.Session' "$out" &&
    pass || fail "the diff of two moments of Eras: $(cat "$out")"
stop eras
expect_status 0 "$top_builddir/utils/strata-events/strata-events" show eras.eventlog
grep -q 'marker.*strata-debug: era 7' "$out" && pass ||
    fail "the new era's marker is not in the eventlog: $(grep -i marker "$out" | head -n 3)"
expect_status 0 "$bin/ghc-census" eras.eventlog 5
cp "$out" eras.ghc
agree eras.census.json eras.ghc prof

# ---- the default path: strata_ghc_debug_start("") -------------------------------
start dflt -- "$bin/leak" "" 100 dflt.stop
[ -S "$reg/$pid_dflt-leak" ] && [ "$(stat -c %a "$reg")" = 700 ] && pass ||
    fail "no socket $reg/$pid_dflt-leak in a directory of mode 700: $(ls -la "$reg")"
expect_status 0 "$dbg" list
grep -q "^$pid_dflt *leak *$reg/$pid_dflt-leak$" "$out" && pass ||
    fail "list does not show leak at the default path: $(cat "$out")"
expect_status 0 "$dbg" census --pid "$pid_dflt"
grep -q '  main:Main.SessionEntry$' "$out" && pass || fail "census --pid: $(cat "$out")"
stop dflt
[ ! -e "$reg/$pid_dflt-leak" ] && pass || fail "leak left its socket behind: $(ls -l "$reg")"

# ---- bad input -----------------------------------------------------------------
start nostub -- "$bin/no-stub" nostub.stop
expect_status 1 "$dbg" census --pid "$pid_nostub"
expect_stderr_contains "(no-stub) is a GHC program built without strata's debug stub: compile share/strata/ghc/strata-ghc-debug.c into it"
stop nostub
start idle -- "$bin/map-held" idle.stop 10
expect_status 1 "$dbg" census --pid "$pid_idle"
expect_stderr_contains "(map-held) is a GHC program with strata's debug stub that never started it: call strata_ghc_debug_start, or run it with STRATA_DEBUG_SOCKET=PATH"
stop idle
expect_status 1 env STRATA_DEBUG_SOCKET="$test_tmp/u.sock" "$bin/unthreaded" u.stop
expect_stderr_contains "strata-ghc-debug: the program is not linked with -threaded"
echo precious >notasocket
expect_status 1 env STRATA_DEBUG_SOCKET="$test_tmp/notasocket" "$bin/map-held" x.stop 10
expect_stderr_contains "strata-ghc-debug: $test_tmp/notasocket exists and is not a socket; refusing to replace it"
[ "$(cat notasocket)" = precious ] && pass || fail "the file at the socket's path was changed"
# A stub of another GHC version (its snapshot, renamed): refused by name.
"$python3" - map.snap other.snap <<'EOF' && pass || fail "could not rename the heap of map.snap"
import sys
d = bytearray(open(sys.argv[1], "rb").read())
at = d.find(b"ghc-9.10.3")
assert at > 0
d[at:at + 10] = b"ghc-9.12.1"
body = bytes(d[:-8])
h, M, i = 1469598103934665603, (1 << 64) - 1, 0
while i + 8 <= len(body):
    h = ((h ^ int.from_bytes(body[i:i + 8], "little")) * 1099511628211) & M
    i += 8
h = ((h ^ int.from_bytes(body[i:].ljust(8, b"\0"), "little")) * 1099511628211) & M
h = ((h ^ len(body)) * 1099511628211) & M
open(sys.argv[2], "wb").write(body + h.to_bytes(8, "little"))
EOF
expect_status 1 "$dbg" census --snapshot other.snap
expect_stderr_contains "the program's heap is ghc-9.12.1's, which this strata-debug cannot read: it reads strata's heap and GHC 9.10's"
# A heap without eras says why an analysis of eras cannot apply.
expect_status 1 "$dbg" boundary --era 1-2 --snapshot map.snap
expect_stderr_contains "boundary: the era boundary needs eras, and this heap has none: a GHC program has eras only when built with -prof and run with +RTS -he"
expect_status 1 "$dbg" census --by era --snapshot map.snap
expect_stderr_contains "census --by era: this heap has no eras"

# ---- the stub compiled by another GHC ---------------------------------------
if command -v ghc >/dev/null 2>&1 && ! ghc --numeric-version | grep -q '^9\.10\.'; then
    cp "$stub" other.c
    expect_status 1 ghc -c other.c -o other.o
    grep -q "this ghc is GHC $(ghc --numeric-version)" "$out" "$err" && pass ||
        fail "the stub's refusal does not name ghc $(ghc --numeric-version): $(cat "$out" "$err" | head -n 5)"
    grep -q "reads the heap of GHC 9.10 only" "$out" "$err" && pass ||
        fail "the stub's refusal does not name GHC 9.10: $(cat "$out" "$err" | head -n 5)"
else
    skip_part ghc "no ghc other than 9.10 on this host: the stub's refusal of another version was not tried"
fi

finish
