#!/usr/bin/env bash
# testsuite/scripts/fuzz-corpus.sh -- replays the committed fuzz corpora
# (testsuite/fuzz/corpus/<target>/: the eventlog reader, the debug request
# decoder, the .hp reader, the snapshot reader and the eventlog socket's
# control decoder) through the fuzz
# targets' own entry points, linked with a plain driver
# (testsuite/fuzz/replay.c), so that every input a fuzzing run kept --
# crashes included, until they are fixed -- runs in every build, under
# ASan and UBSan in build-san/.  testsuite/fuzz/fuzz.sh adds to them.
set -u
. "$(dirname "$0")/lib.sh"

fuzz=$top_builddir/testsuite/fuzz
corpora=$top_srcdir/testsuite/fuzz/corpus

for target in reader debug-request hp snapshot control; do
    replay=$fuzz/replay_${target//-/_}
    n=$(find "$corpora/$target" -type f | wc -l)
    # A corpus that lost its files would replay nothing and pass.
    [ "$n" -ge 5 ] && pass || fail "$corpora/$target holds $n inputs, expected at least 5"
    expect_status 0 "$replay" "$corpora/$target"
    if grep -qx "replay: $n inputs, none failed" "$out"; then
        pass
    else
        fail "$target: the replay did not report $n inputs; its last lines:"
        tail -n 3 "$out" | sed 's/^/    /' >&2
    fi
done

# The driver itself: nothing to replay, or an unreadable input, fails.
mkdir "$test_tmp/empty"
expect_status 1 "$fuzz/replay_reader" "$test_tmp/empty"
expect_stderr_contains "replay: no inputs"
expect_status 1 "$fuzz/replay_reader" "$test_tmp/missing"
expect_stderr_contains "replay: $test_tmp/missing: No such file or directory"

finish
