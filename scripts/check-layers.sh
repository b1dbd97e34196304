#!/usr/bin/env bash
# scripts/check-layers.sh [SRCDIR] -- the layering check of
# docs/design/layers.md: reads every #include "..." in the runtime's and
# the tools' sources under SRCDIR (default: this checkout) and fails,
# naming file and line, on any edge the layer table forbids
# (.inv.layers-one-way).  Prints
# "layers: OK (N includes checked)" when there is none.
#
# A folder's layer and what it may include:
#   includes/                   the public API          -> nothing
#   base/                       containers for everyone  -> includes
#   support/, support/os/       messages, OS calls       -> includes, base
#   wire/                       formats shared with tools -> includes, base
#   sm/block/, sm/heap/, sm/, sm/alloc/
#                               the storage manager, in floors, each one
#                               -> base, support, wire and the floors below:
#     sm/block/                 megablocks, blocks, era runs
#     sm/heap/                  generations, capabilities, nurseries, the era
#     sm/                       the collector
#     sm/alloc/                 start-up and allocation, which may collect
#   eventlog/                   the eventlog writer      -> sm and below
#   profiling/                  the heap profiler        -> eventlog and below
#   rts/, rts/ffi/, rts/debug/  the runtime's services   -> profiling and below
#   reader/                     the tools' reader        -> includes, base
#   utils/heapprof/             the tools' heap-profile model
#                                                        -> includes, base, wire,
#                                                           the reader
#   utils/report/               the heap-profile report (page, data, series)
#                                                        -> the same, utils/heapprof/
#   utils/debug-client/         the heap debugger's client -> includes, base, wire
#   utils/cli/                  the tools' command line  -> includes, base
#   utils/TOOL/...              one tool (strata-events, strata-html,
#                               strata-live, strata-debug) -> includes, base,
#                                                           wire, the reader, the
#                                                           four libraries above,
#                                                           and its own folder:
#                                                           never another tool's
#   ghc/                        the GHC stub (compiled into Haskell programs
#                               against GHC's headers)   -> strata/DebugProtocol.h
#                                                           alone of includes/, base,
#                                                           wire, of support/ the
#                                                           headers in ghc_support
#                                                           below, ghc/
# Tests, examples and benchmarks may include anything and are not read.
#
# OS headers (.inv.os-confined): only support/os/ may include the headers
# of OS calls (<sys/...>, <unistd.h>, <fcntl.h>, <poll.h>, <pthread.h>, <link.h>,
# <dlfcn.h>, <dirent.h>, <sched.h>, <semaphore.h>); every other runtime
# layer reaches the OS through support/os/'s os_ calls.  The C library's
# own headers (<stdio.h>, <time.h>, ...) stay allowed everywhere, and the
# tools (utils/) are programs, not the runtime, so they are not held to it.
set -euo pipefail

src=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$src"

# layer_of FILE: sets layer to the layer name of a source or header file
# (a variable, not output: no subshell for each of the ~1,300 includes).
layer_of() {
    local f=$1
    case $f in
    includes/*) layer=includes ;;
    base/*) layer=base ;;
    support/*) layer=support ;;
    wire/*) layer=wire ;;
    sm/block/*) layer=sm-block ;;
    sm/heap/*) layer=sm-heap ;;
    sm/alloc/*) layer=sm-alloc ;;
    sm/*) layer=sm ;;
    eventlog/*) layer=eventlog ;;
    reader/*) layer=reader ;;
    profiling/*) layer=profiling ;;
    rts/*) layer=rts ;;
    utils/heapprof/*) layer=utils-heapprof ;;
    utils/report/*) layer=utils-report ;;
    utils/debug-client/*) layer=utils-debug-client ;;
    utils/cli/*) layer=utils-cli ;;
    utils/*/*) f=${f#utils/}; layer=tool-${f%%/*} ;;
    ghc/*) layer=ghc-stub ;;
    *) layer=other ;;
    esac
}

# The storage manager's floors, bottom up (docs/design/storage.md).
sm_all="sm-block sm-heap sm sm-alloc"

# allowed LAYER: sets may_include to the layers LAYER may include,
# space-separated.
allowed() {
    case $1 in
    includes) may_include="includes" ;;
    base) may_include="includes base" ;;
    support) may_include="includes base support" ;;
    wire) may_include="includes base wire" ;;
    sm-block) may_include="includes base support wire sm-block" ;;
    sm-heap) may_include="includes base support wire sm-block sm-heap" ;;
    sm) may_include="includes base support wire sm-block sm-heap sm" ;;
    sm-alloc) may_include="includes base support wire sm-block sm-heap sm sm-alloc" ;;
    eventlog) may_include="includes base support wire $sm_all eventlog" ;;
    profiling) may_include="includes base support wire $sm_all eventlog profiling" ;;
    rts) may_include="includes base support wire $sm_all eventlog profiling rts" ;;
    reader) may_include="includes base reader" ;;
    utils-heapprof) may_include="includes base wire reader utils-heapprof" ;;
    utils-report) may_include="includes base wire reader utils-heapprof utils-report" ;;
    utils-debug-client) may_include="includes base wire utils-debug-client" ;;
    utils-cli) may_include="includes base utils-cli" ;;
    tool-*) may_include="includes base wire reader utils-heapprof utils-report utils-debug-client utils-cli $1" ;;
    ghc-stub) may_include="includes base wire support ghc-stub" ;;
    esac
}

# Every header of the tree, by the name an #include uses: its base name,
# "os/NAME.h" for support/os/, "strata/NAME.h" for the public API, and
# "tui/NAME.h" for the TUI's.  A header beside the including file wins
# over one of the same name elsewhere, as the compiler finds it.
declare -A header_path
while IFS= read -r h; do
    base=${h##*/}
    case $h in
    includes/strata/*) header_path["strata/$base"]=$h ;;
    includes/*) header_path[$base]=$h ;;
    support/os/*) header_path["os/$base"]=$h ;;
    utils/strata-debug/tui/*) header_path["tui/$base"]=$h; header_path[$base]=$h ;;
    *) header_path[$base]=$h ;;
    esac
done < <(find includes base support wire sm eventlog reader profiling rts utils ghc -name '*.h' \
    -not -path '*/node_modules/*' 2>/dev/null | sort)

# os_header NAME: true if <NAME> declares OS calls (see above).
os_header() {
    case $1 in
    sys/* | unistd.h | fcntl.h | poll.h | pthread.h | link.h | dlfcn.h | dirent.h | \
        sched.h | semaphore.h) return 0 ;;
    *) return 1 ;;
    esac
}

violations=0
checked=0
# Of support/, what the GHC stub shares with strata's stub: the messages,
# the socket's checks and registry, and the OS calls they make.
ghc_support="Messages.h SocketPath.h SocketPeer.h SocketConn.h DebugRegistry.h os/File.h os/Process.h os/Socket.h"
# Each #include line of the files, as FILE:LINE:TEXT (one grep for all:
# reading every line in the shell took seconds).
f=
while IFS= read -r hit; do
    [ "${hit%%:*}" = "$f" ] || {
        f=${hit%%:*}
        layer_of "$f"
        from=$layer
        allowed "$from"
        ok=" $may_include "
    }
    hit=${hit#*:}
    lineno=${hit%%:*}
    line=${hit#*:}
    if [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\<([^\>]+)\> ]]; then
        name=${BASH_REMATCH[1]}
        case $f in
        support/os/* | utils/* | ghc/*) ;;
        *)
            if os_header "$name"; then
                printf '%s:%d: layer %s includes <%s>, an OS header: only support/os/ may; call an os_ function instead\n' \
                    "$f" "$lineno" "$from" "$name" >&2
                violations=$((violations + 1))
            fi
            ;;
        esac
        continue
    fi
    [[ $line =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"]+)\" ]] || continue
    name=${BASH_REMATCH[1]}
    if [ -e "${f%/*}/$name" ]; then
        target=${f%/*}/$name
    else
        target=${header_path[$name]:-}
        # config.h and the generated headers of the build tree.
        [ -n "$target" ] || continue
    fi
    checked=$((checked + 1))
    layer_of "$target"
    to=$layer
    # The GHC stub includes GHC's headers: of strata's, only those that
    # declare nothing of the runtime's structures.
    if [ "$from" = ghc-stub ] && { { [ "$to" = includes ] && [ "$name" != strata/DebugProtocol.h ]; } ||
        { [ "$to" = support ] && [[ " $ghc_support " != *" $name "* ]]; }; }; then
        printf '%s:%d: the GHC stub includes "%s" (%s): of includes/ and support/ it may include only strata/DebugProtocol.h and %s, which do not clash with GHC'"'"'s headers\n' \
            "$f" "$lineno" "$name" "$target" "$ghc_support" >&2
        violations=$((violations + 1))
        continue
    fi
    case $ok in
    *" $to "*) ;;
    *)
        printf '%s:%d: layer %s includes "%s" (%s, layer %s), which it may not: %s may include %s\n' \
            "$f" "$lineno" "$from" "$name" "$target" "$to" "$from" "$may_include" >&2
        violations=$((violations + 1))
        ;;
    esac
done < <(find base support wire sm eventlog reader profiling rts utils includes ghc \
    \( -name '*.c' -o -name '*.h' \) -not -path '*/node_modules/*' 2>/dev/null | sort |
    xargs -d '\n' grep -n -H -E '^[[:space:]]*#[[:space:]]*include' || true)

if [ "$violations" -gt 0 ]; then
    echo "layers: $violations forbidden include(s); see docs/design/layers.md" >&2
    exit 1
fi
echo "layers: OK ($checked includes checked)"
