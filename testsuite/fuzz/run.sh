#!/usr/bin/env bash
# testsuite/fuzz/run.sh -- builds the eventlog reader's libFuzzer target
# (fuzz_reader.c, compiled with the reader's sources directly) with clang
# -fsanitize=fuzzer,address,undefined and runs it.
#
#   testsuite/fuzz/run.sh [SECONDS] [WORKDIR]
#
# SECONDS defaults to 600.  WORKDIR (default: $TMPDIR/strata-fuzz) holds
# the binary, the corpus (seeded from testsuite/golden/*.eventlog) and any
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

"$cc" -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
    -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla -Werror \
    -I"$top/includes" -I"$top/eventlog" \
    "$here/fuzz_reader.c" "$top/eventlog/EventLogReader.c" -o "$work/fuzz_reader"

cd "$work"
exec ./fuzz_reader -max_total_time="$seconds" -max_len=200000 -print_final_stats=1 \
    -artifact_prefix="$work/" corpus
