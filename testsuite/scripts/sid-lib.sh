# shellcheck shell=bash
# testsuite/scripts/sid-lib.sh -- the programs that GHC 9.10.3 and
# ghc-events 0.20 (the sid chroot of scripts/ghc-sid.sh) build for the
# tests: ghc-events-check (testsuite/interop/GhcEventsCheck.hs),
# heap-bands (HeapBands.hs: ghc-events' reading of a heap profile, to
# compare strata's tools with) and sessions-ipe (a GHC program that logs
# -hi).  Sourced after lib.sh by interop-sid.sh, ghc-logs.sh, live-page.sh
# and html.sh.
#
#   sid_build   sets sid_bin to the folder that holds the three, building
#               them first if this version of their sources has not been
#               built (statically: they run on the host; kept in the
#               chroot by the sources' hash, so the suite's builds and
#               scripts build them once, one at a time under a lock).
#               Returns 1 with sid_why set when it cannot: no chroot, not
#               root, or a failed build (sid_why then holds ghc's errors).

sid_sources=("$top_srcdir/testsuite/interop/GhcEventsCheck.hs"
    "$top_srcdir/testsuite/interop/HeapBands.hs" "$top_srcdir/testsuite/golden/ghc910/Sessions.hs")

sid_build() {
    local sid=$top_srcdir/scripts/ghc-sid.sh root key stage rel
    sid_bin=
    if ! root=$("$sid" path 2>/dev/null); then
        sid_why="the GHC 9.10 chroot is not made (scripts/ghc-sid.sh ensure, as root)"
        return 1
    fi
    key=$(cat "${sid_sources[@]}" | sha256sum | cut -c1-16)
    sid_bin=$root/work/strata-interop-$key
    [ -x "$sid_bin/sessions-ipe" ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        sid_why="building in the sid chroot needs root"
        return 1
    fi
    # One build at a time: make check runs these scripts side by side.
    exec {sid_lock}>"$root/work/strata-interop.lock"
    flock "$sid_lock"
    if [ ! -x "$sid_bin/sessions-ipe" ]; then
        stage=$root/work/strata-interop-$key.$$
        rm -rf "$stage"
        mkdir -p "$stage"
        cp "${sid_sources[@]}" "$stage/"
        rel=${stage#"$root/work/"}
        "$sid" run sh -c "cd $rel &&
            ghc -O -v0 -optl-static -package ghc-events -outputdir c.d GhcEventsCheck.hs -o ghc-events-check &&
            ghc -O -v0 -optl-static -package ghc-events -outputdir b.d HeapBands.hs -o heap-bands &&
            ghc -O -v0 -optl-static -rtsopts -threaded -finfo-table-map -fdistinct-constructor-tables \
                -outputdir s.d Sessions.hs -o sessions-ipe" >"$test_tmp/sid-build.log" 2>&1 &&
            mv -T "$stage" "$sid_bin" 2>/dev/null
        rm -rf "$stage"
    fi
    exec {sid_lock}>&-
    [ -x "$sid_bin/sessions-ipe" ] && return 0
    sid_why="building the checkers in the sid chroot failed: $(grep -v 'statically linked\|garbage collection\|in function\|^(.text' "$test_tmp/sid-build.log" | head -n 20)"
    return 1
}
