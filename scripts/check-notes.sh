#!/usr/bin/env bash
# scripts/check-notes.sh [SRCDIR] -- the two cross-references that nothing
# else checks (docs/HACKING.md, "Notes and invariants"):
#
#   1. Every Note cited ("Note", a space, its title in square brackets) is
#      defined somewhere: a line holding the same citation directly
#      followed by a line of `~` (the GHC-style heading), in a source file
#      or a design document.
#   2. Every invariant tag `.inv.name` that docs/ names appears in the code
#      too (a source, header, test or script), where it is checked or cited.
#   3. A citation that says where its Note is (the title, "in", FILE: a
#      path or a bare file name, perhaps on the next line) names a file
#      that defines it: the defining file's path is FILE or ends in
#      "/FILE".  bench/'s Markdown (results that cite Notes) is read for
#      this one too.
#
# Reads the C sources and headers, shell scripts, Haskell and JavaScript of
# the runtime, tools, tests and benchmarks, and docs/; prints each problem
# as FILE:LINE: what, and "notes: OK (N notes, M invariants)" when there is
# none.  Exit 1 on a problem.
set -euo pipefail

src=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$src"

code_files() {
    find base support wire sm eventlog reader profiling rts ghc includes utils testsuite bench \
        examples scripts -type f \( -name '*.c' -o -name '*.h' -o -name '*.sh' \
        -o -name '*.hs' -o -name '*.js' -o -name '*.am' -o -name 'run' \) \
        -not -path '*/node_modules/*' -not -path '*/corpus/*' 2>/dev/null | LC_ALL=C sort
}
doc_files() {
    find docs README.md -type f -name '*.md' 2>/dev/null | LC_ALL=C sort
}
bench_docs() {
    find bench -type f -name '*.md' 2>/dev/null | LC_ALL=C sort
}

mapfile -t code < <(code_files)
mapfile -t docs < <(doc_files)
mapfile -t bench < <(bench_docs)
all=("${code[@]}" "${docs[@]}")

# Definitions: a citation on a line whose next line starts with "~~~",
# after any comment leader (" * ", "-- ", "# ").
defined=$(awk '
    FNR == 1 { prev = "" }
    /^[ \t*#\/-]*~~~/ && match(prev, /Note \[[^]]+\]/) { print substr(prev, RSTART, RLENGTH) }
    { prev = $0 }' "${all[@]}" | LC_ALL=C sort -u)

problems=0
n_notes=0
# Citations: every one, with the file and line of its first use.
while IFS=$'\t' read -r note where; do
    n_notes=$((n_notes + 1))
    if ! grep -qxF -e "$note" <<<"$defined"; then
        printf '%s: %s is cited but defined nowhere\n' "$where" "$note"
        problems=$((problems + 1))
    fi
done < <(awk '{
        s = $0
        while (match(s, /Note \[[^]]+\]/)) {
            n = substr(s, RSTART, RLENGTH)
            if (!(n in seen)) { seen[n] = FILENAME ":" FNR; order[++k] = n }
            s = substr(s, RSTART + RLENGTH)
        }
    } END { for (i = 1; i <= k; i++) print order[i] "\t" seen[order[i]] }' "${all[@]}")

# Citations that say where their Note is (the title, "in", a file), each
# needing the Note to be defined in that file.  A citation that breaks its
# line after "in", or before it, is read with the next line (less its
# comment leader).  One line per citation: title, file, where.
placed=$(awk '
    function strip(t) { sub(/^[ \t]*(\*|\/\/|\/\*|#|--)?[ \t]*/, "", t); return t }
    function place(note, f, where) {
        gsub(/[`\047"(),;:]/, "", f); sub(/\.$/, "", f)
        if (f ~ /\.(c|h|md|sh|js|hs|py|am)$/) print note "\t" f "\t" where
    }
    FNR == 1 { after_in = ""; before_in = "" }
    {
        t = strip($0)
        if (after_in != "") {
            split(t, w, /[ \t]+/); place(after_in, w[1], where_in)
        } else if (before_in != "" && match(t, /^\)?,?[ \t]*in[ \t]+[^ \t]+/)) {
            m = substr(t, RSTART, RLENGTH); sub(/^\)?,?[ \t]*in[ \t]+/, "", m); place(before_in, m, where_in)
        }
        after_in = ""; before_in = ""
        s = $0
        while (match(s, /Note \[[^]]+\]/)) {
            n = substr(s, RSTART, RLENGTH)
            s = substr(s, RSTART + RLENGTH)
            if (match(s, /^[ \t]*\)?,?[ \t]*in[ \t]+[^ \t]+/)) {
                m = substr(s, RSTART, RLENGTH); sub(/^[ \t]*\)?,?[ \t]*in[ \t]+/, "", m)
                place(n, m, FILENAME ":" FNR)
            } else if (match(s, /^[ \t]*\)?,?[ \t]*in[ \t]*$/)) {
                after_in = n; where_in = FILENAME ":" FNR
            } else if (s ~ /^[ \t]*$/) {
                before_in = n; where_in = FILENAME ":" FNR
            }
        }
    }' "${all[@]}" "${bench[@]}")
n_placed=$(grep -c . <<<"$placed" || true)
# The definitions (title, file) first, then the citations.
while IFS= read -r line; do
    printf '%s\n' "$line"
    problems=$((problems + 1))
done < <(awk -F'\t' '
    NR == FNR { defs[$1] = defs[$1] (defs[$1] == "" ? "" : " ") $2; next }
    !($1 in defs) { next }    # defined nowhere: said above
    {
        n = split(defs[$1], fs, " "); ok = 0
        for (i = 1; i <= n; i++)
            if (fs[i] == $2 || substr(fs[i], length(fs[i]) - length($2)) == "/" $2)
                ok = 1
        if (!ok) print $3 ": " $1 " is cited in " $2 " but defined in " defs[$1]
    }' <(awk '
        FNR == 1 { prev = "" }
        /^[ \t*#\/-]*~~~/ && match(prev, /Note \[[^]]+\]/) { print substr(prev, RSTART, RLENGTH) "\t" FILENAME }
        { prev = $0 }' "${all[@]}") <(printf '%s\n' "$placed"))

# Invariant tags named in docs/, each needing a mention in the code.
n_inv=0
while IFS=$'\t' read -r tag where; do
    n_inv=$((n_inv + 1))
    if ! grep -qF -e "$tag" "${code[@]}"; then
        printf '%s: %s is named in the docs but no code checks or cites it\n' "$where" "$tag"
        problems=$((problems + 1))
    fi
done < <(awk '{
        s = $0
        while (match(s, /\.inv\.[a-z0-9][a-z0-9-]*[a-z0-9]/)) {
            t = substr(s, RSTART, RLENGTH)
            if (!(t in seen)) { seen[t] = FILENAME ":" FNR; order[++k] = t }
            s = substr(s, RSTART + RLENGTH)
        }
    } END { for (i = 1; i <= k; i++) print order[i] "\t" seen[order[i]] }' "${docs[@]}")

if [ "$problems" -gt 0 ]; then
    printf 'notes: %d problem(s) (%d notes, %d citations with a file, %d invariants)\n' \
        "$problems" "$n_notes" "$n_placed" "$n_inv"
    exit 1
fi
printf 'notes: OK (%d notes, %d citations with a file, %d invariants)\n' "$n_notes" "$n_placed" \
    "$n_inv"
