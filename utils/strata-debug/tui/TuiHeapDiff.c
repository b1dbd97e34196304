/*
 * utils/strata-debug/tui/TuiHeapDiff.c -- the diff view (5): the heap on
 * screen (B) against an earlier snapshot A the user names with `d`, by the
 * client library's diff (DebugDiff.h): the groups of new objects, alive
 * and born after A, then the survivors, alive at A and still alive.
 * Coloured by era: see Note [Two colours for a diff].
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "DebugDiff.h"
#include "TuiHeapDiff.h"

/* Rows of each part shown at most. */
#define DIFF_ROWS 200

/* Note [Two colours for a diff]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A new object's era is after A's era, a survivor's is A's or before, so
 * the view colours the new groups as era A + 1 and the survivors as era A,
 * from the era palette (TuiPalette.h) every other view uses: the legend
 * names the two eras, and two consecutive eras never share a colour.
 * Without colour each row still says "new" or "survivor". */

static const char *row_label(const DbgDiffRow *r, char *buf, size_t len)
{
    if (r->info != NULL)
        snprintf(buf, len, "%s (%s)", dbg_type_label(r->info), dbg_closure_type_name(r->info->type));
    else
        snprintf(buf, len, "%.*s", (int)strcspn(r->key, "\x1f"), r->key);
    return buf;
}

#define ADD_TEXT(t, ...) tui_node_add((t)->root, tui_node_newf(TUI_NODE_TEXT, __VA_ARGS__))

/* One part of the view: the rows ix[0..n) of d->infos, era-coloured. */
static int add_rows(TuiTree *t, const DbgDiff *d, const size_t *ix, size_t n, bool new_part)
{
    int st = 0;
    for (size_t k = 0; k < n && k < DIFF_ROWS && st == 0; k++) {
        const DbgDiffRow *r = &d->infos.rows[ix[k]];
        char label[512];
        TuiNode *node = new_part
            ? tui_node_newf(TUI_NODE_TEXT, "new       %14" PRIu64 " %10" PRIu64 " %14" PRIu64
                            "  %s", r->new_bytes, r->new_objects, r->retained_bytes,
                            row_label(r, label, sizeof label))
            : tui_node_newf(TUI_NODE_TEXT, "survivor  %14" PRIu64 " %10" PRIu64 " %14" PRIu64
                            "  %s", r->old_bytes, r->old_objects, r->a_bytes,
                            row_label(r, label, sizeof label));
        if (node != NULL) {
            node->has_era = true;
            node->era = new_part ? d->a_era + 1 : d->a_era;
        }
        st = tui_node_add(t->root, node);
    }
    if (st == 0 && n > DIFF_ROWS)
        st = ADD_TEXT(t, "... %zu more groups", n - DIFF_ROWS);
    return st;
}

static int fill_view(TuiTree *t, const DbgDiff *d, const char *a_file)
{
    size_t n_new, n_old;
    size_t *new_ix = dbg_diff_new_order(d, &n_new), *old_ix = dbg_diff_survivor_order(d, &n_old);
    int st = new_ix != NULL && old_ix != NULL ? 0 : -1;
    if (st == 0)
        st = tui_node_add(t->root, tui_node_newf(TUI_NODE_TEXT,
                                                 "diff against %s: A era %" PRIu64
                                                 ", this heap (B) era %" PRIu64
                                                 " (d: another A)", a_file, d->a_era,
                                                 d->b_era));
    if (st == 0)
        st = ADD_TEXT(t, "A: %" PRIu64 " bytes in %" PRIu64 " objects; B: %" PRIu64 " bytes",
                      d->a_total_bytes, d->a_total_objects, d->b_total_bytes);
    if (st == 0)
        st = ADD_TEXT(t, "new and alive (born after A): %" PRIu64 " bytes in %" PRIu64
                      " objects, %zu groups", d->new_total_bytes, d->new_total_objects, n_new);
    if (st == 0)
        st = tui_node_add(t->root, tui_node_newf(TUI_NODE_TEXT, "%-9s %14s %10s %14s  %s",
                                                 "", "new bytes", "objects", "retained",
                                                 "label"));
    if (st == 0)
        st = add_rows(t, d, new_ix, n_new, true);
    if (st == 0)
        st = ADD_TEXT(t, "survivors (alive at A, still alive): %zu groups", n_old);
    if (st == 0)
        st = tui_node_add(t->root, tui_node_newf(TUI_NODE_TEXT, "%-9s %14s %10s %14s  %s",
                                                 "", "alive bytes", "objects", "bytes at A",
                                                 "label"));
    if (st == 0)
        st = add_rows(t, d, old_ix, n_old, false);
    free(new_ix);
    free(old_ix);
    return st;
}

/* A's side of the diff: A is opened, counted and closed. */
static int diff_begin(TuiHeap *h, const char *a_file, DbgDiff *d)
{
    char err[1024];
    DbgClient *a = dbg_open_snapshot(a_file, err, sizeof err);
    if (a == NULL)
        return tui_heap_set_status(h, true, "diff: A: %s", err);
    int st = 0;
    if (strcmp(dbg_target(a)->program, dbg_target(h->c)->program) != 0)
        st = tui_heap_set_status(h, true, "diff: A is of program '%s', this heap of '%s'",
                                 dbg_target(a)->program, dbg_target(h->c)->program);
    else if (dbg_diff_begin(a, DBG_BY_INFO, d) != 0)
        st = tui_heap_set_status(h, true, "diff: A: %s", dbg_error(a));
    dbg_close(a);
    return st;
}

int tui_heap_diff(TuiHeap *h, const char *a_file)
{
    if (a_file[0] == '\0')
        return tui_heap_set_status(h, true, "diff: no snapshot file given");
    DbgDiff d;
    if (diff_begin(h, a_file, &d) != 0)
        return -1;
    int st = 0;
    if (dbg_diff_finish(h->c, &d) != 0) {
        st = tui_heap_set_status(h, true, "diff: %s", dbg_error(h->c));
    } else {
        TuiTree *t = &h->views[TUI_VIEW_DIFF];
        tui_tree_clear(t);
        if (fill_view(t, &d, a_file) != 0)
            st = tui_heap_set_status(h, true, "out of memory");
        else
            st = tui_heap_set_status(h, false, "diff against %s: %" PRIu64 " new bytes alive",
                                     a_file, d.new_total_bytes);
        h->built[TUI_VIEW_DIFF] = true;
        if (st == 0)
            st = tui_tree_layout(t);
    }
    dbg_diff_free(&d);
    return st;
}

int tui_heap_diff_hint(TuiHeap *h)
{
    TuiTree *t = &h->views[TUI_VIEW_DIFF];
    tui_tree_clear(t);
    int st = tui_node_add(t->root, tui_node_new(TUI_NODE_TEXT,
                                                "no diff yet: press d and give an earlier "
                                                "snapshot (A) of this program"));
    return st == 0 ? tui_tree_layout(t) : tui_heap_set_status(h, true, "out of memory");
}
