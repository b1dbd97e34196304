#!/usr/bin/env bash
# testsuite/scripts/blackhole-cycle.sh -- threads that wait for each
# other's blackholes (Note [Cycles of blackhole waits] in rts/Blackholes.c):
# cycles of 2 and 3 threads at -N1, -N2 and -N4 end in <<loop>> naming each
# thread and thunk; a chain that is no cycle runs to its end; hs_exit names
# what a thread it cannot stop waits for.  Also run by the ThreadSanitizer
# build (scripts/test.sh), where any race fails it.
set -u
. "$(dirname "$0")/lib.sh"

prog=$top_builddir/testsuite/programs/blackhole_cycle
cd "$test_tmp" || exit 1

for caps in 1 2 4; do
    for n in 2 3; do
        expect_status 1 "$prog" cycle "$n" +RTS -N"$caps" -RTS
        expect_stderr_contains "<<loop>>: $n threads wait for each other's thunks"
        lines=$(grep -c '<<loop>>:   thread [0-9]* (kernel thread [0-9]*) waits for thunk ring_[0-2], which thread [0-9]* evaluates' "$err")
        [ "$lines" -eq "$n" ] && pass || fail "cycle of $n at -N$caps: $lines thread lines: $(cat "$err")"
        for i in $(seq 0 $((n - 1))); do
            expect_stderr_contains "waits for thunk ring_$i, which thread"
        done
    done
done

# A chain of waits that ends in a value is no cycle, with -DS checking the
# heap at every collection.
for caps in 1 2 4; do
    expect_status 0 "$prog" chain 3 +RTS -N"$caps" -DS -RTS
    grep -q "blackhole_cycle: ok chain threads=3 caps=$caps" "$out" && pass ||
        fail "chain at -N$caps: $(cat "$out" "$err")"
done

# hs_exit gives up on both threads after its wait (--exit-wait: 10 s by
# default) and says why each cannot stop.  The program calls hs_exit once
# one thread is suspended and the other waits for its thunk, so a short
# wait finds them so.
expect_status 0 "$prog" stuck +RTS -N2 --exit-wait=0.2 -RTS
expect_stderr_contains "hs_exit: 2 other threads are still attached after 200 ms"
expect_stderr_contains "waits for a thunk another thread is evaluating"
expect_stderr_contains "suspended in a foreign call"

expect_status 2 "$prog" cycle 1
expect_stderr_contains "usage: blackhole_cycle"

finish
