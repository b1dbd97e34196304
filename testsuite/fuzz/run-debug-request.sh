#!/usr/bin/env bash
# testsuite/fuzz/run-debug-request.sh -- builds the debug stub's request
# decoder fuzzer (fuzz_debug_request.c with rts/debug/DebugRequest.c and
# wire/DebugWire.c) with clang -fsanitize=fuzzer,address,undefined and runs it.
#
#   testsuite/fuzz/run-debug-request.sh [SECONDS] [WORKDIR]
#
# SECONDS defaults to 600; WORKDIR (default $TMPDIR/strata-fuzz-debug)
# holds the binary, the corpus (seeded with one valid frame of every
# command) and any crash-* inputs.  Exit status is libFuzzer's.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
seconds=${1:-600}
work=${2:-${TMPDIR:-/tmp}/strata-fuzz-debug}
cc=${CLANG:-clang}

command -v "$cc" >/dev/null || { echo "run-debug-request.sh: $cc not found" >&2; exit 77; }
mkdir -p "$work/corpus"
# Seeds: command (u16 LE), flags 0, payload.
seed() { printf "$2" >"$work/corpus/$1"; }
seed version '\001\000\000\000'
seed pause '\002\000\000\000\350\003\000\000'
seed resume '\003\000\000\000'
seed roots '\004\000\000\000'
seed saved '\005\000\000\000'
seed closures '\006\000\000\000\002\000\000\000\010\000\000\000\000\000\000\000\020\000\000\000\000\000\000\000'
seed info '\007\000\000\000\001\000\000\000\100\000\000\000\000\000\000\000'
seed blocks '\010\000\000\000'
seed contents '\011\000\000\000\000\020\000\000\000\000\000\000'
seed snapshot '\012\000\000\000'

"$cc" -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
    -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla -Werror \
    -I"$top/includes" -I"$top/rts" \
    "$here/fuzz_debug_request.c" "$top/rts/debug/DebugRequest.c" "$top/wire/DebugWire.c" \
    -o "$work/fuzz_debug_request"

cd "$work"
exec ./fuzz_debug_request -max_total_time="$seconds" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$work/" corpus
