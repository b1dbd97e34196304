# shellcheck shell=bash
# scripts/deps.sh -- sourced by scripts/demo.sh and scripts/test.sh.
#
# Two jobs, both shared by those scripts:
#   1. Debian packages: deps_ensure_required installs what the build and the
#      tests need (as root, on Debian bookworm); deps_install_optional tries
#      extra packages and only warns when it cannot.
#   2. The incremental out-of-tree build: strata_build DIR CONFIGURE-ARGS...
#      runs autoreconf, ../configure and make only when they are due.
#
# The caller sets `set -euo pipefail` and runs from $STRATA_ROOT (the build
# functions use paths relative to it); this file only defines functions and
# a few variables.

STRATA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# Packages the build (configure.ac names each one) and `make check` need
# (python3: the tests read JSON output and rewrite snapshots with it).
STRATA_REQUIRED_PACKAGES=(build-essential autoconf automake libtool pkg-config
    libffi-dev libdwarf-dev libelf-dev libcmocka-dev
    libncurses-dev protobuf-c-compiler libprotobuf-c-dev zlib1g-dev libmicrohttpd-dev
    curl python3)

# The release configuration, shared by demo.sh and test.sh so that they
# reuse one build/ instead of reconfiguring it for each other.
# shellcheck disable=SC2034 # used by the scripts that source this file
STRATA_RELEASE_CONFIG=(--enable-werror)

STRATA_MAKE_JOBS=2

say() { printf '==> %s\n' "$*"; }
warn() { printf '%s: warning: %s\n' "${0##*/}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# --- Debian packages -------------------------------------------------------

# Prints the packages among "$@" that dpkg does not list as installed.
deps_missing() {
    local pkg
    for pkg in "$@"; do
        if ! dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null |
                grep -q ' installed$'; then
            printf '%s\n' "$pkg"
        fi
    done
}

deps_apt_updated=no

# apt-get install "$@", running apt-get update first, once per script run.
deps_apt_install() {
    export DEBIAN_FRONTEND=noninteractive
    if [ "$deps_apt_updated" = no ]; then
        say "apt-get update"
        apt-get update -qq || return 1
        deps_apt_updated=yes
    fi
    say "installing: $*"
    apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# Installs the missing required packages, or exits 1 naming them.
deps_ensure_required() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        warn "not a Debian system: make sure these (or their equivalents) are" \
             "installed: ${STRATA_REQUIRED_PACKAGES[*]}"
        return 0
    fi
    local missing
    missing=$(deps_missing "${STRATA_REQUIRED_PACKAGES[@]}")
    [ -z "$missing" ] && return 0
    # shellcheck disable=SC2086 # one package per line, split on purpose
    set -- $missing
    if [ "$(id -u)" -ne 0 ]; then
        printf '%s: missing Debian packages; install them with:\n' "${0##*/}" >&2
        printf '  sudo apt-get install %s\n' "$*" >&2
        exit 1
    fi
    deps_apt_install "$@" || die "could not install: $*"
}

# Tries to install extra packages (e.g. ghc for the interop tests); warns
# and returns 0 when it cannot, so callers can skip what needs them.
deps_install_optional() {
    command -v dpkg-query >/dev/null 2>&1 || {
        warn "not a Debian system: not installing optional packages: $*"
        return 0
    }
    local missing pkg
    missing=$(deps_missing "$@")
    [ -z "$missing" ] && return 0
    # shellcheck disable=SC2086
    set -- $missing
    if [ "$(id -u)" -ne 0 ]; then
        warn "optional packages missing (not root, not installing): $*"
        return 0
    fi
    deps_apt_install "$@" && return 0
    # One unavailable package must not keep the others out.
    for pkg in "$@"; do
        deps_apt_install "$pkg" || warn "could not install optional package $pkg"
    done
    return 0
}

# --- The incremental build -------------------------------------------------

# True if FILE is missing or older than any of the files after it.
older_than() {
    local file=$1 src
    shift
    [ -e "$file" ] || return 0
    for src in "$@"; do
        [ "$src" -nt "$file" ] && return 0
    done
    return 1
}

# Regenerates configure (and Makefile.in) when configure.ac or Makefile.am
# has changed since they were made.
strata_autoreconf() {
    if older_than configure configure.ac Makefile.am ||
            older_than Makefile.in configure.ac Makefile.am; then
        say "autoreconf -fi"
        mkdir -p m4   # ACLOCAL_AMFLAGS = -I m4; a clean clone has none yet
        autoreconf -fi || die "autoreconf failed"
    fi
}

# Runs ../configure in DIR with the given arguments when DIR has no
# Makefile, when the Makefile is older than configure, configure.ac or
# Makefile.am, or when DIR was configured with other arguments.
strata_configure() {
    local dir=$1
    shift
    local have
    if [ -e config.status ]; then
        die "the source tree itself is configured, which breaks out-of-tree" \
            "builds; run 'make distclean' in $STRATA_ROOT first"
    fi
    if ! older_than "$dir/Makefile" configure configure.ac Makefile.am; then
        # config.status --config prints the arguments quoted for the shell.
        have=$("$dir/config.status" --config 2>/dev/null || true)
        [ "$(eval "printf '%s\n' $have")" = "$(printf '%s\n' "$@")" ] && return 0
        say "configuring ($dir/): options changed (were: ${have:-none})"
    else
        say "configuring ($dir/)"
    fi
    mkdir -p "$dir"
    (cd "$dir" && ../configure -q "$@") ||
        die "configure failed in $dir/ (see $STRATA_ROOT/$dir/config.log)"
}

# Brings DIR up to date: autoreconf, configure and make, each only as
# needed.  Returns non-zero (after make's own messages) if the build fails.
strata_build() {
    local dir=$1
    shift
    strata_autoreconf
    strata_configure "$dir" "$@"
    say "building ($dir/)"
    if ! make -s -C "$dir" ${STRATA_MAKE_JOBS:+-j"$STRATA_MAKE_JOBS"}; then
        printf '%s: the build in %s/ failed (errors above)\n' "${0##*/}" "$dir" >&2
        return 1
    fi
}

# --- strata-html: node/npm (build) and chromium (its browser tests) --------

# Installs Debian's nodejs and npm when node or npm is missing (checked by
# command, not by package: a nodejs from elsewhere that brings its own npm
# is kept), and chromium for html-browser.sh.  Warns when it cannot; then
# configure builds without strata-html and its tests say SKIPPED.
deps_ensure_html() {
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        deps_install_optional nodejs npm
    fi
    [ -x /usr/bin/chromium ] || deps_install_optional chromium
}

# --- strata-live and pprof: their consumers in the tests -------------------

# Installs Debian's golang-go (go tool pprof reads the profiles of
# pprof.sh and strata-live.sh) and prometheus (strata-live-prometheus.sh
# scrapes strata-live with it) when their commands are missing.  Warns when
# it cannot; those checks then say SKIPPED.
deps_ensure_live() {
    command -v go >/dev/null 2>&1 || deps_install_optional golang-go
    command -v prometheus >/dev/null 2>&1 || deps_install_optional prometheus
}
