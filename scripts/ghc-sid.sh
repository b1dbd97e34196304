#!/usr/bin/env bash
# scripts/ghc-sid.sh -- the newest GHC (Debian sid's, 9.10.3 as of this
# writing) and ghc-events (sid's 0.20) in a debootstrap chroot kept outside
# the checkout, for the tests (golden logs, the interop suite) and for the
# benchmarks.  Programs built there with -optl-static run on the bookworm
# host.
#
#   scripts/ghc-sid.sh ensure       make the chroot if it is missing (about
#                                   5 minutes and 1.5 GB on a new machine),
#                                   then print its path; reused when present
#   scripts/ghc-sid.sh path         print the path; exit 1 if it is not ready
#   scripts/ghc-sid.sh run CMD...   run CMD inside the chroot (cwd /work),
#                                   with /proc mounted in a private
#                                   namespace so nothing is left mounted
#   scripts/ghc-sid.sh version      print the chroot's ghc and ghc-events
#
# The chroot lives in $STRATA_SID_ROOT (default /var/cache/strata/sid); its
# /work is where callers put sources and collect what they build.  Needs
# root, debootstrap (installed when missing) and the Debian mirror.  sid's
# Release file may be past its Valid-Until date on the mirror, so apt inside
# the chroot is told not to check it.
set -euo pipefail

SID_ROOT=${STRATA_SID_ROOT:-/var/cache/strata/sid}
SID_MIRROR=${STRATA_SID_MIRROR:-http://deb.debian.org/debian}
# ghc-prof: the -prof golden logs (-he, -hc, -hy, -hd).  libgmp-dev and
# libffi-dev come with ghc and give the static archives -optl-static needs.
SID_PACKAGES=(ghc ghc-prof libghc-ghc-events-dev)
# Written last: its presence says the chroot is complete.
SID_STAMP=$SID_ROOT/.strata-ready

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ghc-sid.sh: error: %s\n' "$*" >&2; exit 1; }

sid_ready() { [ -e "$SID_STAMP" ]; }

sid_run() {
    sid_ready || die "the sid chroot is not ready at $SID_ROOT (run: scripts/ghc-sid.sh ensure)"
    mkdir -p "$SID_ROOT/work"
    # A private mount namespace: /proc is mounted for the command alone.
    unshare --mount --propagation private -- /bin/sh -c '
        root=$1; shift
        mount -t proc proc "$root/proc" || exit 1
        exec chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root \
            LANG=C.UTF-8 /bin/sh -c "cd /work && exec \"\$@\"" sh "$@"
    ' sh "$SID_ROOT" "$@"
}

sid_make() {
    [ "$(id -u)" -eq 0 ] || die "making the sid chroot needs root"
    if ! command -v debootstrap >/dev/null 2>&1; then
        say "installing debootstrap"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
    fi
    # A half-made chroot (an interrupted run) is made again from scratch.
    if [ -d "$SID_ROOT" ]; then
        say "removing an incomplete chroot at $SID_ROOT"
        rm -rf --one-file-system "$SID_ROOT"
    fi
    mkdir -p "$(dirname "$SID_ROOT")"
    say "debootstrap sid into $SID_ROOT (a few minutes)"
    debootstrap --variant=minbase --no-check-gpg sid "$SID_ROOT" "$SID_MIRROR" \
        >"$SID_ROOT.debootstrap.log" 2>&1 ||
        die "debootstrap failed; see $SID_ROOT.debootstrap.log"
    printf 'Acquire::Check-Valid-Until "false";\nAPT::Install-Recommends "false";\n' \
        >"$SID_ROOT/etc/apt/apt.conf.d/90strata"
    printf 'deb %s sid main\n' "$SID_MIRROR" >"$SID_ROOT/etc/apt/sources.list"
    : >"$SID_STAMP.making"
    say "installing ${SID_PACKAGES[*]} in the chroot"
    unshare --mount --propagation private -- /bin/sh -c '
        root=$1; shift
        mount -t proc proc "$root/proc" || exit 1
        chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
            DEBIAN_FRONTEND=noninteractive sh -c \
            "apt-get update -qq && apt-get install -y -qq \"\$@\"" sh "$@"
    ' sh "$SID_ROOT" "${SID_PACKAGES[@]}" >"$SID_ROOT.install.log" 2>&1 ||
        die "installing ${SID_PACKAGES[*]} in the chroot failed; see $SID_ROOT.install.log"
    rm -f "$SID_STAMP.making"
    mkdir -p "$SID_ROOT/work"
    date -u +%FT%TZ >"$SID_STAMP"
}

sid_version() {
    sid_run sh -c 'ghc --numeric-version; ghc-pkg field ghc-events version --simple-output'
}

case ${1:-} in
    ensure)
        sid_ready || sid_make
        printf '%s\n' "$SID_ROOT"
        ;;
    path)
        sid_ready || exit 1
        printf '%s\n' "$SID_ROOT"
        ;;
    run)
        shift
        [ $# -gt 0 ] || die "usage: scripts/ghc-sid.sh run CMD [ARGS...]"
        sid_run "$@"
        ;;
    version) sid_version ;;
    *) die "usage: scripts/ghc-sid.sh ensure|path|run CMD...|version" ;;
esac
