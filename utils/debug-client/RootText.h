/*
 * utils/debug-client/RootText.h -- a root as strata-debug prints it, in
 * its retainer paths, its roots command and its TUI, for strata's heap and
 * a GHC program's.  The whole API of RootText.c.
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

#endif /* STRATA_DEBUG_ROOT_TEXT_H */
