# shellcheck shell=bash
# bench/lib/caps.sh -- sourced by bench/run: the capability counts
# (+RTS -N) a workload's `caps` file asks for.
#
#   bench_caps SPEC NPROC
#
# SPEC is a space-separated list of positive numbers and the word `auto`,
# which stands for every power of two up to NPROC and NPROC itself (on 12
# cores: 1 2 4 8 12).  Prints the counts sorted and without repeats on one
# line, e.g. `bench_caps "1 2 auto" 12` prints `1 2 4 8 12`; returns 1 with
# a message on stderr for anything else in SPEC.

bench_caps() {
    local spec=$1 nproc=$2 word p counts=()
    case $nproc in
        ''|*[!0-9]*|0) echo "bench_caps: the core count must be a positive number (nproc=$nproc)" >&2; return 1 ;;
    esac
    for word in $spec; do
        case $word in
            auto)
                for ((p = 1; p <= nproc; p *= 2)); do counts+=("$p"); done
                counts+=("$nproc")
                ;;
            ''|*[!0-9]*|0*)
                echo "bench_caps: a capability count is a positive number or auto (word=$word)" >&2
                return 1
                ;;
            *) counts+=("$word") ;;
        esac
    done
    if [ ${#counts[@]} -eq 0 ]; then
        echo "bench_caps: no capability count (spec='$spec')" >&2
        return 1
    fi
    printf '%s\n' "${counts[@]}" | sort -n -u | paste -s -d ' ' -
}
