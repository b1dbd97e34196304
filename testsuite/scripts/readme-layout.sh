#!/usr/bin/env bash
# testsuite/scripts/readme-layout.sh -- README.md's Layout table stays
# true: each folder it names exists, each is named once, no row says a
# thing is "not written yet", and every source folder (the top-level ones
# and each tool under utils/) has a row.
set -u
. "$(dirname "$0")/lib.sh"

readme=$top_srcdir/README.md
cd "$test_tmp" || exit 1
# The first column of the table under "## Layout": `folder/`.
awk '/^## Layout/ {t = 1; next} /^## / {t = 0} t && /^\| `/' "$readme" >rows.txt
sed 's/^| `\([^`]*\)`.*/\1/' rows.txt >listed.txt

[ -s listed.txt ] && pass || fail "README.md has no Layout table rows"

while read -r dir; do
    if [ -d "$top_srcdir/$dir" ]; then pass; else fail "README.md's Layout names $dir, which does not exist"; fi
done <listed.txt

dups=$(sort listed.txt | uniq -d)
[ -z "$dups" ] && pass || fail "README.md's Layout names these folders twice: $dups"

if grep -qi 'not written yet' rows.txt; then
    fail "README.md's Layout still says something is not written yet: $(grep -i 'not written yet' rows.txt)"
else
    pass
fi

# Source folders: the top-level ones (not build outputs or autotools'
# own) and each tool or library under utils/.
for path in "$top_srcdir"/*/ "$top_srcdir"/utils/*/; do
    dir=${path#"$top_srcdir"/}
    case $dir in
    m4/ | build-aux/ | autom4te.cache/ | utils/node_modules/) continue ;;
    esac
    # An out-of-tree build directory inside the source tree.
    [ -e "$path/config.status" ] && continue
    # A folder is named by its own row or by rows for what it holds.
    if grep -q "^$dir" listed.txt; then pass; else fail "README.md's Layout has no row for $dir"; fi
done

finish
