#!/usr/bin/env bash
# testsuite/scripts/endless-input.sh -- readers refuse before they read
# (Note [Reading a snapshot refuses before it reads] in
# utils/debug-client/Snapshot.c): /dev/zero, an endless FIFO and a header
# that declares an absurd heap each get a clear error at once, holding
# little memory, from strata-debug's snapshot reader, the eventlog tools
# and strata-html's .hp reader.
# A `timeout` and a `ulimit -v` turn a reader that keeps reading into a
# failure here rather than a hung or swapping machine.
set -u
. "$(dirname "$0")/lib.sh"

debug=$top_builddir/utils/strata-debug/strata-debug
events=$top_builddir/utils/strata-events/strata-events
cd "$test_tmp" || exit 1

# Runs CMD with 30 s and 1 GiB of address space at most (the tools need
# far less; ASan and TSan builds reserve far more, so no limit there).
limited() {
    if ! grep -q 'fsanitize' "$top_builddir/config.log" 2>/dev/null; then
        (ulimit -v 1048576; exec timeout 30 "$@")
    else
        timeout 30 "$@"
    fi
}

# A snapshot header: magic, version 1, protocol 1, word size 8, block size
# 4096, megablock size 1 MiB, pid 1, paused, era 0, then the megablock
# count given as printf octal escapes.
snap_header() {
    printf 'STRDBGS1\001\000\000\000\001\000\000\000\010\000\000\000\000\020\000\000'
    printf '\000\000\020\000\001\000\000\000\001\000\000\000\000\000\000\000\000\000\000\000'
    printf "$1"
}

expect_status 1 limited "$debug" census --snapshot /dev/zero
expect_stderr_contains "/dev/zero: not a strata-debug snapshot (bad magic)"

snap_header '\377\377\377\377\377\377\377\177' > absurd.snap
expect_status 1 limited "$debug" census --snapshot absurd.snap
expect_stderr_contains "absurd.snap: corrupt snapshot: its header declares 9223372036854775807 megablocks"

head -c 30 absurd.snap > short.snap
expect_status 1 limited "$debug" census --snapshot short.snap
expect_stderr_contains "short.snap: corrupt snapshot: truncated header (30 bytes)"

# A header declaring one megablock, then zeros for ever: refused at the
# bound its heap allows (2 MiB + 16 MiB), not when memory runs out.
mkfifo endless.snap
{ snap_header '\001\000\000\000\000\000\000\000'; cat /dev/zero; } > endless.snap 2>/dev/null &
writer=$!
expect_status 1 limited "$debug" census --snapshot endless.snap
expect_stderr_contains "endless.snap: corrupt snapshot: longer than the 18874368 bytes its header's heap allows"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null

# A FIFO of text for ever: bad magic at once.
mkfifo text.snap
yes > text.snap 2>/dev/null &
writer=$!
expect_status 1 limited "$debug" census --snapshot text.snap
expect_stderr_contains "text.snap: not a strata-debug snapshot (bad magic)"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null

# The eventlog reader refuses the same inputs at offset 0, at its first
# word: zeros for ever, and a FIFO of text for ever.
expect_status 1 limited "$events" show /dev/zero
expect_stderr_contains 'strata-events: /dev/zero: offset 0: bad header begin marker "hdrb" (not an eventlog?) (expected 0x68647262, got 0x00000000)'
mkfifo text.eventlog
yes > text.eventlog 2>/dev/null &
writer=$!
expect_status 1 limited "$events" show text.eventlog
expect_stderr_contains 'strata-events: text.eventlog: offset 0: bad header begin marker "hdrb" (not an eventlog?) (expected 0x68647262, got 0x790a790a)'
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null

# strata-html's .hp reader (Note [A .hp line has a bound] in
# utils/report/ProfileHp.c): line 1 must start with JOB, and no line
# may run past 1 MiB, however long its input goes on.  Each is refused
# holding under 100 MB.
html=$top_builddir/utils/strata-html/strata-html

# Runs CMD under limited, recording its peak RSS in KB in $rss_kb.
rss_kb=0
measured() {
    rm -f rss.txt
    if [ ! -x /usr/bin/time ]; then
        limited "$@"
        return
    fi
    limited /usr/bin/time -f '%M' -o rss.txt "$@"
    local st=$?
    rss_kb=$(tail -n 1 rss.txt 2>/dev/null)
    return $st
}

expect_rss_under_100mb() {
    if [ ! -x /usr/bin/time ]; then
        skip_part time "/usr/bin/time is not installed: RSS not measured ($1)"
    elif [ "${rss_kb:-0}" -gt 0 ] 2>/dev/null && [ "$rss_kb" -lt 102400 ]; then
        pass
    else
        fail "$1: peak RSS ${rss_kb:-?} KB, expected under 100 MB"
    fi
}

expect_status 1 measured "$html" -p /dev/zero -o zero.html
expect_stderr_contains "/dev/zero: not a .hp heap profile (line 1 does not start with JOB)"
expect_rss_under_100mb "strata-html -p /dev/zero"

mkfifo text.hp
yes > text.hp 2>/dev/null &
writer=$!
expect_status 1 measured "$html" -p text.hp -o text.html
expect_stderr_contains "text.hp: not a .hp heap profile (line 1 does not start with JOB)"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null

# A JOB line that never ends.
mkfifo endless.hp
{ printf 'JOB "'; tr '\0' 'x' < /dev/zero; } > endless.hp 2>/dev/null &
writer=$!
expect_status 1 measured "$html" -p endless.hp -o endless.html
expect_stderr_contains "endless.hp: line 1: longer than 1048576 bytes"
expect_rss_under_100mb "strata-html -p on an endless line"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null

# Valid lines, then zeros for ever: refused at the first bad line.
mkfifo zeros.hp
{ printf 'JOB "x"\nBEGIN_SAMPLE 0.0\n'; cat /dev/zero; } > zeros.hp 2>/dev/null &
writer=$!
expect_status 1 measured "$html" -p zeros.hp -o zeros.html
expect_stderr_contains "zeros.hp: line 3: longer than 1048576 bytes"
expect_rss_under_100mb "strata-html -p on a profile followed by zeros"
kill "$writer" 2>/dev/null
wait "$writer" 2>/dev/null

finish
