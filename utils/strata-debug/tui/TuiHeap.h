/*
 * utils/strata-debug/tui/TuiHeap.h -- the terminal UI's views of the heap,
 * as trees (TuiTree.h) built with the client library: the roots, search
 * results with their retainer paths, the census, fragmentation and the
 * diff against an earlier snapshot.  No
 * terminal here: TuiMain.c drives it and TuiDraw.c shows it.
 *
 * Opening draws the roots without a traversal (only the blocks holding
 * the root closures are fetched); reachability is computed on the first
 * search, census, fragmentation or snapshot, and kept for the pause.
 */
#ifndef STRATA_TUIHEAP_H
#define STRATA_TUIHEAP_H

#include "DebugAnalysis.h"
#include "TuiQuery.h"
#include "TuiTree.h"

typedef enum {
    TUI_VIEW_ROOTS, TUI_VIEW_SEARCH, TUI_VIEW_CENSUS, TUI_VIEW_FRAG, TUI_VIEW_DIFF, TUI_N_VIEWS
} TuiView;

/* Node kinds (TuiNode.kind). */
enum {
    TUI_NODE_TEXT = 1,           /* a leaf */
    TUI_NODE_SECTION,            /* a kind of root; aux = DEBUG_ROOT_* */
    TUI_NODE_FRAME,              /* a local-root frame; aux = frame number */
    TUI_NODE_CLOSURE,            /* addr; expands to details and fields */
    TUI_NODE_RESULT,             /* a search match; expands to its retainer path */
    TUI_NODE_FIELDS,             /* addr; expands to the fields only */
    TUI_NODE_PINNED,             /* a pinned block (addr); expands to its live objects */
    TUI_NODE_PATH_GAP,           /* the middle of a long retainer path (addr: the match;
                                    aux: first hidden step); expands to those steps */
    TUI_NODE_PATH_RUN,           /* consecutive closures of one info table on a path
                                    (addr: the match; aux: the run's first index in
                                    the path); expands to them */
};

typedef struct {
    DbgClient *c;
    const char *source;          /* socket path or snapshot file, for the header */
    uint32_t timeout_ms;         /* for refresh's pause */
    DbgReach *reach;             /* NULL until needed */
    double reach_seconds;
    TuiTree views[TUI_N_VIEWS];
    bool built[TUI_N_VIEWS];     /* census and fragmentation are built when first shown */
    DbgCensusBy census_by;
    char query_text[256];        /* the last search, re-run by refresh */
    bool running;                /* refresh resumed the program but could not pause it */
    char status[512];            /* a message for the status line */
    bool status_error;
} TuiHeap;

/* Sets up the views and builds the roots tree. -1 with h->status set. */
int tui_heap_open(TuiHeap *h, DbgClient *c, const char *source, uint32_t timeout_ms);
void tui_heap_close(TuiHeap *h);

/* Builds a census or fragmentation view if it is not built yet. */
int tui_heap_build_view(TuiHeap *h, TuiView v);
/* Runs a search (TuiQuery.h syntax) into the search view. */
int tui_heap_search(TuiHeap *h, const char *text);
/* Next census grouping (type, info, era, module); rebuilds the view. */
int tui_heap_next_census_by(TuiHeap *h);
/* The diff view against the earlier snapshot a_file (TuiHeapDiff.c). */
int tui_heap_diff(TuiHeap *h, const char *a_file);
/* Writes a snapshot of the paused heap. */
int tui_heap_snapshot(TuiHeap *h, const char *file);
/* Live only: resumes the program, pauses it again and rebuilds the views. */
int tui_heap_refresh(TuiHeap *h);
/* Whether the next operation on view v must first traverse the heap (the
 * caller shows a "working" message then). */
bool tui_heap_needs_traversal(const TuiHeap *h, TuiView v);

const char *tui_view_name(TuiView v);
const char *tui_census_by_name(DbgCensusBy by);

#endif /* STRATA_TUIHEAP_H */
