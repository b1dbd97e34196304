/*
 * utils/strata-debug/tui/TuiHeapPanes.c -- the census and fragmentation
 * views: flat trees built from the client library's analyses once per
 * pause (the pinned blocks open to their live objects).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TuiHeapDiff.h"
#include "TuiHeapPanes.h"

/* ----------------------------------------------------------------------
 * Census and fragmentation
 * ---------------------------------------------------------------------- */

static int build_census(TuiHeap *h)
{
    if (tui_heap_ensure_reach(h) != 0)
        return -1;
    TuiTree *t = &h->views[TUI_VIEW_CENSUS];
    tui_tree_clear(t);
    DbgCensus cs;
    if (dbg_census(h->c, h->reach, h->census_by, NULL, &cs) != 0)
        return tui_heap_set_status(h, true, "census: %s", dbg_error(h->c));
    int st = tui_node_add(t->root, tui_node_newf(TUI_NODE_TEXT,
                                                 "census by %s (b: next grouping): %" PRIu64
                                                 " bytes in %" PRIu64 " live objects",
                                                 tui_census_by_name(h->census_by),
                                                 cs.total_bytes, cs.total_objects));
    if (st == 0)
        st = tui_node_add(t->root, tui_node_newf(TUI_NODE_TEXT, "%14s %10s %6s  %s", "bytes",
                                                 "objects", "%", "label"));
    for (size_t i = 0; i < cs.n && st == 0; i++) {
        const DbgBucket *b = &cs.buckets[i];
        double pct = cs.total_bytes ? 100.0 * (double)b->bytes / (double)cs.total_bytes : 0;
        TuiNode *k = tui_node_newf(TUI_NODE_TEXT, "%14" PRIu64 " %10" PRIu64 " %6.1f  %s",
                                   b->bytes, b->objects, pct, b->label);
        if (k != NULL && h->census_by == DBG_BY_ERA) {
            k->has_era = true;
            k->era = strtoull(b->label, NULL, 10);
        }
        st = tui_node_add(t->root, k);
    }
    dbg_census_free(&cs);
    if (st != 0)
        return tui_heap_set_status(h, true, "out of memory");
    h->built[TUI_VIEW_CENSUS] = true;
    return tui_tree_layout(t);
}

/* The non-moving generation's segments by size class, as strata-debug
 * fragmentation prints them. */
static int add_segment_rows(TuiNode *r, const DbgFrag *f)
{
    char line[256];
    if (!dbg_segments_summary(f, line, sizeof line))
        return 0;
    int st = tui_node_add(r, tui_node_new(TUI_NODE_TEXT, line));
    if (st == 0)
        st = tui_node_add(r, tui_node_new(TUI_NODE_TEXT, dbg_seg_class_header()));
    for (size_t i = 0; i < f->n_classes && st == 0; i++) {
        dbg_seg_class_row(&f->classes[i], line, sizeof line);
        st = tui_node_add(r, tui_node_new(TUI_NODE_TEXT, line));
    }
    return st;
}

static int build_frag(TuiHeap *h)
{
    if (tui_heap_ensure_reach(h) != 0)
        return -1;
    TuiTree *t = &h->views[TUI_VIEW_FRAG];
    tui_tree_clear(t);
    DbgFrag f;
    if (dbg_fragmentation(h->c, h->reach, &f) != 0)
        return tui_heap_set_status(h, true, "fragmentation: %s", dbg_error(h->c));
    TuiNode *r = t->root;
    int st = tui_node_add(r, tui_node_newf(TUI_NODE_TEXT,
                                           "megablocks: %" PRIu64 " held by the block "
                                           "allocator, %" PRIu64 " holding blocks in use",
                                           f.n_mblocks, f.n_mblocks_used));
    if (st == 0)
        st = tui_node_add(r, tui_node_newf(TUI_NODE_TEXT, "blocks in use: %" PRIu64
                                           ", pinned blocks: %" PRIu64, f.n_blocks,
                                           f.n_pinned_blocks));
    if (st == 0)
        st = tui_node_add(r, tui_node_new(TUI_NODE_TEXT,
                                          "pinned-block utilisation (live bytes / block bytes):"));
    uint64_t most = 1;
    for (int i = 0; i < 10; i++)
        if (f.histogram[i] > most)
            most = f.histogram[i];
    for (int i = 0; i < 10 && st == 0; i++) {
        char bar[41];
        size_t len = (size_t)(f.histogram[i] * 40 / most);
        if (f.histogram[i] > 0 && len == 0)
            len = 1;
        memset(bar, '#', len);
        bar[len] = '\0';
        st = tui_node_add(r, tui_node_newf(TUI_NODE_TEXT, "  %3d-%3d%%  %8" PRIu64 "  %s",
                                           i * 10, i * 10 + 10, f.histogram[i], bar));
    }
    if (st == 0)
        st = add_segment_rows(r, &f);
    if (st == 0 && f.n_pinned > 0)
        st = tui_node_add(r, tui_node_newf(TUI_NODE_TEXT,
                                           "pinned blocks, emptiest first (expand: their live "
                                           "objects):"));
    uint32_t bsize = dbg_target(h->c)->block_size;
    for (size_t i = 0; i < f.n_pinned && i < 200 && st == 0; i++) {
        const DbgPinnedBlock *p = &f.pinned[i];
        uint64_t bytes = (uint64_t)p->n_blocks * bsize;
        TuiNode *k = tui_node_newf(TUI_NODE_PINNED,
                                   "0x%" PRIx64 "  %u block%s, %" PRIu64 " of %" PRIu64
                                   " bytes live (%.0f%%)", p->start, p->n_blocks,
                                   p->n_blocks == 1 ? "" : "s", p->live_bytes, bytes,
                                   bytes ? 100.0 * (double)p->live_bytes / (double)bytes : 0);
        if (k != NULL) {
            k->addr = p->start;
            k->expandable = true;
            const DbgBlock *b = dbg_block_of(h->c, p->start);
            if (b != NULL) {
                k->has_era = true;
                k->era = b->era;
            }
        }
        st = tui_node_add(r, k);
    }
    if (st == 0 && f.n_pinned > 200)
        st = tui_node_add(r, tui_node_newf(TUI_NODE_TEXT, "... %zu more pinned blocks",
                                           f.n_pinned - 200));
    dbg_frag_free(&f);
    if (st != 0)
        return tui_heap_set_status(h, true, "out of memory");
    h->built[TUI_VIEW_FRAG] = true;
    return tui_tree_layout(t);
}

int tui_heap_build_view(TuiHeap *h, TuiView v)
{
    if (h->built[v])
        return 0;
    if (v == TUI_VIEW_CENSUS)
        return build_census(h);
    if (v == TUI_VIEW_FRAG)
        return build_frag(h);
    if (v == TUI_VIEW_DIFF)
        return tui_heap_diff_hint(h);   /* d builds it */
    return 0;
}

int tui_heap_next_census_by(TuiHeap *h)
{
    h->census_by = h->census_by == DBG_BY_MODULE ? DBG_BY_TYPE : h->census_by + 1;
    h->built[TUI_VIEW_CENSUS] = false;
    return build_census(h);
}

