#!/usr/bin/env bash
# scripts/check-sizes.sh [SRCDIR] -- the size check of docs/HACKING.md
# ("Sizes"): fails, naming file, line and length, on a function of the
# runtime's or the tools' C sources and headers whose body is over 100
# lines, and on such a source or header over 800 lines.  Prints
# "sizes: OK (N functions in M files checked)" when there is none.
#
# A function is what the tree's style makes one: a line opening with "{"
# at column 0 and the next line opening with "}" at column 0; its length
# counts both braces.  Its name is the identifier before the "(" of the
# last line at column 0 that has one (the signature).
#
# ALLOWED lists the functions outside utils/ that were over the limit when
# the check was written and are left to their folders' owners; each is
# "FILE:NAME".  An entry stops being accepted once its function is short
# again (so the list can only shrink), and utils/ has no entries.
# STRATA_SIZES_ALLOWED adds entries (for testsuite/scripts/sizes.sh).
set -euo pipefail

src=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$src"

MAX_FUNCTION=100
MAX_FILE=800
ALLOWED=(
    ${STRATA_SIZES_ALLOWED:-}
)

declare -A allowed
for a in "${ALLOWED[@]}"; do
    allowed[$a]=1
done

files=$(find base support wire sm eventlog reader profiling rts ghc utils -name '*.c' \
            -not -path 'utils/node_modules/*' | LC_ALL=C sort)
headers=$(find base support wire sm eventlog reader profiling rts utils -name '*.h' \
              -not -path 'utils/node_modules/*' | LC_ALL=C sort)
bad=0
nfun=0
nfiles=0
while IFS=' ' read -r where name len; do
    nfun=$((nfun + 1))
    (( len > MAX_FUNCTION )) || continue
    file=${where%%:*}
    if [[ -n ${allowed[$file:$name]:-} ]]; then
        allowed[$file:$name]=seen
        continue
    fi
    echo "$where: function $name is $len lines long; at most $MAX_FUNCTION" >&2
    bad=$((bad + 1))
done < <(awk '
    FNR == 1 { name = ""; start = 0 }
    /^[A-Za-z_].*\(/ { sig = $0; sub(/\(.*/, "", sig); n = split(sig, w, /[ \t*]+/); name = w[n] }
    /^\{/ { start = FNR }
    /^\}/ && start { print FILENAME ":" start " " name " " (FNR - start + 1); start = 0 }
' $files $headers)

for a in "${ALLOWED[@]}"; do
    if [[ ${allowed[$a]} != seen ]]; then
        echo "$a: allowed over $MAX_FUNCTION lines but is not; take it off ALLOWED in scripts/check-sizes.sh" >&2
        bad=$((bad + 1))
    fi
done

for f in $files $headers; do
    nfiles=$((nfiles + 1))
    lines=$(wc -l <"$f")
    if (( lines > MAX_FILE )); then
        echo "$f: $lines lines; a file has at most $MAX_FILE" >&2
        bad=$((bad + 1))
    fi
done

if (( bad > 0 )); then
    echo "sizes: $bad over the limit" >&2
    exit 1
fi
echo "sizes: OK ($nfun functions in $nfiles files checked)"
