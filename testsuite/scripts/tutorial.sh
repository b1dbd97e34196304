#!/usr/bin/env bash
# testsuite/scripts/tutorial.sh -- runs every command of
# docs/strata-debug-tutorial.md and checks that the output lines it shows
# still come out, in order (numbers, addresses and a mutable object's
# _CLEAN/_DIRTY aside), so the tutorial cannot go stale.  In each
# ```console block a line "$ CMD" is a command and the lines after it its
# output ("…" skips lines); "build/" is the build
# tree, "strata-debug" the tool, "/tmp/" this test's directory.  A command
# ending in "&" starts a program in the background and waits for its
# socket; a strata-debug command is retried until its output matches (the
# program may not have reached the eras shown yet).
set -u
. "$(dirname "$0")/lib.sh"

doc=$top_srcdir/docs/strata-debug-tutorial.md
dbg=$top_builddir/utils/strata-debug/strata-debug
cd "$test_tmp" || exit 1
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$test_tmp"' EXIT

stop_programs() {
    for p in "${pids[@]}"; do
        kill "$p" 2>/dev/null
        wait "$p" 2>/dev/null
    done
    pids=()
}

# Numbers and addresses masked, a mutable object's clean/dirty state
# (it changes with every write) too, spaces squeezed: the shape of a line.
mask() {
    sed -E 's/0x[0-9a-f]+/ADDR/g; s/[0-9]+([.,][0-9]+)*/N/g; s/_(CLEAN|DIRTY)/_*/g; s/ +/ /g; s/^ //; s/ $//' "$1"
}

# Whether every line of expected (but "…") is in actual, in order.
shows() {
    awk 'BEGIN { n = 0; k = 0 }
         NR == FNR { if ($0 != "…") want[n++] = $0; next }
         k < n && $0 == want[k] { k++ }
         END { exit k < n }' <(mask "$1") <(mask "$2")
}

# Runs one step of the tutorial: command $1, shown output in file $2.
step() {
    local cmd=$1 expected=$2 tries=1
    # /tmp/ first: the build tree may itself be under /tmp.
    cmd=$(printf '%s' "$cmd" | sed -E "s#/tmp/#$test_tmp/#g; s#(^| |=)build/#\\1$top_builddir/#g; s#^strata-debug #$dbg #")
    if [[ $cmd == *'&' ]]; then
        stop_programs
        eval "${cmd%&} >bg.out 2>bg.err &"
        pids+=($!)
        local sock
        sock=$(grep -o "$test_tmp/[a-z0-9]*\\.sock" <<<"$cmd" | head -1)
        for _ in $(seq 200); do
            [ -S "$sock" ] && break
            sleep 0.1
        done
        [ -S "$sock" ] && pass || fail "tutorial: no socket at $sock after: $cmd"
        return
    fi
    [[ $cmd == "$dbg "* ]] && tries=50
    for _ in $(seq $tries); do
        if eval "$cmd" >"$out" 2>"$err" && shows "$expected" "$out"; then
            pass
            return
        fi
        sleep 0.2
    done
    fail "tutorial: the output of '$1' no longer shows what the tutorial does; it printed:
$(head -20 "$out")
$(head -5 "$err")"
}

in_block=no
cmd=
: >expected
n_steps=0
while IFS= read -r line; do
    if [ $in_block = no ]; then
        [ "$line" = '```console' ] && in_block=yes
        continue
    fi
    if [ "$line" = '```' ] || [[ $line == '$ '* ]]; then
        if [ -n "$cmd" ]; then
            step "$cmd" expected
            n_steps=$((n_steps + 1))
        fi
        cmd=
        : >expected
        if [ "$line" = '```' ]; then
            in_block=no
        else
            cmd=${line#\$ }
        fi
        continue
    fi
    printf '%s\n' "$line" >>expected
done <"$doc"
stop_programs
[ "$n_steps" -ge 10 ] && pass || fail "tutorial: only $n_steps commands found in $doc"
finish
