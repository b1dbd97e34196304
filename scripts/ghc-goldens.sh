#!/usr/bin/env bash
# scripts/ghc-goldens.sh -- remakes the GHC 9.10 golden eventlogs in
# testsuite/golden/ from testsuite/golden/ghc910/Sessions.hs, built by the
# newest GHC in the sid chroot (scripts/ghc-sid.sh, made if missing):
#
#   ghc910-hi, ghc910-hT   -finfo-table-map -fdistinct-constructor-tables,
#                          run with +RTS -hi / -hT -l
#   ghc910-he              -prof, +RTS -he --automatic-era-increment -l
#   ghc910-hc, -hy, -hd    -prof, +RTS -hc / -hy / -hd -l
#   ghc910-nonmoving       bench/workloads/msgbuf/ghc.hs, -threaded, run with
#                          20000 300000 +RTS -N2 --nonmoving-gc -l-ag: GC and
#                          non-moving sync events for strata-events pauses,
#                          whose output (ghc910-nonmoving.pauses.reference)
#                          is then remade by STRATA_GOLDEN_UPDATE=1 make check
#                          TESTS=testsuite/scripts/strata-events.sh
#
# Beside each log, NAME.bands.reference is ghc-events' own reading of it
# (testsuite/interop/HeapBands.hs: the census count and each band's peak;
# ghc910-nonmoving has no census), which testsuite/scripts/ghc-logs.sh
# compares with strata-events summary, and NAME.last.reference its
# reading of the last census (heap-bands --last), which ghc-logs.sh and
# live-page.sh compare with strata-live.
# The programs run on this (bookworm) host: they are linked statically.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sid=$here/scripts/ghc-sid.sh
golden=$here/testsuite/golden
root=$("$sid" ensure)
work=$root/work/strata-goldens
rm -rf "$work"
mkdir -p "$work"
cp "$golden/ghc910/Sessions.hs" "$here/testsuite/interop/HeapBands.hs" "$work/"
cp "$here/bench/workloads/msgbuf/ghc.hs" "$work/MsgBuf.hs"

# The linker's warnings about getaddrinfo/dlopen in a static binary are
# expected (neither is called); anything else from ghc is shown.
ghc_build() {
    "$sid" run sh -c "cd strata-goldens && ghc -O -v0 -rtsopts -optl-static $*" 2>&1 |
        grep -Ev 'statically linked applications requires|linker garbage collection|in function .(loadNativeObj_POSIX|affinity_ip).:|^\(\.text' ||
        true
}
ghc_build -finfo-table-map -fdistinct-constructor-tables -outputdir ipe.d Sessions.hs -o sessions-ipe
ghc_build -prof -outputdir prof.d Sessions.hs -o sessions-prof
ghc_build -package ghc-events -outputdir bands.d HeapBands.hs -o heap-bands
ghc_build -O2 -threaded -outputdir msgbuf.d MsgBuf.hs -o msgbuf
for exe in sessions-ipe sessions-prof heap-bands msgbuf; do
    [ -x "$work/$exe" ] || { echo "ghc-goldens.sh: $exe was not built" >&2; exit 1; }
done

version=$("$sid" run ghc --numeric-version)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
run_mode() {
    local name=$1 exe=$2
    shift 2
    "$work/$exe" +RTS "$@" -l -i0.02 -ol"$name.eventlog" -RTS >/dev/null
    cp "$name.eventlog" "$golden/$name.eventlog"
    "$work/heap-bands" "$name.eventlog" >"$golden/$name.bands.reference"
    "$work/heap-bands" --last "$name.eventlog" >"$golden/$name.last.reference"
    printf '%s: %s bytes, %s\n' "$name" "$(wc -c <"$name.eventlog")" \
        "$(head -n 1 "$golden/$name.bands.reference")"
}
run_mode ghc910-hi sessions-ipe -hi
run_mode ghc910-hT sessions-ipe -hT
run_mode ghc910-he sessions-prof -he --automatic-era-increment
run_mode ghc910-hc sessions-prof -hc
run_mode ghc910-hy sessions-prof -hy
run_mode ghc910-hd sessions-prof -hd
"$work/msgbuf" 20000 300000 +RTS -N2 --nonmoving-gc -l-ag -olghc910-nonmoving.eventlog -RTS \
    >/dev/null
cp ghc910-nonmoving.eventlog "$golden/"
"$work/heap-bands" ghc910-nonmoving.eventlog >"$golden/ghc910-nonmoving.bands.reference"
"$work/heap-bands" --last ghc910-nonmoving.eventlog >"$golden/ghc910-nonmoving.last.reference"
printf 'ghc910-nonmoving: %s bytes, %s\n' "$(wc -c <ghc910-nonmoving.eventlog)" \
    "$(head -n 1 "$golden/ghc910-nonmoving.bands.reference")"
echo "made with GHC $version"
