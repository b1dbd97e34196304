# bench/lib/rts-summary.awk -- the figures bench/run takes from a `+RTS -S`
# report, strata's or GHC's (the two print the same lines): one line per GC,
# then the `-s` summary.
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
#       not a pause, and is left out); the CPU figure of the "Gen 0 ...
#       colls" line -> young_cpu, the sum of the others' -> old_cpu
#   "  4177920   8355856  16720048  0.004  0.004  0.027  0.027  0  0  (Gen:  0)"
#                                                    -> the second figure
#       (bytes copied by that GC) summed over the GCs of generation 0 ->
#       young_copied, and over the others -> old_copied
#   "  4,294,967,296 bytes promoted in place (1,024 GCs)"   (strata only)
#                                                    -> in_place
#
# Prints one tab-separated line: gc_elapsed_s bytes_copied balance_pct
# gc_cpu_s max_pause_s young_cpu_s young_copied old_cpu_s old_copied
# in_place_bytes, each "-" when the report does not have it (the copied
# figures need the per-GC lines of -S; strata prints the in-place line
# only when some GC promoted in place).  GHC prints the work balance
# only for a run with more than one capability.
# Written for POSIX awk (mawk on Debian).

BEGIN {
    gc = "-"; copied = "-"; balance = "-"; cpu = "-"; pause = "-"
    young_cpu = "-"; old_cpu = "-"; young_copied = "-"; old_copied = "-"
    in_place = "-"; per_gc = 0   # set by the first per-GC line of -S
}

# A line of -S: the generation is the last field, "0)".
NF >= 3 && $(NF - 1) == "(Gen:" && $2 ~ /^[0-9]+$/ {
    g = $NF; sub(/\)$/, "", g)
    per_gc = 1
    if (g + 0 == 0) young_copied += $2; else old_copied += $2
}

/^ *Gen +[0-9]+ +[0-9]+ colls,/ {
    x = $7; sub(/s$/, "", x)
    if (x ~ /^[0-9.]+$/) {
        if ($2 + 0 == 0) young_cpu = x
        else old_cpu = sprintf("%.3f", (old_cpu == "-" ? 0 : old_cpu) + x)
    }
}

/bytes promoted in place/ { x = $1; gsub(/,/, "", x); in_place = x }

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

END {
    # A report with per-GC lines copied nothing in a kind it has no line of.
    if (per_gc) {
        if (young_copied == "-") young_copied = 0
        if (old_copied == "-") old_copied = 0
    }
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", gc, copied, balance, cpu, pause,
        young_cpu, young_copied, old_cpu, old_copied, in_place
}
