/*
 * utils/debug-client/RootText.c -- a root as people read it: the one
 * wording of strata-debug's retainer paths, its roots command and its TUI
 * (docs/strata-debug.md), for strata's heap and a GHC program's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "RootText.h"
#include "strata/ClosureTypes.h"
#include "strata/Debug.h"

const char *dbg_root_kind_label(const DbgClient *c, uint8_t kind)
{
    /* A GHC program's frames are its Haskell threads' stack frames. */
    if (kind == DEBUG_ROOT_FRAME && dbg_heap_is_ghc(c))
        return "stack frame";
    return dbg_root_kind_name(kind);
}

void dbg_root_frame_site(const DbgClient *c, const DbgRoot *r, char *buf, size_t len)
{
    if (!dbg_heap_is_ghc(c))
        snprintf(buf, len, "%s (%s:%u)", r->func, r->file, r->line);
    else if (r->func[0] != '\0' && r->file[0] != '\0' && r->line != 0)
        snprintf(buf, len, "%s (%s:%u)", r->func, r->file, r->line);
    else if (r->func[0] != '\0' && r->file[0] != '\0')
        snprintf(buf, len, "%s (%s)", r->func, r->file);
    else
        snprintf(buf, len, "%s", r->func);   /* a runtime frame, or no IPE */
}

/* "serve (Leak.hs:42), frame 3 slot 1": a frame's function, where it is,
 * and the slot; a GHC frame's slot 0 is the SRT of its code. */
static void frame_text(const DbgClient *c, const DbgRoot *r, char *buf, size_t len)
{
    const char *kind = dbg_root_kind_label(c, r->kind);
    char site[768];
    dbg_root_frame_site(c, r, site, sizeof site);
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
    snprintf(buf, len, "%s%s%s, %s%s", kind, site[0] != '\0' ? " " : "", site, slot, thread);
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

/* A GHC program's static closures are no roots, and its symbols may be
 * stripped; its top-level bindings are named by their tables' IPE entries
 * (-finfo-table-map): a CAF by the table it had before it was evaluated
 * (saved_info, the last word of an IND_STATIC), anything else by its own. */
static void ghc_static_name(DbgClient *c, uint64_t addr, char *buf, size_t len)
{
    DbgClosure cl;
    if (dbg_closure(c, addr, &cl) != 0)
        return;
    const DbgInfo *in = cl.info;
    uint64_t h = c->target.header_words;
    if (in->type == IND_STATIC && cl.n_words > h + 2 && cl.words[h + 2] != 0) {
        const DbgInfo *saved = dbg_info(c, cl.words[h + 2]);
        if (saved != NULL)
            in = saved;
    }
    if (in->prov_source == DEBUG_PROV_NONE || in->label[0] == '\0')
        return;
    unsigned long line = strtoul(in->src_span, NULL, 10);
    if (in->src_file[0] != '\0' && line != 0)
        snprintf(buf, len, "%s (%s:%lu)", in->label, in->src_file, line);
    else
        snprintf(buf, len, "%s", in->label);
}

void dbg_static_name(DbgClient *c, uint64_t addr, char *buf, size_t len)
{
    dbg_static_root_name(dbg_static_root(c, addr), buf, len);
    if (buf[0] == '\0' && dbg_heap_is_ghc(c))
        ghc_static_name(c, addr, buf, len);
}
