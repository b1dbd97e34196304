/*
 * utils/strata-debug/tui/TuiHeapNodes.c -- the rows of the heap's trees
 * and how they expand: the roots by kind, local-root frames and their
 * slots, closures (details and fields), search results (their retainer
 * paths, runs of one info table folded), the middle of long paths, pinned
 * blocks (their live objects).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TuiHeapNodes.h"
#include "strata/ClosureTypes.h"
#include "strata/Debug.h"

/* Expanding an array shows at most this many fields. */
#define MAX_FIELDS 500
/* A retainer path of more than twice this many steps (closures or runs)
 * shows its ends, with the middle behind a node that expands to it. */
#define PATH_END_STEPS 100
/* A pinned block's node shows at most this many live objects. */
#define MAX_PINNED_OBJECTS 50

/* ----------------------------------------------------------------------
 * Labels
 * ---------------------------------------------------------------------- */

/* "0x7f..  SessionEntry  CONSTR  era 2  32 B" (or an error), with the
 * node's era set for colouring. */
TuiNode *tui_heap_closure_node(TuiHeap *h, int kind, const char *prefix, uint64_t addr)
{
    DbgClosure cl;
    if (dbg_closure(h->c, addr, &cl) != 0)
        return tui_node_newf(TUI_NODE_TEXT, "%s0x%" PRIx64 "  <%s>", prefix, addr,
                             dbg_error(h->c));
    char where[1024], name[1000];
    if (cl.block != NULL) {
        snprintf(where, sizeof where, "era %" PRIu64, cl.era);
    } else {
        dbg_static_name(h->c, addr, name, sizeof name);
        snprintf(where, sizeof where, "static%s%s", name[0] ? " " : "", name);
    }
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
    {DEBUG_ROOT_WEAK, "Weak pointers (kept while their keys live)"},
};

int tui_heap_build_roots(TuiHeap *h)
{
    TuiTree *t = &h->views[TUI_VIEW_ROOTS];
    tui_tree_clear(t);
    const DbgRoot *roots;
    size_t n;
    if (dbg_roots(h->c, &roots, &n) != 0)
        return tui_heap_set_status(h, true, "roots: %s", dbg_error(h->c));
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
        if (sections[s].kind == DEBUG_ROOT_WEAK && count == 0)
            continue;   /* only a GHC program's stub lists them */
        TuiNode *sec = sections[s].kind == DEBUG_ROOT_FRAME
                           ? tui_node_newf(TUI_NODE_SECTION, "%s (%zu frames, %zu slots)",
                                           dbg_heap_is_ghc(h->c) ? "Stack frames"
                                                                 : sections[s].title,
                                           frames, count)
                           : tui_node_newf(TUI_NODE_SECTION, "%s (%zu)", sections[s].title,
                                           count);
        if (sec == NULL || tui_node_add(t->root, sec) != 0)
            return tui_heap_set_status(h, true, "out of memory");
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
            char site[768];
            dbg_root_frame_site(h->c, r, site, sizeof site);
            k = tui_node_newf(TUI_NODE_FRAME, "frame %u%s%s", r->index, site[0] ? ": " : "",
                              site);
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
            k = tui_heap_closure_node(h, TUI_NODE_CLOSURE, prefix, r->addr);
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
        if (tui_node_add(fr, tui_heap_closure_node(h, TUI_NODE_CLOSURE, prefix, roots[i].addr)) != 0)
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
    char site[600];
    if (in->prov_source != DEBUG_PROV_NONE)
        k = tui_node_newf(TUI_NODE_TEXT,
                          "info 0x%" PRIx64 "  %s  ptrs %u nptrs %u  provenance: %s%s%s%s%s",
                          in->addr, dbg_closure_type_name(in->type), in->ptrs, in->nptrs,
                          in->label, in->label[0] ? " in " : "",
                          in->module[0] ? in->module : "<unknown module>",
                          dbg_info_site(in, site, sizeof site),
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
    else {
        char name[1000];
        dbg_static_name(h->c, cl->addr, name, sizeof name);
        k = tui_node_newf(TUI_NODE_TEXT, "static closure%s%s, %" PRIu64 " bytes",
                          name[0] ? " " : "", name, (uint64_t)cl->n_words * 8);
    }
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
                                : tui_heap_closure_node(h, TUI_NODE_CLOSURE, prefix, v);
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
            if (tui_node_add(n, tui_heap_closure_node(h, TUI_NODE_CLOSURE, prefix, ptrs[i])) != 0) {
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

/* The path of a result folded into runs of one info table (steps 1 .. n-1;
 * see dbg_path_runs).  -1 with a message node added to n. */
static int result_runs(TuiHeap *h, TuiNode *n, uint64_t match, DbgPath *p, DbgPathRun **runs,
                       size_t *n_runs)
{
    if (tui_heap_ensure_reach(h) != 0 || dbg_retainer_path(h->c, h->reach, match, p) != 0)
        return tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "<%s>", dbg_error(h->c))), -1;
    if (dbg_path_runs(h->c, p, 1, runs, n_runs) != 0) {
        dbg_path_free(p);
        return tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "<%s>", dbg_error(h->c))), -1;
    }
    return 0;
}

/* Marks k if the closure at path step i (its first closure, for a run) is
 * of a later era than the one it holds (step i - 1): an era-boundary edge,
 * as `strata-debug boundary` counts them. */
static void mark_boundary(TuiHeap *h, TuiNode *k, const DbgPath *p, size_t i)
{
    DbgClosure holder, held;
    if (k == NULL || i == 0 || dbg_closure(h->c, p->addrs[i], &holder) != 0 ||
        dbg_closure(h->c, p->addrs[i - 1], &held) != 0 || holder.block == NULL ||
        held.block == NULL || holder.era <= held.era)
        return;
    char text[1200];
    snprintf(text, sizeof text, "%s  (holds era %" PRIu64 ": era boundary)", k->text, held.era);
    tui_node_set_text(k, text);
    k->boundary = true;
}

/* One step of a path: a closure, or a run of one info table as one node
 * "<- 439812 x SessionEntry (CONSTR, eras 3-21, gen 0-1)" that expands to
 * its closures (addr: the match; aux: the run's first step). */
static int add_path_step(TuiHeap *h, TuiNode *n, const DbgPath *p, uint64_t match,
                         const DbgPathRun *run)
{
    if (run->n == 1) {
        TuiNode *k = tui_heap_closure_node(h, TUI_NODE_CLOSURE, "<- ", run->first_addr);
        mark_boundary(h, k, p, run->first);
        return tui_node_add(n, k);
    }
    char eras[64], gens[64];
    if (run->era_lo == run->era_hi)
        snprintf(eras, sizeof eras, "era %" PRIu64, run->era_lo);
    else
        snprintf(eras, sizeof eras, "eras %" PRIu64 "-%" PRIu64, run->era_lo, run->era_hi);
    if (run->gen_lo == run->gen_hi)
        snprintf(gens, sizeof gens, "gen %u", run->gen_lo);
    else
        snprintf(gens, sizeof gens, "gen %u-%u", run->gen_lo, run->gen_hi);
    /* ASCII only: the terminal's locale may not be UTF-8. */
    TuiNode *k = tui_node_newf(TUI_NODE_PATH_RUN, "<- %zu x %s (%s, %s, %s)", run->n,
                               dbg_type_label(run->info), dbg_closure_type_name(run->info->type),
                               eras, gens);
    if (k != NULL) {
        k->addr = match;
        k->aux = run->first;
        k->expandable = true;
        k->has_era = true;
        k->era = run->era_lo;
    }
    mark_boundary(h, k, p, run->first);
    return tui_node_add(n, k);
}

/* A search result: its details, then its retainer path (runs of one info
 * table folded), the root last. */
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
    if (tui_node_add(n, f) != 0)
        return -1;
    DbgPath p;
    DbgPathRun *runs;
    size_t n_runs;
    if (result_runs(h, n, n->addr, &p, &runs, &n_runs) != 0)
        return -1;
    int st = tui_node_add(n, tui_node_newf(TUI_NODE_TEXT,
                                           "retainer path: %zu object%s to the root "
                                           "(one shortest path)",
                                           p.n - 1, p.n == 2 ? "" : "s"));
    /* A path of many steps keeps its two ends in view. */
    size_t gap_from = n_runs, gap_to = n_runs;
    if (n_runs > 2 * PATH_END_STEPS) {
        gap_from = PATH_END_STEPS;
        gap_to = n_runs - PATH_END_STEPS;
    }
    for (size_t i = 0; i < n_runs && st == 0; i++) {
        if (i == gap_from) {
            TuiNode *g = tui_node_newf(TUI_NODE_PATH_GAP, "... %zu more steps on the path "
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
        st = add_path_step(h, n, &p, n->addr, &runs[i]);
    }
    const DbgRoot *roots;
    size_t nr;
    if (st == 0 && dbg_roots(h->c, &roots, &nr) == 0 && p.root < nr) {
        char where[512];
        dbg_root_describe(h->c, &roots[p.root], where, sizeof where);
        st = tui_node_add(n, tui_node_newf(TUI_NODE_TEXT, "root: %s", where));
    }
    free(runs);
    dbg_path_free(&p);
    return st;
}

/* The hidden middle of a long path: its steps (the same path: one pause,
 * one traversal). */
static int load_gap(TuiHeap *h, TuiNode *g)
{
    DbgPath p;
    DbgPathRun *runs;
    size_t n_runs;
    if (result_runs(h, g, g->addr, &p, &runs, &n_runs) != 0)
        return -1;
    int st = 0;
    for (size_t i = (size_t)g->aux; i + PATH_END_STEPS < n_runs && st == 0; i++)
        st = add_path_step(h, g, &p, g->addr, &runs[i]);
    free(runs);
    dbg_path_free(&p);
    return st;
}

/* A run's closures, one node each. */
static int load_run(TuiHeap *h, TuiNode *k)
{
    DbgPath p;
    DbgPathRun *runs;
    size_t n_runs;
    if (result_runs(h, k, k->addr, &p, &runs, &n_runs) != 0)
        return -1;
    int st = 0;
    size_t i = 0;
    while (i < n_runs && runs[i].first != k->aux)
        i++;
    if (i == n_runs)
        st = tui_node_add(k, tui_node_new(TUI_NODE_TEXT, "<the path changed>"));
    for (size_t s = 0; i < n_runs && s < runs[i].n && st == 0; s++) {
        TuiNode *c = tui_heap_closure_node(h, TUI_NODE_CLOSURE, "<- ", p.addrs[runs[i].first + s]);
        mark_boundary(h, c, &p, runs[i].first + s);
        st = tui_node_add(k, c);
    }
    free(runs);
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
        w->st = tui_node_add(w->n, tui_heap_closure_node(w->h, TUI_NODE_RESULT, "", cl->addr));
    }
    return w->st == 0;
}

static int load_pinned(TuiHeap *h, TuiNode *n)
{
    if (tui_heap_ensure_reach(h) != 0)
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

int tui_heap_load_node(TuiNode *n, void *env)
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
    case TUI_NODE_PATH_RUN: return load_run(h, n);
    default: return 0;
    }
}

