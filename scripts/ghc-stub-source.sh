#!/bin/sh
# scripts/ghc-stub-source.sh SRCDIR VERSION OUT -- writes the GHC stub as
# the one C file that is installed (share/strata/ghc/strata-ghc-debug.c)
# and that a Haskell program compiles in: ghc/GhcStub.h and ghc/Stub*.c,
# with the code they share with strata's own stub (wire/'s protocol; of
# support/, the messages, the socket's checks and registry and the OS calls
# they make; base/GrowArray), each project header inlined where
# it is first included and #line markers pointing back at the sources.
# Headers that are not the project's (GHC's Rts.h, the C library's) stay
# #includes.  Everything after GhcStub.h is left out when GhcStub.h refused
# the compiler (Note [One GHC version]), so that its message is the only one.
set -eu

src=$1
version=$2
out=$3

parts="base/GrowArray.c wire/DebugWire.c wire/DebugRequest.c wire/DebugServe.c
wire/DebugSocketDir.c support/Messages.c support/os/File.c support/os/Process.c
support/os/Socket.c support/SocketPath.c support/SocketPeer.c support/SocketConn.c
support/DebugRegistry.c
ghc/StubPause.c ghc/StubView.c ghc/StubClosures.c ghc/StubInfo.c ghc/StubRoots.c
ghc/StubHeap.c ghc/StubServer.c"

tmp=$out.tmp
{
    cat <<EOF
/*
 * strata-ghc-debug.c -- strata's debug stub for GHC 9.10 programs, strata
 * $version.  Generated from strata's sources by scripts/ghc-stub-source.sh;
 * edit those, not this file.
 *
 * Compile it into a program built with -threaded:
 *     ghc -threaded Main.hs strata-ghc-debug.c
 * (in a .cabal file: c-sources: strata-ghc-debug.c, ghc-options: -threaded),
 * then start it from Haskell,
 *     foreign import ccall safe "strata_ghc_debug_start"
 *         strataDebugStart :: CString -> IO CInt
 * (a null path: \$STRATA_DEBUG_SOCKET, else the default path), or run the
 * program with STRATA_DEBUG_SOCKET=PATH set, and point strata-debug at the
 * socket.  docs/strata-debug-ghc.md walks through it.
 */
#define STRATA_VERSION "$version"
EOF
    awk -v src="$src" -v parts="$parts" '
    # The project file an #include "name" names, or "" for others.
    function resolve(name, from,    dirs, n, i, cand, dir) {
        dir = from
        sub(/[^\/]*$/, "", dir)
        n = split(dir " ghc/ wire/ base/ support/ includes/", dirs, " ")
        for (i = 1; i <= n; i++) {
            cand = dirs[i] name
            if ((getline line < (src "/" cand)) > 0) {
                close(src "/" cand)
                return cand
            }
            close(src "/" cand)
        }
        return ""
    }
    # Copies file, inlining the project headers it includes (once each).
    function emit(file,    line, lineno, name, target) {
        done[file] = 1
        printf "#line 1 \"%s\"\n", file
        lineno = 0
        while ((getline line < (src "/" file)) > 0) {
            lineno++
            if (line ~ /^#include "/) {
                name = line
                sub(/^#include "/, "", name)
                sub(/".*$/, "", name)
                target = resolve(name, file)
                if (target != "") {
                    if (!(target in done)) {
                        emit(target)
                        printf "#line %d \"%s\"\n", lineno + 1, file
                    }
                    continue
                }
            }
            print line
        }
        close(src "/" file)
    }
    BEGIN {
        emit("ghc/GhcStub.h")
        print "#if !defined(STUB_UNSUPPORTED_GHC)"
        n = split(parts, list, /[ \n]+/)
        for (i = 1; i <= n; i++)
            if (list[i] != "")
                emit(list[i])
        print "#endif /* !STUB_UNSUPPORTED_GHC */"
    }'
} >"$tmp"
mv "$tmp" "$out"
