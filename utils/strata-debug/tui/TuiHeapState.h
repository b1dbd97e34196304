/*
 * utils/strata-debug/tui/TuiHeapState.h -- the state every view of the
 * heap shares (TuiHeap: the client, the traversal, the trees, the status
 * line) and what each view does with it first: set the status line, make
 * the traversal once per pause.  The whole API of TuiHeapState.c; the
 * views are TuiHeapNodes, TuiHeapPanes, TuiHeapDiff and TuiHeap.
 */
#ifndef STRATA_TUIHEAPSTATE_H
#define STRATA_TUIHEAPSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "DebugAnalysis.h"
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

/* Sets the status line; returns -1 for an error, else 0. */
int tui_heap_set_status(TuiHeap *h, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Traverses the heap once per pause (h->reach); -1 with the status set. */
int tui_heap_ensure_reach(TuiHeap *h);
/* Whether the next operation on view v must first traverse the heap (the
 * caller shows a "working" message then). */
bool tui_heap_needs_traversal(const TuiHeap *h, TuiView v);

/* Seconds on the monotonic clock (the traversal's and refresh's timings). */
double tui_now_s(void);

const char *tui_view_name(TuiView v);
const char *tui_census_by_name(DbgCensusBy by);

#endif /* STRATA_TUIHEAPSTATE_H */
