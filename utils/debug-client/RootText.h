/*
 * utils/debug-client/RootText.h -- a root, and a static closure, as
 * strata-debug prints them in its retainer paths, its roots command and
 * its TUI, for strata's heap and a GHC program's.  The whole API of
 * RootText.c.
 */
#ifndef STRATA_DEBUG_ROOT_TEXT_H
#define STRATA_DEBUG_ROOT_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"

/* A root kind's name as the heap's runtime calls it ("stack frame" for a
 * GHC program's frames, else dbg_root_kind_name's). */
const char *dbg_root_kind_label(const DbgClient *c, uint8_t kind);
/* A root as strata-debug prints it: "local-root frame main
 * (examples/leak.c:60), frame 0 slot 0", "stack frame serve (Leak.hs:42),
 * frame 3 slot 1, thread 4", "static closure session_cache
 * (examples/leak.c:41)", "stable pointer #2", "thread 1". */
void dbg_root_describe(const DbgClient *c, const DbgRoot *r, char *buf, size_t len);
/* A frame root's site: "main (examples/leak.c:60)", "main.idle
 * (Leak.hs)", "catch frame", or "" for a GHC frame without IPE. */
void dbg_root_frame_site(const DbgClient *c, const DbgRoot *r, char *buf, size_t len);
/* The name of the static closure at addr for people: its static root's
 * (dbg_static_root_name), or in a GHC program its top-level binding's, from
 * IPE: "sessionCache (Leak.hs:31)"; "" when unknown. */
void dbg_static_name(DbgClient *c, uint64_t addr, char *buf, size_t len);

#endif /* STRATA_DEBUG_ROOT_TEXT_H */
