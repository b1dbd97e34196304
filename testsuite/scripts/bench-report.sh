#!/usr/bin/env bash
# testsuite/scripts/bench-report.sh -- the pieces of bench/run that turn
# runs into figures (bench/README.md): bench/lib/rts-summary.awk reads GC
# time (elapsed and CPU), bytes copied, the parallel GC's work balance and
# the longest pause from strata's and GHC's `+RTS -S` reports ("-" when
# missing, never a failure), GHC's --nonmoving-gc summary included, and
# splits GC CPU and bytes copied between generation 0's collections and
# the older ones'; bench/lib/report.awk turns them into GC CPU seconds per
# GB copied, in all and by kind of collection;
# bench/lib/caps.sh expands a workload's caps file; bench/lib/scaling.awk
# prints the -N scaling table with the work balance as "X of N" and the
# figures of issue 16's targets; bench/lib/latency.awk the latency table's
# medians.  Also: the benchmark copies of the examples stay the same
# programs, a workload run at several -N has a GHC variant built with
# -threaded, latency sizes are sizes, and variants rows are well formed.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

lib=$top_srcdir/bench/lib
cd "$test_tmp" || exit 1

# expect_eq WHAT GOT WANT
expect_eq() {
    if [ "$2" = "$3" ]; then pass; else fail "$1: got '$2', expected '$3'"; fi
}

# expect_line FILE LINE: FILE has LINE as a whole line.
expect_line() {
    if grep -qxF -e "$2" "$1"; then
        pass
    else
        fail "expected the line '$2' in $1, which holds:"
        sed 's/^/    /' "$1" >&2
    fi
}

# --- rts-summary.awk -------------------------------------------------------

# GHC 9.0.2, -threaded, +RTS -N2 -s.
cat >ghc-n2.txt <<'SUMMARY'
'/tmp/ghc' '18' +RTS '-N2' '-s/tmp/s2'
   1,631,734,312 bytes allocated in the heap
   1,156,308,320 bytes copied during GC
      27,849,832 bytes maximum residency (20 sample(s))

                                     Tot time (elapsed)  Avg pause  Max pause
  Gen  0       892 colls,   892 par    0.834s   0.864s     0.0010s    0.0134s
  Gen  1        20 colls,    19 par    0.264s   0.285s     0.0142s    0.0404s

  Parallel GC work balance: 67.68% (serial 0%, perfect 100%)

  TASKS: 6 (1 bound, 5 peak workers (5 total), using -N2)

  INIT    time    0.001s  (  0.001s elapsed)
  MUT     time    0.710s  (  0.597s elapsed)
  GC      time    1.098s  (  1.149s elapsed)
  EXIT    time    0.000s  (  0.007s elapsed)
  Total   time    1.809s  (  1.753s elapsed)

  %GC     time      60.7%  (65.5% elapsed)
SUMMARY
expect_eq "GHC -N2 summary" "$(awk -f "$lib/rts-summary.awk" ghc-n2.txt)" \
    "$(printf '1.149\t1156308320\t67.68\t1.098\t0.0404\t0.834\t-\t0.264\t-\t-')"

# A summary without the work balance line (strata's serial collector, GHC
# at -N1) and with a balance that is not a percentage: "-", not a failure.
grep -v 'work balance' ghc-n2.txt >no-balance.txt
expect_eq "summary without a work balance" "$(awk -f "$lib/rts-summary.awk" no-balance.txt)" \
    "$(printf '1.149\t1156308320\t-\t1.098\t0.0404\t0.834\t-\t0.264\t-\t-')"
sed 's/67.68%/NaN%/' ghc-n2.txt >nan-balance.txt
expect_eq "summary with a work balance of NaN%" "$(awk -f "$lib/rts-summary.awk" nan-balance.txt)" \
    "$(printf '1.149\t1156308320\t-\t1.098\t0.0404\t0.834\t-\t0.264\t-\t-')"
expect_eq "empty summary" "$(awk -f "$lib/rts-summary.awk" /dev/null)" \
    "$(printf -- '-\t-\t-\t-\t-\t-\t-\t-\t-\t-')"

# GHC 9.10.3's -S: one line per GC before the summary; a GC's generation
# is its last field.  The syncs and concurrent lines of --nonmoving-gc
# are not collections and add no CPU to either kind.
cat >ghc-per-gc.txt <<'SUMMARY'
    Alloc    Copied     Live     GC     GC      TOT      TOT  Page Flts
    bytes     bytes     bytes   user   elap     user     elap
  4196168   4161832   4186464  0.004  0.004    0.006    0.006    0    1  (Gen:  0)
  4177920   8338440   8364384  0.007  0.007    0.013    0.013    0    0  (Gen:  0)
  4177920  12517496  12542128  0.009  0.009    0.022    0.022    0    0  (Gen:  1)
   360552                      0.000  0.000

      25,017,768 bytes copied during GC

                                     Tot time (elapsed)  Avg pause  Max pause
  Gen  0         2 colls,     0 par    0.011s   0.011s     0.0055s    0.0070s
  Gen  1         1 colls,     0 par    0.009s   0.009s     0.0090s    0.0090s
  Gen  1         3 syncs,                       0.000s     0.0000s    0.0500s
  Gen  1      concurrent,              0.004s   0.018s     0.0059s    0.0900s

  GC      time    0.020s  (  0.020s elapsed)
SUMMARY
expect_eq "GHC -S report" "$(awk -f "$lib/rts-summary.awk" ghc-per-gc.txt)" \
    "$(printf '0.020\t25017768\t-\t0.020\t0.0500\t0.011\t12500272\t0.009\t12517496\t-')"
# strata's line for what it promoted without copying.
{ cat ghc-per-gc.txt; echo "   4,294,967,296 bytes promoted in place (1,024 GCs)"; } >in-place.txt
expect_eq "the in-place line" "$(awk -f "$lib/rts-summary.awk" in-place.txt | cut -f 10)" "4294967296"

# GHC 9.10.3 with --nonmoving-gc: the syncs line is a pause, the
# concurrent mark is not.
cat >ghc-nonmoving.txt <<'SUMMARY'
      38,687,288 bytes copied during GC

                                     Tot time (elapsed)  Avg pause  Max pause
  Gen  0        84 colls,     0 par    0.021s   0.050s     0.0006s    0.0174s
  Gen  1         3 colls,     0 par    0.016s   0.053s     0.0177s    0.0340s
  Gen  1         3 syncs,                       0.000s     0.0000s    0.0500s
  Gen  1      concurrent,              0.004s   0.018s     0.0059s    0.0900s

  GC      time    0.037s  (  0.103s elapsed)
  CONC GC time    0.004s  (  0.018s elapsed)
SUMMARY
expect_eq "GHC --nonmoving-gc summary" "$(awk -f "$lib/rts-summary.awk" ghc-nonmoving.txt)" \
    "$(printf '0.103\t38687288\t-\t0.037\t0.0500\t0.021\t-\t0.016\t-\t-')"

# strata's own report, as it is today: GC time and bytes copied must be
# found; the balance is a percentage or "-"; the per-GC lines account for
# every byte copied, split between young and old collections (-A64k: both
# kinds happen).
prog=$top_builddir/examples/bintrees-par
if [ -x "$prog" ]; then
    expect_status 0 env -u GHCRTS "$prog" 14 +RTS -N2 -A64k -Sstrata-n2.txt -RTS
    IFS=$'\t' read -r gc copied balance cpu pause ycpu ycopied ocpu ocopied in_place \
        < <(awk -f "$lib/rts-summary.awk" strata-n2.txt)
    num='^[0-9]+\.[0-9]+$'
    if [[ $gc =~ $num ]] && [[ $copied =~ ^[0-9]+$ ]] &&
            [[ $balance =~ ^(-|[0-9]+(\.[0-9]+)?)$ ]] && [[ $cpu =~ $num ]] &&
            [[ $pause =~ $num ]] && [[ $ycpu =~ $num ]] && [[ $ocpu =~ $num ]] &&
            [[ $ycopied =~ ^[0-9]+$ ]] && [[ $ocopied =~ ^[0-9]+$ ]] &&
            [ $((ycopied + ocopied)) -eq "$copied" ] && [[ $in_place =~ ^(-|[0-9]+)$ ]]; then
        pass
    else
        fail "strata's +RTS -S report read as gc='$gc' copied='$copied' balance='$balance' cpu='$cpu' pause='$pause' young='$ycpu s, $ycopied B' old='$ocpu s, $ocopied B' in_place='$in_place':"
        sed 's/^/    /' strata-n2.txt >&2
    fi
else
    fail "$prog has not been built"
fi

# --- report.awk ------------------------------------------------------------

# workload size variant rep wall rss_kib gc copied gc_cpu max_pause
tab() { local IFS=$'\t'; printf '%s\n' "$*"; }
{
    tab w 20 strata 1 4.0 20480 2.0 2000000000 2.4 0.010
    tab w 20 ghc 1 5.0 20480 2.5 4000000000 3.2 0.020
    tab w 20 malloc 1 6.0 10240 - - - -
} >data
awk -v memcpy=10 -f "$lib/report.awk" data >table.md 2>awk-err
expect_eq "report.awk's stderr" "$(cat awk-err)" ""
# 2.4 s / 2 GB = 1.2 s/GB, a copy rate of 0.83 GB/s, 8.3% of 10 GB/s.
expect_line table.md "| 20 | strata | 1 | 4.000 | — | 2.000 | — | 2000.0 | — | 20.0 | — | 1.200 | — | 8.3% | 10.0 | — |"
expect_line table.md "| 20 | ghc | 1 | 5.000 | 0.80 | 2.500 | 0.80 | 4000.0 | 0.50 | 20.0 | 1.00 | 0.800 | 1.50 | 12.5% | 20.0 | 0.50 |"
expect_line table.md "| 20 | malloc | 1 | 6.000 | 0.67 | — | — | — | — | 10.0 | 2.00 | — | — | — | — | — |"
# Without the by-kind fields there is no by-kind table.
if grep -q 'by kind' table.md; then fail "a by-kind table from runs without -S figures"; else pass; fi

# ... young_cpu young_copied old_cpu old_copied in_place system_cpu faults
{
    tab w 20 strata 1 4.0 20480 2.0 2000000000 2.4 0.010 0.3 1000000000 2.1 1000000000 500000000 0.15 82817
    tab w 20 ghc 1 5.0 20480 2.5 4000000000 3.2 0.020 1.2 3000000000 2.0 1000000000 - 0.17 78712
    tab w 20 malloc 1 6.0 10240 - - - - - - - - - 0.01 2500
} >kdata
awk -v memcpy=10 -f "$lib/report.awk" kdata >ktable.md 2>awk-err
expect_eq "report.awk's stderr, by kind" "$(cat awk-err)" ""
expect_line ktable.md "GC CPU by kind of collection (w):"
# young: 0.3 s / 1 GB = 0.300 s/GB against GHC's 1.2 s / 3 GB = 0.400.
# The run's page faults in thousands and its system CPU close each row.
expect_line ktable.md "| 20 | strata | 1000.0 | 0.300 | 0.300 | — | 500.0 | 1000.0 | 2.100 | 2.100 | — | 82.8 | 0.15 |"
expect_line ktable.md "| 20 | ghc | 3000.0 | 1.200 | 0.400 | 0.75 | — | 1000.0 | 2.000 | 2.000 | 1.05 | 78.7 | 0.17 |"
if grep -q '| 20 | malloc | [0-9—]* | ' ktable.md && [ "$(grep -c '| 20 | malloc |' ktable.md)" -gt 1 ]; then
    fail "malloc, which reports no GC, has a by-kind row"
else
    pass
fi

# --- caps.sh ---------------------------------------------------------------

# shellcheck source=../../bench/lib/caps.sh
. "$lib/caps.sh"
expect_eq "caps '1 2 auto' on 12 cores" "$(bench_caps "1 2 auto" 12)" "1 2 4 8 12"
expect_eq "caps '1 2 auto' on 16 cores" "$(bench_caps "1 2 auto" 16)" "1 2 4 8 16"
expect_eq "caps '1 2 auto' on 2 cores" "$(bench_caps "1 2 auto" 2)" "1 2"
expect_eq "caps '1 2 auto' on 1 core" "$(bench_caps "1 2 auto" 1)" "1 2"
expect_eq "caps '3 1'" "$(bench_caps "3 1" 8)" "1 3"
expect_status 1 bench_caps "1 two" 4
expect_stderr_contains "bench_caps: a capability count is a positive number or auto (word=two)"
expect_status 1 bench_caps "1 0" 4
expect_stderr_contains "(word=0)"
expect_status 1 bench_caps "" 4
expect_stderr_contains "bench_caps: no capability count"

# --- scaling.awk -----------------------------------------------------------

# workload size variant caps rep wall rss_kib gc copied balance gc_cpu max_pause
{
    tab w 21 strata 1 1 4.0 20480 2.0 100000000 - 0.2 0.004
    tab w 21 ghc 1 1 5.0 20480 2.5 200000000 - 0.3 0.006
    tab w 21 strata 2 1 2.4 30720 1.0 100000000 80 0.2 0.003
    tab w 21 ghc 2 1 4.0 40960 2.0 300000000 67.68 0.6 0.005
    tab w 21 strata 2 2 2.6 30720 1.4 100000000 82 0.2 0.003
    tab w 21 ghc 2 2 4.0 40960 2.0 300000000 67.68 0.6 0.005
    tab w 16 strata 1 1 1.0 10240 0.5 1000000 - - -
    tab w 16 strata 2 1 0.8 10240 0.5 1000000 - - -
} >cdata
awk -f "$lib/scaling.awk" cdata >report.md 2>awk-err
expect_eq "scaling.awk's stderr" "$(cat awk-err)" ""
expect_line report.md "| 21 | 1 | strata | 1 | 4.000 | 1.00 | — | 2.000 | 1.00 | — | 100.0 | — | — | 20.0 | 2.000 | — | 4.0 |"
expect_line report.md "| 21 | 1 | ghc | 1 | 5.000 | 1.00 | 0.80 | 2.500 | 1.00 | 0.80 | 200.0 | 0.50 | — | 20.0 | 1.500 | 1.33 | 6.0 |"
# Medians of two runs: wall 2.5, GC 1.2, balance 81% = 1.81 of 2.
expect_line report.md "| 21 | 2 | strata | 2 | 2.500 | 1.60 | — | 1.200 | 1.67 | — | 100.0 | — | 81.00% (1.81 of 2) | 30.0 | 2.000 | — | 3.0 |"
expect_line report.md "| 21 | 2 | ghc | 2 | 4.000 | 1.25 | 0.62 | 2.000 | 1.25 | 0.60 | 300.0 | 0.33 | 67.68% (1.68 of 2) | 40.0 | 2.000 | 1.00 | 5.0 |"
# Size 16 ran without GHC, a work balance, GC CPU time or pauses.
expect_line report.md "| 16 | 2 | strata | 1 | 0.800 | 1.25 | — | 0.500 | 1.00 | — | 1.0 | — | — | 10.0 | — | — | — |"
expect_line report.md "| figure | target | size 21 | size 16 |"
expect_line report.md "| strata -N2 wall / GHC -N2 wall | ≤ 0.6 | 0.62 | — |"
expect_line report.md "| strata GC time -N2 / strata GC time -N1 | ≤ 0.6 | 0.60 | 1.00 |"
expect_line report.md "| strata work balance at -N2 | ≥ 1.8 of 2 | 1.81 of 2 | — |"

if grep -q 'by kind' report.md; then fail "a by-kind -N table from runs without -S figures"; else pass; fi

# ... young_cpu young_copied old_cpu old_copied in_place, at -N1 and -N2.
{
    tab w 21 strata 1 1 4.0 20480 2.0 100000000 - 0.2 0.004 0.02 100000000 0.18 0 0
    tab w 21 strata 2 1 2.4 30720 1.0 100000000 80 0.2 0.003 0.04 50000000 0.16 50000000 25000000 0.09 40000
    tab w 21 ghc 2 1 4.0 40960 2.0 300000000 67.68 0.6 0.005 0.3 200000000 0.3 100000000 -
} >kcdata
awk -f "$lib/scaling.awk" kcdata >kreport.md 2>awk-err
expect_eq "scaling.awk's stderr, by kind" "$(cat awk-err)" ""
expect_line kreport.md "GC CPU by kind of collection (w):"
# -N1: no old collection copied anything, so no old s/GB.
# Lines without the system CPU and faults fields show them as —.
expect_line kreport.md "| 21 | 1 | strata | 100.0 | 0.020 | 0.200 | — | 0.0 | 0.0 | 0.180 | — | — | — | — |"
# -N2: young 0.04 s / 0.05 GB = 0.8 s/GB against GHC's 0.3 / 0.2 = 1.5.
expect_line kreport.md "| 21 | 2 | strata | 50.0 | 0.040 | 0.800 | — | 25.0 | 50.0 | 0.160 | 3.200 | — | 40.0 | 0.09 |"
expect_line kreport.md "| 21 | 2 | ghc | 200.0 | 0.300 | 1.500 | 0.53 | — | 100.0 | 0.300 | 3.000 | 1.07 | — | — |"

# At -N4, 50% is 1 + 0.5 * 3 = 2.50 of 4.
tab w 18 strata 4 1 1.0 10240 0.5 1000000 50 - - >cdata4
awk -f "$lib/scaling.awk" cdata4 >report4.md
expect_line report4.md "| 18 | 4 | strata | 1 | 1.000 | — | — | 0.500 | — | — | 1.0 | — | 50.00% (2.50 of 4) | 10.0 | — | — | — |"

# --- latency.awk -----------------------------------------------------------

# Three rounds: medians per column, a window longer than a run ("-") left
# out of its median, a column no round has shown as —.
{
    tab msgbuf 200,1000 strata 1 12.5 3.0 0.0 40.0 90.0 12.6
    tab msgbuf 200,1000 strata 2 10.0 2.0 0.0 50.0 80.0 10.1
    tab msgbuf 200,1000 strata 3 30.0 4.0 0.0 45.0 - 30.2
    tab msgbuf 200,1000 ghc 1 100.0 50.0 0.0 0.0 10.0 101.0
    tab lists 3000000 strata 1 65.0 1.5 0.0 0.0 35.0 -
} >ldata
awk -f "$lib/latency.awk" ldata >latency.md 2>awk-err
[ -s awk-err ] && fail "latency.awk wrote to stderr: $(cat awk-err)"
expect_line latency.md "| msgbuf | 200,1000 | strata | 3 | 12.50 | 3.00 | 0.0% | 45.0% | 85.0% | 12.60 |"
expect_line latency.md "| msgbuf | 200,1000 | ghc | 1 | 100.00 | 50.00 | 0.0% | 0.0% | 10.0% | 101.00 |"
expect_line latency.md "| lists | 3000000 | strata | 1 | 65.00 | 1.50 | 0.0% | 0.0% | 35.0% | — |"

# --- The workloads ---------------------------------------------------------

workloads=$top_srcdir/bench/workloads
for pair in binary-trees:bintrees binary-trees-par:bintrees-par; do
    w=${pair%%:*} example=${pair#*:}
    if cmp -s "$workloads/$w/strata.c" "$top_srcdir/examples/$example.c"; then
        pass
    else
        fail "bench/workloads/$w/strata.c differs from examples/$example.c"
    fi
done
# A latency size is one the workload runs; a variants row names a variant
# and a binary bench/run builds, in four fields.
for f in "$workloads"/*/latency; do
    dir=${f%/latency}
    for size in $(head -n 1 "$f"); do
        if [[ " $(head -n 1 "$dir/sizes") " == *" $size "* ]]; then
            pass
        else
            fail "${f#"$top_srcdir"/} names $size, which is not in its sizes file"
        fi
    done
done
for f in "$workloads"/*/variants; do
    while read -r row; do
        case $row in '' | '#'*) continue ;; esac
        if [[ $row =~ ^[a-z0-9-]+\|(strata|ghc|ghc-threaded|boehm|malloc)\|[^|\ ]*\|[^|]*$ ]]; then
            pass
        else
            fail "${f#"$top_srcdir"/}: a row is name|binary|arguments|RTS flags, not '$row'"
        fi
    done <"$f"
done
for caps in "$workloads"/*/caps; do
    dir=${caps%/caps}
    [ -e "$dir/ghc.hs" ] || continue
    if grep -qw -e -threaded "$dir/ghc-flags" 2>/dev/null; then
        pass
    else
        fail "${dir#"$top_srcdir"/} runs at several -N but its ghc-flags lack -threaded"
    fi
done

finish
