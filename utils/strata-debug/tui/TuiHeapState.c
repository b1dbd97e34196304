/*
 * utils/strata-debug/tui/TuiHeapState.c -- what every view of the heap
 * does first (TuiHeapState.h): the status line, the traversal (once per
 * pause), and the names of views and census groupings.
 */
#include "TuiHeapState.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

double tui_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int tui_heap_set_status(TuiHeap *h, bool error, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->status, sizeof h->status, fmt, ap);
    va_end(ap);
    h->status_error = error;
    return error ? -1 : 0;
}

const char *tui_view_name(TuiView v)
{
    static const char *const names[] = {"Roots", "Search", "Census", "Fragmentation",
                                         "Diff"};
    return v < TUI_N_VIEWS ? names[v] : "?";
}

const char *tui_census_by_name(DbgCensusBy by)
{
    switch (by) {
    case DBG_BY_TYPE: return "type";
    case DBG_BY_INFO: return "info table";
    case DBG_BY_ERA: return "era";
    case DBG_BY_MODULE: return "module";
    }
    return "?";
}

int tui_heap_ensure_reach(TuiHeap *h)
{
    if (h->reach != NULL)
        return 0;
    if (h->running)
        return tui_heap_set_status(h, true, "the program is running (the last pause failed): r "
                                   "pauses it again");
    double t0 = tui_now_s();
    h->reach = dbg_reach(h->c);
    if (h->reach == NULL)
        return tui_heap_set_status(h, true, "traversal failed: %s", dbg_error(h->c));
    h->reach_seconds = tui_now_s() - t0;
    return 0;
}

bool tui_heap_needs_traversal(const TuiHeap *h, TuiView v)
{
    return h->reach == NULL && v != TUI_VIEW_DIFF && (v == TUI_VIEW_SEARCH || !h->built[v]);
}
