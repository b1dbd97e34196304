#!/usr/bin/env bash
# bench/profiling-overhead.sh -- what heap profiling costs: each workload
# runs with no flags, with -l alone, and with -hT / -hi / -he at -i0.1 -l,
# interleaved (A B C D E A B C D E ...) REPS times after a warm-up, and the
# median wall time of each is printed with its ratio to no profiling.  Also
# prints eventlog bytes per sample string and the time per census that
# +RTS -s reports.
#
#   bench/profiling-overhead.sh [REPS (default 5)] [BUILD_DIR (default build)]
set -euo pipefail
reps=${1:-5}
build=${2:-build}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
events=$build/utils/strata-events/strata-events
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

workloads=(${STRATA_BENCH_WORKLOADS:-"bintrees 20" "leak"})
modes=("none" "-l" "-hT" "-hi" "-he")

flags_for() {
    case $1 in
        none) echo "" ;;
        -l) echo "-l -ol$tmp/run.eventlog" ;;
        *) echo "$1 -i0.1 -l -ol$tmp/run.eventlog" ;;
    esac
}

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

printf '# %s, %s, %d cores, %s\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)" \
    "$(free -g | awk '/Mem:/ {print $2 " GiB"}')"
printf '# command: bench/profiling-overhead.sh %s %s\n' "$reps" "$build"
printf '%-12s %-5s %9s %7s %11s %14s %12s\n' workload mode "wall (s)" ratio "samples" "B/sample-str" "census ms"
for w in "${workloads[@]}"; do
    read -r -a cmd <<<"$w"
    cmd[0]=$build/examples/${cmd[0]}
    # Warm-up.
    "${cmd[@]}" >/dev/null 2>&1
    rm -f "$tmp"/times-*
    for ((i = 0; i < reps; i++)); do
        for k in "${!modes[@]}"; do
            # shellcheck disable=SC2046
            /usr/bin/time -f '%e' -a -o "$tmp/times-$k" \
                "${cmd[@]}" +RTS $(flags_for "${modes[$k]}") -RTS >/dev/null 2>&1
        done
    done
    base=$(median <"$tmp/times-0")
    lbytes=0
    for k in "${!modes[@]}"; do
        m=${modes[$k]}
        med=$(median <"$tmp/times-$k")
        ratio=$(awk -v a="$med" -v b="$base" 'BEGIN {printf "%.3f", a / b}')
        samples="-" per="-" speed="-"
        if [ "$m" != none ]; then
            # One more run for the log's figures and the census speed.
            # shellcheck disable=SC2046
            "${cmd[@]}" +RTS $(flags_for "$m") -s -RTS >/dev/null 2>"$tmp/stats"
            size=$(stat -c %s "$tmp/run.eventlog")
            [ "$m" = -l ] && lbytes=$size
            if [ "$m" != -l ]; then
                strings=$("$events" show "$tmp/run.eventlog" | grep -c 'Heap profile string sample:' || true)
                samples=$("$events" show "$tmp/run.eventlog" | grep -c 'Start of heap profile sample:' || true)
                per=$(awk -v s="$size" -v l="$lbytes" -v n="$strings" 'BEGIN {printf "%.1f", n ? (s - l) / n : 0}')
                speed=$(sed -n 's/.* MB, \([0-9.]*\) ms each.*/\1/p' "$tmp/stats")
            fi
        fi
        printf '%-12s %-5s %9s %7s %11s %14s %12s\n' "$w" "$m" "$med" "$ratio" "$samples" "$per" "$speed"
    done
done
