/*
 * profiling/Census.c -- one heap census.
 *
 * After a major GC every live object sits densely in its generation's
 * blocks (small objects) or alone in a large group (large objects, stack
 * chunks), or in a pinned block, whose used words all count as live
 * because the block lives while any object in it does.  So a census is a
 * linear walk of those blocks -- no marking, no recursion -- and its total
 * is exactly the live bytes the collector reports (tested).
 *
 * Per object the work is one probe of a LiveTally (sm/LiveTally.h), the
 * same counter a major GC fills when it counts a census itself; the tally's
 * per-table totals then go into labelled buckets.  The era
 * breakdown reads no object at all: every object of a block, or of a run
 * of a block that holds several eras, has that block's or run's era
 * (Note [Eras live in block descriptors] in sm/heap/Era.c), so it adds
 * the words of each run to its era (take_block, count_era_segment).
 */
#include "Census.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ClosureSize.h"
#include "GrowArray.h"
#include "EraRuns.h"
#include "HeapIter.h"
#include "Messages.h"
#include "Provenance.h"
#include "Segment.h"
#include "Storage.h"
#include "WordMapOrPanic.h"

/* ----------------------------------------------------------------------
 * Buckets
 * ---------------------------------------------------------------------- */

void census_init(Census *c)
{
    memset(c, 0, sizeof *c);
}

void census_free(Census *c)
{
    for (size_t i = 0; i < c->n_buckets; i++)
        free(c->buckets[i].label);
    free(c->buckets);
    memset(c, 0, sizeof *c);
}

static size_t bucket_new(Census *c, const char *label, const StgInfoTable *info)
{
    if (GROW_ARRAY_RESERVE_MIN(c->buckets, c->cap_buckets, c->n_buckets + 1, 64) != 0)
        rts_panic("census: out of C heap (buckets=%zu)", c->n_buckets);
    char *copy = strdup(label);
    if (copy == NULL)
        rts_panic("census: out of C heap copying a label");
    c->buckets[c->n_buckets] = (CensusBucket){copy, 0, info};
    return c->n_buckets++;
}

/* ----------------------------------------------------------------------
 * Labels
 * ---------------------------------------------------------------------- */

static bool is_constr(StgHalfWord t)
{
    return t >= CONSTR && t <= CONSTR_NOCAF;
}

static const char *or_unknown(const char *s)
{
    return s != NULL && s[0] != '\0' ? s : "<unknown>";
}

/* The label of an info table under a breakdown (not for HEAP_BY_ERA).
 * -hd (for thunks and functions) and -hm read the table's resolved
 * provenance (explicit, else from the program's debug information:
 * Provenance.h), once per table per census; the resolver caches it. */
static const char *census_info_label(const StgInfoTable *info, HeapBreakdown by, char *buf,
                                     size_t buf_len)
{
    switch (by) {
    case HEAP_BY_CLOSURE_TYPE:
        /* GHC labels constructors by name, everything else by type. */
        return is_constr(info->type) ? or_unknown(info->name)
                                     : strata_closure_type_name(info->type);
    case HEAP_BY_INFO_TABLE:
        snprintf(buf, buf_len, "0x%lx", (unsigned long)(uintptr_t)info);
        return buf;
    case HEAP_BY_DESCR:
        /* GHC describes a thunk or function by its binding; ours is the
         * entry function (the resolved label). */
        if (info->prov != NULL && info->prov->closure_desc != NULL)
            return or_unknown(info->prov->closure_desc);
        if (is_constr(info->type))
            return or_unknown(info->name);
        if (info->entry != NULL && ipe_resolve(info)->label[0] != '\0')
            return ipe_resolve(info)->label;
        return strata_closure_type_name(info->type);
    case HEAP_BY_TYPE:
        /* Explicit only: C debug information has no Haskell type. */
        return or_unknown(info->prov != NULL ? info->prov->ty_desc : NULL);
    case HEAP_BY_MOD:
        return or_unknown(ipe_resolve(info)->module);
    default:
        rts_panic("census: no per-table label for breakdown %d", (int)by);
    }
}

/* ----------------------------------------------------------------------
 * The walk
 * ---------------------------------------------------------------------- */

typedef struct {
    Census *census;
    HeapBreakdown by;
    WordMap by_info;      /* info pointer (or era) -> bucket */
    WordMap by_label;     /* label hash -> bucket with that label */
    LiveTally tally;      /* per-object breakdowns: the walk's counts */
} Walk;

static uint64_t string_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The bucket for a label: buckets with equal labels are merged (-hd, -hy,
 * -hm put many tables in one bucket; -hT puts all thunks of a type in one). */
static size_t bucket_for_label(Walk *w, const char *label, const StgInfoTable *info)
{
    uint64_t h = string_hash(label);
    for (;;) {   /* linear probing over the hash itself on collision */
        bool found;
        uint64_t *slot = word_map_slot_or_panic(&w->by_label, h, &found);
        if (!found) {
            *slot = bucket_new(w->census, label, info);
            return *slot;
        }
        if (strcmp(w->census->buckets[*slot].label, label) == 0)
            return *slot;
        h++;
    }
}

static size_t bucket_for_info(Walk *w, const StgInfoTable *info)
{
    bool found;
    uint64_t *slot = word_map_slot_or_panic(&w->by_info, (uint64_t)(uintptr_t)info, &found);
    if (!found) {
        char buf[32];
        *slot = bucket_for_label(w, census_info_label(info, w->by, buf, sizeof buf), info);
    }
    return *slot;
}

/* -he: bytes of era era into its bucket. */
static void count_era_bytes(Walk *w, uint64_t era, uint64_t bytes)
{
    char label[24];
    bool found;
    uint64_t *slot = word_map_slot_or_panic(&w->by_info, era, &found);
    if (!found) {
        snprintf(label, sizeof label, "%lu", (unsigned long)era);
        *slot = bucket_new(w->census, label, NULL);
    }
    w->census->buckets[*slot].bytes += bytes;
    w->census->total_bytes += bytes;
}

/* -he sums a segment's words into its era's bucket: no object is read. */
static void count_era_segment(Walk *w, uint64_t era, StgPtr from, StgPtr to)
{
    count_era_bytes(w, era, (uint64_t)(to - from) * WORD_SIZE);
}

/* Adds a tally's per-table totals to the census's buckets; a tally by
 * era adds each era's bytes, and no objects, as the era walk does. */
static void add_tally(Walk *w, const LiveTally *t)
{
    Census *c = w->census;
    for (size_t i = 0; i < t->n_entries; i++) {
        const LiveTallyEntry *e = &t->entries[i];
        if (t->by_era) {
            count_era_bytes(w, e->era, e->bytes);
            continue;
        }
        size_t b = bucket_for_info(w, e->info);
        c->buckets[b].bytes += e->bytes;
        c->total_bytes += e->bytes;
        c->objects += e->objects;
    }
}

/* A selection never holds era 0 (-he<n> needs n >= 1). */
static bool era_counted(uint64_t era, HeapBreakdown by, EraRange eras)
{
    if (!era_range_has(eras, era))
        return false;
    return by != HEAP_BY_ERA || era != 0;   /* era 0: "not counted" by -he */
}

typedef struct {
    Walk *walk;
    EraRange eras;
} TakeCtx;

/* Every era segment with objects whose era is counted (a block of one era
 * is one segment; Note [Blocks of several eras] in sm/block/EraRuns.h); nursery
 * blocks hold the objects allocated since the GC (a census right after a
 * major GC finds none, one requested at exit may). */
/* The allocated slots of a segment of the non-moving generation, each
 * object by its slot's era (Note [The eras of a segment] in
 * sm/heap/Segment.c); a census finishes a running sweep first, so every
 * allocated slot holds a live object. */
static void take_segment(const Segment *seg, TakeCtx *t)
{
    Walk *w = t->walk;
    for (unsigned i = 0; i < seg->n_slots; i++) {
        if (seg->marks[i] == 0)
            continue;
        uint64_t era = segment_era_at(seg, i);
        if (!era_counted(era, w->by, t->eras))
            continue;
        StgPtr p = segment_slot(seg, i);
        StgWord size = closure_sizeW((StgClosure *)p);
        if (w->by == HEAP_BY_ERA)
            count_era_segment(w, era, p, p + size);
        else
            live_tally_add(&w->tally, ((StgClosure *)p)->info, size);
    }
}

static void take_block(BlockDesc *bd, HeapBlockKind kind, Generation *gen, void *ctx)
{
    (void)gen;
    TakeCtx *t = ctx;
    Walk *w = t->walk;
    if (kind == HEAP_BLOCK_SEGMENT) {
        take_segment((const Segment *)bd->start, t);
        return;
    }
    for (uint32_t i = 0; i <= bd->n_era_runs; i++) {
        StgPtr from, to;
        uint64_t era;
        block_era_segment(bd, i, &from, &to, &era);
        if (to <= from || !era_counted(era, w->by, t->eras))
            continue;
        if (w->by == HEAP_BY_ERA)
            count_era_segment(w, era, from, to);
        else
            live_tally_add_range(&w->tally, from, to);
    }
}

void census_take(Census *c, HeapBreakdown by, EraRange eras)
{
    Walk w = {.census = c, .by = by};
    live_tally_init(&w.tally, ERA_RANGE_ALL);   /* blocks are chosen here */
    TakeCtx t = {&w, eras};
    storage_finish_sweep();
    heap_for_each_block(take_block, &t);
    live_tally_flush(&w.tally);
    add_tally(&w, &w.tally);
    live_tally_free(&w.tally);
    word_map_free(&w.by_info);
    word_map_free(&w.by_label);
}

void census_from_tally(Census *c, HeapBreakdown by, const LiveTally *t)
{
    if ((by == HEAP_BY_ERA) != t->by_era)
        rts_panic("census: a tally by %s for breakdown %d", t->by_era ? "era" : "table",
                  (int)by);
    Walk w = {.census = c, .by = by};
    add_tally(&w, t);
    word_map_free(&w.by_info);
    word_map_free(&w.by_label);
}

/* The first label whose bytes differ between a and b, or NULL. */
const char *census_first_difference(const Census *a, const Census *b)
{
    if (a->total_bytes != b->total_bytes || a->objects != b->objects)
        return "(the totals)";
    for (size_t i = 0; i < a->n_buckets; i++) {
        uint64_t other = 0;
        for (size_t j = 0; j < b->n_buckets; j++)
            if (strcmp(a->buckets[i].label, b->buckets[j].label) == 0)
                other += b->buckets[j].bytes;
        if (other != a->buckets[i].bytes)
            return a->buckets[i].label;
    }
    return NULL;
}
