/*
 * utils/debug-client/Analysis.c -- census, thunks, duplicates,
 * fragmentation and GML over the reachable heap, and the weak pointers of
 * the whole heap (Analysis.h).
 * The census follows the profiler's rules (docs/design/profiling.md):
 * -hT/-hi/-he/-hm labels, era 0 not counted by era unless selected, and a
 * pinned block counted whole while any object in it is live.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "Analysis.h"
#include "BlockIndex.h"
#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "EraRange.h"
#include "GhcLayout.h"
#include "GrowArray.h"
#include "Marks.h"
#include "strata/Block.h"
#include "strata/ClosureTypes.h"
#include "strata/Debug.h"

/* ----------------------------------------------------------------------
 * Buckets
 * ---------------------------------------------------------------------- */

typedef struct {
    DbgCensus *out;
    WordMap by_label;            /* label hash -> bucket index + 1 */
    size_t cap;
} Buckets;

uint64_t dbg_label_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h | 1;
}

/* Adds to label's bucket, made if need be; *index (if not NULL) gets its
 * index in b->out->buckets. */
static int bucket_add_at(DbgClient *c, Buckets *b, const char *label, uint64_t bytes,
                         uint64_t objects, size_t *index)
{
    uint64_t h = dbg_label_hash(label);
    for (;; h += 2) {   /* probe on hash collisions */
        uint64_t *v = word_map_get(&b->by_label, h);
        if (v == NULL)
            break;
        DbgBucket *k = &b->out->buckets[*v - 1];
        if (strcmp(k->label, label) == 0) {
            k->bytes += bytes;
            k->objects += objects;
            if (index != NULL)
                *index = (size_t)(*v - 1);
            goto total;
        }
    }
    if (GROW_ARRAY_RESERVE_MIN(b->out->buckets, b->cap, b->out->n + 1, 64) != 0)
        return dbg_fail(c, "out of memory for census buckets");
    char *copy = strdup(label);
    if (copy == NULL || word_map_put(&b->by_label, h, b->out->n + 1) != 0) {
        free(copy);
        return dbg_fail(c, "out of memory for census buckets");
    }
    if (index != NULL)
        *index = b->out->n;
    b->out->buckets[b->out->n++] = (DbgBucket){copy, bytes, objects, 0};
total:
    b->out->total_bytes += bytes;
    b->out->total_objects += objects;
    return 0;
}

static int bucket_add(DbgClient *c, Buckets *b, const char *label, uint64_t bytes,
                      uint64_t objects)
{
    return bucket_add_at(c, b, label, bytes, objects, NULL);
}

static bool all_digits(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* Largest first; equal sizes by label, where labels that are numbers (the
 * eras of --by era) go in numeric order: 2 before 10, not after it.  Eras
 * are printed without leading zeros, so the shorter number is the smaller
 * one, and equal lengths compare as text. */
static int bucket_cmp(const void *a, const void *b)
{
    const DbgBucket *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (all_digits(x->label) && all_digits(y->label)) {
        size_t lx = strlen(x->label), ly = strlen(y->label);
        if (lx != ly)
            return lx < ly ? -1 : 1;
    }
    return strcmp(x->label, y->label);
}

static void buckets_finish(Buckets *b)
{
    word_map_free(&b->by_label);
    if (b->out->n > 1)
        qsort(b->out->buckets, b->out->n, sizeof *b->out->buckets, bucket_cmp);
}

void dbg_census_free(DbgCensus *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->buckets[i].label);
    free(c->buckets);
    memset(c, 0, sizeof *c);
}

/* ----------------------------------------------------------------------
 * Census
 * ---------------------------------------------------------------------- */

/* A closure's census label is a function of its info table (by type,
 * info or module) or of its era (by era), so the walk maps that key to
 * the bucket once and then adds to it without making the label, hashing
 * it or comparing strings: most of a census's time before. */
typedef struct {
    Buckets *b;
    DbgCensusBy by;
    const DbgEraRange *eras;
    WordMap by_key;              /* info table address, or era + 1 -> bucket + 1 */
    uint8_t *pinned_done;        /* [n_blocks] pinned blocks counted whole */
    uint64_t last_key, last_bucket;   /* the previous object's: neighbours often share it */
} CensusWalk;

const char *dbg_census_label(const DbgClosure *cl, DbgCensusBy by, char *buf, size_t len)
{
    switch (by) {
    case DBG_BY_TYPE:
        return dbg_type_label(cl->info);
    case DBG_BY_INFO:
        snprintf(buf, len, "0x%" PRIx64, cl->info->addr);
        return buf;
    case DBG_BY_ERA:
        snprintf(buf, len, "%" PRIu64, cl->era);
        return buf;
    case DBG_BY_MODULE:
        return cl->info->module[0] ? cl->info->module : "<unknown>";
    }
    return "<unknown>";
}

static int census_count(DbgClient *c, CensusWalk *w, const DbgClosure *cl)
{
    uint64_t key = w->by == DBG_BY_ERA ? cl->era + 1 : cl->info->addr;
    uint64_t bytes = (uint64_t)cl->n_words * 8;
    const uint64_t *v = key == 0 ? NULL
                      : key == w->last_key ? &w->last_bucket : word_map_get(&w->by_key, key);
    if (v != NULL) {
        w->last_key = key;
        w->last_bucket = *v;
        DbgBucket *k = &w->b->out->buckets[*v - 1];
        k->bytes += bytes;
        k->objects++;
        w->b->out->total_bytes += bytes;
        w->b->out->total_objects++;
        return 0;
    }
    char buf[32];
    size_t index;
    if (bucket_add_at(c, w->b, dbg_census_label(cl, w->by, buf, sizeof buf), bytes, 1,
                      &index) != 0)
        return -1;
    if (key != 0 && word_map_put(&w->by_key, key, index + 1) != 0)
        return dbg_fail(c, "out of memory for census buckets");
    return 0;
}

bool dbg_census_counts(const DbgClosure *cl, DbgCensusBy by, const DbgEraRange *eras)
{
    if (cl->block == NULL)
        return false;   /* static: not in the heap */
    return eras != NULL && eras->on ? dbg_era_selected(eras, cl->era)
                                    : (by != DBG_BY_ERA || cl->era != 0);
}

static bool census_pinned_object(DbgClient *c, const DbgClosure *cl, void *env)
{
    return census_count(c, env, cl) == 0;
}

static int census_object(DbgClient *c, const DbgClosure *cl, void *env)
{
    CensusWalk *w = env;
    if (!dbg_census_counts(cl, w->by, w->eras))
        return 0;
    if (cl->block->kind == DEBUG_BLOCK_PINNED) {
        size_t bi = (size_t)(cl->block - c->blocks);
        if (!w->pinned_done[bi]) {
            w->pinned_done[bi] = 1;
            if (dbg_block_objects(c, cl->block, census_pinned_object, w) != 0)
                return -1;
        }
        return 0;
    }
    return census_count(c, w, cl);
}

int dbg_census(DbgClient *c, const DbgReach *r, DbgCensusBy by, const DbgEraRange *eras,
               DbgCensus *out)
{
    memset(out, 0, sizeof *out);
    Buckets b = {out, {0}, 0};
    CensusWalk w = {&b, by, eras, {0}, calloc(c->n_blocks ? c->n_blocks : 1, 1), 0, 0};
    if (w.pinned_done == NULL)
        return dbg_fail(c, "out of memory");
    /* Address order: the sums do not depend on it, and the block copies
     * are then read front to back. */
    int st = dbg_reach_for_each_heap(c, r, census_object, &w) != 0 ? -1 : 0;
    free(w.pinned_done);
    word_map_free(&w.by_key);
    buckets_finish(&b);
    if (st != 0)
        dbg_census_free(out);
    return st;
}

/* ----------------------------------------------------------------------
 * Thunks and duplicates
 * ---------------------------------------------------------------------- */

/* A table without a name (a GHC library's, compiled without
 * -finfo-table-map) is named by its closure type. */
static void info_label(const DbgInfo *in, char *buf, size_t len)
{
    char site[600];
    const char *name = in->name[0] ? in->name : dbg_closure_type_name(in->type);
    if (in->prov_source != DEBUG_PROV_NONE)
        snprintf(buf, len, "%s 0x%" PRIx64 " (%s%s)", name, in->addr,
                 in->module[0] ? in->module : "<unknown>", dbg_info_site(in, site, sizeof site));
    else
        snprintf(buf, len, "%s 0x%" PRIx64, name, in->addr);
}

/* Adds one closure that a census counts to its buckets (or leaves it
 * out); 0, or an error status that stops the census. */
typedef int (*CensusAdd)(DbgClient *c, Buckets *b, const DbgClosure *cl, void *env);

/* A census of the reachable closures of r whose type wanted accepts, each
 * offered to add(..., env); out is empty on failure. */
static int census_reachable(DbgClient *c, const DbgReach *r, bool (*wanted)(uint32_t type),
                            CensusAdd add, void *env, DbgCensus *out)
{
    memset(out, 0, sizeof *out);
    Buckets b = {out, {0}, 0};
    size_t n;
    const uint64_t *objs = dbg_reach_objects(r, &n);
    int st = 0;
    for (size_t i = 0; i < n && st == 0; i++) {
        DbgClosure cl;
        if ((st = dbg_closure(c, objs[i], &cl)) != 0)
            break;
        if (cl.block != NULL && wanted(cl.info->type))
            st = add(c, &b, &cl, env);
    }
    buckets_finish(&b);
    if (st != 0)
        dbg_census_free(out);
    return st;
}

/* Counts cl's bytes under its info table's label. */
static int add_by_info(DbgClient *c, Buckets *b, const DbgClosure *cl, void *env)
{
    (void)env;
    char label[1024];
    info_label(cl->info, label, sizeof label);
    return bucket_add(c, b, label, (uint64_t)cl->n_words * 8, 1);
}

int dbg_thunks(DbgClient *c, const DbgReach *r, DbgCensus *out)
{
    return census_reachable(c, r, dbg_type_is_thunk, add_by_info, NULL, out);
}

static uint64_t hash_words(const uint64_t *w, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++) {
        h ^= w[i];
        h *= 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h | 1;
}

/* Counts cl (by add_by_info) if an earlier constructor had the same
 * contents; first maps a content hash to the first object with it. */
static int add_if_duplicate(DbgClient *c, Buckets *b, const DbgClosure *cl, void *first)
{
    uint64_t h = hash_words(cl->words, cl->n_words);
    uint64_t *v = word_map_get(first, h);
    if (v == NULL)
        return word_map_put(first, h, cl->addr) != 0 ? dbg_fail(c, "out of memory") : 0;
    DbgClosure orig;
    int st = dbg_closure(c, *v, &orig);
    if (st != 0)
        return st;
    /* Equal hashes of unequal contents are not counted. */
    if (orig.n_words != cl->n_words ||
        memcmp(orig.words, cl->words, (size_t)cl->n_words * 8) != 0)
        return 0;
    return add_by_info(c, b, cl, NULL);
}

int dbg_duplicates(DbgClient *c, const DbgReach *r, DbgCensus *out)
{
    WordMap first = {0};   /* content hash -> first object with it */
    int st = census_reachable(c, r, dbg_type_is_constr, add_if_duplicate, &first, out);
    word_map_free(&first);
    return st;
}

/* ----------------------------------------------------------------------
 * Fragmentation
 * ---------------------------------------------------------------------- */

static int pinned_cmp(const void *a, const void *b)
{
    const DbgPinnedBlock *x = a, *y = b;
    /* utilisation ascending: live/size, compared without division */
    uint64_t lx = x->live_bytes * y->n_blocks, ly = y->live_bytes * x->n_blocks;
    if (lx != ly)
        return lx < ly ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int seg_class_cmp(const void *a, const void *b)
{
    const DbgSegClass *x = a, *y = b;
    return x->slot_bytes < y->slot_bytes ? -1 : x->slot_bytes > y->slot_bytes;
}

/* The segments by size class, from the block entries and the live bytes
 * of each (live[i]): a segment is one entry per era run of its slots, and
 * its slots and blocks are counted at its first entry only. */
static int segment_classes(DbgClient *c, const DbgBlock *bs, size_t nb, const uint64_t *live,
                           const uint64_t *live_objects, DbgFrag *out)
{
    DbgSegClass by_class[256] = {{0}};
    for (size_t i = 0; i < nb; i++) {
        const DbgBlock *b = &bs[i];
        if (b->kind != DEBUG_BLOCK_SEGMENT) {
            if (b->flags & BF_NONMOVING && !(b->flags & (BF_LARGE | BF_PINNED)))
                out->n_unlisted_segment_blocks += b->n_blocks;
            continue;
        }
        DbgSegClass *k = &by_class[b->size_class];
        k->size_class = b->size_class;
        k->slot_bytes = (uint32_t)b->slot_words * 8;
        k->live_bytes += live[i];
        k->live_objects += live_objects[i];
        if (b->n_blocks == 0)
            continue;
        k->segments++;
        k->held_bytes += (uint64_t)b->n_blocks * dbg_target(c)->block_size;
        k->slots += b->n_slots;
        k->slots_used += b->n_used;
    }
    for (unsigned k = 0; k < 256; k++)
        out->n_classes += by_class[k].segments > 0;
    if (out->n_classes == 0)
        return 0;
    out->classes = calloc(out->n_classes, sizeof *out->classes);
    if (out->classes == NULL)
        return dbg_fail(c, "out of memory");
    size_t n = 0;
    for (unsigned k = 0; k < 256; k++)
        if (by_class[k].segments > 0)
            out->classes[n++] = by_class[k];
    qsort(out->classes, n, sizeof *out->classes, seg_class_cmp);
    return 0;
}

int dbg_fragmentation(DbgClient *c, const DbgReach *r, DbgFrag *out)
{
    memset(out, 0, sizeof *out);
    const DbgBlock *bs;
    size_t nb;
    if (dbg_blocks(c, &bs, &nb) != 0)
        return -1;
    out->n_mblocks = dbg_target(c)->n_mblocks;
    uint64_t mblock_mask = ~((uint64_t)dbg_target(c)->mblock_size - 1);
    uint64_t *live = calloc(2 * (nb ? nb : 1), sizeof *live);
    WordMap mbs = {0};
    if (live == NULL)
        return dbg_fail(c, "out of memory");
    uint64_t *live_objects = live + (nb ? nb : 1);
    size_t n;
    const uint64_t *objs = dbg_reach_objects(r, &n);
    for (size_t i = 0; i < n; i++) {
        DbgClosure cl;
        if (dbg_closure(c, objs[i], &cl) != 0) {
            free(live);
            return -1;
        }
        if (cl.block != NULL) {
            live[cl.block - c->blocks] += (uint64_t)cl.n_words * 8;
            live_objects[cl.block - c->blocks]++;
        }
    }
    if (segment_classes(c, bs, nb, live, live_objects, out) != 0) {
        free(live);
        return -1;
    }
    for (size_t i = 0; i < nb; i++) {
        out->n_blocks += bs[i].n_blocks;
        /* Megablocks a group touches (a group may span several).  A
         * segment's entry starts at its slots, after the header in its
         * first block. */
        uint64_t bytes = (uint64_t)bs[i].n_blocks * dbg_target(c)->block_size;
        uint64_t start = bs[i].start;
        if (bs[i].kind == DEBUG_BLOCK_SEGMENT)
            start &= ~((uint64_t)dbg_target(c)->block_size - 1);
        for (uint64_t a = start & mblock_mask; a < start + bytes;
             a += dbg_target(c)->mblock_size)
            word_map_put(&mbs, a | 1, 1);
        if (bs[i].kind == DEBUG_BLOCK_PINNED)
            out->n_pinned_blocks += bs[i].n_blocks;
    }
    out->n_mblocks_used = mbs.n;
    word_map_free(&mbs);
    out->pinned = calloc(out->n_pinned_blocks ? out->n_pinned_blocks : 1, sizeof *out->pinned);
    if (out->pinned == NULL) {
        free(live);
        dbg_frag_free(out);
        return dbg_fail(c, "out of memory");
    }
    for (size_t i = 0; i < nb; i++) {
        if (bs[i].kind != DEBUG_BLOCK_PINNED)
            continue;
        uint64_t size = (uint64_t)bs[i].n_blocks * dbg_target(c)->block_size;
        unsigned bucket = (unsigned)(live[i] * 10 / (size ? size : 1));
        out->histogram[bucket > 9 ? 9 : bucket]++;
        out->pinned[out->n_pinned++] = (DbgPinnedBlock){bs[i].start, bs[i].n_blocks, live[i]};
    }
    qsort(out->pinned, out->n_pinned, sizeof *out->pinned, pinned_cmp);
    free(live);
    return 0;
}

static double percent(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0;
}

bool dbg_segments_summary(const DbgFrag *f, char *buf, size_t len)
{
    uint64_t segs = 0, held = 0, live = 0;
    for (size_t i = 0; i < f->n_classes; i++) {
        segs += f->classes[i].segments;
        held += f->classes[i].held_bytes;
        live += f->classes[i].live_bytes;
    }
    snprintf(buf, len, "non-moving segments: %" PRIu64 ", %" PRIu64 " bytes held, %" PRIu64
             " bytes live (%.1f%%)", segs, held, live, percent(live, held));
    return f->n_classes > 0;
}

const char *dbg_seg_class_header(void)
{
    return "  slot bytes segments     slots      used      free    live objs   live bytes   "
           "held bytes  live%";
}

void dbg_seg_class_row(const DbgSegClass *k, char *buf, size_t len)
{
    snprintf(buf, len, "  %10u %8" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %12" PRIu64
             " %12" PRIu64 " %12" PRIu64 " %5.1f%%", k->slot_bytes, k->segments, k->slots,
             k->slots_used, k->slots - k->slots_used, k->live_objects, k->live_bytes,
             k->held_bytes, percent(k->live_bytes, k->held_bytes));
}

void dbg_frag_free(DbgFrag *f)
{
    free(f->pinned);
    free(f->classes);
    memset(f, 0, sizeof *f);
}

/* ----------------------------------------------------------------------
 * GML
 * ---------------------------------------------------------------------- */

static void gml_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++)
        if (*s == '"' || *s == '&')
            fprintf(f, "&#%d;", *s);
        else
            fputc(*s, f);
    fputc('"', f);
}

int dbg_write_gml(DbgClient *c, const DbgReach *r, FILE *f)
{
    size_t n;
    const uint64_t *objs = dbg_reach_objects(r, &n);
    WordMap ids = {0};
    fprintf(f, "graph [\n  directed 1\n");
    for (size_t i = 0; i < n; i++) {
        DbgClosure cl;
        if (dbg_closure(c, objs[i], &cl) != 0 || word_map_put(&ids, objs[i], i + 1) != 0) {
            word_map_free(&ids);
            return -1;
        }
        char label[256];
        snprintf(label, sizeof label, "%s 0x%" PRIx64, dbg_type_label(cl.info), cl.addr);
        fprintf(f, "  node [\n    id %zu\n    label ", i);
        gml_string(f, label);
        fprintf(f, "\n    era %" PRIu64 "\n    size %u\n  ]\n", cl.era, cl.n_words * 8);
    }
    uint64_t *ptrs = NULL;
    size_t cap = 0;
    for (size_t i = 0; i < n; i++) {
        DbgClosure cl;
        if (dbg_closure(c, objs[i], &cl) != 0)
            break;
        size_t np;
        if (dbg_closure_ptrs_grow(c, &cl, &ptrs, &cap, &np) != 0) {
            free(ptrs);
            word_map_free(&ids);
            return dbg_fail(c, "out of memory");
        }
        for (size_t k = 0; k < np; k++) {
            uint64_t *t = word_map_get(&ids, ptrs[k]);
            if (t != NULL)
                fprintf(f, "  edge [\n    source %zu\n    target %" PRIu64 "\n  ]\n", i,
                        *t - 1);
        }
    }
    free(ptrs);
    fprintf(f, "]\n");
    word_map_free(&ids);
    return ferror(f) ? dbg_fail(c, "writing the GML file failed") : 0;
}

/* ----------------------------------------------------------------------
 * Weak pointers
 * ---------------------------------------------------------------------- */

/* Note [Weak pointers in the debugger]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The collector keeps a weak alive while its key lives, through the
 * per-generation weak lists (Note [Weak pointers] in sm/Weak.c), not
 * through any pointer: a weak nothing refers to is still live.  The stub
 * does not send those lists, so the weaks are found by walking every
 * block for closures of type WEAK.  Reachability (Marks.c) gives a WEAK no
 * pointer fields (Decode.c), so "the key is marked" is exactly the
 * collector's test: reachable from the roots other than through weak
 * pointers' values.  A static key never dies (the collector's rule too).
 * A weak whose key is unmarked but whose info table is still WEAK has a
 * dead key that no collection has yet looked at (it died after the last
 * GC, or it sits in an old generation that only a major GC collects).
 * DEAD_WEAK (the same closure type, its own info table) is one a
 * collection found dead or strata_finalize_weak killed: key, value and
 * finalizer are cleared.  A block holds garbage between collections, so a
 * WEAK found there may itself be unreachable garbage; reachable says
 * whether a root holds it. */

static bool info_is_dead_weak(const DbgInfo *in)
{
    return strcmp(in->name, "DEAD_WEAK") == 0 || strcmp(in->table_name, "stg_DEAD_WEAK_info") == 0;
}

typedef struct {
    const DbgReach *r;
    DbgWeak *weaks;
    size_t n, cap;
    bool oom;
} WeakCollect;

static bool collect_weak(DbgClient *c, const DbgClosure *cl, void *env)
{
    WeakCollect *w = env;
    uint64_t h = c->target.header_words;   /* fields after a GHC -prof header too */
    if (cl->info->type != WEAK || cl->n_words < h + 3)
        return true;
    if (GROW_ARRAY_RESERVE(w->weaks, w->cap, w->n + 1) != 0) {
        w->oom = true;
        return false;
    }
    DbgWeak *o = &w->weaks[w->n++];
    memset(o, 0, sizeof *o);
    o->addr = cl->addr;
    o->dead = info_is_dead_weak(cl->info);
    o->reachable = dbg_reach_has(w->r, cl->addr);
    if (!o->dead && dbg_heap_is_ghc(c)) {
        ghc_weak_fields(c, cl, &o->key, &o->value, &o->has_finalizer);
        o->key_alive = o->key != 0 &&
                       (dbg_reach_has(w->r, o->key) || dbg_block_of(c, o->key) == NULL);
    } else if (!o->dead) {
        o->key = cl->words[1];
        o->value = cl->words[2];
        o->has_finalizer = cl->words[3] != 0;
        o->key_alive = o->key != 0 &&
                       (dbg_reach_has(w->r, o->key) || dbg_block_of(c, o->key) == NULL);
    }
    return true;
}

/* A GHC heap's blocks cannot be walked (slop follows an updated thunk),
 * but its stub lists every weak pointer among the roots, from the lists
 * the collector keeps them on. */
static int ghc_weaks(DbgClient *c, WeakCollect *w)
{
    const DbgRoot *roots;
    size_t nr;
    if (dbg_roots(c, &roots, &nr) != 0)
        return -1;
    for (size_t i = 0; i < nr && !w->oom; i++) {
        DbgClosure cl;
        if (roots[i].kind != DEBUG_ROOT_WEAK)
            continue;
        if (dbg_closure(c, roots[i].addr, &cl) != 0)
            return -1;
        collect_weak(c, &cl, w);
    }
    return 0;
}

int dbg_weaks(DbgClient *c, const DbgReach *r, DbgWeak **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    const DbgBlock *bs;
    size_t nb;
    if (dbg_blocks(c, &bs, &nb) != 0)
        return -1;
    WeakCollect w = {r, NULL, 0, 0, false};
    if (dbg_heap_is_ghc(c)) {
        if (ghc_weaks(c, &w) != 0 || w.oom) {
            free(w.weaks);
            return w.oom ? dbg_fail(c, "out of memory for weak pointers") : -1;
        }
        *out = w.weaks;
        *n = w.n;
        return 0;
    }
    for (size_t i = 0; i < nb; i++) {
        if (bs[i].used_bytes == 0)
            continue;
        if (dbg_block_objects(c, &bs[i], collect_weak, &w) != 0 || w.oom) {
            free(w.weaks);
            return w.oom ? dbg_fail(c, "out of memory for weak pointers") : -1;
        }
    }
    *out = w.weaks;
    *n = w.n;
    return 0;
}
