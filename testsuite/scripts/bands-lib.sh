# shellcheck shell=bash
# testsuite/scripts/bands-lib.sh -- a heap profile's bands as strata-events
# reads them, and the latest census strata-live serves, in the forms
# testsuite/interop/HeapBands.hs prints ghc-events' reading in, so that
# the two can be compared with cmp.  Shared by ghc-logs.sh and
# interop-sid.sh (sourced after lib.sh; $events is strata-events).

# The functions whose output is a pipeline run it under pipefail, in a
# subshell: their status is strata-events' own when it fails.

# summary_bands LOG: "censuses N", then "PEAK<TAB>LABEL" per band, sorted
# by label: the form of testsuite/interop/HeapBands.hs.
summary_bands() (
    set -o pipefail
    "$events" summary "$1" --top 0 | awk '
        /^samples: / { print "censuses " $2 }
        /^top buckets by peak/ { on = 1; next }
        /^top buckets by integrated/ { on = 0 }
        on && /^ *[0-9]+\. / {
            l = $0; sub(/^ *[0-9]+\. +[0-9]+  "/, "", l); sub(/"(  .*)?$/, "", l)
            print $2 "\t" l }' | sort_bands
)
sort_bands() {
    local first
    read -r first
    printf '%s\n' "$first"
    LC_ALL=C sort -t "$(printf '\t')" -k2
}

# metrics_census METRICS: a saved /metrics scrape's latest census in the
# form of heap-bands --last (HeapBands.hs): "censuses N", then
# "BYTES<TAB>LABEL" per band, sorted by label.  A band is named by its
# cost_centre_stack label where it has one (-hc), else by its band label,
# unescaped; a zero band="other" (nothing left out: strata-live --top
# 10000) is no band.
metrics_census() (
    set -o pipefail
    awk 'index($0, "strata_heap_census_number{") == 1 { print "censuses " $NF }' "$1"
    awk 'index($0, "strata_heap_census_bytes{") != 1 { next }
        {
            l = $0
            if (!sub(/^.*[{,]cost_centre_stack="/, "", l)) sub(/^.*[{,]band="/, "", l)
            # The value ends at the first quote that no backslash escapes.
            v = ""
            while (l != "" && substr(l, 1, 1) != "\"") {
                c = substr(l, 1, 1)
                if (c == "\\") { c = substr(l, 2, 1); if (c == "n") c = "\n"; l = substr(l, 2) }
                v = v c; l = substr(l, 2)
            }
            if (v == "other" && $NF == 0) next
            print $NF "\t" v
        }' "$1" | LC_ALL=C sort -t "$(printf '\t')" -k2
)

# same_bands WHAT EXPECTED GOT: passes if the two band files are equal, else
# fails with WHAT and the first lines of their diff.
same_bands() {
    if cmp -s "$2" "$3"; then
        pass
    else
        fail "$1:"
        diff "$2" "$3" | head -n 10 >&2
    fi
}
