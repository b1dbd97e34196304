# bench/lib/report.awk -- turns bench/run's measurements into Markdown
# tables: medians per workload, size and variant, and the ratio
# strata / variant for each metric.
#
# Input: one line per timed run, tab-separated:
#   workload size variant rep wall_s peak_rss_kib gc_elapsed_s bytes_copied
#   gc_cpu_s max_pause_s [young_cpu_s young_copied old_cpu_s old_copied
#   in_place_bytes [system_cpu_s minor_faults]]
# where the figures after peak_rss_kib are "-" for a variant whose runtime
# does not report them (the bracketed fields may be missing altogether).
# Variables: memcpy (GB/s from bench/memcpy-bw, or "-").
#
# GC CPU s/GB is the collector's CPU time per 10^9 bytes copied, the cost
# of its work whatever the number of GC threads; "of memcpy" is the copy
# rate it stands for (bytes copied per GC CPU second) as a share of the
# memcpy bandwidth.  A collector that copies little (GHC's --nonmoving-gc
# copies only out of the nursery) spends its time elsewhere, so its s/GB
# is high; max pause is the latency that buys.
#
# The same cost split by the kind of collection, below each workload's
# main table: generation 0's collections (young) and the older
# generations' (old), each its CPU time over the bytes it copied.  The two
# kinds cost differently per byte -- a young collection copies what was
# just allocated, in order, an old one chases the whole heap -- so the
# total's s/GB moves with the mix even when neither kind gets slower.
# "in place" is what strata's young collections promoted without copying
# (docs/design/gc.md): their CPU is in the young figure, their bytes are
# not.  The table ends with the whole run's minor page faults and kernel
# CPU time (GNU time's %R and %S): a fault is the first touch of a 4 KiB
# page, and both runtimes take most of theirs in the collector, copying
# into fresh to-space, so their cost is part of GC CPU -- the same for a
# runtime that copies half as much, whose s/GB it raises twice as much.
# Written for POSIX awk (mawk on Debian): no asort, no gawk extensions.

BEGIN { FS = "\t" }

{
    w = $1; s = $2; v = $3
    if (!(w in seen_w)) { seen_w[w] = 1; ws[++nw] = w }
    if (!((w, s) in seen_s)) { seen_s[w, s] = 1; ss[w, ++ns[w]] = s }
    if (!((w, s, v) in seen_v)) { seen_v[w, s, v] = 1; vs[w, s, ++nv[w, s]] = v }
    add(w, s, v, "wall", $5)
    add(w, s, v, "rss", $6 / 1024)          # KiB -> MiB
    add(w, s, v, "gc", $7)
    add(w, s, v, "copied", $8 == "-" ? "-" : $8 / 1e6)   # bytes -> MB
    if ($9 != "-" && $8 != "-" && $8 > 0)
        add(w, s, v, "spg", $9 / ($8 / 1e9))  # GC CPU s per GB copied
    add(w, s, v, "pause", $10 == "-" ? "-" : $10 * 1000)   # s -> ms
    if (NF >= 15) {
        add(w, s, v, "ycopied", $12 == "-" ? "-" : $12 / 1e6)
        add(w, s, v, "ocopied", $14 == "-" ? "-" : $14 / 1e6)
        add(w, s, v, "ycpu", $11)
        add(w, s, v, "ocpu", $13)
        if ($11 != "-" && $12 != "-" && $12 > 0) add(w, s, v, "yspg", $11 / ($12 / 1e9))
        if ($13 != "-" && $14 != "-" && $14 > 0) add(w, s, v, "ospg", $13 / ($14 / 1e9))
        add(w, s, v, "inplace", $15 == "-" ? "-" : $15 / 1e6)
        if ($12 != "-") by_kind[w] = 1
    }
    if (NF >= 17) {
        add(w, s, v, "sys", $16)
        add(w, s, v, "faults", $17 == "-" ? "-" : $17 / 1000)
    }
}

# Collects value x of metric m; "-" means not reported.
function add(w, s, v, m, x,    k) {
    if (x == "-" || x == "") return
    k = w SUBSEP s SUBSEP v SUBSEP m
    vals[k, ++cnt[k]] = x + 0
}

# The median of metric m, or "" if no run reported it.
function median(w, s, v, m,    k, n, i, j, t, a) {
    k = w SUBSEP s SUBSEP v SUBSEP m
    n = cnt[k] + 0
    if (n == 0) return ""
    for (i = 1; i <= n; i++) a[i] = vals[k, i]
    for (i = 2; i <= n; i++) {          # insertion sort: n is small
        t = a[i]
        for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function fmt(x, f) { return x == "" ? "—" : sprintf(f, x) }

# strata's median over this variant's, or "—".
function ratio(w, s, v, m,    a, b) {
    if (v == "strata") return "—"
    a = median(w, s, "strata", m); b = median(w, s, v, m)
    if (a == "" || b == "" || b == 0) return "—"
    return sprintf("%.2f", a / b)
}

END {
    for (i = 1; i <= nw; i++) {
        w = ws[i]
        printf "### %s\n\n", w
        print "| size | variant | runs | wall (s) | strata/x | GC (s) | strata/x | copied (MB) | strata/x | peak RSS (MiB) | strata/x | GC CPU s/GB | strata/x | of memcpy | max pause (ms) | strata/x |"
        print "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        for (j = 1; j <= ns[w]; j++) {
            s = ss[w, j]
            for (k = 1; k <= nv[w, s]; k++) {
                v = vs[w, s, k]
                spg = median(w, s, v, "spg")
                of = (spg == "" || spg <= 0 || memcpy == "-" || memcpy <= 0) ? "—" : \
                    sprintf("%.1f%%", 100 / spg / memcpy)
                printf "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                    s, v, cnt[w SUBSEP s SUBSEP v SUBSEP "wall"],
                    fmt(median(w, s, v, "wall"), "%.3f"), ratio(w, s, v, "wall"),
                    fmt(median(w, s, v, "gc"), "%.3f"), ratio(w, s, v, "gc"),
                    fmt(median(w, s, v, "copied"), "%.1f"), ratio(w, s, v, "copied"),
                    fmt(median(w, s, v, "rss"), "%.1f"), ratio(w, s, v, "rss"),
                    fmt(spg, "%.3f"), ratio(w, s, v, "spg"), of,
                    fmt(median(w, s, v, "pause"), "%.1f"), ratio(w, s, v, "pause")
            }
        }
        print ""
        if (w in by_kind) kind_table(w)
    }
}

function kind_table(w,    j, k, s, v) {
    printf "GC CPU by kind of collection (%s):\n\n", w
    print "| size | variant | young: copied (MB) | CPU (s) | s/GB | strata/x | in place (MB) | old: copied (MB) | CPU (s) | s/GB | strata/x | run: page faults (k) | system CPU (s) |"
    print "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for (j = 1; j <= ns[w]; j++) {
        s = ss[w, j]
        for (k = 1; k <= nv[w, s]; k++) {
            v = vs[w, s, k]
            if (median(w, s, v, "ycopied") == "") continue
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s, v,
                fmt(median(w, s, v, "ycopied"), "%.1f"), fmt(median(w, s, v, "ycpu"), "%.3f"),
                fmt(median(w, s, v, "yspg"), "%.3f"), ratio(w, s, v, "yspg"),
                fmt(median(w, s, v, "inplace"), "%.1f"),
                fmt(median(w, s, v, "ocopied"), "%.1f"), fmt(median(w, s, v, "ocpu"), "%.3f"),
                fmt(median(w, s, v, "ospg"), "%.3f"), ratio(w, s, v, "ospg"),
                fmt(median(w, s, v, "faults"), "%.1f"), fmt(median(w, s, v, "sys"), "%.2f")
        }
    }
    print ""
}
