#!/usr/bin/env bash
# testsuite/scripts/threads.sh -- capabilities (+RTS -N): threads mutating
# one heap under -DS and -A8k, -N eventlogs, the statistics, and every
# misuse of the thread API getting its message.  Also run by the
# ThreadSanitizer build (scripts/test.sh), where any race fails it.
set -u
. "$(dirname "$0")/lib.sh"

prog=$top_builddir/testsuite/programs
ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
cd "$test_tmp" || exit 1

# 2 to 8 threads on 1, 2 and 4 capabilities; tiny nursery, sanity checks.
for spec in "2 1" "2 2" "4 2" "4 4" "8 4"; do
    set -- $spec
    expect_status 0 "$prog/thread_stress" "$1" 60 +RTS -N"$2" -A8k -DS -RTS
    grep -q "thread_stress: ok threads=$1 rounds=60 thunk_entries=1 .* caps=$2" "$out" ||
        fail "thread_stress $1 threads -N$2: $(cat "$out")"
done
# An era change without a stopped world: a message handed over through a
# mutable variable or a lock after the sender changed the era has that era
# or a later one, and so has what the receiver allocates next
# (docs/design/eras.md, Exactness).
for spec in "2 1" "4 1" "2 2" "4 2" "4 4" "8 4"; do
    set -- $spec
    expect_status 0 "$prog/era_handoff" "$1" 300 +RTS -N"$2" -A8k -RTS
    grep -q "era_handoff: ok threads=$1 rounds=300" "$out" ||
        fail "era_handoff $1 threads -N$2: $(cat "$out")"
done
expect_status 0 "$prog/era_handoff" 4 100 +RTS -N4 -A8k -DS -RTS

# traceMarker from every worker lands in the buffer of the capability it
# holds: 6 per worker (every 10th of 60 rounds), none lost, none in the
# global buffer.  (Which capability a worker gets depends on timing.)
expect_status 0 "$prog/thread_stress" 4 60 +RTS -N2 -A8k -l -olstress.eventlog -RTS
expect_status 0 "$events" show stress.eventlog
n=$(grep -c ': User marker: "worker ' "$out")
[ "$n" -eq 24 ] && pass || fail "thread_stress -l: $n worker markers, expected 24"
n=$(grep -Ec 'cap [01]: User marker: "worker ' "$out")
[ "$n" -eq 24 ] && pass || fail "thread_stress -l: $n of 24 markers in a capability's buffer"

# Three generations and a larger run without the checker.
expect_status 0 "$prog/thread_stress" 8 300 +RTS -N8 -G3 -A16k -RTS
grep -q 'thread_stress: ok threads=8' "$out" || fail "thread_stress -N8 -G3: $(cat "$out")"

# bintrees-par gives bintrees' output, whatever -N.  Depth 11 under -A8k
# makes about 800 minor GCs (370 of them parallel at -N2 and -N4) and 4
# major ones; depth 12 cost 2.5 times as much, nearly all of it in the
# sanity checker, and 11 times that again under ThreadSanitizer.
# Under ThreadSanitizer the runs go without -DS: the checker runs on one
# thread with the world stopped, after the GC threads have joined (its
# reads are ordered by the same join as the program's, which walks every
# tree it built), and the parallel collections raced are the same
# (seconds of CPU there with it and without: -N1 29.6 and 0.1, -N2 29.8
# and 0.2, -N4 26.8 and 0.3).  The other builds check the heap at every
# collection of all three runs; under ThreadSanitizer the checker still
# runs beside parallel collections in thread_stress and era_handoff above
# and in par-gc.sh.
expect_status 0 "$ex/bintrees" 11
cp "$out" bintrees.ref
for n in 1 2 4; do
    sanity=-DS
    case ${SAN_CFLAGS:-} in *-fsanitize=thread*) sanity= ;; esac
    expect_status 0 "$ex/bintrees-par" 11 +RTS -N$n -A8k $sanity -RTS
    cmp -s "$out" bintrees.ref || fail "bintrees-par -N$n output differs: $(diff "$out" bintrees.ref | head -5)"
done

# A -N2 eventlog: each capability's blocks, thread events, the census.
expect_status 0 "$ex/threads" 4 2000 +RTS -N2 -hi -l -i0.01 -A64k -olthreads.eventlog -RTS
expect_status 0 "$events" check threads.eventlog
expect_status 0 "$events" show threads.eventlog
for what in 'cap 1: Create capability' 'cap 1: Block marker' 'Create thread' 'Run thread' \
            'Stop thread' 'Heap profile string sample'; do
    grep -q "$what" "$out" || fail "-N2 eventlog lacks '$what'"
done
# Every worker thread was created, ran, and finished (status 5).
for t in 2 3 4 5; do
    grep -q "Create thread: 4 bytes: 00 00 00 0$t" "$out" || fail "-N2 eventlog: no thread $t"
    grep -q "Stop thread: 10 bytes: 00 00 00 0$t 00 05" "$out" || fail "-N2 eventlog: thread $t never finished"
done

# +RTS -s: per-capability allocation and the sync line.
expect_status 0 "$ex/bintrees-par" 10 +RTS -N2 -s -RTS
expect_stderr_contains 'Cap  0 '
expect_stderr_contains 'Cap  1 '
expect_stderr_contains 'stops of the world'

# Misuse: each gets a message naming what was wrong.
misuse=$prog/thread_misuse
expect_status 0 "$misuse" unlock-not-held
expect_stderr_contains "rts_unlock: refused: thread "
expect_stderr_contains "holds no capability"
expect_status 0 "$misuse" resume-without-suspend
expect_stderr_contains "rts_resume: refused: thread "
expect_stderr_contains "is not suspended (rts_resume without rts_suspend)"
expect_status 0 "$misuse" lock-twice
expect_stderr_contains "rts_lock: refused: thread "
expect_stderr_contains "already holds capability 0"
expect_status 0 "$misuse" unlock-main
expect_stderr_contains "rts_unlock: refused: the thread that called hs_init keeps its capability"
expect_status 0 "$misuse" unlock-other-cap +RTS -N2 -RTS
expect_stderr_contains "is not the one thread "
expect_status 0 "$misuse" era-without-cap
expect_stderr_contains "setUserEra: refused: thread "
expect_status 134 "$misuse" alloc-without-cap
expect_stderr_contains "heap allocation from a thread that holds no capability"
expect_status 0 "$misuse" exit-with-thread-attached +RTS -N2 -RTS
expect_stderr_contains "ended holding capability "
expect_stderr_contains "(rts_lock with no rts_unlock): it is given back and the thread detached"
grep -q "still attached" "$err" && fail "hs_exit still waited for the ended thread: $(cat "$err")" || pass
expect_status 0 "$misuse" exit-with-thread-attached +RTS -N1 -RTS
expect_stderr_contains "ended holding capability 0 "
expect_status 1 "$ex/bintrees" 4 +RTS -N0 -RTS
expect_stderr_contains "-N: number of capabilities must be at least 1 (got 0)"
expect_status 1 "$ex/bintrees" 4 +RTS -Nx -RTS
expect_stderr_contains "-N: bad number 'x'"
expect_status 1 "$ex/bintrees" 4 +RTS -N257 -RTS
expect_stderr_contains "-N: number of capabilities must be at most 256 (got 257)"

finish
