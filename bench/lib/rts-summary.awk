# bench/lib/rts-summary.awk -- the figures bench/run takes from a `+RTS -s`
# summary, strata's or GHC's (the two print the same lines):
#
#   "  GC      time    0.351s  (  0.386s elapsed)"            -> gc 0.386
#   "     442,524,720 bytes copied during GC"                  -> copied
#   "  Parallel GC work balance: 67.68% (serial 0%, perfect 100%)"
#                                                              -> balance
#
# Prints one tab-separated line: gc_elapsed_s bytes_copied balance_pct,
# each "-" when the summary does not have it.  GHC prints the work balance
# only for a run with more than one capability, strata only once it has a
# parallel collector.  Written for POSIX awk (mawk on Debian).

BEGIN { gc = "-"; copied = "-"; balance = "-" }

/^ *GC +time/ { x = $5; sub(/s$/, "", x); gc = x }

/bytes copied during GC/ { x = $1; gsub(/,/, "", x); copied = x }

/^ *Parallel GC work balance:/ {
    x = $5
    if (x ~ /^[0-9.]+%$/) { sub(/%$/, "", x); balance = x }
}

END { printf "%s\t%s\t%s\n", gc, copied, balance }
