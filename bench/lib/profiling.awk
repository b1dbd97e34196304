# bench/lib/profiling.awk -- the profiling-overhead tables of bench/run.
#
# Input: one line per timed run, tab-separated:
#   workload size label round wall_s censuses_taken censuses_asked
# (the last two "-" where the run wrote no profile, or asked is unknown).
# The census columns are the last round's, so that overheads compare runs
# that took as many censuses as GHC's (docs/design/profiling.md).
# where label is "strata", "strata -hT", ..., "ghc", "ghc -hT", ...  The
# base of a label is its first word's plain run ("strata" or "ghc").
# Written for POSIX awk (mawk): no asort.

BEGIN { FS = "\t" }

{
    w = $1; s = $2; l = $3
    if (!(w in seen_w)) { seen_w[w] = 1; ws[++nw] = w; size[w] = s }
    if (!((w, l) in seen_l)) { seen_l[w, l] = 1; ls[w, ++nl[w]] = l }
    vals[w, l, ++cnt[w, l]] = $5 + 0
    taken[w, l] = $6; asked[w, l] = $7
}

function median(w, l,    n, i, j, t, a) {
    n = cnt[w, l]
    for (i = 1; i <= n; i++) a[i] = vals[w, l, i]
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

END {
    for (i = 1; i <= nw; i++) {
        w = ws[i]
        printf "### %s (size %s)\n\n", w, size[w]
        print "| mode | runs | wall (s) | / no profiling | censuses taken | asked for |"
        print "| --- | ---: | ---: | ---: | ---: | ---: |"
        for (j = 1; j <= nl[w]; j++) {
            l = ls[w, j]
            split(l, parts, " ")
            base = parts[1]
            m = median(w, l)
            ratio = "—"
            if (l != base && (w, base) in seen_l)
                ratio = sprintf("%.3f", m / median(w, base))
            printf "| %s | %d | %.3f | %s | %s | %s |\n", l, cnt[w, l], m, ratio,
                taken[w, l] == "" ? "-" : taken[w, l], asked[w, l] == "" ? "-" : asked[w, l]
        }
        print ""
    }
}
