# bench/lib/latency.awk -- the latency table of bench/run: for each
# workload, latency size and variant, the medians of the worst pause, the
# 99th-percentile pause and the minimum mutator utilisation at 1, 10 and
# 100 ms windows (from `strata-events pauses` on each run's eventlog), and
# the worst push the program timed itself (msgbuf).
#
# Input: one line per timed run, tab-separated:
#   workload size variant round worst_ms p99_ms mmu1_pct mmu10_pct
#   mmu100_pct worst_push_ms
# where a figure is "-" when the run did not give it (a window longer
# than the run, a program that times nothing).
# Written for POSIX awk (mawk): no asort.

BEGIN { FS = "\t" }

{
    w = $1; s = $2; v = $3
    if (!((w, s) in seen_s)) { seen_s[w, s] = 1; rows[++nrows] = w SUBSEP s }
    if (!((w, s, v) in seen_v)) { seen_v[w, s, v] = 1; vs[w, s, ++nv[w, s]] = v }
    for (c = 1; c <= 6; c++)
        if ($(c + 4) != "-")
            vals[w, s, v, c, ++cnt[w, s, v, c]] = $(c + 4) + 0
    runs[w, s, v]++
}

function median(key, c,    n, i, j, t, a) {
    n = cnt[key, c]
    for (i = 1; i <= n; i++) a[i] = vals[key, c, i]
    for (i = 2; i <= n; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function cell(key, c, fmt) {
    return cnt[key, c] > 0 ? sprintf(fmt, median(key, c)) : "—"
}

END {
    print "| workload | size | variant | runs | worst pause (ms) | p99 pause (ms) | MMU 1 ms | MMU 10 ms | MMU 100 ms | worst push (ms) |"
    print "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for (r = 1; r <= nrows; r++) {
        split(rows[r], ws, SUBSEP)
        w = ws[1]; s = ws[2]
        for (i = 1; i <= nv[w, s]; i++) {
            v = vs[w, s, i]
            key = w SUBSEP s SUBSEP v
            printf "| %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", w, s, v, runs[w, s, v],
                cell(key, 1, "%.2f"), cell(key, 2, "%.2f"), cell(key, 3, "%.1f%%"),
                cell(key, 4, "%.1f%%"), cell(key, 5, "%.1f%%"), cell(key, 6, "%.2f")
        }
    }
}
