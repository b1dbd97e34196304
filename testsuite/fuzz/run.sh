#!/usr/bin/env bash
# testsuite/fuzz/run.sh -- builds the eventlog reader's libFuzzer target
# (fuzz_reader.c, compiled with the reader's sources directly) with clang
# -fsanitize=fuzzer,address,undefined and runs it.
#
#   testsuite/fuzz/run.sh [SECONDS] [WORKDIR]
#
# SECONDS defaults to 600.  WORKDIR (default: $TMPDIR/strata-fuzz) holds
# the binary, the corpus (seeded from testsuite/golden/*.eventlog and real
# logs written by strata's examples and by GHC) and any
# crash-* inputs.  Needs clang's libFuzzer runtime (Debian:
# libclang-rt-14-dev, or the clang package's own).  Exit status is
# libFuzzer's: non-zero if it found a crash.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
seconds=${1:-600}
work=${2:-${TMPDIR:-/tmp}/strata-fuzz}
cc=${CLANG:-clang}

command -v "$cc" >/dev/null || { echo "run.sh: $cc not found" >&2; exit 77; }
mkdir -p "$work/corpus"
cp "$top"/testsuite/golden/*.eventlog "$work/corpus/"

# Real logs too: strata's own (from a build in $STRATA_BUILD, default
# build/), in every profiling mode, and GHC's own if ghc is installed.
build=${STRATA_BUILD:-$top/build}
if [ -x "$build/examples/leak" ]; then
    for mode in hT hi he hd; do
        "$build/examples/leak" 2 2000 +RTS -$mode -l -i0.001 \
            -ol"$work/corpus/strata-$mode.eventlog" -RTS >/dev/null
    done
    "$build/examples/bintrees" 8 +RTS -hT -l -A16k -i0 \
        -ol"$work/corpus/strata-bintrees.eventlog" -RTS >/dev/null
fi
if command -v ghc >/dev/null; then
    mkdir -p "$work/ghc"
    printf 'import Debug.Trace\nmain = traceMarkerIO "m" >> print (sum [1 .. 50000 :: Int])\n' \
        >"$work/ghc/Small.hs"
    if ghc -O -v0 -rtsopts -eventlog "$work/ghc/Small.hs" -o "$work/ghc/small"; then
        (cd "$work/ghc" && ./small +RTS -hT -l -i0.001 -RTS >/dev/null &&
            cp small.eventlog "$work/corpus/ghc-hT.eventlog")
    fi
fi

"$cc" -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
    -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla -Werror \
    -I"$top/includes" -I"$top/eventlog" \
    "$here/fuzz_reader.c" "$top/eventlog/EventLogReader.c" -o "$work/fuzz_reader"

cd "$work"
exec ./fuzz_reader -max_total_time="$seconds" -max_len=200000 -print_final_stats=1 \
    -artifact_prefix="$work/" corpus
