#!/usr/bin/env bash
# testsuite/scripts/debug.sh -- the heap debugger as a user runs it: the
# examples started with the debug stub, strata-debug's commands against
# them live and from snapshots, the leak's retainer paths, era filters,
# sockets found by list/--pid, a path that holds a file, a link or a
# live socket refused (a stale one taken), another user refused, pausing a busy
# program many times, and every kind of bad input.
set -u
. "$(dirname "$0")/lib.sh"

ex=$top_builddir/examples
dbg=$top_builddir/utils/strata-debug/strata-debug
cd "$test_tmp" || exit 1
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$test_tmp"' EXIT

# Runs CMD until its stdout matches the extended regex PATTERN (a program
# just started may not have built what we look for yet); at most 50 times.
until_output() {
    local pattern=$1
    shift
    for _ in $(seq 50); do
        "$@" >"$out" 2>"$err" && grep -Eq -e "$pattern" "$out" && return 0
        sleep 0.1
    done
    return 1
}

# --- the leak example, live ------------------------------------------------------
sock=$test_tmp/leak.sock
"$ex/leak" 100000 1500000 +RTS --debug-socket="$sock" -RTS >leak.out 2>leak.err &
leak_pid=$!
pids+=("$leak_pid")
wait_socket "$sock"
[ "$(stat -c %a "$sock")" = 600 ] && pass || fail "socket mode is $(stat -c %a "$sock"), not 600"

until_output ' SessionEntry$' "$dbg" census --socket "$sock" && pass ||
    fail "census by type never showed SessionEntry"
grep -q '^total [0-9]* bytes in [0-9]* objects$' "$out" && pass || fail "census lacks its total"

expect_status 0 "$dbg" census --socket "$sock" --by module
grep -q ' Cache$' "$out" && pass || fail "census by module lacks Cache"

# The leaked structure: SessionEntry first, held by the static session cache.
expect_status 0 "$dbg" retainers --socket "$sock" --constructor SessionEntry --limit 1
sed -n 2p "$out" | grep -q '  SessionEntry  CONSTR  era [0-9]*  .*\[remember in Cache, examples/leak.c:49:5-60\]' &&
    pass || fail "retainers: first line is not the SessionEntry with its provenance"
# The static is named from the program's symbol table and DWARF.
cache_line=$(grep -n '^static StgMutVar session_cache = ' "$top_srcdir/examples/leak.c" | cut -d: -f1)
grep -Eq "<- 0x[0-9a-f]*  MUT_VAR_(CLEAN|DIRTY)  MUT_VAR_(CLEAN|DIRTY)  static session_cache \(.*examples/leak\.c:$cache_line\)(  \[.*\])?$" "$out" && pass ||
    fail "retainers: the path does not reach the static session cache, named (leak.c:$cache_line)"
grep -Eq "^    root: static closure session_cache \(.*examples/leak\.c:$cache_line\)$" "$out" && pass ||
    fail "retainers: root is not the static session_cache"
expect_status 0 "$dbg" roots --socket "$sock"
grep -Eq "^    root: static closure session_cache \(.*examples/leak\.c:$cache_line\)$" "$out" && pass ||
    fail "roots: the static session cache is not named"
# Each static closure is one root, however often it was written (issue 22).
n_cache=$(grep -c "static closure session_cache" "$out")
[ "$n_cache" = 1 ] && pass || fail "roots: session_cache is listed $n_cache times, not once"

# Working data: a request's Chunks, held by the local-root frame of handle().
# The pause may land outside handle() (in remember()), so try a few times.
handle_line=$(awk '/^static StgWord handle/ {f = 1} f && /STRATA_ROOTS\(r/ {print NR; exit}' \
    "$top_srcdir/examples/leak.c")
found=no
# (A pause with no Chunk live is an error: no live constructor of that name.)
for _ in $(seq 20); do
    "$dbg" retainers --socket "$sock" --constructor Chunk --limit 1 >"$out" 2>"$err"
    if grep -q "root: local-root frame handle (examples/leak.c:$handle_line), frame 0 slot 0" "$out"; then
        found=yes
        break
    fi
done
[ $found = yes ] && pass || fail "retainers: no Chunk held by handle's frame (leak.c:$handle_line)"
sed -n 2p "$out" | grep -q '  Chunk  CONSTR_1_1  era ' && pass || fail "retainers: match is not a Chunk"

# Era filters select exactly those eras.
expect_status 0 "$dbg" retainers --socket "$sock" --constructor SessionEntry --era 1-2 --limit 40
[ "$(grep -c '^match ' "$out")" -gt 0 ] && pass || fail "--era 1-2 matched nothing"
awk '/^match /{getline; print}' "$out" | grep -v '  era [12]  ' && fail "--era 1-2 matched another era" || pass
expect_status 0 "$dbg" census --socket "$sock" --by era --era 1-2
sed -n '2,$p' "$out" | grep -v '^total' | awk '{print $3}' | grep -vx '[12]' &&
    fail "census --era 1-2 has other eras" || pass
expect_status 0 "$dbg" census --socket "$sock" --by era
awk 'NR > 1 && !/^total/ {print $3}' "$out" | grep -qx 0 && fail "census --by era counted era 0" || pass

# --color shades lines by era.
expect_status 0 "$dbg" retainers --socket "$sock" --constructor SessionEntry --limit 1 --color
grep -q $'\033\\[48;5;' "$out" && pass || fail "--color printed no colour"

# Snapshot: written, read back, and the same analyses from it twice.
expect_status 0 "$dbg" snapshot leak.snap --socket "$sock"
[ -s leak.snap ] && pass || fail "snapshot wrote nothing"
expect_status 0 "$dbg" census --snapshot leak.snap
cp "$out" census1
expect_status 0 "$dbg" census --snapshot leak.snap
cmp -s "$out" census1 && pass || fail "two censuses of one snapshot differ"
expect_status 0 "$dbg" retainers --snapshot leak.snap --constructor SessionEntry --limit 2
grep -Eq "^    root: static closure session_cache \(.*examples/leak\.c:$cache_line\)$" "$out" && pass ||
    fail "snapshot retainers lack the named root"
# A constructor name no info table has: said so, with the nearest names.
expect_status 1 "$dbg" retainers --snapshot leak.snap --constructor SessionEntri
expect_stderr_contains "retainers: no constructor named 'SessionEntri' in the live heap (did you mean SessionEntry?)"
[ -s "$out" ] && fail "retainers with an unknown name printed on stdout" || pass
expect_status 1 "$dbg" retainers --snapshot leak.snap --constructor Zzzzzzzzzzzz
expect_stderr_contains "retainers: no constructor named 'Zzzzzzzzzzzz' in the live heap (no name is close; its constructors include "
# A known name that nothing matches in the eras asked for is no error.
expect_status 0 "$dbg" retainers --snapshot leak.snap --constructor SessionEntry --era 99999
grep -q '^0 matches shown' "$out" && pass || fail "retainers in an empty era did not say 0 matches"
for c in thunks duplicates fragmentation roots; do
    expect_status 0 "$dbg" $c --snapshot leak.snap
done
expect_status 0 "$dbg" gml leak.gml --snapshot leak.snap
head -1 leak.gml | grep -q '^graph \[' && grep -q 'edge \[' leak.gml && pass ||
    fail "gml file is not a graph with edges"

# --- finding the leak: folded paths, the era boundary, retained sizes --------------
# A leak whose phases (eras) go by quickly, snapshotted once era 4 is live.
fsock=$test_tmp/fast.sock
"$ex/leak" 100000 20000 +RTS --debug-socket="$fsock" -RTS >fast.out 2>fast.err &
fast_pid=$!
pids+=("$fast_pid")
wait_socket "$fsock"
until_output '^ +[0-9]+ +[0-9]+  4$' "$dbg" census --socket "$fsock" --by era --era 4 && pass ||
    fail "the fast leak never reached era 4"
expect_status 0 "$dbg" snapshot fast.snap --socket "$fsock"
kill "$fast_pid"
wait "$fast_pid" 2>/dev/null

# The path of an era-2 session is one line for the whole list of newer ones.
expect_status 0 "$dbg" retainers --snapshot fast.snap --constructor SessionEntry --era 2 --limit 1
sed -n 2p "$out" | grep -q '  SessionEntry  CONSTR  era 2  ' && pass || fail "the match is not an era-2 SessionEntry"
run_re='^    <- ([0-9,]+) × SessionEntry \(CONSTR, eras [23]–[0-9]+, gen [0-9]+(–[0-9]+)?\)  \[remember in Cache, examples/leak\.c:49:5-60\]  0x[0-9a-f]+ … 0x[0-9a-f]+$'
sed -n 3p "$out" | grep -Eq "$run_re" && pass || fail "retainers: line 3 is not the folded run: $(sed -n 3p "$out")"
run_n=$(sed -n 3p "$out" | sed -E "s#$run_re#\1#" | tr -d ,)
[ "$(grep -c '^    <- ' "$out")" = 2 ] && pass || fail "retainers: the folded path is not one run plus the static"
expect_status 0 "$dbg" retainers --snapshot fast.snap --constructor SessionEntry --era 2 --limit 1 --full
[ "$(grep -c '^    <- 0x[0-9a-f]*  SessionEntry  CONSTR  era ' "$out")" = "$run_n" ] && pass ||
    fail "retainers --full does not print the run's $run_n closures one a line"
grep -Eq '^    <- 0x[0-9a-f]+  MUT_VAR_(CLEAN|DIRTY)  .*static session_cache' "$out" && pass ||
    fail "retainers --full lacks the static cache"

# The boundary: the era-3 session holding the older ones, with their bytes:
# every live SessionEntry and payload of eras 1-2 (nothing else holds them).
expect_status 0 "$dbg" boundary --snapshot fast.snap --era 1-2
sed -n 2p "$out" | grep -Eq '^1\. [0-9,]+ bytes \([0-9,]+ objects\) kept by 1 SessionEntry \(CONSTR, 0x[0-9a-f]+, era 3\)  \[remember in Cache, examples/leak\.c:49:5-60\]$' &&
    pass || fail "boundary: the top holder is not the era-3 SessionEntry: $(sed -n 2p "$out")"
kept=$(sed -n 2p "$out" | sed -E 's/^1\. ([0-9,]+) bytes.*/\1/' | tr -d ,)
"$dbg" census --snapshot fast.snap --by type --era 1-2 >census12
old=$(awk '$3 == "SessionEntry" || $3 == "ARR_WORDS" {s += $1} END {print s}' census12)
[ "$kept" = "$old" ] && pass || fail "boundary: kept $kept bytes, the old sessions and payloads are $old"
expect_status 0 "$dbg" boundary --snapshot fast.snap --era 1-2 --type THUNK
grep -q '^0 holder kinds shown of 0' "$out" && pass || fail "boundary --type THUNK found holders"

# Retained sizes: the sessions keep their payloads; the cache keeps them all.
expect_status 0 "$dbg" census --snapshot fast.snap --retained
sed -n 1p "$out" | grep -Eq '^ +retained +bytes +objects  label$' && pass || fail "census --retained header"
awk '$4 == "SessionEntry" && $1 > $2 {ok = 1} END {exit !ok}' "$out" && pass ||
    fail "census --retained: SessionEntry retains no more than its own bytes"
expect_status 0 "$dbg" dominators --snapshot fast.snap --limit 3
sed -n 2p "$out" | grep -q 'static session_cache' && pass || fail "dominators: the cache is not on top"

# --json: one document per command, schema 1 (docs/strata-debug.md), the
# same answers as the text.
if need_python3 "--json output"; then
    json_check() {   # json_check COMMAND PYTHON-ASSERTIONS ARGS...
        local cmd=$1 check=$2
        shift 2
        "$dbg" "$cmd" "$@" --json >"$out" 2>"$err" || { fail "$cmd --json exited non-zero: $(head -c 300 "$err")"; return; }
        "$python3" -c "
import json, sys
d = json.load(open(sys.argv[1]))
assert d['schema'] == 1 and d['command'] == sys.argv[2], (d['schema'], d['command'])
$check
" "$out" "$cmd" 2>"$err" && pass || fail "$cmd --json: $(tail -1 "$err")"
    }
    json_check census "assert d['total_objects'] > 0 and any(b['label'] == 'SessionEntry' for b in d['buckets'])" --snapshot fast.snap
    json_check census "assert all('retained_bytes' in b for b in d['buckets']) and d['retained']" --snapshot fast.snap --retained
    json_check retainers "assert d['matches'][0]['path'][0]['count'] == $run_n and d['matches'][0]['root']['name'].startswith('session_cache')" \
        --snapshot fast.snap --constructor SessionEntry --era 2 --limit 1
    json_check retainers "assert len(d['matches'][0]['path']) == $run_n + 1 and all(s['count'] == 1 for s in d['matches'][0]['path'])" \
        --snapshot fast.snap --constructor SessionEntry --era 2 --limit 1 --full
    json_check retainers "assert d['matches'] == []" --snapshot fast.snap --constructor SessionEntry --era 99999
    json_check boundary "g = d['groups'][0]; assert g['retained_bytes'] == $kept and g['holder']['label'] == 'SessionEntry' and g['holder_eras'] == [3, 3]" \
        --snapshot fast.snap --era 1-2
    json_check dominators "assert d['objects'][0]['closure']['static'].startswith('session_cache') and d['objects'][0]['idom'] is None" \
        --snapshot fast.snap --limit 3
    json_check fragmentation "assert len(d['histogram']) == 10 and d['blocks'] > 0" --snapshot fast.snap
    for c in thunks duplicates roots; do
        json_check $c "assert d['target']['snapshot'] is True" --snapshot fast.snap
    done
    json_check snapshot "assert d['objects'] > 0 and d['file'] == 'again.snap'" again.snap --snapshot fast.snap
    json_check gml "assert d['objects'] > 0" again.gml --snapshot fast.snap
    json_check list "assert isinstance(d['sockets'], list)"
    # An investigation replayed in CI: no session of eras 1-2 may be live.
    # (The leak keeps them all, so the check fails, as it should.)
    "$dbg" census --snapshot fast.snap --by type --era 1-2 --json >leakcheck.json
    "$python3" -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(1 if any(b["label"] == "SessionEntry" for b in d["buckets"]) else 0)' leakcheck.json &&
        fail "the CI check found no old SessionEntry" || pass
fi
expect_status 1 "$dbg" tui --snapshot fast.snap --json
expect_stderr_contains "tui is interactive: it has no --json output"

# Files holding heap contents are the owner's alone, and never written
# through a symbolic link or over another user's file.
(umask 022 && "$dbg" snapshot private.snap --snapshot leak.snap && "$dbg" gml private.gml --snapshot leak.snap)
[ "$(stat -c %a private.snap)" = 600 ] && pass || fail "snapshot mode is $(stat -c %a private.snap) under umask 022, not 600"
[ "$(stat -c %a private.gml)" = 600 ] && pass || fail "gml mode is $(stat -c %a private.gml) under umask 022, not 600"
chmod 644 private.snap
expect_status 0 "$dbg" snapshot private.snap --snapshot leak.snap
[ "$(stat -c %a private.snap)" = 600 ] && pass || fail "a rewritten 0644 snapshot is $(stat -c %a private.snap), not 600"
echo untouched >victim
for cmd in snapshot gml; do
    ln -sf victim link.$cmd
    expect_status 1 "$dbg" $cmd link.$cmd --snapshot leak.snap
    expect_stderr_contains "$cmd: link.$cmd: is a symbolic link; refusing to write heap contents through it"
    [ -L link.$cmd ] && [ "$(cat victim)" = untouched ] && pass || fail "$cmd wrote through a symbolic link"
done
ln -s victim planted.snap.tmp   # the snapshot's temporary name, planted
expect_status 1 "$dbg" snapshot planted.snap --snapshot leak.snap
expect_stderr_contains "snapshot: planted.snap.tmp: is a symbolic link; refusing to write heap contents through it"
[ "$(cat victim)" = untouched ] && [ ! -e planted.snap ] && pass || fail "snapshot wrote through its planted temporary name"
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
    for cmd in snapshot gml; do
        echo theirs >theirs.$cmd
        chown nobody theirs.$cmd
        expect_status 1 "$dbg" $cmd theirs.$cmd --snapshot leak.snap
        expect_stderr_contains "$cmd: theirs.$cmd: belongs to another user (uid=$(id -u nobody), ours=0); refusing to overwrite it"
        [ "$(cat theirs.$cmd)" = theirs ] && pass || fail "$cmd overwrote another user's file"
    done
else
    skip_part root "another user's file (needs root and user nobody)"
fi

# A corrupt or truncated snapshot is named as such.
cp leak.snap bad.snap
printf '\x55' | dd of=bad.snap bs=1 seek=100 conv=notrunc status=none
expect_status 1 "$dbg" census --snapshot bad.snap
expect_stderr_contains "corrupt snapshot: checksum mismatch"
head -c 1000 leak.snap >short.snap
expect_status 1 "$dbg" census --snapshot short.snap
expect_stderr_contains "corrupt snapshot"
printf 'hello' >notsnap
expect_status 1 "$dbg" census --snapshot notsnap
expect_stderr_contains "not a strata-debug snapshot"

# --- another user is refused ----------------------------------------------------------
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
    as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
    # The socket's mode keeps nobody out before the stub is even asked...
    chmod o+x "$test_tmp"
    expect_status 1 as_nobody "$dbg" census --socket "$sock"
    expect_stderr_contains "Permission denied"
    # ... and with the file opened up, the stub's uid check refuses them.
    chmod 666 "$sock"
    expect_status 1 as_nobody "$dbg" census --socket "$sock"
    expect_stderr_contains "refused: uid $(id -u nobody) may not debug a program of uid 0"
    chmod 600 "$sock"
    chmod o-x "$test_tmp"
    # The program is unharmed.
    expect_status 0 "$dbg" census --socket "$sock"
else
    skip_part root "other-uid refusal (needs root, setpriv and user nobody)"
fi

kill "$leak_pid"
wait "$leak_pid" 2>/dev/null

# An explicit --debug-socket=PATH beats STRATA_DEBUG_SOCKET.
STRATA_DEBUG_SOCKET=$test_tmp/env.sock "$ex/leak" 100000 +RTS --debug-socket="$test_tmp/flag.sock" \
    -RTS >/dev/null 2>&1 &
prec_pid=$!
pids+=("$prec_pid")
wait_socket "$test_tmp/flag.sock" && [ ! -e "$test_tmp/env.sock" ] && pass ||
    fail "--debug-socket=PATH did not take precedence over STRATA_DEBUG_SOCKET"
# A socket another program listens on is refused, not taken over.
expect_status 1 "$ex/leak" 1 1 +RTS --debug-socket="$test_tmp/flag.sock" -RTS
expect_stderr_contains "debug: $test_tmp/flag.sock is in use: another program listens on it"
# Killed, the program leaves its socket behind, stale: the next run takes it.
kill -KILL "$prec_pid"
wait "$prec_pid" 2>/dev/null
[ -S "$test_tmp/flag.sock" ] || setup_fail "the killed program's socket is gone"
expect_status 0 "$ex/leak" 2 20000 +RTS --debug-socket="$test_tmp/flag.sock" -RTS
[ -e "$test_tmp/flag.sock" ] && fail "the stale socket was not replaced and removed" || pass

# Anything else at the path is refused and left as it was: a file, a
# directory, a symbolic link to a file or to nothing, given by the flag or
# by STRATA_DEBUG_SOCKET.
echo keep >"$test_tmp/regular"
ln -s regular "$test_tmp/link"
ln -s nowhere "$test_tmp/dangling"
for path in regular link dangling .; do
    expect_status 1 "$ex/leak" 30 200000 +RTS --debug-socket="$test_tmp/$path" -RTS
    expect_stderr_contains "debug: $test_tmp/$path exists and is not a socket; refusing to replace it"
    expect_status 1 env STRATA_DEBUG_SOCKET="$test_tmp/$path" "$ex/leak" 30 200000
    expect_stderr_contains "debug: $test_tmp/$path exists and is not a socket; refusing to replace it"
done
[ "$(cat "$test_tmp/regular")" = keep ] && [ -L "$test_tmp/link" ] && [ -L "$test_tmp/dangling" ] &&
    pass || fail "a refused path was changed: $(ls -l "$test_tmp")"

# A program that exits removes its socket.
expect_status 0 "$ex/leak" 2 20000 +RTS --debug-socket="$test_tmp/short.sock" -RTS
[ -e "$test_tmp/short.sock" ] && fail "socket left behind after the program exited" || pass

# --- list and --pid with the default path -----------------------------------------------
export XDG_RUNTIME_DIR=$test_tmp/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"
"$ex/thunk-leak" 60 +RTS --debug-socket -RTS >tl.out 2>tl.err &
tl_pid=$!
pids+=("$tl_pid")
wait_socket "$XDG_RUNTIME_DIR/strata/debug/$tl_pid-thunk-leak"
[ "$(stat -c %a "$XDG_RUNTIME_DIR/strata/debug")" = 700 ] && pass ||
    fail "socket directory is not mode 700"
expect_status 0 "$dbg" list
grep -q "^$tl_pid *thunk-leak *$XDG_RUNTIME_DIR/strata/debug/$tl_pid-thunk-leak$" "$out" &&
    pass || fail "list does not show thunk-leak"
# The chain starts empty: ask until it has grown.
until_output 'add_thunk .*\(Main, examples/thunk-leak.c:27:1-40\)$' "$dbg" thunks --pid "$tl_pid" &&
    pass || fail "thunks does not show add_thunk with its provenance"
expect_status 0 "$dbg" retainers --pid "$tl_pid" --type THUNK_1_1 --limit 1
sed -n 2p "$out" | grep -q 'THUNK_1_1' && pass || fail "retainers --type THUNK_1_1 found none"
kill "$tl_pid"
wait "$tl_pid" 2>/dev/null
expect_status 1 "$dbg" census --pid "$tl_pid"
expect_stderr_contains "process $tl_pid is gone; $XDG_RUNTIME_DIR/strata/debug/$tl_pid-thunk-leak is a stale socket"
expect_status 0 "$dbg" list
grep -q "$tl_pid-thunk-leak  (stale: process gone)$" "$out" && pass || fail "list does not mark the stale socket"
expect_status 1 "$dbg" census --pid 999999
expect_stderr_contains "no debug socket for pid 999999"

# --- list and --pid with a path of the program's choosing ---------------------------------
# The program registers it (Note [The socket registry] in
# support/DebugRegistry.c): a relative --debug-socket path, and
# STRATA_DEBUG_SOCKET, both listed with their absolute paths.
reg=$XDG_RUNTIME_DIR/strata/debug
mkdir own
(cd own && exec "$ex/leak" 100000 2000 +RTS --debug-socket=rel.sock -RTS >own.out 2>own.err) &
own_pid=$!
pids+=("$own_pid")
STRATA_DEBUG_SOCKET=$test_tmp/env.sock "$ex/thunk-leak" 60 >env.out 2>env.err &
env_pid=$!
pids+=("$env_pid")
wait_socket own/rel.sock && wait_socket env.sock
until_output "^$own_pid *leak *$test_tmp/own/rel.sock$" "$dbg" list && pass ||
    fail "list does not show the program whose socket is own/rel.sock: $(cat "$out")"
grep -q "^$env_pid *thunk-leak *$test_tmp/env.sock$" "$out" && pass ||
    fail "list does not show the program whose socket STRATA_DEBUG_SOCKET named: $(cat "$out")"
[ "$(readlink "$reg/$own_pid-leak")" = "$test_tmp/own/rel.sock" ] && pass ||
    fail "the registry has no link to own/rel.sock: $(ls -l "$reg")"
expect_status 0 "$dbg" list --json
grep -q "{\"pid\":$own_pid,\"program\":\"leak\",\"path\":\"$test_tmp/own/rel.sock\",\"stale\":false}" "$out" &&
    pass || fail "list --json: $(cat "$out")"
expect_status 0 "$dbg" census --pid "$own_pid" --by type
grep -q ' SessionEntry$' "$out" && pass || fail "census --pid through the registry: $(cat "$out")"
# Killed, it leaves its link, which list marks stale ...
kill -9 "$own_pid"
wait "$own_pid" 2>/dev/null
expect_status 0 "$dbg" list
grep -q "^$own_pid *leak *$test_tmp/own/rel.sock  (stale: process gone)$" "$out" && pass ||
    fail "list does not mark a killed program's registration stale: $(cat "$out")"
# ... until the next program that uses the directory sweeps it; a program
# that exits removes its own link.
expect_status 0 "$ex/leak" 2 2000 +RTS --debug-socket="$test_tmp/next.sock" -RTS
[ ! -e "$reg/$own_pid-leak" ] && [ ! -L "$reg/$own_pid-leak" ] && pass ||
    fail "the dead program's link was not swept: $(ls -l "$reg")"
! ls -l "$reg" | grep -q next.sock && pass ||
    fail "a program that exited left its link: $(ls -l "$reg")"
kill "$env_pid"
wait "$env_pid" 2>/dev/null
# A registry directory it cannot use: the socket works, and the program
# says that list will not find it.
export XDG_RUNTIME_DIR=$test_tmp/open-xdg
mkdir -p -m 755 "$XDG_RUNTIME_DIR/strata"
chmod 755 "$XDG_RUNTIME_DIR/strata"
expect_status 0 "$ex/leak" 2 2000 +RTS --debug-socket="$test_tmp/unreg.sock" -RTS
expect_stderr_contains "debug: the socket directory $XDG_RUNTIME_DIR/strata must belong to uid $(id -u) with mode 0700 (it has uid $(id -u), mode 755)"
expect_stderr_contains "debug: the socket $test_tmp/unreg.sock works, but strata-debug list will not find it"
unset XDG_RUNTIME_DIR

# --- pinned fragmentation ------------------------------------------------------------------
sock=$test_tmp/frag.sock
STRATA_DEBUG_SOCKET=$sock "$ex/pinned-frag" 100000 >pf.out 2>pf.err &
pf_pid=$!
pids+=("$pf_pid")
wait_socket "$sock"
until_output '^    root: ' "$dbg" fragmentation --socket "$sock" --retainers 2 && pass ||
    fail "fragmentation --retainers never printed a path"
grep -q '^pinned blocks: [1-9]' "$out" && pass || fail "fragmentation found no pinned blocks"
[ "$(grep -c '^  *[0-9]*- *[0-9]*%' "$out")" -eq 10 ] && pass || fail "histogram is not 10 buckets"
kill "$pf_pid"
wait "$pf_pid" 2>/dev/null

# --- many pauses of a busy program leave its result intact ----------------------------------
expect_status 0 "$ex/bintrees" 16
cp "$out" bt.expected
sock=$test_tmp/bt.sock
"$ex/bintrees" 16 +RTS --debug-socket="$sock" -A64k -RTS >bt.out 2>bt.err &
bt_pid=$!
wait_socket "$sock"
pauses=0
while kill -0 "$bt_pid" 2>/dev/null && [ $pauses -lt 30 ]; do
    "$dbg" census --socket "$sock" >/dev/null 2>&1 && pauses=$((pauses + 1))
done
wait "$bt_pid" && pass || fail "bintrees under the debugger failed"
cmp -s bt.out bt.expected && pass || fail "bintrees printed something else under the debugger"
echo "bintrees paused $pauses times"

# --- strings as every tool writes them ----------------------------------------------------------
# Note [One way to write a string] in wire/TextOut.c: a constructor named
# in UTF-8 ("Café→λ", of module "Módulo") as it is, one with invalid bytes
# and one with an ESC as \xNN, in text; in JSON the UTF-8 as it is, the
# ESC as \u001b and the invalid bytes as \\xNN, decoding to the names.
ssock=$test_tmp/strings.sock
"$top_builddir/testsuite/programs/strings_heap" +RTS --debug-socket="$ssock" -RTS \
    >strings.out 2>strings.err &
strings_pid=$!
pids+=("$strings_pid")
wait_socket "$ssock"
cafe=$(printf 'Caf\303\251\342\206\222\316\273')
until_output 'Esc' "$dbg" census --socket "$ssock" && pass || fail "census never showed the strings"
for name in "$cafe" 'Bad\xffName\xc3' 'Esc\x1b[2Jape'; do
    grep -qxE " +72 +3  $(printf '%s' "$name" | sed 's/[][\\.*^$]/\\&/g')" "$out" && pass ||
        fail "census does not show $name: $(cat "$out")"
done
grep -qa "$(printf '\033')" "$out" && fail "census wrote an ESC to the terminal" || pass
expect_status 0 "$dbg" retainers --socket "$ssock" --constructor "$cafe" --limit 1
grep -qF "[build in $(printf 'M\303\263dulo'), strings_heap.c:1:1]" "$out" && pass ||
    fail "retainers does not show the provenance in UTF-8: $(cat "$out")"
expect_status 0 "$dbg" census --socket "$ssock" --json
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = sorted(b["label"] for b in d["buckets"] if b["objects"] == 3)
print(names == sorted(["Caf\u00e9\u2192\u03bb", "Bad\\xffName\\xc3", "Esc\x1b[2Jape"]) or names)' \
    "$out" 2>&1)
[ "$got" = True ] && pass || fail "census --json does not decode to the names: $got"
kill "$strings_pid"

# --- bad input ---------------------------------------------------------------------------------
expect_status 2 "$dbg"
expect_status 2 "$dbg" frobnicate --socket x
expect_stderr_contains "strata-debug: unknown command 'frobnicate'
Try 'strata-debug --help'."
expect_status 2 "$dbg" census
expect_stderr_contains "strata-debug: census: needs exactly one of --socket PATH, --pid PID or --snapshot FILE"
expect_status 2 "$dbg" census --socket a --snapshot b
expect_stderr_contains "needs exactly one of"
expect_status 2 "$dbg" census --snapshot x --by colour
expect_stderr_contains "--by expects type, info, era or module, got 'colour'"
expect_status 2 "$dbg" census --snapshot x --era 5-2
expect_stderr_contains "--era expects LO-HI or N"
expect_status 2 "$dbg" retainers --snapshot x
expect_stderr_contains "retainers: needs exactly one of --constructor NAME"
expect_status 2 "$dbg" boundary --snapshot x
expect_stderr_contains "boundary: needs --era LO-HI"
expect_status 2 "$dbg" boundary --snapshot x --era 1-2 --type THUNK --constructor A
expect_stderr_contains "boundary: takes at most one of --constructor NAME"
expect_status 2 "$dbg" retainers --snapshot x --type NOT_A_TYPE
expect_stderr_contains "unknown closure type 'NOT_A_TYPE'"
expect_status 1 "$dbg" retainers --snapshot leak.snap --info zzz
expect_stderr_contains "--info expects an address"
expect_status 2 "$dbg" retainers --snapshot x --constructor A --limit 0
expect_stderr_contains "--limit expects a positive number"
expect_status 1 "$dbg" census --socket "$test_tmp/none.sock"
expect_stderr_contains "none.sock: cannot connect"
expect_status 2 "$dbg" census --snapshot leak.snap --bogus
expect_stderr_contains "strata-debug: census: unknown option: --bogus
Try 'strata-debug --help'."
# A misspelt option: the one message every tool gives, naming the one meant.
expect_status 2 "$dbg" census --snapshto leak.snap
expect_stderr_contains "strata-debug: census: unknown option: --snapshto (did you mean --snapshot?)"
expect_status 2 "$dbg" census --snapshot
expect_stderr_contains "strata-debug: census: --snapshot needs a value (FILE)"
expect_status 2 "$dbg" gml
expect_stderr_contains "gml expects an output FILE"
expect_status 1 "$dbg" snapshot /nonexistent/dir/x.snap --snapshot leak.snap
expect_stderr_contains "cannot create"
expect_status 1 "$ex/leak" 1 1 +RTS --debug-socket= -RTS
expect_stderr_contains "--debug-socket= expects a socket path"
long=$(printf 'x%.0s' $(seq 200))
expect_status 1 "$ex/leak" 1 1 +RTS --debug-socket="/tmp/$long" -RTS
expect_stderr_contains "is longer than 107 bytes"
expect_status 1 env STRATA_DEBUG_SOCKET=/nonexistent/dir/s "$ex/leak" 1 1
expect_stderr_contains "cannot bind the socket /nonexistent/dir/s"

finish
