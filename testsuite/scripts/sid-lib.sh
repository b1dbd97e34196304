# shellcheck shell=bash
# testsuite/scripts/sid-lib.sh -- Haskell programs that the sid chroot's
# GHC 9.10.3 and ghc-events 0.20 (scripts/ghc-sid.sh) build for the tests
# that run them on this host.  Sourced after lib.sh by interop-sid.sh and
# ghc-debug.sh.
#
#   sid_setup WHAT   sets sid (the script) and root (the chroot), or skips
#                    naming ghc-sid (a failure under STRATA_REQUIRE=all, as
#                    in CI); WHAT says what was then not checked.
#   sid_programs NAME LAST SCRIPT SOURCE...
#                    sets sid_bin to a folder holding what SCRIPT (sh, run
#                    in the chroot in a folder holding copies of the
#                    SOURCEs) builds, building it first if this version of
#                    the sources has not been built: kept in the chroot as
#                    strata-NAME-<hash of the sources>, so the suite's
#                    builds and scripts build them once, one at a time
#                    under a lock.  LAST is the program SCRIPT makes last.
#                    Returns 1 with sid_why set when it cannot: no chroot,
#                    not root, or a failed build (sid_why then quotes ghc).
#   sid_build        sid_programs for the interop checkers:
#                    ghc-events-check (testsuite/interop/GhcEventsCheck.hs),
#                    heap-bands (HeapBands.hs: ghc-events' reading of a heap
#                    profile, to compare strata's tools with) and
#                    sessions-ipe (a GHC program that logs -hi).

sid_setup() {
    sid=$top_srcdir/scripts/ghc-sid.sh
    root=$("$sid" path 2>/dev/null) ||
        skip ghc-sid "the GHC 9.10 chroot is not made (scripts/ghc-sid.sh ensure, as root): $1"
    [ "$(id -u)" -eq 0 ] ||
        skip ghc-sid "running in the sid chroot needs root: $1"
}

sid_programs() {
    local name=$1 last=$2 script=$3 sid=$top_srcdir/scripts/ghc-sid.sh root key stage
    shift 3
    sid_bin=
    if ! root=$("$sid" path 2>/dev/null); then
        sid_why="the GHC 9.10 chroot is not made (scripts/ghc-sid.sh ensure, as root)"
        return 1
    fi
    key=$(cat "$@" | sha256sum | cut -c1-16)
    sid_bin=$root/work/strata-$name-$key
    [ -x "$sid_bin/$last" ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        sid_why="building in the sid chroot needs root"
        return 1
    fi
    # One build at a time: make check runs these scripts side by side.
    exec {sid_lock}>"$root/work/strata-$name.lock"
    flock "$sid_lock"
    if [ ! -x "$sid_bin/$last" ]; then
        stage=$sid_bin.$$
        rm -rf "$stage"
        mkdir -p "$stage"
        cp "$@" "$stage/"
        "$sid" run sh -c "cd ${stage#"$root/work/"} && $script" >"$test_tmp/sid-$name.log" 2>&1 &&
            mv -T "$stage" "$sid_bin" 2>/dev/null
        rm -rf "$stage"
    fi
    exec {sid_lock}>&-
    [ -x "$sid_bin/$last" ] && return 0
    sid_why="building the $name programs in the sid chroot failed: $(grep -v 'statically linked\|garbage collection\|in function\|^(.text\|note: the message' "$test_tmp/sid-$name.log" | head -n 30)"
    return 1
}

sid_build() {
    sid_programs interop sessions-ipe "
        ghc -O -v0 -optl-static -package ghc-events -outputdir c.d GhcEventsCheck.hs -o ghc-events-check &&
        ghc -O -v0 -optl-static -package ghc-events -outputdir b.d HeapBands.hs -o heap-bands &&
        ghc -O -v0 -optl-static -rtsopts -threaded -finfo-table-map -fdistinct-constructor-tables \
            -outputdir s.d Sessions.hs -o sessions-ipe" \
        "$top_srcdir/testsuite/interop/GhcEventsCheck.hs" "$top_srcdir/testsuite/interop/HeapBands.hs" \
        "$top_srcdir/testsuite/golden/ghc910/Sessions.hs"
}
