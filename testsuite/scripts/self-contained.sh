#!/usr/bin/env bash
# testsuite/scripts/self-contained.sh -- no file of the repository cites a
# document outside it (docs/HACKING.md, Build): the reference notes, style
# guide and architecture page the project started from are not in the
# tree, so a citation of one is a dead end for whoever clones it.  The
# facts live in docs/reference/, the conventions in docs/HACKING.md, the
# design in docs/design/.  Fails naming file and line, and shows that it
# would on a planted citation.
set -u
. "$(dirname "$0")/lib.sh"

# The names, spelt in pieces so that this script does not cite them.
pattern='shar''ed/''reference|ARCHITECTURE''\.md|STYLE''\.md'

# outside_citations DIR FILE...: prints FILE:LINE: text for each citation.
outside_citations() {
    local dir=$1
    shift
    (cd "$dir" && grep -InE -e "$pattern" -- "$@") || true
}

# The repository's files: git's list in a checkout, otherwise (a release
# tarball) every file but installed node modules and build directories.
cd "$top_srcdir" || exit 1
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files)
else
    mapfile -t files < <(find . -type f -not -path '*/node_modules/*' \
        -not -path './autom4te.cache/*' -not -path './build*' | sed 's|^\./||')
fi
[ "${#files[@]}" -gt 100 ] && pass || fail "only ${#files[@]} files to read in $top_srcdir"

hits=$(outside_citations "$top_srcdir" "${files[@]}")
[ -z "$hits" ] && pass || fail "files cite documents outside the repository:
$hits"

# A planted citation is found, with its file and line.
cd "$test_tmp" || exit 1
mkdir tree
printf '/*\n * See %s/%s-formats.md.\n */\n' shared reference/ghc >tree/planted.c
printf 'as %s.md says\n' STYLE >tree/planted.md
hits=$(outside_citations tree planted.c planted.md)
grep -qx 'planted.c:2: \* See .*' <<<"$hits" && grep -qx 'planted.md:1:as .*' <<<"$hits" && pass ||
    fail "the planted citations were not found: $hits"

finish
