# shellcheck shell=bash
# testsuite/scripts/bands-lib.sh -- a heap profile's bands as strata-events
# reads them, in the form testsuite/interop/HeapBands.hs prints ghc-events'
# reading, so that the two can be compared with cmp.  Shared by
# ghc-logs.sh and interop-sid.sh (sourced after lib.sh; $events is
# strata-events).

# summary_bands LOG: "censuses N", then "PEAK<TAB>LABEL" per band, sorted
# by label: the form of testsuite/interop/HeapBands.hs.
summary_bands() {
    "$events" summary "$1" --top 0 | awk '
        /^samples: / { print "censuses " $2 }
        /^top buckets by peak/ { on = 1; next }
        /^top buckets by integrated/ { on = 0 }
        on && /^ *[0-9]+\. / {
            l = $0; sub(/^ *[0-9]+\. +[0-9]+  "/, "", l); sub(/"(  .*)?$/, "", l)
            print $2 "\t" l }' | sort_bands
}
sort_bands() {
    local first
    read -r first
    printf '%s\n' "$first"
    LC_ALL=C sort -t "$(printf '\t')" -k2
}

# last_census LOG: the number of censuses and "LABEL BYTES" of the last one.
last_census() {
    "$events" show "$1" | awk '
        /: Start of heap profile sample: / { n++; split("", v) }
        /: Heap profile string sample: / {
            b = $0; sub(/.*profile 0, /, "", b); sub(/ bytes.*/, "", b)
            l = $0; sub(/^[^"]*"/, "", l); sub(/"$/, "", l); v[l] = b; last_l = l }
        END { print n; if (last_l != "") print last_l, v[last_l] }'
}

