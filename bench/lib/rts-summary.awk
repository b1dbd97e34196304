# bench/lib/rts-summary.awk -- the figures bench/run takes from a `+RTS -s`
# summary, strata's or GHC's (the two print the same lines):
#
#   "  GC      time    0.351s  (  0.386s elapsed)"  -> gc 0.386, gc_cpu 0.351
#   "     442,524,720 bytes copied during GC"        -> copied
#   "  Parallel GC work balance: 67.68% (serial 0%, perfect 100%)"
#                                                    -> balance
#   "  Gen  0   85 colls,  0 par  0.015s  0.047s  0.0006s  0.0277s"
#   "  Gen  1    3 syncs,                 0.000s  0.0000s  0.0000s"
#                                                    -> max_pause, the
#       largest last figure of these lines (GHC's --nonmoving-gc adds the
#       syncs line; its "concurrent" line is marking beside the program,
#       not a pause, and is left out)
#
# Prints one tab-separated line: gc_elapsed_s bytes_copied balance_pct
# gc_cpu_s max_pause_s, each "-" when the summary does not have it.  GHC
# prints the work balance only for a run with more than one capability.
# Written for POSIX awk (mawk on Debian).

BEGIN { gc = "-"; copied = "-"; balance = "-"; cpu = "-"; pause = "-" }

/^ *GC +time/ {
    x = $5; sub(/s$/, "", x); gc = x
    y = $3; sub(/s$/, "", y); cpu = y
}

/bytes copied during GC/ { x = $1; gsub(/,/, "", x); copied = x }

/^ *Parallel GC work balance:/ {
    x = $5
    if (x ~ /^[0-9.]+%$/) { sub(/%$/, "", x); balance = x }
}

/^ *Gen +[0-9]+ +[0-9]+ (colls|syncs),/ {
    x = $NF; sub(/s$/, "", x)
    if (x ~ /^[0-9.]+$/ && (pause == "-" || x + 0 > pause + 0)) pause = x
}

END { printf "%s\t%s\t%s\t%s\t%s\n", gc, copied, balance, cpu, pause }
