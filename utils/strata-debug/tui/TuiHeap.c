/*
 * utils/strata-debug/tui/TuiHeap.c -- the heap's trees (TuiHeap.h): node
 * labels for roots and closures, the loader that expands them, search,
 * census, fragmentation, snapshots and refresh.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "TuiHeap.h"
#include "strata/ClosureTypes.h"
#include "strata/Debug.h"

/* Expanding an array shows at most this many fields. */
#define MAX_FIELDS 500
/* A retainer path longer than twice this shows its ends, with the middle
 * behind a node that expands to it. */
#define PATH_END_STEPS 100
/* A pinned block's node shows at most this many live objects. */
#define MAX_PINNED_OBJECTS 50

static int load_node(TuiNode *n, void *env);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int set_status(TuiHeap *h, bool error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int set_status(TuiHeap *h, bool error, const char *fmt, ...)
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
    static const char *const names[] = {"Roots", "Search", "Census", "Fragmentation"};
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

static int ensure_reach(TuiHeap *h)
{
    if (h->reach != NULL)
        return 0;
    if (h->running)
        return set_status(h, true, "the program is running (the last pause failed): r "
                                   "pauses it again");
    double t0 = now_s();
    h->reach = dbg_reach(h->c);
    if (h->reach == NULL)
        return set_status(h, true, "traversal failed: %s", dbg_error(h->c));
    h->reach_seconds = now_s() - t0;
    return 0;
}

bool tui_heap_needs_traversal(const TuiHeap *h, TuiView v)
{
    return h->reach == NULL && (v == TUI_VIEW_SEARCH || !h->built[v]);
}

/* ----------------------------------------------------------------------
 * Labels
 * ---------------------------------------------------------------------- */

/* "0x7f..  SessionEntry  CONSTR  era 2  32 B" (or an error), with the
 * node's era set for colouring. */
static TuiNode *closure_node(TuiHeap *h, int kind, const char *prefix, uint64_t addr)
{
    DbgClosure cl;
    if (dbg_closure(h->c, addr, &cl) != 0)
        return tui_node_newf(TUI_NODE_TEXT, "%s0x%" PRIx64 "  <%s>", prefix, addr,
                             dbg_error(h->c));
    char where[64];
    if (cl.block != NULL)
        snprintf(where, sizeof where, "era %" PRIu64, cl.era);
    else
        snprintf(where, sizeof where, "static");
    TuiNode *n = tui_node_newf(kind, "%s0x%" PRIx64 "  %s  %s  %s  %" PRIu64 " B", prefix, addr,
                               dbg_type_label(cl.info), dbg_closure_type_name(cl.info->type),
                               where, (uint64_t)cl.n_words * 8);
    if (n != NULL) {
        n->addr = addr;
        n->expandable = true;
        n->has_era = true;
        n->era = cl.era;
    }
    return n;
}

static void root_where(const DbgRoot *r, char *buf, size_t len)
{
    switch (r->kind) {
    case DEBUG_ROOT_FRAME:
        snprintf(buf, len, "local-root frame %s (%s:%u), frame %u slot %u", r->func, r->file,
                 r->line, r->index, r->slot);
        break;
    case DEBUG_ROOT_STABLE_PTR: case DEBUG_ROOT_SAVED:
        snprintf(buf, len, "%s #%u", dbg_root_kind_name(r->kind), r->index);
        break;
    case DEBUG_ROOT_REMEMBERED:
        snprintf(buf, len, "remembered set of generation %u", r->index);
        break;
    case DEBUG_ROOT_THREAD:
        snprintf(buf, len, "thread %u", r->index);
        break;
    default:
        snprintf(buf, len, "%s", dbg_root_kind_name(r->kind));
    }
}

/* ----------------------------------------------------------------------
 * The roots tree
 * ---------------------------------------------------------------------- */

static const struct {
    uint8_t kind;
    const char *title;
} sections[] = {
    {DEBUG_ROOT_FRAME, "Local-root frames"},
    {DEBUG_ROOT_SAVED, "Saved objects"},
    {DEBUG_ROOT_STABLE_PTR, "Stable pointers"},
    {DEBUG_ROOT_STATIC, "Static closures"},
    {DEBUG_ROOT_THREAD, "Thread"},
    {DEBUG_ROOT_REMEMBERED, "Remembered sets (keep nothing alive by themselves)"},
};

static int build_roots(TuiHeap *h)
{
    TuiTree *t = &h->views[TUI_VIEW_ROOTS];
    tui_tree_clear(t);
    const DbgRoot *roots;
    size_t n;
    if (dbg_roots(h->c, &roots, &n) != 0)
        return set_status(h, true, "roots: %s", dbg_error(h->c));
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        size_t count = 0, frames = 0;
        uint32_t last_frame = UINT32_MAX;
        for (size_t i = 0; i < n; i++)
            if (roots[i].kind == sections[s].kind) {
                count++;
                if (roots[i].kind == DEBUG_ROOT_FRAME && roots[i].index != last_frame) {
                    frames++;
                    last_frame = roots[i].index;
                }
            }
        TuiNode *sec = sections[s].kind == DEBUG_ROOT_FRAME
                           ? tui_node_newf(TUI_NODE_SECTION, "%s (%zu frames, %zu slots)",
                                           sections[s].title, frames, count)
                           : tui_node_newf(TUI_NODE_SECTION, "%s (%zu)", sections[s].title,
                                           count);
        if (sec == NULL || tui_node_add(t->root, sec) != 0)
            return set_status(h, true, "out of memory");
        sec->aux = sections[s].kind;
        sec->expandable = count > 0;
        /* Frames and saved objects are what a person looks at first. */
        if (sec->expandable &&
            (sections[s].kind == DEBUG_ROOT_FRAME || sections[s].kind == DEBUG_ROOT_SAVED)) {
            tui_tree_expand(t, sec);
            for (size_t k = 0; k < sec->n_kids; k++)
                if (sec->kids[k]->kind == TUI_NODE_FRAME)
                    tui_tree_expand(t, sec->kids[k]);
        }
    }
    return tui_tree_layout(t);
}

static int load_section(TuiHeap *h, TuiNode *sec)
{
    const DbgRoot *roots;
    size_t n;
    if (dbg_roots(h->c, &roots, &n) != 0)
        return tui_node_add(sec, tui_node_newf(TUI_NODE_TEXT, "<%s>", dbg_error(h->c))), -1;
    uint8_t kind = (uint8_t)sec->aux;
    for (size_t i = 0; i < n; i++) {
        const DbgRoot *r = &roots[i];
        if (r->kind != kind)
            continue;
        TuiNode *k;
        if (kind == DEBUG_ROOT_FRAME) {
            /* One node per frame; its slots are listed when it expands. */
            if (i > 0 && roots[i - 1].kind == kind && roots[i - 1].index == r->index)
                continue;
            k = tui_node_newf(TUI_NODE_FRAME, "frame %u: %s (%s:%u)", r->index, r->func,
                              r->file, r->line);
            if (k != NULL) {
                k->aux = r->index;
                k->expandable = true;
            }
        } else {
            char prefix[64];
            if (kind == DEBUG_ROOT_REMEMBERED)
                snprintf(prefix, sizeof prefix, "gen %u: ", r->index);
            else
                snprintf(prefix, sizeof prefix, "#%u: ", r->index);
            k = closure_node(h, TUI_NODE_CLOSURE, prefix, r->addr);
        }
        if (tui_node_add(sec, k) != 0)
            return -1;
    }
    return 0;
}

static int load_frame(TuiHeap *h, TuiNode *fr)
{
    const DbgRoot *roots;
    size_t n;
    if (dbg_roots(h->c, &roots, &n) != 0)
        return tui_node_add(fr, tui_node_newf(TUI_NODE_TEXT, "<%s>", dbg_error(h->c))), -1;
    for (size_t i = 0; i < n; i++) {
        if (roots[i].kind != DEBUG_ROOT_FRAME || roots[i].index != fr->aux)
            continue;
        char prefix[64];
        snprintf(prefix, sizeof prefix, "slot %u: ", roots[i].slot);
        if (tui_node_add(fr, closure_node(h, TUI_NODE_CLOSURE, prefix, roots[i].addr)) != 0)
            return -1;
    }
    return 0;
}

/* ----------------------------------------------------------------------
 * Closures: details, fields, retainer paths
 * ---------------------------------------------------------------------- */

static int add_details(TuiHeap *h, TuiNode *n, const DbgClosure *cl)
{
    const DbgInfo *in = cl->info;
    TuiNode *k;
    if (in->prov_source != DEBUG_PROV_NONE)
        k = tui_node_newf(TUI_NODE_TEXT,
                          "info 0x%" PRIx64 "  %s  ptrs %u nptrs %u  provenance: %s%s%s, %s:%s%s",
                          in->addr, dbg_closure_type_name(in->type), in->ptrs, in->nptrs,
                          in->label, in->label[0] ? " in " : "",
                          in->module[0] ? in->module : "<unknown module>", in->src_file,
                          in->src_span,
                          in->prov_source == DEBUG_PROV_DERIVED ? " (derived)" : "");
    else
        k = tui_node_newf(TUI_NODE_TEXT,
                          "info 0x%" PRIx64 "  %s  ptrs %u nptrs %u  provenance: unknown",
                          in->addr, dbg_closure_type_name(in->type), in->ptrs, in->nptrs);
    if (tui_node_add(n, k) != 0)
        return -1;
    if (cl->block != NULL)
        k = tui_node_newf(TUI_NODE_TEXT,
                          "era %" PRIu64 ", %" PRIu64 " bytes, in a %s block of generation %u%s",
                          cl->era, (uint64_t)cl->n_words * 8, dbg_block_kind_name(cl->block->kind),
                          cl->block->gen,
                          h->reach == NULL ? ""
                          : dbg_reach_has(h->reach, cl->addr) ? ", live" : ", not reachable");
    else
        k = tui_node_newf(TUI_NODE_TEXT, "static closure, %" PRIu64 " bytes",
                          (uint64_t)cl->n_words * 8);
    if (k != NULL) {
        k->has_era = true;
        k->era = cl->era;
    }
    return tui_node_add(n, k);
}

/* The pointer fields as closures (NULL ones too, where the layout says
 * which words are pointers), other payload words as numbers. */
static int add_fields(TuiHeap *h, TuiNode *n, const DbgClosure *cl)
{
    uint32_t t = cl->info->type;
    uint64_t first = 0, nptr = 0, nword = 0;
    bool layout = true;
    if (t >= CONSTR && t <= FUN_STATIC)
        first = 1;
    else if (t >= THUNK && t <= THUNK_STATIC)
        first = 2;   /* after the thunk's two header words */
    else
        layout = false;
    if (layout) {
        nptr = cl->info->ptrs;
        nword = cl->info->nptrs;
        if (first + nptr > cl->n_words)
            nptr = cl->n_words > first ? cl->n_words - first : 0;
        if (first + nptr + nword > cl->n_words)
            nword = cl->n_words - first - nptr;
        for (uint64_t i = 0; i < nptr; i++) {
            uint64_t v = cl->words[first + i];
            char prefix[32];
            snprintf(prefix, sizeof prefix, "ptr %" PRIu64 ": ", i);
            TuiNode *k = v == 0 ? tui_node_newf(TUI_NODE_TEXT, "%sNULL", prefix)
                                : closure_node(h, TUI_NODE_CLOSURE, prefix, v);
            if (tui_node_add(n, k) != 0)
                return -1;
        }
        for (uint64_t i = 0; i < nword; i++) {
            uint64_t w = cl->words[first + nptr + i];
            if (tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "word %" PRIu64 ": 0x%" PRIx64
                                              " (%" PRIu64 ")", first + nptr + i, w, w)) != 0)
                return -1;
        }
    } else {
        /* Arrays, stacks, indirections...: the non-NULL pointers. */
        size_t np = dbg_closure_ptrs(h->c, cl, NULL, 0);
        size_t shown = np < MAX_FIELDS ? np : MAX_FIELDS;
        uint64_t *ptrs = malloc((shown ? shown : 1) * sizeof *ptrs);
        if (ptrs == NULL)
            return -1;
        dbg_closure_ptrs(h->c, cl, ptrs, shown);
        for (size_t i = 0; i < shown; i++) {
            char prefix[32];
            snprintf(prefix, sizeof prefix, "ptr %zu: ", i);
            if (tui_node_add(n, closure_node(h, TUI_NODE_CLOSURE, prefix, ptrs[i])) != 0) {
                free(ptrs);
                return -1;
            }
        }
        free(ptrs);
        if (np > shown &&
            tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "... %zu more pointer fields not "
                                          "shown", np - shown)) != 0)
            return -1;
        nptr = np;
    }
    if (nptr == 0 && nword == 0 &&
        tui_node_add(n, tui_node_new(TUI_NODE_TEXT, "(no fields)")) != 0)
        return -1;
    return 0;
}

static int load_closure(TuiHeap *h, TuiNode *n, bool details, bool fields)
{
    DbgClosure cl;
    if (dbg_closure(h->c, n->addr, &cl) != 0)
        return tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "<%s>", dbg_error(h->c))), -1;
    if (details && add_details(h, n, &cl) != 0)
        return -1;
    return fields ? add_fields(h, n, &cl) : 0;
}

/* A search result: its details, then its retainer path, the root last. */
static int load_result(TuiHeap *h, TuiNode *n)
{
    DbgClosure cl;
    if (dbg_closure(h->c, n->addr, &cl) != 0)
        return tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "<%s>", dbg_error(h->c))), -1;
    if (add_details(h, n, &cl) != 0)
        return -1;
    TuiNode *f = tui_node_newf(TUI_NODE_FIELDS, "fields");
    if (f != NULL) {
        f->addr = n->addr;
        f->expandable = true;
    }
    if (tui_node_add(n, f) != 0 || ensure_reach(h) != 0)
        return -1;
    DbgPath p;
    if (dbg_retainer_path(h->c, h->reach, n->addr, &p) != 0)
        return tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "<%s>", dbg_error(h->c))), -1;
    int st = tui_node_add(n, tui_node_newf(TUI_NODE_TEXT,
                                           "retainer path: %zu object%s to the root "
                                           "(one shortest path)",
                                           p.n - 1, p.n == 2 ? "" : "s"));
    /* Steps 1 .. p.n-1; a long path keeps its two ends in view. */
    size_t gap_from = p.n, gap_to = p.n;
    if (p.n - 1 > 2 * PATH_END_STEPS) {
        gap_from = 1 + PATH_END_STEPS;
        gap_to = p.n - PATH_END_STEPS;
    }
    for (size_t i = 1; i < p.n && st == 0; i++) {
        if (i == gap_from) {
            TuiNode *g = tui_node_newf(TUI_NODE_PATH_GAP, "... %zu more objects on the path "
                                       "(Enter shows them)", gap_to - gap_from);
            if (g != NULL) {
                g->addr = n->addr;
                g->aux = gap_from;
                g->expandable = true;
            }
            st = tui_node_add(n, g);
            i = gap_to - 1;
            continue;
        }
        st = tui_node_add(n, closure_node(h, TUI_NODE_CLOSURE, "<- ", p.addrs[i]));
    }
    const DbgRoot *roots;
    size_t nr;
    if (st == 0 && dbg_roots(h->c, &roots, &nr) == 0 && p.root < nr) {
        char where[512];
        root_where(&roots[p.root], where, sizeof where);
        st = tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "root: %s", where));
    }
    dbg_path_free(&p);
    return st;
}

/* The hidden middle of a long path (the same path: one pause, one
 * traversal). */
static int load_gap(TuiHeap *h, TuiNode *g)
{
    DbgPath p;
    if (ensure_reach(h) != 0 || dbg_retainer_path(h->c, h->reach, g->addr, &p) != 0)
        return tui_node_add(g, tui_node_newf(TUI_NODE_TEXT, "<%s>", dbg_error(h->c))), -1;
    int st = 0;
    for (size_t i = (size_t)g->aux; i + PATH_END_STEPS < p.n && st == 0; i++)
        st = tui_node_add(g, closure_node(h, TUI_NODE_CLOSURE, "<- ", p.addrs[i]));
    dbg_path_free(&p);
    return st;
}

typedef struct {
    TuiHeap *h;
    TuiNode *n;
    size_t shown, live;
    int st;
} PinnedWalk;

static bool pinned_object(DbgClient *c, const DbgClosure *cl, void *env)
{
    (void)c;
    PinnedWalk *w = env;
    if (!dbg_reach_has(w->h->reach, cl->addr))
        return true;
    w->live++;
    if (w->shown < MAX_PINNED_OBJECTS) {
        w->shown++;
        w->st = tui_node_add(w->n, closure_node(w->h, TUI_NODE_RESULT, "", cl->addr));
    }
    return w->st == 0;
}

static int load_pinned(TuiHeap *h, TuiNode *n)
{
    if (ensure_reach(h) != 0)
        return -1;
    const DbgBlock *b = dbg_block_of(h->c, n->addr);
    if (b == NULL)
        return tui_node_add(n, tui_node_new(TUI_NODE_TEXT, "<block not found>")), -1;
    PinnedWalk w = {h, n, 0, 0, 0};
    if (dbg_block_objects(h->c, b, pinned_object, &w) != 0 || w.st != 0)
        return tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "<%s>", dbg_error(h->c))), -1;
    if (w.live > w.shown)
        return tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "... %zu more live objects",
                                             w.live - w.shown));
    if (w.live == 0)
        return tui_node_add(n, tui_node_new(TUI_NODE_TEXT, "(no live objects)"));
    return 0;
}

static int load_node(TuiNode *n, void *env)
{
    TuiHeap *h = env;
    switch (n->kind) {
    case TUI_NODE_SECTION: return load_section(h, n);
    case TUI_NODE_FRAME: return load_frame(h, n);
    case TUI_NODE_CLOSURE: return load_closure(h, n, true, true);
    case TUI_NODE_FIELDS: return load_closure(h, n, false, true);
    case TUI_NODE_RESULT: return load_result(h, n);
    case TUI_NODE_PINNED: return load_pinned(h, n);
    case TUI_NODE_PATH_GAP: return load_gap(h, n);
    default: return 0;
    }
}

/* ----------------------------------------------------------------------
 * Search
 * ---------------------------------------------------------------------- */

int tui_heap_search(TuiHeap *h, const char *text)
{
    TuiQuery q;
    char err[256];
    if (!tui_query_parse(text, &q, err, sizeof err))
        return set_status(h, true, "search: %s", err);
    snprintf(h->query_text, sizeof h->query_text, "%s", text);
    if (ensure_reach(h) != 0)
        return -1;
    TuiTree *t = &h->views[TUI_VIEW_SEARCH];
    tui_tree_clear(t);
    h->built[TUI_VIEW_SEARCH] = true;
    double t0 = now_s();
    size_t n_objs, matches = 0, shown = 0;
    const uint64_t *objs = dbg_reach_objects(h->reach, &n_objs);
    TuiNode *title = tui_node_new(TUI_NODE_TEXT, "");
    if (tui_node_add(t->root, title) != 0)
        return set_status(h, true, "out of memory");
    for (size_t i = 0; i < n_objs; i++) {
        DbgClosure cl;
        if (dbg_closure(h->c, objs[i], &cl) != 0)
            return set_status(h, true, "search: %s", dbg_error(h->c));
        if (!tui_query_matches(&q, &cl))
            continue;
        matches++;
        if (shown < q.limit) {
            shown++;
            if (tui_node_add(t->root, closure_node(h, TUI_NODE_RESULT, "", objs[i])) != 0)
                return set_status(h, true, "out of memory");
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
    return set_status(h, false, "%zu match%s in %.3f s (traversal %.3f s)", matches,
                      matches == 1 ? "" : "es", now_s() - t0, h->reach_seconds);
}

/* ----------------------------------------------------------------------
 * Census and fragmentation
 * ---------------------------------------------------------------------- */

static int build_census(TuiHeap *h)
{
    if (ensure_reach(h) != 0)
        return -1;
    TuiTree *t = &h->views[TUI_VIEW_CENSUS];
    tui_tree_clear(t);
    DbgCensus cs;
    if (dbg_census(h->c, h->reach, h->census_by, NULL, &cs) != 0)
        return set_status(h, true, "census: %s", dbg_error(h->c));
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
        return set_status(h, true, "out of memory");
    h->built[TUI_VIEW_CENSUS] = true;
    return tui_tree_layout(t);
}

static int build_frag(TuiHeap *h)
{
    if (ensure_reach(h) != 0)
        return -1;
    TuiTree *t = &h->views[TUI_VIEW_FRAG];
    tui_tree_clear(t);
    DbgFrag f;
    if (dbg_fragmentation(h->c, h->reach, &f) != 0)
        return set_status(h, true, "fragmentation: %s", dbg_error(h->c));
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
        return set_status(h, true, "out of memory");
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
    return 0;
}

int tui_heap_next_census_by(TuiHeap *h)
{
    h->census_by = h->census_by == DBG_BY_MODULE ? DBG_BY_TYPE : h->census_by + 1;
    h->built[TUI_VIEW_CENSUS] = false;
    return build_census(h);
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
        if (tui_tree_init(&h->views[v], load_node, h) != 0) {
            for (int k = 0; k < v; k++)
                tui_tree_free(&h->views[k]);
            return set_status(h, true, "out of memory");
        }
    tui_node_add(h->views[TUI_VIEW_SEARCH].root,
                 tui_node_new(TUI_NODE_TEXT, "no search yet: press / and give a constructor "
                                             "name, type:T, info:0xADDR, era:LO-HI"));
    tui_tree_layout(&h->views[TUI_VIEW_SEARCH]);
    h->built[TUI_VIEW_ROOTS] = true;
    return build_roots(h);
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
        return set_status(h, true, "snapshot: no file name given");
    if (ensure_reach(h) != 0)
        return -1;
    if (dbg_write_snapshot(h->c, h->reach, file) != 0)
        return set_status(h, true, "snapshot: %s", dbg_error(h->c));
    struct stat st;
    long long size = stat(file, &st) == 0 ? (long long)st.st_size : -1;
    return set_status(h, false, "snapshot written to %s (%lld bytes)", file, size);
}

int tui_heap_refresh(TuiHeap *h)
{
    if (dbg_is_snapshot(h->c))
        return set_status(h, true, "refresh: a snapshot does not change (attach to a live "
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
        return set_status(h, true, "resume: %s", dbg_error(h->c));
    h->running = true;
    if (dbg_pause(h->c, h->timeout_ms, &latency) != 0)
        return set_status(h, true, "pause: %s (the program is running; r tries again, q quits)",
                          dbg_error(h->c));
    h->running = false;
    h->built[TUI_VIEW_ROOTS] = true;
    if (build_roots(h) != 0)
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
    return set_status(h, false, "paused again at era %" PRIu64 " (pause took %.3f ms)",
                      dbg_target(h->c)->era, latency / 1e6);
}
