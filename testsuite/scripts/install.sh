#!/usr/bin/env bash
# testsuite/scripts/install.sh -- `make install` into a temporary prefix
# yields a library that a program finds with pkg-config and links
# statically: it includes <strata.h>, calls hs_init/hs_exit and exits 0;
# and its profile names the installed runtime's files from the runtime's
# source root (rts/StgInfo.c) and the program's from its own directory.
set -u
# shellcheck source-path=SCRIPTDIR
. "$(dirname "$0")/lib.sh"

command -v pkg-config >/dev/null 2>&1 || skip pkg-config "pkg-config is not installed"

prefix=$test_tmp/prefix

# The build's compiler, and its sanitizer flags, which a program linking a
# sanitizer build's objects needs too.
make_var() { sed -n "s/^$1 = //p" "$top_builddir/Makefile"; }
read -ra cc <<<"$(make_var CC)"
read -ra san_cflags <<<"$(make_var SAN_CFLAGS)"

# Our own make, not a sub-make of `make check`: drop the parent's jobserver.
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
        make -s -C "$top_builddir" install prefix="$prefix" \
        >"$test_tmp/install.log" 2>&1; then
    pass
else
    fail "make install prefix=$prefix failed:"
    tail -n 30 "$test_tmp/install.log" >&2
    finish
fi

# strata.pc names the prefix chosen at configure time; point it here.
pc() {
    PKG_CONFIG_PATH=$prefix/lib/pkgconfig \
        pkg-config --define-variable=prefix="$prefix" "$@" strata
}
if ! pc_cflags=$(pc --cflags) || ! pc_libs=$(pc --static --libs); then
    fail "pkg-config cannot find strata in $prefix/lib/pkgconfig"
    finish
fi
# The GHC stub is installed where strata.pc says (docs/strata-debug-ghc.md),
# one file with no #include of strata's own.
stub=$(pc --variable=ghc_debug_stub)
[ "$stub" = "$prefix/share/strata/ghc/strata-ghc-debug.c" ] && [ -f "$stub" ] && pass ||
    fail "strata.pc's ghc_debug_stub is '$stub', and it should be an installed file"
own=$(grep '^#include "' "$stub" | grep -v -e '"Rts.h"' -e '"DerivedConstants.h"')
[ -z "$own" ] && pass || fail "the installed GHC stub includes files other than GHC's: $own"
read -ra cflags <<<"$pc_cflags"
read -ra libs <<<"$pc_libs"
# -lstrata would pick libstrata.so; ask the linker for the archive.
static=no
for i in "${!libs[@]}"; do
    if [ "${libs[$i]}" = -lstrata ]; then
        libs[i]=-l:libstrata.a
        static=yes
    fi
done
[ "$static" = yes ] || fail "pkg-config --libs strata has no -lstrata: ${libs[*]}"

cat >"$test_tmp/hello.c" <<'C'
#include <strata.h>

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    hs_exit();
    return 0;
}
C
hello=$test_tmp/hello
expect_status 0 "${cc[@]:-cc}" -std=c11 -Wall -Wextra -Werror "${san_cflags[@]}" \
    "${cflags[@]}" -o "$hello" "$test_tmp/hello.c" "${libs[@]}"
if [ -x "$hello" ]; then
    if readelf -d "$hello" | grep -q 'NEEDED.*libstrata'; then
        fail "$hello links libstrata dynamically"
    else
        pass
    fi
    expect_status 0 "$hello"
fi

# Provenance through the installed library: the runtime's files from its
# source root, the program's (built in its own directory) relative to it.
cat >"$test_tmp/prov.c" <<'C'
#include <strata.h>

STRATA_CONSTR_INFO(Kept_info, "Kept", 0, 1);

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    StgStablePtr kept = getStablePtr(strata_alloc_constr(&Kept_info));
    hs_exit();
    (void)kept;
    return 0;
}
C
kept_line=$(grep -n 'STRATA_CONSTR_INFO(Kept_info' "$test_tmp/prov.c" | cut -d: -f1)
(cd "$test_tmp" && "${cc[@]:-cc}" -std=c11 -g -Wall -Wextra -Werror "${san_cflags[@]}" \
    "${cflags[@]}" -o prov prov.c "${libs[@]}") >"$out" 2>"$err" && pass ||
    fail "cannot build prov.c against the installed library: $(head -n 5 "$err")"
if [ -x "$test_tmp/prov" ]; then
    expect_status 0 "$test_tmp/prov" +RTS -hi -i0 -l -ol"$test_tmp/prov.eventlog" -RTS
    expect_status 0 "$top_builddir/utils/strata-events/strata-events" show "$test_tmp/prov.eventlog"
    grep -q 'table "stg_STACK_info", .*module "rts/StgInfo.c", srcloc "rts/StgInfo.c:[0-9]' "$out" &&
        pass || fail "installed runtime's files not named from its source root: $(grep stg_STACK "$out")"
    grep -q "table \"Kept_info\", .*module \"prov.c\", srcloc \"prov.c:$kept_line\"" "$out" &&
        pass || fail "program's file not named from its directory: $(grep Kept "$out")"
fi

finish
