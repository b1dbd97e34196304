# bench/lib/scaling.awk -- the report for workloads that bench/run runs at
# several capability counts (a `caps` file): per size, +RTS -N and variant,
# medians of wall time, GC time, bytes copied, the parallel GC's work
# balance and peak RSS, each variant's speed-up over its own -N1 run, the
# ratio strata / other at the same -N, and the figures issue 16 states its
# targets in (printed, never checked).
#
# Input: one line per timed run, tab-separated:
#   workload size variant caps rep wall_s peak_rss_kib gc_elapsed_s
#   bytes_copied balance_pct gc_cpu_s max_pause_s [young_cpu_s young_copied
#   old_cpu_s old_copied in_place_bytes [system_cpu_s minor_faults]]
# where the figures after peak_rss_kib are "-" when the run's `+RTS -S`
# report did not give them (the work balance needs more than one
# capability, and a parallel collector; the bracketed fields may be
# missing altogether).  GC CPU s/GB, max pause and the table by kind of
# collection (with the run's page faults and kernel CPU) are report.awk's.
# Written for POSIX awk (mawk on Debian).

BEGIN { FS = "\t" }

{
    w = $1; s = $2; v = $3; n = $4
    if (!(w in seen_w)) { seen_w[w] = 1; ws[++nw] = w }
    if (!((w, s) in seen_s)) { seen_s[w, s] = 1; ss[w, ++ns[w]] = s }
    if (!((w, n) in seen_n)) { seen_n[w, n] = 1; caps[w, ++nn[w]] = n + 0 }
    if (!((w, v) in seen_v)) { seen_v[w, v] = 1; vs[w, ++nv[w]] = v }
    r = w SUBSEP s SUBSEP v SUBSEP n
    runs[r]++
    add(r, "wall", $6)
    add(r, "rss", $7 == "-" ? "-" : $7 / 1024)        # KiB -> MiB
    add(r, "gc", $8)
    add(r, "copied", $9 == "-" ? "-" : $9 / 1e6)      # bytes -> MB
    add(r, "balance", $10)
    if ($11 != "-" && $11 != "" && $9 != "-" && $9 > 0)
        add(r, "spg", $11 / ($9 / 1e9))             # GC CPU s per GB copied
    add(r, "pause", ($12 == "-" || $12 == "") ? "-" : $12 * 1000)   # s -> ms
    if (NF >= 17) {
        add(r, "ycopied", $14 == "-" ? "-" : $14 / 1e6)
        add(r, "ocopied", $16 == "-" ? "-" : $16 / 1e6)
        add(r, "ycpu", $13)
        add(r, "ocpu", $15)
        if ($13 != "-" && $14 != "-" && $14 > 0) add(r, "yspg", $13 / ($14 / 1e9))
        if ($15 != "-" && $16 != "-" && $16 > 0) add(r, "ospg", $15 / ($16 / 1e9))
        add(r, "inplace", $17 == "-" ? "-" : $17 / 1e6)
        if ($14 != "-") by_kind[w] = 1
    }
    if (NF >= 19) {
        add(r, "sys", $18)
        add(r, "faults", $19 == "-" ? "-" : $19 / 1000)
    }
}

# Collects value x of metric m for run key r; "-" means not reported.
function add(r, m, x,    k) {
    if (x == "-" || x == "") return
    k = r SUBSEP m
    vals[k, ++cnt[k]] = x + 0
}

# The median of metric m over the runs of (w, s, v, n), or "".
function median(w, s, v, n, m,    k, c, i, j, t, a) {
    k = w SUBSEP s SUBSEP v SUBSEP n SUBSEP m
    c = cnt[k] + 0
    if (c == 0) return ""
    for (i = 1; i <= c; i++) a[i] = vals[k, i]
    for (i = 2; i <= c; i++) {          # insertion sort: c is small
        t = a[i]
        for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
        a[j + 1] = t
    }
    return (c % 2) ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
}

function fmt(x, f) { return x == "" ? "—" : sprintf(f, x) }

# a / b to two places, or "—" if either is missing (or b is 0).
function quot(a, b) { return (a == "" || b == "" || b == 0) ? "—" : sprintf("%.2f", a / b) }

# How many capabilities' worth of work the parallel GC shared out at n
# capabilities: 0% balance (serial) is 1 of n, 100% (perfect) is n of n.
function of_n(pct, n) { return sprintf("%.2f of %d", 1 + pct / 100 * (n - 1), n) }

function balance_cell(pct, n) { return pct == "" ? "—" : sprintf("%.2f%% (%s)", pct, of_n(pct, n)) }

END {
    for (i = 1; i <= nw; i++) {
        w = ws[i]
        # The capability counts in increasing order.
        for (a = 2; a <= nn[w]; a++) {
            t = caps[w, a]
            for (b = a - 1; b >= 1 && caps[w, b] > t; b--) caps[w, b + 1] = caps[w, b]
            caps[w, b + 1] = t
        }
        printf "### %s\n\n", w
        print "At each capability count (`+RTS -N`), medians.  speed-up: the variant's"
        print "median at -N1 over its median at this -N (above 1 is faster).  strata/x:"
        print "strata's median over the variant's at the same -N.  GC work balance: the"
        print "`Parallel GC work balance` line of `+RTS -s` (0% serial, 100% perfect),"
        print "and as X of N = 1 + balance × (N − 1) capabilities' worth of GC work;"
        print "— where the runtime does not report it."
        print ""
        print "| size | -N | variant | runs | wall (s) | speed-up | strata/x | GC (s) | GC speed-up | strata/x | copied (MB) | strata/x | GC work balance | peak RSS (MiB) | GC CPU s/GB | strata/x | max pause (ms) |"
        print "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        for (j = 1; j <= ns[w]; j++) {
            s = ss[w, j]
            for (c = 1; c <= nn[w]; c++) {
                n = caps[w, c]
                for (k = 1; k <= nv[w]; k++) {
                    v = vs[w, k]
                    if (!((w SUBSEP s SUBSEP v SUBSEP n) in runs)) continue
                    wall = median(w, s, v, n, "wall"); gc = median(w, s, v, n, "gc")
                    cp = median(w, s, v, n, "copied")
                    ref = (v == "strata")
                    spg = median(w, s, v, n, "spg")
                    printf "| %s | %d | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                        s, n, v, runs[w, s, v, n],
                        fmt(wall, "%.3f"), quot(median(w, s, v, 1, "wall"), wall),
                        ref ? "—" : quot(median(w, s, "strata", n, "wall"), wall),
                        fmt(gc, "%.3f"), quot(median(w, s, v, 1, "gc"), gc),
                        ref ? "—" : quot(median(w, s, "strata", n, "gc"), gc),
                        fmt(cp, "%.1f"),
                        ref ? "—" : quot(median(w, s, "strata", n, "copied"), cp),
                        balance_cell(median(w, s, v, n, "balance"), n),
                        fmt(median(w, s, v, n, "rss"), "%.1f"),
                        fmt(spg, "%.3f"),
                        ref ? "—" : quot(median(w, s, "strata", n, "spg"), spg),
                        fmt(median(w, s, v, n, "pause"), "%.1f")
                }
            }
        }
        print ""
        print "Issue 16's targets, as figures (bench/run does not check them):"
        print ""
        head = "| figure | target |"; rule = "| --- | --- |"
        for (j = 1; j <= ns[w]; j++) { head = head " size " ss[w, j] " |"; rule = rule " ---: |" }
        print head; print rule
        line1 = "| strata -N2 wall / GHC -N2 wall | ≤ 0.6 |"
        line2 = "| strata GC time -N2 / strata GC time -N1 | ≤ 0.6 |"
        line3 = "| strata work balance at -N2 | ≥ 1.8 of 2 |"
        for (j = 1; j <= ns[w]; j++) {
            s = ss[w, j]
            line1 = line1 " " quot(median(w, s, "strata", 2, "wall"), median(w, s, "ghc", 2, "wall")) " |"
            line2 = line2 " " quot(median(w, s, "strata", 2, "gc"), median(w, s, "strata", 1, "gc")) " |"
            pct = median(w, s, "strata", 2, "balance")
            line3 = line3 " " (pct == "" ? "—" : of_n(pct, 2)) " |"
        }
        print line1; print line2; print line3
        print ""
        if (w in by_kind) kind_table(w)
    }
}

# GC CPU per GB copied by kind of collection (report.awk's table), per -N.
function kind_table(w,    j, c, k, s, n, v, ref, y, o) {
    printf "GC CPU by kind of collection (%s):\n\n", w
    print "| size | -N | variant | young: copied (MB) | CPU (s) | s/GB | strata/x | in place (MB) | old: copied (MB) | CPU (s) | s/GB | strata/x | run: page faults (k) | system CPU (s) |"
    print "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    for (j = 1; j <= ns[w]; j++) {
        s = ss[w, j]
        for (c = 1; c <= nn[w]; c++) {
            n = caps[w, c]
            for (k = 1; k <= nv[w]; k++) {
                v = vs[w, k]
                if (median(w, s, v, n, "ycopied") == "") continue
                ref = (v == "strata")
                y = median(w, s, v, n, "yspg"); o = median(w, s, v, n, "ospg")
                printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s, n, v,
                    fmt(median(w, s, v, n, "ycopied"), "%.1f"), fmt(median(w, s, v, n, "ycpu"), "%.3f"),
                    fmt(y, "%.3f"), ref ? "—" : quot(median(w, s, "strata", n, "yspg"), y),
                    fmt(median(w, s, v, n, "inplace"), "%.1f"),
                    fmt(median(w, s, v, n, "ocopied"), "%.1f"), fmt(median(w, s, v, n, "ocpu"), "%.3f"),
                    fmt(o, "%.3f"), ref ? "—" : quot(median(w, s, "strata", n, "ospg"), o),
                    fmt(median(w, s, v, n, "faults"), "%.1f"), fmt(median(w, s, v, n, "sys"), "%.2f")
            }
        }
    }
    print ""
}
