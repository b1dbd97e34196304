/*
 * utils/strata-debug/tui/TuiHeap.c -- the heap's views (TuiHeap.h):
 * opening, search, snapshots and refresh.  The status line and the
 * traversal are TuiHeapState.c's, nodes are made in TuiHeapNodes.c, the
 * census and fragmentation panes in TuiHeapPanes.c.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "TuiHeap.h"
#include "TuiHeapNodes.h"
#include "TuiQuery.h"

/* ----------------------------------------------------------------------
 * Search
 * ---------------------------------------------------------------------- */

int tui_heap_search(TuiHeap *h, const char *text)
{
    TuiQuery q;
    char err[256];
    if (!tui_query_parse(text, &q, err, sizeof err))
        return tui_heap_set_status(h, true, "search: %s", err);
    snprintf(h->query_text, sizeof h->query_text, "%s", text);
    if (tui_heap_ensure_reach(h) != 0)
        return -1;
    TuiTree *t = &h->views[TUI_VIEW_SEARCH];
    tui_tree_clear(t);
    h->built[TUI_VIEW_SEARCH] = true;
    double t0 = tui_now_s();
    size_t n_objs, matches = 0, shown = 0;
    const uint64_t *objs = dbg_reach_objects(h->reach, &n_objs);
    TuiNode *title = tui_node_new(TUI_NODE_TEXT, "");
    if (tui_node_add(t->root, title) != 0)
        return tui_heap_set_status(h, true, "out of memory");
    for (size_t i = 0; i < n_objs; i++) {
        DbgClosure cl;
        if (dbg_closure(h->c, objs[i], &cl) != 0)
            return tui_heap_set_status(h, true, "search: %s", dbg_error(h->c));
        if (!tui_query_matches(&q, &cl))
            continue;
        matches++;
        if (shown < q.limit) {
            shown++;
            if (tui_node_add(t->root, tui_heap_closure_node(h, TUI_NODE_RESULT, "", objs[i])) != 0)
                return tui_heap_set_status(h, true, "out of memory");
        }
    }
    char desc[256];
    tui_query_describe(&q, desc, sizeof desc);
    char line[512];
    snprintf(line, sizeof line, "search: %s -- %zu match%s, %zu shown (nearest to a root first)",
             desc, matches, matches == 1 ? "" : "es", shown);
    tui_node_set_text(title, line);
    tui_tree_layout(t);
    t->cursor = t->n_lines > 1 ? 1 : 0;
    return tui_heap_set_status(h, false, "%zu match%s in %.3f s (traversal %.3f s)", matches,
                      matches == 1 ? "" : "es", tui_now_s() - t0, h->reach_seconds);
}

/* ----------------------------------------------------------------------
 * Opening, snapshots, refresh
 * ---------------------------------------------------------------------- */

int tui_heap_open(TuiHeap *h, DbgClient *c, const char *source, uint32_t timeout_ms)
{
    memset(h, 0, sizeof *h);
    h->c = c;
    h->source = source;
    h->timeout_ms = timeout_ms;
    for (int v = 0; v < TUI_N_VIEWS; v++)
        if (tui_tree_init(&h->views[v], tui_heap_load_node, h) != 0) {
            for (int k = 0; k < v; k++)
                tui_tree_free(&h->views[k]);
            return tui_heap_set_status(h, true, "out of memory");
        }
    tui_node_add(h->views[TUI_VIEW_SEARCH].root,
                 tui_node_new(TUI_NODE_TEXT, "no search yet: press / and give a constructor "
                                             "name, type:T, info:0xADDR, era:LO-HI"));
    tui_tree_layout(&h->views[TUI_VIEW_SEARCH]);
    h->built[TUI_VIEW_ROOTS] = true;
    return tui_heap_build_roots(h);
}

void tui_heap_close(TuiHeap *h)
{
    for (int v = 0; v < TUI_N_VIEWS; v++)
        tui_tree_free(&h->views[v]);
    dbg_reach_free(h->reach);
    h->reach = NULL;
}

int tui_heap_snapshot(TuiHeap *h, const char *file)
{
    if (file[0] == '\0')
        return tui_heap_set_status(h, true, "snapshot: no file name given");
    if (tui_heap_ensure_reach(h) != 0)
        return -1;
    if (dbg_write_snapshot(h->c, h->reach, file) != 0)
        return tui_heap_set_status(h, true, "snapshot: %s", dbg_error(h->c));
    struct stat st;
    long long size = stat(file, &st) == 0 ? (long long)st.st_size : -1;
    return tui_heap_set_status(h, false, "snapshot written to %s (%lld bytes)", file, size);
}

int tui_heap_refresh(TuiHeap *h)
{
    if (dbg_is_snapshot(h->c))
        return tui_heap_set_status(h, true, "refresh: a snapshot does not change (attach to a live "
                                   "program to refresh)");
    /* Everything decoded so far describes the old pause. */
    for (int v = 0; v < TUI_N_VIEWS; v++) {
        tui_tree_clear(&h->views[v]);
        h->built[v] = false;
    }
    dbg_reach_free(h->reach);
    h->reach = NULL;
    uint64_t latency;
    if (!h->running && dbg_resume(h->c) != 0)
        return tui_heap_set_status(h, true, "resume: %s", dbg_error(h->c));
    h->running = true;
    if (dbg_pause(h->c, h->timeout_ms, &latency) != 0)
        return tui_heap_set_status(h, true, "pause: %s (the program is running; r tries again, q quits)",
                          dbg_error(h->c));
    h->running = false;
    h->built[TUI_VIEW_ROOTS] = true;
    if (tui_heap_build_roots(h) != 0)
        return -1;
    if (h->query_text[0] != '\0') {
        char q[sizeof h->query_text];
        snprintf(q, sizeof q, "%s", h->query_text);
        if (tui_heap_search(h, q) != 0)
            return -1;
    } else {
        tui_node_add(h->views[TUI_VIEW_SEARCH].root,
                     tui_node_new(TUI_NODE_TEXT, "no search yet: press /"));
        tui_tree_layout(&h->views[TUI_VIEW_SEARCH]);
    }
    return tui_heap_set_status(h, false, "paused again at era %" PRIu64 " (pause took %.3f ms)",
                      dbg_target(h->c)->era, latency / 1e6);
}

