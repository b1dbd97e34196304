#!/usr/bin/env bash
# scripts/demo.sh -- the README's first Quick start command: build strata
# (incrementally, out of tree in build/) and run the bintrees example with
# the runtime's GC statistics.
set -euo pipefail

# shellcheck source=scripts/deps.sh
. "$(dirname "${BASH_SOURCE[0]}")/deps.sh"
cd "$STRATA_ROOT"

build() {
    deps_ensure_required
    strata_build build "${STRATA_RELEASE_CONFIG[@]}"
}

run_bintrees() {
    local cmd=(build/examples/bintrees 18 +RTS -s -RTS)
    say "${cmd[*]}"
    echo "bintrees (the binary-trees benchmark) keeps a depth-18 tree alive" \
         "while it builds and drops many short-lived trees; +RTS -s makes the" \
         "runtime print its GC summary (bytes allocated and copied, max" \
         "residency, GC and mutator time) when it exits."
    echo
    "${cmd[@]}" 2>&1 || die "bintrees failed (exit status $?)"
}

main() {
    build
    run_bintrees
}

main "$@"
