#!/usr/bin/env bash
# scripts/demo.sh -- the README's first Quick start command: build strata
# (incrementally, out of tree in build/), then profile the leak example the
# way a user hunting a leak would: by info table (-hi), then by era (-he),
# each to an eventlog that strata-events summarises and strata-html renders
# as an interactive HTML report (GHC's own tools read the logs too).  The
# logs and reports stay in build/demo/.
set -euo pipefail

# shellcheck source=scripts/deps.sh
. "$(dirname "${BASH_SOURCE[0]}")/deps.sh"
cd "$STRATA_ROOT"

build() {
    deps_ensure_required
    deps_ensure_html
    strata_build build "${STRATA_RELEASE_CONFIG[@]}"
}

# profile NAME RTS-FLAGS...: runs examples/leak under the flags, writing
# build/demo/NAME.eventlog, and prints strata-events' summary of it.
profile() {
    local name=$1
    shift
    local log=build/demo/$name.eventlog
    mkdir -p build/demo
    say "build/examples/leak +RTS $* -ol$log -RTS"
    build/examples/leak +RTS "$@" "-ol$log" -RTS || die "leak failed (exit status $?)"
    say "build/utils/strata-events/strata-events summary $log"
    build/utils/strata-events/strata-events summary "$log"
    render "$log"
    echo
}

# render LOG: the interactive report LOG.html, when strata-html was built.
render() {
    local html=build/utils/strata-html/strata-html
    if [ ! -x "$html" ]; then
        warn "strata-html was not built (node and npm missing): no HTML report for $1"
        return 0
    fi
    say "$html $1"
    "$html" "$1" || die "strata-html failed on $1"
    echo "Open $STRATA_ROOT/$1.html in a browser (it works offline)."
}

main() {
    build
    echo "examples/leak is a toy server: every request builds short-lived data, and"
    echo "one request in 64 leaves a session entry in a cache that is never evicted."
    echo "Each phase of requests sets a new era (setUserEra) and posts a marker."
    echo
    echo "1. By info table: which allocation site grows?  The growing bands are the"
    echo "   SessionEntry table -- its IPE event names it: Cache.remember,"
    echo "   examples/leak.c:49 -- and the byte arrays (ARR_WORDS) its entries hold."
    echo
    profile leak-hi -hi -l
    echo "2. By era: do objects from old phases die?  The era advances at each phase"
    echo "   (setUserEra) and after each major GC (--automatic-era-increment); every"
    echo "   era's band stays once made: nothing from the past is ever freed."
    echo
    profile leak-he -he --automatic-era-increment -l
    echo "Open the logs with any eventlog viewer (eventlog2html reads them; ghc-events"
    echo ">= 0.20 is needed for the -he log, which uses GHC 9.10's era breakdown)."
    echo "The .html reports beside them are strata-html's: charts, a detailed table"
    echo "(the leaking SessionEntry entries and their byte arrays have the steepest"
    echo "slopes), eras and markers."
}

main "$@"
