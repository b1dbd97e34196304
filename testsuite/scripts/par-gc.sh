#!/usr/bin/env bash
# testsuite/scripts/par-gc.sh -- the parallel collector (+RTS -N -qn -qg):
# par_gc_stress's shared graph under -DS and -A8k at several thread and
# GC-thread counts (every field and era checked, the census tally counted
# by several threads checked against a heap walk), -qg's generations,
# output identical to the sequential collector, the work-balance lines of
# +RTS -s, the per-capability GC events of the eventlog, and that a
# stable name or a weak pointer makes every copy unique.  Also run by
# the ThreadSanitizer build (scripts/test.sh), where any race fails it.
set -u
. "$(dirname "$0")/lib.sh"

prog=$top_builddir/testsuite/programs
ex=$top_builddir/examples
events=$top_builddir/utils/strata-events/strata-events
cd "$test_tmp" || exit 1

stress_ok() {   # THREADS NODES RTS-FLAGS...
    local t=$1 n=$2
    shift 2
    expect_status 0 "$prog/par_gc_stress" "$t" "$n" +RTS "$@" -RTS
    grep -q "par_gc_stress: ok threads=$t nodes=$n " "$out" ||
        fail "par_gc_stress $t $n $*: $(head -c 600 "$out")"
}

# Threads x capabilities x GC threads, tiny nursery, sanity checks on.
stress_ok 2 10000 -N2 -qn2 -A8k -DS
stress_ok 4 5000 -N4 -qn4 -A8k -DS
stress_ok 4 5000 -N4 -qn3 -A8k -DS -G3
stress_ok 1 10000 -N2 -A8k -DS
# A census at every tick: the tally each GC thread counted, merged, must
# equal the heap walk (-DS checks it).
stress_ok 3 5000 -N3 -A8k -DS -hT -i0.002
stress_ok 2 5000 -N2 -A8k -DS -he -i0.002

# Twin copies (Note [Immutable copies without a claim] in sm/Evac.c): two
# GC threads race through the same 50,000 young constructors.  Without a
# stable name or a weak some may be copied twice, each copy whole; while
# either exists, every copy must be unique.
expect_status 0 "$prog/twin_copies" 10 50000 +RTS -N2 -qn2 -A16m -DS -RTS
grep -q "twin_copies: ok rounds=10 objects=50000 " "$out" || fail "twin_copies: $(head -c 600 "$out" "$err")"
for mode in stable-name weak; do
    expect_status 0 "$prog/twin_copies" 10 50000 "$mode" +RTS -N2 -qn2 -A16m -DS -RTS
    grep -q "twin_copies: ok rounds=10 objects=50000 twins=0 " "$out" ||
        fail "twin_copies $mode: $(head -c 600 "$out" "$err")"
done
expect_status 2 "$prog/twin_copies" 20 100000 stable +RTS -N2 -RTS
expect_stderr_contains 'usage: '

# -qg1: minor collections sequential, major ones parallel; -qg: none.
expect_status 0 "$prog/par_gc_stress" 2 20000 +RTS -N2 -A8k -qg1 -s -RTS
grep -Eq '^ *Gen  0 +[0-9]+ colls, +0 par' "$err" || fail "-qg1: gen 0 collected in parallel: $(grep 'Gen  0' "$err")"
grep -Eq '^ *Gen  1 +[0-9]+ colls, +[1-9][0-9]* par' "$err" || fail "-qg1: no parallel major GC: $(grep 'Gen  1' "$err")"
expect_status 0 "$prog/par_gc_stress" 2 20000 +RTS -N2 -A8k -qg -s -RTS
grep -Eq '^ *Gen  1 +[0-9]+ colls, +0 par' "$err" || fail "-qg: a parallel GC: $(grep 'Gen  1' "$err")"
grep -q 'Parallel GC work balance' "$err" && fail "-qg: a work balance without a parallel GC"
pass

# A single-threaded program collected by two GC threads: same output,
# GHC's balance line, and both GC threads copied.
expect_status 0 "$ex/bintrees" 14 +RTS -N1 -RTS
cp "$out" bintrees.ref
expect_status 0 "$ex/bintrees" 14 +RTS -N2 -qn2 -A32k -s -RTS
cmp -s "$out" bintrees.ref || fail "bintrees -N2 -qn2 output differs: $(diff "$out" bintrees.ref | head -5)"
expect_stderr_contains 'Parallel GC work balance: '
expect_stderr_contains '% (serial 0%, perfect 100%)'
grep -Eq '^ *Gen  0 +[0-9]+ colls, +[1-9][0-9]* par' "$err" || fail "-N2: no parallel GC: $(grep 'Gen  0' "$err")"
for t in 0 1; do
    grep -Eq "^  GC thread  $t +[1-9][0-9,]* bytes copied" "$err" ||
        fail "-N2 -qn2: GC thread $t copied nothing: $(grep 'GC thread' "$err")"
done
# A multi-threaded program's output under the parallel collector, with
# -A8k and -DS, is threads.sh's (bintrees-par against bintrees at -N1,
# -N2 and -N4), in the same builds: not again here.

# The eventlog: a parallel GC is requested as one, and each capability's
# GC thread says when it works, idles and is done, in its own buffer.
# gc_thread_phases holds GC thread 0 until GC thread 1 has joined each
# collection, so that cap 1's events are there however loaded the machine
# (without the hold, a late thread 1 may join none: Note [Joining a
# parallel phase] in sm/GCThread.c).
phases() {   # phases NAME WHAT...: each WHAT is in NAME.eventlog
    local name=$1
    shift
    expect_status 0 "$events" check "$name.eventlog"
    expect_status 0 "$events" show "$name.eventlog"
    for what in "$@"; do
        grep -q "$what" "$out" || fail "$name: -N2 eventlog lacks '$what'"
    done
}
expect_status 0 "$prog/gc_thread_phases" 20 +RTS -N2 -qn2 -A64k -l -olphases.eventlog -RTS
grep -q 'gc_thread_phases: ok gcs=20 threads=2$' "$out" || fail "gc_thread_phases: $(cat "$out" "$err")"
phases phases 'cap 0: Request parallel GC' 'cap 0: GC working' 'cap 1: GC working' \
    'cap 1: GC idle' 'cap 1: GC done' 'cap 0: GC done'
# A program of two mutator threads: its log is whole, and thread 0's
# events are there (thread 1's are there only if the OS ran it in time).
expect_status 0 "$ex/bintrees-par" 12 +RTS -N2 -A64k -l -olpar.eventlog -RTS
phases par 'cap 0: Request parallel GC' 'cap 0: GC working' 'cap 0: GC done'
expect_status 2 "$prog/gc_thread_phases" 0
expect_stderr_contains 'usage: '
expect_status 0 "$ex/bintrees-par" 12 +RTS -N2 -qg -A64k -l -olseq.eventlog -RTS
expect_status 0 "$events" show seq.eventlog
grep -Eq 'cap [0-9]+: Request parallel GC' "$out" && fail "-qg eventlog requests a parallel GC"
# One GC thread per collection: as many GC_WORKs as collections.
gcs=$(grep -Ec 'cap [0-9]+: Request sequential GC' "$out")
works=$(grep -Ec 'cap [0-9]+: GC working' "$out")
[ "$gcs" -gt 0 ] && [ "$works" -eq "$gcs" ] && pass ||
    fail "-qg eventlog: $works GC_WORK events for $gcs collections"

finish
