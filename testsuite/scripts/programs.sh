#!/usr/bin/env bash
# testsuite/scripts/programs.sh -- runs the test programs and examples under
# RTS flags: a tiny nursery (-A8k, a GC every few allocations) with the
# sanity checker on (-DS), several generation counts, and the statistics.
set -u
. "$(dirname "$0")/lib.sh"

prog=$top_builddir/testsuite/programs
ex=$top_builddir/examples

# The randomized mutator, with sanity checks around every GC: 20000
# steps in the release build's first pass (at -G3 about 2,200 minor and
# 48 major collections, each checked), a quarter of that in the other
# builds and the reruns (about 550 and 15: every configuration and
# generation still collected and checked, the same seeds' shorter runs).
steps=5000
release_first_pass && steps=20000
for g in 1 2 3; do
    if [ "$g" = 1 ] && nonmoving_rerun; then
        echo "SKIPPED: gc_stress -G1 (GHCRTS=$GHCRTS refuses -G1)"
        continue
    fi
    expect_status 0 "$prog/gc_stress" $steps $((g * 7)) +RTS -A8k -G$g -DS -RTS
    grep -q 'gc_stress: ok' "$out" || fail "gc_stress -G$g did not finish"
done
# Longer, without the checker, to get many major collections.
expect_status 0 "$prog/gc_stress" 300000 99 +RTS -A16k -RTS

# Eras: objects keep their birth era through every GC.
expect_status 0 "$prog/era_stress" 100 20000 +RTS -A8k -DS -RTS
grep -q 'objects=20000 ' "$out" || fail "era_stress did not check every object"

# Promotion in place at every minor GC that can (Note [Promoting the
# nursery in place] in sm/PromoteInPlace.h): the same mutators, checked
# the same way, with old objects that were never copied, dirty objects
# promoted young, and garbage promoted with them.
# At -G2 the non-moving rerun refuses =always; -G3 keeps it (generation 1
# copies).
G_PIP=
nonmoving_rerun && G_PIP=-G3
for g in 2 3; do
    if [ "$g" = 2 ] && nonmoving_rerun; then
        echo "SKIPPED: gc_stress -G2 --promote-in-place=always (GHCRTS=$GHCRTS refuses it)"
        continue
    fi
    expect_status 0 "$prog/gc_stress" $steps $((g * 11)) +RTS -A8k -G$g -DS --promote-in-place=always -RTS
    grep -q 'gc_stress: ok' "$out" || fail "gc_stress -G$g --promote-in-place=always did not finish"
done
expect_status 0 "$prog/era_stress" 100 20000 +RTS -A8k -DS --promote-in-place=always $G_PIP -RTS
grep -q 'objects=20000 ' "$out" || fail "era_stress --promote-in-place=always did not check every object"
expect_status 0 "$prog/thread_stress" 8 30 +RTS -N4 -A8k -DS --promote-in-place=always $G_PIP -RTS
grep -q "thread_stress: ok threads=8 rounds=30 " "$out" ||
    fail "thread_stress --promote-in-place=always: $(head -c 600 "$out")"
expect_status 0 "$prog/par_gc_stress" 2 20000 +RTS -N2 -A8k -DS --promote-in-place=always $G_PIP -RTS
grep -q "par_gc_stress: ok threads=2 nodes=20000 " "$out" ||
    fail "par_gc_stress --promote-in-place=always: $(head -c 600 "$out")"

# bintrees gives the classic output whatever the flags.
expect_status 0 "$ex/bintrees" 10
cp "$out" "$test_tmp/bintrees.ref"
expect_status 0 "$ex/bintrees" 10 +RTS -A8k -DS -RTS
cmp -s "$out" "$test_tmp/bintrees.ref" || fail "bintrees output differs under -A8k -DS"
grep -q 'long lived tree of depth 10	 check: 2047' "$out" || fail "bintrees check value wrong"
if nonmoving_rerun; then
    echo "SKIPPED: bintrees -G1 (GHCRTS=$GHCRTS refuses -G1)"
else
    expect_status 0 "$ex/bintrees" 10 +RTS -G1 -A8k -DS -RTS
    cmp -s "$out" "$test_tmp/bintrees.ref" || fail "bintrees output differs under -G1"
fi
expect_status 0 "$ex/bintrees" 10 +RTS -A8k -DS --promote-in-place=always $G_PIP -RTS
cmp -s "$out" "$test_tmp/bintrees.ref" || fail "bintrees output differs under --promote-in-place=always"

# +RTS -s: GHC's summary on stderr; -S adds a line per GC; -s<file>.
expect_status 0 "$ex/bintrees" 12 +RTS -s -A64k -RTS
for what in 'bytes allocated in the heap' 'bytes copied during GC' \
            'bytes maximum residency' 'total memory in use' 'Gen  0' 'Gen  1' \
            'MUT     time' 'GC      time' 'Productivity'; do
    expect_stderr_contains "$what"
done
expect_status 0 "$ex/bintrees" 8 +RTS -S -A64k -RTS
expect_stderr_contains '(Gen:  0)'
expect_status 0 "$ex/bintrees" 8 +RTS "-s$test_tmp/stats.txt" -RTS
expect_stderr_contains 'bytes allocated in the heap' "$test_tmp/stats.txt"

# A limited address space (ulimit -v, valgrind): a smaller reservation, or
# a clear message.  (Not under the sanitizers, whose shadow memory needs
# the address space itself.)
if [ -z "${SAN_CFLAGS:-}" ]; then
    expect_status 0 bash -c "ulimit -v 4000000 && exec '$ex/bintrees' 12"
    grep -q 'long lived tree of depth 12' "$out" || fail "bintrees under ulimit -v 4 GB did not finish"
    expect_status 1 bash -c "ulimit -v 200000 && exec '$ex/bintrees' 12"
    expect_stderr_contains "cannot reserve address space for the heap"
fi

# The eventlog hits the file size limit part-way through a block (SIGXFSZ
# ignored, so write fails with EFBIG, as on a full disk): the program
# carries on, the log is cut back to its last whole block and ends with the
# data end marker, and one message at exit says how much was lost.
events=$top_builddir/utils/strata-events/strata-events
msg=$(printf '%0999d' 0)
expect_status 0 bash -c "trap '' XFSZ; ulimit -f 3072 && exec '$prog/trace_text' -n 6000 '$msg' \
    +RTS -l '-ol$test_tmp/limit.eventlog' -RTS"
[ "$(grep -c 'cannot write' "$err")" = 1 ] || fail "want one 'cannot write' message: $(cat "$err")"
[ "$(grep -c 'lost' "$err")" = 1 ] || fail "want one 'lost' message: $(cat "$err")"
expect_stderr_contains "eventlog: events lost after a write error (events="
expect_stderr_contains "the log ends with the last whole block and the data end marker"
expect_status 0 "$events" check "$test_tmp/limit.eventlog"
expect_stderr_contains ": OK: " "$out"

# The heap limit: exceeding -M exits 251 with "heap overflow".
expect_status 251 "$ex/bintrees" 20 +RTS -M3m -RTS
expect_stderr_contains 'heap overflow'
# It exits where the heap stands: a non-moving segment of several eras
# still holds its era runs in the C heap, held (not leaked: LeakSanitizer
# reads the heap, docs/design/block-allocator.md's .inv.lsan-root).
expect_status 251 "$prog/era_stress" 100 200000 +RTS --nonmoving-gc -A8k -M2m -RTS
expect_stderr_contains 'heap overflow'

finish
