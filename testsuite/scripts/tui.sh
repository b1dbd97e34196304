#!/usr/bin/env bash
# testsuite/scripts/tui.sh -- strata-debug tui as a person uses it, driven
# through tmux (send-keys, capture-pane): attached to the leak example it
# shows the local-root frames, searches for the leaked constructor in old
# eras and shows the retainer path to its root, finds the working data
# held by handle()'s frame, shows census and fragmentation panes, writes
# a snapshot, survives resizes, shows its help, colours rows by era, diffs
# against an earlier snapshot (new and survivors in two colours), and
# quitting resumes the program.  Then a session on that snapshot, sessions
# without colour (NO_COLOR, TERM=vt100), and bad input.
set -u
. "$(dirname "$0")/lib.sh"

ex=$top_builddir/examples
dbg=$top_builddir/utils/strata-debug/strata-debug

if ! command -v tmux >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    # shellcheck source=scripts/deps.sh
    (. "$top_srcdir/scripts/deps.sh" && deps_install_optional tmux) >/dev/null 2>&1
fi
if ! command -v tmux >/dev/null 2>&1; then
    skip tmux "tmux is not installed (Debian package tmux; scripts/deps.sh installs it as root)"
fi

cd "$test_tmp" || exit 1
tsock=$test_tmp/tmux.sock
pids=()
trap 'tmux -S "$tsock" kill-server 2>/dev/null; for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$test_tmp"' EXIT

# A private tmux server without a status line, so the pane is the window.
term256=tmux-256color
infocmp "$term256" >/dev/null 2>&1 || term256=screen-256color
cat >tmux.conf <<EOF
set -g status off
set -g default-terminal $term256
set -g history-limit 0
EOF
T() { tmux -S "$tsock" -f "$test_tmp/tmux.conf" "$@"; }
# A session that stays, so that killing the tui's session never stops the
# server (a new session racing a server on its way out can be lost).
T new-session -d -s keep "sleep 3600" 2>tmux.err ||
    setup_fail "tmux cannot start a session ($(head -n 1 tmux.err)); every step needs one"

# Starts the tui (arguments after the size) in a fresh window; stderr goes
# to tui.err and the exit status is printed in the pane when it ends.
start_tui() {
    local w=$1 h=$2
    shift 2
    T kill-session -t tui 2>/dev/null
    : >"$test_tmp/tui.err"
    T new-session -d -s tui -x "$w" -y "$h" \
        "$* 2>$test_tmp/tui.err; echo \"tui exited with status \$?\"; sleep 3600"
    T has-session -t tui 2>/dev/null || setup_fail "tmux did not start a session for: $*"
}

screen() { T capture-pane -t tui -p; }
screen_esc() { T capture-pane -t tui -p -e; }

# Waits (up to ~30 s: the sanitizer build is slow) until the screen shows
# TEXT (a fixed string); records a failure with the screen otherwise.
wait_for() {
    for _ in $(seq 300); do
        screen >screen.txt || setup_fail "tmux lost the tui's session (waiting for '$1')"
        grep -qF -e "$1" screen.txt && { pass; return 0; }
        # The tui has ended: what it has not shown it never will.
        grep -q '^tui exited with status' screen.txt && break
        sleep 0.1
    done
    fail "the screen never showed '$1'; it shows:"
    sed 's/^/    | /' screen.txt >&2
    [ -s tui.err ] && sed 's/^/    stderr: /' tui.err >&2
    return 1
}

# Waits until TEXT is gone from the screen.
wait_gone() {
    for _ in $(seq 300); do
        screen >screen.txt
        grep -qF -e "$1" screen.txt || { pass; return 0; }
        sleep 0.1
    done
    fail "the screen still shows '$1'"
    return 1
}

# Passes if the screen has a line matching the extended regex RE.
expect_line() {
    screen >screen.txt
    if grep -qE -e "$1" screen.txt; then
        pass
    else
        fail "no line matches /$1/; the screen shows:"
        sed 's/^/    | /' screen.txt >&2
    fi
}

keys() { T send-keys -t tui "$@"; }

# Waits for the tui to exit with status 0 having written nothing to stderr
# (a sanitizer's report would be there).
expect_clean_exit() {
    wait_for "tui exited with status 0"
    if [ -s tui.err ]; then
        fail "tui wrote to stderr:"
        sed 's/^/    /' tui.err >&2
    else
        pass
    fi
}


handle_line=$(awk '/^static StgWord handle/ {f = 1} f && /STRATA_ROOTS\(r/ {print NR; exit}' \
    "$top_srcdir/examples/leak.c")

# --- the leak example, live ------------------------------------------------------------
sock=$test_tmp/leak.sock
"$ex/leak" 1000000 100000 +RTS --debug-socket="$sock" -RTS >leak.out 2>leak.err &
leak_pid=$!
pids+=("$leak_pid")
wait_socket "$sock" || setup_fail "the program under test did not start: no socket appeared at $sock"
# Old eras exist once the program has reached era 4.
for _ in $(seq 200); do
    "$dbg" census --socket "$sock" --by era >eras.txt 2>/dev/null
    awk 'NR > 1 && !/^total/ && $3 >= 4 {found = 1} END {exit !found}' eras.txt && break
    sleep 0.1
done

# A, for the diff view: the tui's own snapshot below is B.
"$dbg" snapshot "$test_tmp/a.snap" --socket "$sock" --new-era >/dev/null 2>a.err ||
    setup_fail "strata-debug snapshot a.snap failed: $(head -n 1 a.err)"

start_tui 120 40 "$dbg" tui --socket "$sock"
wait_for "program paused; q resumes it and quits"
expect_line '^ strata-debug tui: leak \(pid [0-9]+\), paused at era [0-9]+ +\[1:Roots\]'
wait_for "Local-root frames ("
# The pause lands in handle() or remember(); a frame whose only slot is
# still NULL is not listed.
if screen | grep -q 'Local-root frames (0 frames'; then
    pass
else
    expect_line '^  - frame 0: (handle|remember) \(examples/leak\.c:[0-9]+\)$'
    expect_line '^    \+ slot 0: 0x[0-9a-f]+  [A-Za-z_]+  [A-Z_0-9]+  era [0-9]+  [0-9]+ B'
fi
expect_line '^\+ Static closures \([1-9][0-9]*\)$'
# The footer: keys and the era legend, on the last row.
[ "$(screen | sed -n 40p | grep -c '?:help.*eras:')" = 1 ] && pass || fail "footer is not on row 40"
# While attached, the program is paused and no other client gets in.
expect_status 1 "$dbg" census --socket "$sock"
expect_stderr_contains "busy: another client is connected"
paused_era=$(screen | sed -n '1s/.*paused at era \([0-9]*\).*/\1/p')

# The leaked constructor in old eras, then its retainer path.
keys / 'SessionEntry era:1-2 limit:5' Enter
wait_for "search: constructor SessionEntry, eras 1-2, limit 5 -- "
expect_line ' [1-9][0-9]* matches, 5 shown'
[ "$(screen | grep -cE '^\+ 0x[0-9a-f]+  SessionEntry  CONSTR  era [12]  32 B')" = 5 ] && pass ||
    fail "search did not list 5 SessionEntry results of eras 1-2"
screen | grep -E '^[-+] 0x' | grep -vE '  era [12]  ' && fail "a result of another era" || pass
# Colour by era: era 2's rows have its palette background (256 colours).
screen_esc | grep 'SessionEntry  CONSTR  era 2 ' | grep -q '48;5;223m' && pass ||
    fail "an era 2 row is not drawn on era 2's colour (48;5;223)"
keys Enter
wait_for "retainer path: "
expect_line '^    info 0x[0-9a-f]+  CONSTR  ptrs 2 nptrs 1  provenance: remember in Cache, examples/leak\.c:49:5-60$'
expect_line '^    era [12], 32 bytes, in a small block of generation [0-9]+, live$'
# The newer sessions that hold it: one run of one info table, one line,
# marked where it holds an older era.
expect_line '^  \+ <- [0-9]+ x SessionEntry \(CONSTR, eras? [0-9]+(-[0-9]+)?, gen [0-9]+(-[0-9]+)?\)( +\(holds era [12]: era boundary\))?$'
[ "$(screen | grep -c '^  [-+] <- ')" = 2 ] && pass ||
    fail "the path is not one run plus the static cache"
# Expanding the run shows its closures, younger eras among them.
keys j j j j j Enter
wait_for "    + <- 0x"
screen | grep -E '^    \+ <- 0x.*SessionEntry  CONSTR  era ([3-9]|[1-9][0-9]+)  ' -q && pass ||
    fail "no younger SessionEntry in the path's run"
screen | grep -Eq '^    \+ <- 0x.*SessionEntry  CONSTR  era [0-9]+  32 B  \(holds era [0-9]+: era boundary\)$' && pass ||
    fail "no era-boundary edge marked inside the run"
# The path ends at the static session cache, the root below it.
keys /
keys C-u 'SessionEntry era:1-2 limit:1' Enter
wait_for "limit 1 -- "
keys Enter
wait_for "retainer path: "
keys G
cache_line=$(grep -n '^static StgMutVar session_cache = ' "$top_srcdir/examples/leak.c" | cut -d: -f1)
wait_for "    root: static closure session_cache ("
expect_line "^    root: static closure session_cache \(.*examples/leak\.c:$cache_line\)\$"
expect_line "^  \+ <- 0x[0-9a-f]+  MUT_VAR_(DIRTY|CLEAN)  MUT_VAR_(DIRTY|CLEAN)  static session_cache \(.*examples/leak\.c:$cache_line\)  16 B\$"

# Working data: a Chunk held by the local-root frame of handle().  The
# pause may have landed in remember(); refresh (resume, pause) until a
# Chunk is live.
keys / C-u 'Chunk limit:1' Enter
wait_for "search: constructor Chunk, limit 1 -- "
# Refresh lets the program run, pauses it again, and re-runs the search on
# the new pause's heap (.inv.one-pause).
keys r
wait_for "paused again at era"
wait_for "search: constructor Chunk, limit 1 -- "
refreshed_era=$(screen | sed -n '1s/.*paused at era \([0-9]*\).*/\1/p')
[ "${refreshed_era:-0}" -ge "$paused_era" ] && pass ||
    fail "after refresh the era went from $paused_era to '$refreshed_era'"
for _ in $(seq 30); do
    screen | grep -q 'limit 1 -- 1 match\|limit 1 -- [0-9]* matches, 1 shown' && break
    keys r
    wait_for "paused again at era" >/dev/null
done
expect_line '^\+ 0x[0-9a-f]+  Chunk  CONSTR_1_1  era [0-9]+  24 B$'
keys Enter
wait_for "retainer path: "
keys G
wait_for "examples/leak.c:$handle_line), frame 0 slot 0"
expect_line "^    root: local-root frame handle \(examples/leak\.c:$handle_line\), frame 0 slot 0$"
# The roots tree shows that frame, labelled by function, file and line.
keys 1
wait_for "[1:Roots]"
expect_line "^  - frame 0: handle \(examples/leak\.c:$handle_line\)$"
expect_line '^    \+ slot 0: 0x[0-9a-f]+  Chunk  CONSTR_1_1  era [0-9]+  24 B$'
# Expanding the slot's closure: its info table, provenance, era, fields.
keys g j j Enter
wait_for "provenance: parse in Server, examples/leak.c:63:9-61"
expect_line '^        era [0-9]+, 24 bytes, in a (small|nursery) block of generation [0-9]+, live$'
expect_line '^      (\+ ptr 0: 0x[0-9a-f]+  Chunk  CONSTR_1_1  era [0-9]+  24 B|  ptr 0: NULL)$'
expect_line '^        word 2: 0x[0-9a-f]+ \([0-9]+\)$'

# Census and fragmentation panes.
keys 3
wait_for "census by type (b: next grouping): "
expect_line '^ +[0-9]+ +[0-9]+ +[0-9.]+  SessionEntry$'
keys b
wait_for "census by info table"
keys b
wait_for "census by era"
screen_esc | grep -E '^.*\[48;5;[0-9]+m +[0-9]+ +[0-9]+ +[0-9.]+  [1-9][0-9]*' -q && pass ||
    fail "census by era rows are not coloured by era"
keys 4
wait_for "pinned-block utilisation (live bytes / block bytes):"
expect_line '^  megablocks: [1-9][0-9]* held by the block allocator'
[ "$(screen | grep -cE '^ +[0-9]+- *[0-9]+%')" = 10 ] && pass || fail "histogram is not 10 rows"

# Help, then any key closes it.
keys '?'
wait_for "any key closes this help"
expect_line 'search: a constructor, type:CLOSURE_TYPE'
keys x
wait_gone "any key closes this help"

# Resizing: the footer follows the last row; too small is said so.
T resize-window -t tui -x 70 -y 20
wait_for "eras:" >/dev/null
for _ in $(seq 100); do screen | sed -n 20p | grep -q '?:help' && break; sleep 0.1; done
screen | sed -n 20p | grep -q '^ ?:help' && pass || fail "after resizing to 70x20 the footer is not on row 20"
screen | sed -n 1p | grep -q '^ strata-debug tui: leak' && pass || fail "header lost after resize"
T resize-window -t tui -x 20 -y 4
wait_for "terminal too small"
T resize-window -t tui -x 140 -y 45
for _ in $(seq 100); do screen | sed -n 45p | grep -q '?:help' && break; sleep 0.1; done
screen | sed -n 45p | grep -q '^ ?:help' && pass || fail "after resizing to 140x45 the footer is not on row 45"

# Bad input inside the tui: a named error, the tui goes on.
keys / C-u 'type:NOPE' Enter
wait_for "search: unknown closure type 'NOPE'"
keys / C-u 'era:9-1' Enter
wait_for "search: era:9-1 is not an era range"
keys s C-u '/nonexistent/dir/x.snap' Enter
wait_for "snapshot: "
expect_line 'snapshot: .*/nonexistent/dir/x.snap'

# A snapshot from the tui.
keys s
wait_for "snapshot file> leak-$leak_pid-era"
keys C-u "$test_tmp/tui.snap" Enter
wait_for "snapshot written to $test_tmp/tui.snap ("

# Quitting resumes the program.
keys q
expect_clean_exit
resumed=no
for _ in $(seq 200); do
    "$dbg" census --socket "$sock" --by era >eras.txt 2>/dev/null &&
        awk -v e="$paused_era" 'NR > 1 && !/^total/ && $3 > e + 0 {f = 1} END {exit !f}' eras.txt &&
        { resumed=yes; break; }
    sleep 0.1
done
[ $resumed = yes ] && pass || fail "the program did not go on past era $paused_era after quitting"
kill "$leak_pid"
wait "$leak_pid" 2>/dev/null

# --- the snapshot, without colour (NO_COLOR) ----------------------------------------------
expect_status 0 "$dbg" census --snapshot tui.snap
grep -q ' SessionEntry$' "$out" && pass || fail "the tui's snapshot has no SessionEntry"
start_tui 100 30 env NO_COLOR=1 "$dbg" tui --snapshot "$test_tmp/tui.snap"
wait_for "snapshot opened; ? for help"
expect_line "^ strata-debug tui: leak \(pid $leak_pid\), snapshot tui\.snap, era [0-9]+"
wait_for "no colour: eras as text"
keys / 'SessionEntry era:1-2 limit:1' Enter
wait_for "search: constructor SessionEntry, eras 1-2, limit 1 -- "
keys Enter
wait_for "retainer path: "
keys G
wait_for "    root: static closure"
screen_esc | grep -qE $'\033\\[(48;5;[0-9]+|4[0-7])m' && fail "NO_COLOR: background colours drawn" || pass
# Search by info table address (the one just shown) and by closure type.
keys g
wait_for "    info 0x"
info_addr=$(screen | sed -n 's/^    info \(0x[0-9a-f]*\)  CONSTR  .*/\1/p' | head -1)
keys / C-u "info:$info_addr limit:3" Enter
wait_for "search: info $info_addr, limit 3 -- "
[ "$(screen | grep -cE '^\+ 0x[0-9a-f]+  SessionEntry  CONSTR  era [0-9]+  32 B$')" = 3 ] && pass ||
    fail "info:$info_addr did not list 3 SessionEntry objects"
keys / C-u 'type:ARR_WORDS era:1 limit:2' Enter
wait_for "search: type ARR_WORDS, era 1, limit 2 -- "
[ "$(screen | grep -cE '^\+ 0x[0-9a-f]+  ARR_WORDS  ARR_WORDS  era 1  [0-9]+ B$')" = 2 ] && pass ||
    fail "type:ARR_WORDS era:1 did not list 2 byte arrays of era 1"
keys r
wait_for "refresh: a snapshot does not change"
keys 3
wait_for "census by type"
keys q
expect_clean_exit

# --- the diff view against A: new groups and survivors in two colours -----------------------
start_tui 130 40 "$dbg" tui --snapshot "$test_tmp/tui.snap"
wait_for "snapshot opened; ? for help"
keys 5
wait_for "no diff yet: press d"
keys d
wait_for "diff against snapshot A> "
keys "$test_tmp/no-such.snap" Enter
wait_for "diff: A: "
expect_line "diff: A: .*no-such\.snap"
keys d "$test_tmp/a.snap" Enter
wait_for "diff against $test_tmp/a.snap: A era "
expect_line '^ *new +[0-9]+ +[0-9]+ +[0-9]+  SessionEntry \(CONSTR'
expect_line '^ *survivor +[0-9]+ +[0-9]+ +[0-9]+  SessionEntry \(CONSTR'
# A row's background: the first 256-colour code on the first row of its part
# (tmux writes a code only where the attributes change).
row_colour() { screen_esc | grep -E "$1" | head -n 1 | grep -oE '48;5;[0-9]+' | head -n 1; }
new_colour=$(row_colour 'new +[0-9]+ +[0-9]+ +[0-9]+  ')
old_colour=$(row_colour 'survivor +[0-9]+ +[0-9]+ +[0-9]+  ')
if [ -z "$new_colour" ] || [ -z "$old_colour" ]; then
    fail "the diff's rows are not on era colours (new: '$new_colour', survivor: '$old_colour')"
elif [ "$new_colour" = "$old_colour" ]; then
    fail "new and survivor rows have the same colour ($new_colour)"
else
    pass
fi
keys q
expect_clean_exit

# --- a terminal with 8 colours (screen): era 2 on its 8-colour background (green) ----------
start_tui 100 30 env TERM=screen "$dbg" tui --snapshot "$test_tmp/tui.snap"
wait_for "snapshot opened; ? for help"
keys / 'SessionEntry era:2 limit:2' Enter
wait_for "search: constructor SessionEntry, era 2, limit 2 -- "
screen_esc | grep 'SessionEntry  CONSTR  era 2 ' | grep -q $'\033\\[[0-9;]*42m' && pass ||
    fail "8 colours: an era 2 row is not on green"
screen_esc | grep -q '48;5;' && fail "8 colours: a 256-colour background was used" || pass
keys q
expect_clean_exit

# --- a terminal without colour (vt100) ----------------------------------------------------
start_tui 90 24 env TERM=vt100 "$dbg" tui --snapshot "$test_tmp/tui.snap"
wait_for "snapshot opened; ? for help"
wait_for "no colour: eras as text"
# vt100 has no End key: its escape sequence is dropped, not read as keys
# ("4" would switch to the fragmentation view).
keys End
keys '?'
wait_for "any key closes this help"
keys x
wait_gone "any key closes this help"
expect_line '^[-+ ] Local-root frames \('
keys / 'Chunk' Enter
wait_for "search: constructor Chunk, limit 100"
screen_esc | grep -qE $'\033\\[(48;5;[0-9]+|4[0-7])m' && fail "vt100: background colours drawn" || pass
keys q
expect_clean_exit

# --- --pid finds the socket in the default directory -------------------------------------
export XDG_RUNTIME_DIR=$test_tmp/xdg
mkdir -m 700 "$XDG_RUNTIME_DIR"
"$ex/leak" 1000000 100000 +RTS --debug-socket -RTS >leak2.out 2>leak2.err &
leak2_pid=$!
pids+=("$leak2_pid")
wait_socket "$XDG_RUNTIME_DIR/strata/debug/$leak2_pid-leak" || setup_fail "the program under test did not start: no socket appeared at $XDG_RUNTIME_DIR/strata/debug/$leak2_pid-leak"
start_tui 100 30 env XDG_RUNTIME_DIR="$XDG_RUNTIME_DIR" "$dbg" tui --pid "$leak2_pid"
wait_for "strata-debug tui: leak (pid $leak2_pid), paused at era"
keys q
expect_clean_exit
kill "$leak2_pid"
wait "$leak2_pid" 2>/dev/null
unset XDG_RUNTIME_DIR

# --- strings as every tool writes them -------------------------------------------------------
# Note [One way to write a string] in wire/TextOut.c: on a UTF-8 terminal
# "Café→λ" as it is; invalid bytes and an ESC as \xNN, never as themselves;
# on a terminal whose locale is not UTF-8, the non-ASCII bytes as \xNN too.
ssock=$test_tmp/strings.sock
"$top_builddir/testsuite/programs/strings_heap" +RTS --debug-socket="$ssock" -RTS \
    >strings.out 2>strings.err &
strings_pid=$!
pids+=("$strings_pid")
wait_socket "$ssock" || setup_fail "strings_heap did not start: $(cat strings.err)"
start_tui 100 20 env LC_ALL=C.UTF-8 "$dbg" tui --socket "$ssock"
wait_for "program paused; q resumes it and quits"
keys 3
wait_for "$(printf 'Caf\303\251\342\206\222\316\273')"
wait_for 'Bad\xffName\xc3'
wait_for 'Esc\x1b[2Jape'
screen_esc | grep -q "$(printf '\033\\[2J')" && fail "the tui drew the label's ESC [2J" || pass
keys q
expect_clean_exit
start_tui 100 20 env LC_ALL=C "$dbg" tui --socket "$ssock"
wait_for "program paused; q resumes it and quits"
keys 3
wait_for 'Caf\xc3\xa9\xe2\x86\x92\xce\xbb'
keys q
expect_clean_exit
kill "$strings_pid"

# --- bad input -----------------------------------------------------------------------------
expect_status 1 "$dbg" tui --snapshot tui.snap </dev/null
expect_stderr_contains "tui needs a terminal (stdin and stdout must be a tty)"
expect_status 2 "$dbg" tui
expect_stderr_contains "tui: needs exactly one of --socket PATH, --pid PID or --snapshot FILE"
expect_status 2 "$dbg" tui --snapshot tui.snap --bogus
expect_stderr_contains "strata-debug: tui: unknown option: --bogus"
printf 'hello' >notsnap
expect_status 1 "$dbg" tui --snapshot notsnap
expect_stderr_contains "not a strata-debug snapshot"
expect_status 1 "$dbg" tui --socket "$test_tmp/none.sock"
expect_stderr_contains "none.sock: cannot connect"
# The program dies while attached: each request says so, quitting works.
sock3=$test_tmp/dies.sock
"$ex/leak" 1000000 100000 +RTS --debug-socket="$sock3" -RTS >leak3.out 2>leak3.err &
leak3_pid=$!
pids+=("$leak3_pid")
wait_socket "$sock3" || setup_fail "the program under test did not start: no socket appeared at $sock3"
start_tui 100 30 "$dbg" tui --socket "$sock3"
wait_for "program paused; q resumes it and quits"
kill -9 "$leak3_pid"
{ wait "$leak3_pid"; } 2>/dev/null
keys 3
wait_for "traversal failed: "
expect_line 'traversal failed: .*debug socket'
keys q
expect_clean_exit
start_tui 80 24 env TERM=no-such-terminal "$dbg" tui --snapshot "$test_tmp/tui.snap"
wait_for "tui exited with status 1"
expect_stderr_contains "unknown terminal type 'no-such-terminal'" tui.err

finish
