/*
 * utils/debug-client/RootText.c -- a root as people read it: the one
 * wording of strata-debug's retainer paths, its roots command and its TUI
 * (docs/strata-debug.md), for strata's heap and a GHC program's.
 */
#include <stdio.h>

#include "Client.h"
#include "Decode.h"
#include "DebugTypes.h"
#include "RootText.h"
#include "strata/Debug.h"

const char *dbg_root_kind_label(const DbgClient *c, uint8_t kind)
{
    /* A GHC program's frames are its Haskell threads' stack frames. */
    if (kind == DEBUG_ROOT_FRAME && dbg_heap_is_ghc(c))
        return "stack frame";
    return dbg_root_kind_name(kind);
}

/* "serve (Leak.hs:42), frame 3 slot 1": a frame's function, where it is,
 * and the slot; a GHC frame's slot 0 is the SRT of its code. */
static void frame_text(const DbgClient *c, const DbgRoot *r, char *buf, size_t len)
{
    const char *kind = dbg_root_kind_label(c, r->kind);
    char where[768] = "";
    if (!dbg_heap_is_ghc(c) || r->func[0] != '\0') {
        if (r->file[0] != '\0' || !dbg_heap_is_ghc(c))
            snprintf(where, sizeof where, " %s (%s:%u)", r->func, r->file, r->line);
        else
            snprintf(where, sizeof where, " %s", r->func);
    }
    char slot[64];
    if (dbg_heap_is_ghc(c) && r->slot == 0)
        snprintf(slot, sizeof slot, "frame %u (the SRT of its code)", r->index);
    else
        snprintf(slot, sizeof slot, "frame %u slot %u", r->index, r->slot);
    char thread[32] = "";
    /* strata: a thread other than hs_init's (+RTS -N); GHC: always, a
     * program runs many */
    if (r->thread > 1 || (dbg_heap_is_ghc(c) && r->thread != 0))
        snprintf(thread, sizeof thread, ", thread %u", r->thread);
    snprintf(buf, len, "%s%s, %s%s", kind, where, slot, thread);
}

void dbg_root_describe(const DbgClient *c, const DbgRoot *r, char *buf, size_t len)
{
    const char *kind = dbg_root_kind_label(c, r->kind);
    switch (r->kind) {
    case DEBUG_ROOT_FRAME:
        frame_text(c, r, buf, len);
        return;
    case DEBUG_ROOT_STABLE_PTR: case DEBUG_ROOT_SAVED: case DEBUG_ROOT_WEAK:
        snprintf(buf, len, "%s #%u", kind, r->index);
        return;
    case DEBUG_ROOT_REMEMBERED:
        snprintf(buf, len, "%s of generation %u", kind, r->index);
        return;
    case DEBUG_ROOT_THREAD:
        snprintf(buf, len, "%s %u", kind, r->index);
        return;
    case DEBUG_ROOT_STATIC: {
        char name[1024];
        dbg_static_root_name(r, name, sizeof name);
        snprintf(buf, len, "%s%s%s", kind, name[0] ? " " : "", name);
        return;
    }
    default:
        snprintf(buf, len, "%s", kind);
    }
}
