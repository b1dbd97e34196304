#!/usr/bin/env bash
# bench/ffi/run.sh -- builds bench/ffi/ffi-bench.c with cc -O2 against the
# release runtime in build/ (built first if missing) and prints what
# foreign calls cost, as a Markdown table headed by the machine.
#
#   bench/ffi/run.sh [CALLS] [QSORT_N] [REPS]     (defaults 2000000 1000000 5)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here"
lib=build/.libs/libstrata.a
if [ ! -f "$lib" ]; then
    [ -x configure ] || autoreconf -fi
    mkdir -p build
    (cd build && { [ -f Makefile ] || ../configure --enable-werror; } && make -j2 libstrata.la)
fi
out=bench/out
mkdir -p "$out"
# shellcheck disable=SC2046
cc -std=c11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE -Iincludes bench/ffi/ffi-bench.c "$lib" \
    $(pkg-config --libs libffi) -lelf -ldwarf -lm -lpthread -o "$out/ffi-bench"
printf '# %s, %s, %d cores\n' "$(date -u +%Y-%m-%dT%H:%MZ)" \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$(nproc)"
printf '# command: bench/ffi/run.sh %s (best of the rounds; default nursery)\n' "$*"
"$out/ffi-bench" "$@"
