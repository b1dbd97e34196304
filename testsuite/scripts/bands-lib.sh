# shellcheck shell=bash
# testsuite/scripts/bands-lib.sh -- a heap profile's bands as strata-events
# reads them, in the form testsuite/interop/HeapBands.hs prints ghc-events'
# reading, so that the two can be compared with cmp.  Shared by
# ghc-logs.sh and interop-sid.sh (sourced after lib.sh; $events is
# strata-events).

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

# last_census LOG: the number of censuses, then "LABEL BYTES" of the
# largest band of the last one (a band strata-live's --top always shows).
last_census() (
    set -o pipefail
    "$events" show "$1" | awk '
        /: Start of heap profile sample: / { n++; top_l = ""; top_b = -1 }
        /: Heap profile string sample: / {
            b = $0; sub(/.*profile 0, /, "", b); sub(/ bytes.*/, "", b)
            l = $0; sub(/^[^"]*"/, "", l); sub(/"$/, "", l)
            if (b + 0 > top_b) { top_b = b + 0; top_l = l } }
        END { print n; if (top_l != "") print top_l, top_b }'
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
