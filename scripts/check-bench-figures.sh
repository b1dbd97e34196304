#!/usr/bin/env bash
# scripts/check-bench-figures.sh -- every table of figures in bench/ names
# the command that produced it (issue 52).
#
#   scripts/check-bench-figures.sh [SRCDIR]
#
# Reads every Markdown file under SRCDIR/bench (SRCDIR defaults to the
# tree this script is in).  A table is a header row, a `| --- |` row and
# body rows; it holds figures when a body cell is a number, alone or with
# a unit (`1.52`, `3,498`, `75 µs`, `91.7% (1.92 of 2)`, `0.62×`).  Such a
# table needs, between the heading of level 1 or 2 it sits under (or the
# file's start) and its header row, a command in backquotes that runs a
# benchmark: one that begins, after any NAME=value words, with `bench/...`
# or with `make` and names a `bench-...` target.  Prints
# "FILE:LINE: a table of figures names no bench command ..." for each
# table without one and exits 1; else "bench-figures: OK (N tables of
# figures in M files)".
set -euo pipefail
export LC_ALL=C.UTF-8
srcdir=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
[ -d "$srcdir/bench" ] || { echo "check-bench-figures: $srcdir/bench is not a folder" >&2; exit 2; }

cd "$srcdir"
mapfile -t files < <(find bench -name '*.md' -type f | sort)
status=0
awk '
# A backquoted span that runs a benchmark: NAME=value words (a value may
# be quoted), then
# bench/PATH, or make ... bench-TARGET.
function has_command(text,    rest, span, n, words, i) {
    rest = text
    while (match(rest, /`[^`]+`/)) {
        span = substr(rest, RSTART + 1, RLENGTH - 2)
        rest = substr(rest, RSTART + RLENGTH)
        gsub(/"[^"]*"/, "Q", span)     # a quoted value is one word
        gsub(/\047[^\047]*\047/, "Q", span)
        n = split(span, words, /[ \t]+/)
        for (i = 1; i <= n && words[i] ~ /^[A-Z_][A-Z0-9_]*=/; i++) ;
        if (i > n) continue
        if (words[i] ~ /^bench\/[A-Za-z0-9_.\/-]+$/) return 1
        if (words[i] == "make" && span ~ /(^|[ \t])bench-[a-z0-9-]+/) return 1
    }
    return 0
}
function is_figure(cell) {
    gsub(/^[ \t]+|[ \t]+$/, "", cell)
    gsub(/\*\*/, "", cell)
    # A number (thousands with commas, a decimal part), an optional unit,
    # an optional parenthesis after it.
    return cell ~ /^[~<>]?[0-9][0-9,]*(\.[0-9]+)?( ?(%|×|x|µs|us|ns|ms|s|B|kB|KiB|MB|MiB|GB|GiB|M|k))?( \(.*\))?$/
}
function close_table() {
    if (in_table && figures) {
        tables++
        files_with[table_file] = 1
        if (!command_before) {
            printf "%s:%d: a table of figures names no bench command (`bench/...` or `make ... bench-...`, in backquotes) under its heading\n", table_file, table_line
            bad++
        }
    }
    in_table = 0
}
FNR == 1 { close_table(); scope = ""; prev = ""; in_fence = 0 }
# A fenced block is code: no heading in it, no table.
/^```/ { in_fence = !in_fence; prev = ""; next }
in_fence { next }
/^#{1,2} / { close_table(); scope = ""; prev = $0; next }
in_table && /^\|/ {
    n = split($0, cells, "|")
    for (i = 2; i < n; i++) if (is_figure(cells[i])) figures = 1
    next
}
in_table { close_table() }
/^\|[ :|-]*---[ :|-]*\|[ \t]*$/ && prev ~ /^\|/ {
    in_table = 1; figures = 0
    # The scope without the header row; a code span may cross lines.
    command_before = has_command(scope_before_header)
    table_file = FILENAME; table_line = FNR - 1
    prev = $0; next
}
{ scope_before_header = scope; scope = scope " " $0; prev = $0 }
END {
    close_table()
    nfiles = 0
    for (f in files_with) nfiles++
    if (bad) exit 1
    printf "bench-figures: OK (%d tables of figures in %d files)\n", tables, nfiles
}
' "${files[@]}" || status=$?
exit "$status"
