/*
 * utils/strata-debug/HeapCmds.c -- the commands about the heap's shape
 * and its edges: fragmentation (pinned blocks, with the retainers of
 * their live objects), weaks and roots.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "HeapCmds.h"
#include "DebugAnalysis.h"
#include "DebugClient.h"
#include "Json.h"
#include "Print.h"

typedef struct {
    uint64_t *out;
    size_t n, cap;
    const DbgReach *r;
} PickLive;

static bool pick_live(DbgClient *c, const DbgClosure *cl, void *env)
{
    (void)c;
    PickLive *p = env;
    if (dbg_reach_has(p->r, cl->addr) && p->n < p->cap)
        p->out[p->n++] = cl->addr;
    return false;   /* one object per block */
}

/* The non-moving generation's segments by size class (+RTS
 * --nonmoving-gc): what the slots hold against what is live in them. */
static void print_segment_classes(const DbgFrag *f)
{
    if (f->n_unlisted_segment_blocks > 0)
        printf("non-moving segments: %" PRIu64 " blocks, listed as small blocks by this "
               "program's older debug stub (no slots, no size classes)\n",
               f->n_unlisted_segment_blocks);
    char line[256];
    if (!dbg_segments_summary(f, line, sizeof line))
        return;
    printf("%s\n%s\n", line, dbg_seg_class_header());
    for (size_t i = 0; i < f->n_classes; i++) {
        dbg_seg_class_row(&f->classes[i], line, sizeof line);
        printf("%s\n", line);
    }
}

static void json_segment_classes(Json *j, const DbgFrag *f)
{
    json_u64(j, "segment_blocks_unlisted", f->n_unlisted_segment_blocks);
    json_open(j, "segments", '[');
    for (size_t i = 0; i < f->n_classes; i++) {
        const DbgSegClass *k = &f->classes[i];
        json_open(j, NULL, '{');
        json_u64(j, "size_class", k->size_class);
        json_u64(j, "slot_bytes", k->slot_bytes);
        json_u64(j, "segments", k->segments);
        json_u64(j, "slots", k->slots);
        json_u64(j, "slots_used", k->slots_used);
        json_u64(j, "slots_free", k->slots - k->slots_used);
        json_u64(j, "live_objects", k->live_objects);
        json_u64(j, "live_bytes", k->live_bytes);
        json_u64(j, "used_bytes", k->slots_used * k->slot_bytes);
        json_u64(j, "held_bytes", k->held_bytes);
        json_close(j, '}');
    }
    json_close(j, ']');
}

int cmd_fragmentation(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    (void)q;
    DbgFrag f;
    if (dbg_fragmentation(c, r, &f) != 0)
        return die("fragmentation: %s", dbg_error(c));
    Json j;
    if (o->json) {
        json_begin(&j, stdout, c, "fragmentation");
        json_u64(&j, "mblocks", f.n_mblocks);
        json_u64(&j, "mblocks_used", f.n_mblocks_used);
        json_u64(&j, "blocks", f.n_blocks);
        json_u64(&j, "pinned_blocks", f.n_pinned_blocks);
        json_open(&j, "histogram", '[');
        for (int i = 0; i < 10; i++)
            json_u64(&j, NULL, f.histogram[i]);
        json_close(&j, ']');
        json_segment_classes(&j, &f);
        json_open(&j, "retainers", '[');
    } else {
        printf("megablocks: %" PRIu64 " held by the block allocator, %" PRIu64
               " holding blocks in use\n", f.n_mblocks, f.n_mblocks_used);
        printf("blocks in use: %" PRIu64 "\n", f.n_blocks);
        printf("pinned blocks: %" PRIu64 "\n", f.n_pinned_blocks);
        printf("pinned-block utilisation (live bytes / block bytes):\n");
        for (int i = 0; i < 10; i++)
            printf("  %3d-%3d%%  %8" PRIu64 "\n", i * 10, i * 10 + 10, f.histogram[i]);
        print_segment_classes(&f);
    }
    if (o->retainers > 0) {
        uint64_t *objs = malloc((size_t)o->retainers * sizeof *objs);
        PickLive p = {objs, 0, (size_t)o->retainers, r};
        const DbgBlock *bs;
        size_t nb;
        dbg_blocks(c, &bs, &nb);
        for (size_t i = 0; i < f.n_pinned && objs != NULL && p.n < p.cap; i++) {
            if (f.pinned[i].live_bytes == 0)
                continue;
            const DbgBlock *b = dbg_block_of(c, f.pinned[i].start);
            /* The first live object of the block. */
            size_t before = p.n;
            for (uint64_t a = b->start; a < b->start + b->used_bytes && p.n == before;) {
                DbgClosure cl;
                if (((const uint64_t *)(const void *)b->data)[(a - b->start) / 8] == 0) {
                    a += 8;
                    continue;
                }
                if (dbg_closure(c, a, &cl) != 0)
                    break;
                pick_live(c, &cl, &p);
                a += (uint64_t)cl.n_words * 8;
            }
        }
        Style s = {o->color, o->full};
        for (size_t i = 0; i < p.n; i++) {
            const DbgBlock *b = dbg_block_of(c, objs[i]);
            size_t k = 0;
            while (k < f.n_pinned && f.pinned[k].start != b->start)
                k++;
            uint64_t live = k < f.n_pinned ? f.pinned[k].live_bytes : 0;
            uint64_t size = (uint64_t)b->n_blocks * dbg_target(c)->block_size;
            if (o->json) {
                json_open(&j, NULL, '{');
                json_addr(&j, "block", b->start);
                json_u64(&j, "live_bytes", live);
                json_u64(&j, "block_bytes", size);
                if (json_path(&j, c, r, objs[i], o->full) != 0)
                    json_str(&j, "error", dbg_error(c));
                json_close(&j, '}');
                continue;
            }
            printf("object %zu, in pinned block 0x%" PRIx64 " (%" PRIu64 " of %" PRIu64
                   " bytes live):\n", i + 1, b->start, live, size);
            print_path(c, r, &s, objs[i]);
        }
        free(objs);
    }
    if (o->json) {
        json_close(&j, ']');
        json_end(&j);
    }
    dbg_frag_free(&f);
    return 0;
}

/* ----- Weak pointers ----- */

/* "alive": the key is reachable; "key-dead": it is not, and no collection
 * has yet seen that; "dead": one has (or strata_finalize_weak). */
/* "alive": the key is reachable; "key-dead": it is not, and no collection
 * has yet seen that; "dead": one has (or strata_finalize_weak). */
static const char *weak_status(const DbgWeak *w)
{
    return w->dead ? "dead" : w->key_alive ? "alive" : "key-dead";
}

/* One weak as JSON (the schema's WEAK). */
static void json_weak(Json *j, DbgClient *c, const DbgWeak *w)
{
    json_open(j, NULL, '{');
    json_closure(j, c, "weak", w->addr);
    json_str(j, "status", weak_status(w));
    json_bool(j, "reachable", w->reachable);
    if (w->dead) {
        json_null(j, "key");
        json_null(j, "key_alive");
        json_null(j, "value");
    } else {
        json_addr(j, "key", w->key);
        json_bool(j, "key_alive", w->key_alive);
        json_closure(j, c, "value", w->value);
    }
    json_bool(j, "finalizer", w->has_finalizer);
    json_close(j, '}');
}

/* One weak as text: status, key, value and its label, finalizer, then the
 * weak's own era, block and provenance as print_closure_line gives them. */
static void print_weak(DbgClient *c, const Style *s, const DbgWeak *w, const char *indent)
{
    char prefix[512];
    if (w->dead) {
        snprintf(prefix, sizeof prefix, "%sdead      key -  value -  ", indent);
    } else {
        DbgClosure v;
        const char *label = dbg_closure(c, w->value, &v) == 0 ? dbg_type_label(v.info)
                                                               : "<undecodable>";
        snprintf(prefix, sizeof prefix,
                 "%s%-8s  key 0x%" PRIx64 "  value 0x%" PRIx64 " %s  %s  ", indent,
                 weak_status(w), w->key, w->value, label,
                 w->has_finalizer ? "finalizer" : "no finalizer");
    }
    print_closure_line(c, s, w->addr, prefix);
}

int cmd_weaks(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    (void)q;
    DbgWeak *ws;
    size_t n;
    if (dbg_weaks(c, r, &ws, &n) != 0)
        return die("weaks: %s", dbg_error(c));
    uint64_t alive = 0, key_dead = 0, dead = 0;
    for (size_t i = 0; i < n; i++) {
        if (ws[i].dead)
            dead++;
        else if (ws[i].key_alive)
            alive++;
        else
            key_dead++;
    }
    if (o->json) {
        Json j;
        json_begin(&j, stdout, c, "weaks");
        json_open(&j, "weaks", '[');
        for (size_t i = 0; i < n; i++)
            json_weak(&j, c, &ws[i]);
        json_close(&j, ']');
        json_u64(&j, "alive", alive);
        json_u64(&j, "key_dead", key_dead);
        json_u64(&j, "dead", dead);
        json_u64(&j, "total", n);
        json_end(&j);
        free(ws);
        return 0;
    }
    Style s = {o->color, o->full};
    for (size_t i = 0; i < n; i++)
        print_weak(c, &s, &ws[i], "");
    printf("%zu weak pointer%s: %" PRIu64 " alive, %" PRIu64 " with a dead key not yet "
           "collected, %" PRIu64 " dead\n", n, n == 1 ? "" : "s", alive, key_dead, dead);
    free(ws);
    return 0;
}

int cmd_roots(DbgClient *c, DbgReach *unused, const Opts *o, const DbgQuery *q)
{
    (void)unused;
    (void)q;
    const DbgRoot *roots;
    size_t n;
    if (dbg_roots(c, &roots, &n) != 0)
        return die("roots: %s", dbg_error(c));
    /* The weak pointers beside them: the collector keeps each while its
     * key lives, through its weak list rather than as a root. */
    DbgReach *r = dbg_reach_marks(c);
    DbgWeak *ws = NULL;
    size_t nw = 0;
    if (r == NULL || dbg_weaks(c, r, &ws, &nw) != 0) {
        dbg_reach_free(r);
        return die("roots: %s", dbg_error(c));
    }
    if (o->json) {
        Json j;
        json_begin(&j, stdout, c, "roots");
        json_open(&j, "roots", '[');
        for (size_t i = 0; i < n; i++) {
            json_open(&j, NULL, '{');
            json_root(&j, c, "root", &roots[i]);
            json_closure(&j, c, "closure", roots[i].addr);
            json_close(&j, '}');
        }
        json_close(&j, ']');
        json_open(&j, "weaks", '[');
        for (size_t i = 0; i < nw; i++)
            json_weak(&j, c, &ws[i]);
        json_close(&j, ']');
        json_end(&j);
    } else {
        Style s = {false, false};
        for (size_t i = 0; i < n; i++) {
            print_root(c, &roots[i]);
            print_closure_line(c, &s, roots[i].addr, "      ");
        }
        if (nw > 0)
            printf("    weak pointers (kept while their keys live; not roots):\n");
        for (size_t i = 0; i < nw; i++)
            print_weak(c, &s, &ws[i], "      ");
    }
    free(ws);
    dbg_reach_free(r);
    return 0;
}
