#!/usr/bin/env bash
# testsuite/fuzz/fuzz.sh -- builds one fuzz target with clang
# -fsanitize=fuzzer,address,undefined, fuzzes it, and keeps what it found:
# inputs that reach new code are merged (libFuzzer's -merge=1, which
# minimises) into the committed corpus testsuite/fuzz/corpus/TARGET/, and
# any crash-*, leak-*, timeout-* or oom-* input is copied there too, so
# that make check replays it in every build (testsuite/scripts/
# fuzz-corpus.sh) until it is fixed.  Commit the new files with the fix.
#
#   testsuite/fuzz/fuzz.sh TARGET [SECONDS] [WORKDIR]
#
# TARGET is one of
#   reader         the eventlog reader (fuzz_reader.c)
#   debug-request  the debug stub's request decoder (fuzz_debug_request.c)
#   hp             strata-html's .hp reader (fuzz_hp.c)
#   snapshot       strata-debug's snapshot reader (fuzz_snapshot.c)
#   control        the eventlog socket's control decoder (fuzz_control.c)
# SECONDS defaults to 600.  WORKDIR (default $TMPDIR/strata-fuzz-TARGET)
# holds the binary and the working corpus: the committed one plus, for
# the reader, real logs written by the examples in $STRATA_BUILD (default
# build/) and by GHC when ghc is installed; for hp, the examples' .hp
# files.  Needs clang's libFuzzer runtime (Debian: libclang-rt-14-dev, or
# the clang package's own).  Exit status is libFuzzer's: non-zero if it
# found a crash.  The targets' own messages (stderr) are not shown while
# fuzzing (-close_fd_mask=2); a crash report is.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
usage="usage: fuzz.sh reader|debug-request|hp|snapshot|control [SECONDS] [WORKDIR]"
[ $# -ge 1 ] || { echo "fuzz.sh: $usage" >&2; exit 2; }
target=$1
seconds=${2:-600}
work=${3:-${TMPDIR:-/tmp}/strata-fuzz-$target}
cc=${CLANG:-clang}
build=${STRATA_BUILD:-$top/build}
corpus=$top/testsuite/fuzz/corpus/$target

# Sources, include directories, the longest input fuzzed (max_len) and the
# longest kept in the committed corpus (keep_len: tens of files of a few
# KB, so that make check replays them in seconds).
case $target in
reader)
    srcs=(testsuite/fuzz/fuzz_reader.c reader/EventLogReader.c reader/Pauses.c base/GrowArray.c
        base/Utf8.c)
    incs=(reader base) max_len=200000 keep_len=8192 ;;
debug-request)
    srcs=(testsuite/fuzz/fuzz_debug_request.c wire/DebugRequest.c wire/DebugWire.c
        base/GrowArray.c)
    incs=(wire base) max_len=4096 keep_len=4096 ;;
hp)
    srcs=(testsuite/fuzz/fuzz_hp.c utils/report/Profile.c utils/report/Series.c
        utils/report/ProfileHp.c utils/report/Progress.c utils/heapprof/CostCentres.c
        utils/heapprof/HeapModel.c wire/ClosureTypeNames.c reader/EventLogReader.c
        reader/IpeTable.c base/GrowArray.c base/WordMap.c base/StrIndex.c base/Utf8.c)
    incs=(utils/report utils/heapprof reader wire base) max_len=16384 keep_len=4096 ;;
snapshot)
    srcs=(testsuite/fuzz/fuzz_snapshot.c base/WordMap.c base/GrowArray.c
        utils/debug-client/ClientState.c utils/debug-client/BlockIndex.c
        utils/debug-client/BlockStore.c utils/debug-client/Payloads.c
        utils/debug-client/Client.c utils/debug-client/Decode.c utils/debug-client/EraRange.c
        utils/debug-client/GhcLayout.c utils/debug-client/GhcSnapshot.c utils/debug-client/RootText.c
        utils/debug-client/SnapshotSegments.c
        utils/debug-client/Marks.c
        utils/debug-client/Ranks.c utils/debug-client/Reach.c utils/debug-client/Search.c
        utils/debug-client/Analysis.c utils/debug-client/Snapshot.c
        utils/debug-client/PrivateFile.c wire/DebugWire.c wire/DebugServe.c wire/DebugRequest.c
        wire/ClosureTypeNames.c)
    incs=(utils/debug-client wire base) max_len=65536 keep_len=16384 ;;
control)
    srcs=(testsuite/fuzz/fuzz_control.c wire/ControlWire.c base/GrowArray.c)
    incs=(wire base) max_len=1048576 keep_len=4096 ;;
*)
    echo "fuzz.sh: unknown target '$target'; $usage" >&2
    exit 2 ;;
esac

command -v "$cc" >/dev/null || { echo "fuzz.sh: $cc not found" >&2; exit 77; }
mkdir -p "$work/corpus" "$corpus"
cp "$corpus"/* "$work/corpus/" 2>/dev/null || true

# Extra seeds from real runs (kept in the working corpus only; the merge
# keeps what of them reaches new code).
ex=$build/examples
if [ "$target" = reader ]; then
    cp "$top"/testsuite/golden/*.eventlog "$work/corpus/"
    if [ -x "$ex/leak" ]; then
        for mode in hT hi he hd; do
            "$ex/leak" 2 2000 +RTS -$mode -l -i0.001 \
                -ol"$work/corpus/strata-$mode.eventlog" -RTS >/dev/null
        done
        "$ex/bintrees" 8 +RTS -hT -l -A16k -i0 \
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
elif [ "$target" = hp ] && [ -x "$ex/leak" ]; then
    (cd "$work" && "$ex/leak" 2 2000 +RTS -hT -i0.001 -RTS >/dev/null &&
        mv leak.hp corpus/strata-leak.hp)
fi

inc_flags=()
for d in "${incs[@]}"; do inc_flags+=(-I"$top/$d"); done
"$cc" -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
    -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
    -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla -Werror \
    -I"$top/includes" "${inc_flags[@]}" "${srcs[@]/#/$top/}" -lm -o "$work/fuzz_$target"

cd "$work"
status=0
"./fuzz_$target" -max_total_time="$seconds" -max_len="$max_len" -print_final_stats=1 \
    -close_fd_mask=2 \
    -artifact_prefix="$work/" corpus || status=$?

# Keep what reaches new code (new edges: counting how often an edge ran,
# as the fuzzing does, would keep hundreds of inputs), and every input
# that failed.
before=$(find "$corpus" -type f | wc -l)
"./fuzz_$target" -merge=1 -use_counters=0 -max_len="$keep_len" "$corpus" corpus 2>merge.log ||
    { echo "fuzz.sh: the merge into $corpus failed (see $work/merge.log)" >&2; exit 1; }
for f in crash-* leak-* timeout-* oom-*; do
    [ -f "$f" ] || continue
    cp "$f" "$corpus/"
    echo "fuzz.sh: $f failed: copied to $corpus/ (make check replays it)"
done
after=$(find "$corpus" -type f | wc -l)
if [ "$after" -gt "$before" ]; then
    echo "fuzz.sh: $corpus: $before inputs before, $after now: commit the $((after - before)) new ones"
else
    echo "fuzz.sh: $corpus: $before inputs, none new (nothing to commit)"
fi
exit "$status"
