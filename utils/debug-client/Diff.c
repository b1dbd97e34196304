/*
 * utils/debug-client/Diff.c -- the diff of two heaps (DebugDiff.h): a
 * census of A kept as rows, then one of B merged into them, B's objects
 * split by A's era.  Each side is counted as the marks-only traversal
 * scans it (Note [Marking in two steps] in Marks.c); DiffNew.c's walk
 * gives the new objects' retained sizes and paths.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "DiffPrivate.h"
#include "GrowArray.h"
#include "ReachPrivate.h"

/* Note [What is new, by era]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every object's era is its block's (docs/design/eras.md), so the diff
 * needs no addresses, which a moving collector changes, nor a profiling
 * build: an object of B of an era after the one current when A was taken
 * (DbgTarget.era, recorded in A's VERSION record) was allocated after A.
 * The converse holds only if the era changed at A: objects allocated
 * after A in A's own era look old.  `snapshot --new-era` and `mark`
 * advance the era right after the pause for that reason (Note [A new era
 * on resume] in rts/debug/DebugServer.c).  Only A's per-label totals are
 * kept, so A's heap is freed before B's is read: the diff needs the
 * memory of one heap, not two.  Counts are of objects (a pinned block's
 * free space is not counted, unlike census). */

static void info_key(const DbgInfo *in, char *buf, size_t len)
{
    snprintf(buf, len, "%s\x1f%s\x1f%s\x1f%s\x1f%u", in->name, in->module, in->src_file,
             in->src_span, in->type);
}

/* The row of key (made if new), or NULL on no memory. */
static DbgDiffRow *row_for(DbgDiffRows *rs, const char *key)
{
    uint64_t h = dbg_label_hash(key) | 1;   /* 0 is the map's empty key */
    for (;; h += 2) {
        uint64_t *v = word_map_get(&rs->by_key, h);
        if (v == NULL)
            break;
        if (strcmp(rs->t->rows[*v - 1].key, key) == 0)
            return &rs->t->rows[*v - 1];
    }
    DbgDiffRow *rows = realloc(rs->t->rows, (rs->t->n + 1) * sizeof *rows);
    if (rows == NULL)
        return NULL;
    rs->t->rows = rows;
    DbgDiffRow *row = &rows[rs->t->n];
    *row = (DbgDiffRow){.key = strdup(key)};
    if (row->key == NULL || word_map_put(&rs->by_key, h, rs->t->n + 1) != 0) {
        free(row->key);
        return NULL;
    }
    rs->t->n++;
    return row;
}

/* The row of the object cl in the growth table (by `by`) or the info
 * table.  Objects of one label come in runs (a block holds one kind, a
 * breadth-first walk meets a list's cells in a row), so the last key's row
 * is tried before the maps. */
static DbgDiffRow *row_of(DbgClient *c, DbgDiffCount *k, bool growth, const DbgClosure *cl)
{
    uint64_t key = growth && k->d->by == DBG_BY_ERA ? cl->era + 1 : cl->info->addr;
    WordMap *m = growth ? &k->growth_of : &k->info_of;
    DbgDiffRows *rs = growth ? &k->growth : &k->infos;
    if (key == rs->last_key && rs->last_row != 0)
        return &rs->t->rows[rs->last_row - 1];
    uint64_t *v = word_map_get(m, key);
    if (v != NULL) {
        rs->last_key = key;
        rs->last_row = *v;
        return &rs->t->rows[*v - 1];
    }
    char buf[1024];
    const char *label = buf;
    if (growth && k->d->by != DBG_BY_INFO)
        label = dbg_census_label(cl, k->d->by, buf, sizeof buf);
    else
        info_key(cl->info, buf, sizeof buf);
    DbgDiffRow *row = row_for(rs, label);
    if (row == NULL || word_map_put(m, key, (size_t)(row - rs->t->rows) + 1) != 0) {
        dbg_fail(c, "out of memory for the diff's rows");
        return NULL;
    }
    /* Which of two info tables of one key a row shows depends on the order
     * of the count: see Note [One walk of B] in DiffNew.c. */
    if (k->is_b && row->info != NULL && row->info != cl->info &&
        (!growth || k->d->by == DBG_BY_INFO))
        k->order_matters = true;
    if (k->is_b || row->info == NULL)
        row->info = cl->info;
    rs->last_key = key;
    rs->last_row = (size_t)(row - rs->t->rows) + 1;
    return row;
}

DbgDiffRow *dbg_diff_info_row(DbgClient *c, DbgDiffCount *k, const DbgClosure *cl)
{
    return row_of(c, k, false, cl);
}

static void count_into(const DbgDiffCount *k, const DbgClosure *cl, DbgDiffRow *row,
                       uint64_t bytes, uint64_t objects)
{
    if (!k->is_b) {
        row->a_bytes += bytes;
        row->a_objects += objects;
        return;
    }
    row->b_bytes += bytes;
    row->b_objects += objects;
    if (cl->era > k->d->a_era) {
        row->new_bytes += bytes;
        row->new_objects += objects;
    } else {
        row->old_bytes += bytes;
        row->old_objects += objects;
    }
}

/* Counts objects of cl's info table and era, of bytes in all. */
static int count_n(DbgClient *c, DbgDiffCount *k, const DbgClosure *cl, uint64_t bytes,
                   uint64_t objects)
{
    DbgDiffRow *g = row_of(c, k, true, cl), *i = row_of(c, k, false, cl);
    if (g == NULL || i == NULL)
        return -1;
    count_into(k, cl, g, bytes, objects);
    count_into(k, cl, i, bytes, objects);
    if (!k->is_b) {
        k->d->a_total_bytes += bytes;
        k->d->a_total_objects += objects;
    } else {
        k->d->b_total_bytes += bytes;
        k->d->b_total_objects += objects;
        if (cl->era > k->d->a_era) {
            k->d->new_total_bytes += bytes;
            k->d->new_total_objects += objects;
        }
    }
    return 0;
}

int dbg_diff_count(DbgClient *c, DbgDiffCount *k, const DbgClosure *cl)
{
    return count_n(c, k, cl, (uint64_t)cl->n_words * 8, 1);
}

/* Note [Counting by cells]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * Every row an object counts in is a function of its info table and its
 * era, so the traversal's count adds each object to a cell of the two
 * (one comparison with the last object's cell, most of the time) and the
 * cells go into the rows afterwards, in the order they were made.  That
 * order meets each info table first where the objects' order did, so the
 * rows, and the info table a row keeps, are those of counting the objects
 * one by one. */
int dbg_diff_count_cell(DbgClient *c, DbgDiffCount *k, const DbgClosure *cl)
{
    DbgDiffCell *x = k->n_cells > 0 ? &k->cells[k->last_cell] : NULL;
    if (x == NULL || x->info != cl->info || x->era != cl->era) {
        uint64_t h = (cl->info->addr ^ (cl->era * 0x9e3779b97f4a7c15ull)) | 1;
        const uint64_t *v;
        for (; (v = word_map_get(&k->cell_of, h)) != NULL; h += 2)
            if (k->cells[*v - 1].info == cl->info && k->cells[*v - 1].era == cl->era)
                break;
        if (v == NULL) {
            if (GROW_ARRAY_RESERVE_MIN(k->cells, k->cap_cells, k->n_cells + 1, 64) != 0 ||
                word_map_put(&k->cell_of, h, k->n_cells + 1) != 0)
                return dbg_fail(c, "out of memory for the diff's rows");
            k->cells[k->n_cells++] = (DbgDiffCell){cl->info, cl->era, 0, 0};
            v = word_map_get(&k->cell_of, h);
        }
        k->last_cell = *v - 1;
        x = &k->cells[k->last_cell];
    }
    x->bytes += (uint64_t)cl->n_words * 8;
    x->objects++;
    return 0;
}

int dbg_diff_count_cells_flush(DbgClient *c, DbgDiffCount *k)
{
    for (size_t i = 0; i < k->n_cells; i++) {
        DbgClosure cl = {.info = k->cells[i].info, .era = k->cells[i].era};
        if (count_n(c, k, &cl, k->cells[i].bytes, k->cells[i].objects) != 0)
            return -1;
    }
    k->n_cells = 0;
    word_map_free(&k->cell_of);
    return 0;
}

static int count_in_cell(DbgClient *c, const DbgClosure *cl, void *env)
{
    return dbg_diff_count_cell(c, env, cl);
}

/* Indexes the rows a table already has by their keys: A's rows are found
 * again by key when B is counted. */
static int index_rows(DbgDiffRows *rs)
{
    for (size_t i = 0; i < rs->t->n; i++) {
        uint64_t h = dbg_label_hash(rs->t->rows[i].key) | 1;
        while (word_map_get(&rs->by_key, h) != NULL)
            h += 2;
        if (word_map_put(&rs->by_key, h, i + 1) != 0)
            return -1;
    }
    return 0;
}

int dbg_diff_count_start(DbgClient *c, DbgDiff *d, bool is_b, DbgDiffCount *k)
{
    *k = (DbgDiffCount){.d = d, .is_b = is_b, .growth = {.t = &d->growth},
                        .infos = {.t = &d->infos}};
    if (index_rows(&k->growth) != 0 || index_rows(&k->infos) != 0) {
        dbg_diff_count_end(k);
        return dbg_fail(c, "out of memory for the diff's rows");
    }
    return 0;
}

void dbg_diff_count_end(DbgDiffCount *k)
{
    word_map_free(&k->growth.by_key);
    word_map_free(&k->infos.by_key);
    word_map_free(&k->growth_of);
    word_map_free(&k->info_of);
    word_map_free(&k->cell_of);
    free(k->cells);
    k->cells = NULL;
    k->n_cells = k->cap_cells = 0;
}

void dbg_diff_count_reset(DbgDiffCount *k)
{
    DbgDiffTable *ts[2] = {&k->d->growth, &k->d->infos};
    for (size_t t = 0; t < 2; t++)
        for (size_t i = 0; i < ts[t]->n; i++) {
            DbgDiffRow *r = &ts[t]->rows[i];
            r->info = NULL;
            r->b_bytes = r->b_objects = r->new_bytes = r->new_objects = 0;
            r->old_bytes = r->old_objects = 0;
        }
    k->d->b_total_bytes = k->d->b_total_objects = 0;
    k->d->new_total_bytes = k->d->new_total_objects = 0;
    word_map_free(&k->growth_of);
    word_map_free(&k->info_of);
    k->growth.last_row = k->infos.last_row = 0;
    k->order_matters = false;
}

int dbg_diff_begin(DbgClient *a, DbgCensusBy by, DbgDiff *out)
{
    memset(out, 0, sizeof *out);
    out->by = by;
    out->a_era = dbg_target(a)->era;
    out->a_paused_at = dbg_target(a)->paused_at;
    DbgDiffCount k;
    if (dbg_diff_count_start(a, out, false, &k) != 0)
        return -1;
    /* A is counted as the traversal scans it (Note [Marking in two steps]
     * in Marks.c): A's rows do not keep an info table, so order is no
     * matter. */
    DbgReach *r = dbg_reach_marks_with(a, 0, count_in_cell, &k);
    int st = r != NULL ? dbg_diff_count_cells_flush(a, &k) : -1;
    dbg_diff_count_end(&k);
    dbg_reach_free(r);
    /* A's tables go with A's client: B's replace them where B has the row. */
    for (size_t i = 0; i < out->growth.n; i++)
        out->growth.rows[i].info = NULL;
    for (size_t i = 0; i < out->infos.n; i++)
        out->infos.rows[i].info = NULL;
    if (st != 0)
        dbg_diff_free(out);
    return st;
}

static int64_t gained(const DbgDiffRow *r)
{
    return (int64_t)r->b_bytes - (int64_t)r->a_bytes;
}

static int by_gain(const void *x, const void *y)
{
    const DbgDiffRow *a = x, *b = y;
    int64_t ga = gained(a), gb = gained(b);
    if (ga != gb)
        return ga > gb ? -1 : 1;
    return strcmp(a->key, b->key);
}

int dbg_diff_finish(DbgClient *b, DbgDiff *d)
{
    d->b_era = dbg_target(b)->era;
    d->b_paused_at = dbg_target(b)->paused_at;
    if (d->b_era < d->a_era)
        return dbg_fail(b, "B (era %" PRIu64 ") is older than A (era %" PRIu64
                        "): give the earlier snapshot first", d->b_era, d->a_era);
    /* B is counted as it is marked: see Note [One walk of B] in DiffNew.c. */
    DbgDiffCount k;
    int st = dbg_diff_count_start(b, d, true, &k);
    if (st == 0)
        st = dbg_diff_new_walk(b, d, &k);   /* keeps its traversal for the paths */
    dbg_diff_count_end(&k);
    if (st == 0)
        qsort(d->growth.rows, d->growth.n, sizeof *d->growth.rows, by_gain);
    return st;
}

static const DbgDiffRow *sort_rows;

static int by_retained(const void *x, const void *y)
{
    const DbgDiffRow *a = &sort_rows[*(const size_t *)x], *b = &sort_rows[*(const size_t *)y];
    if (a->retained_bytes != b->retained_bytes)
        return a->retained_bytes > b->retained_bytes ? -1 : 1;
    if (a->new_bytes != b->new_bytes)
        return a->new_bytes > b->new_bytes ? -1 : 1;
    return strcmp(a->key, b->key);
}

static int by_old(const void *x, const void *y)
{
    const DbgDiffRow *a = &sort_rows[*(const size_t *)x], *b = &sort_rows[*(const size_t *)y];
    if (a->old_bytes != b->old_bytes)
        return a->old_bytes > b->old_bytes ? -1 : 1;
    if (a->a_bytes != b->a_bytes)
        return a->a_bytes > b->a_bytes ? -1 : 1;
    return strcmp(a->key, b->key);
}

static size_t *order(const DbgDiff *d, bool survivors, size_t *n)
{
    size_t *ix = malloc((d->infos.n ? d->infos.n : 1) * sizeof *ix);
    *n = 0;
    if (ix == NULL)
        return NULL;
    for (size_t i = 0; i < d->infos.n; i++)
        if (survivors ? d->infos.rows[i].a_objects > 0 : d->infos.rows[i].new_objects > 0)
            ix[(*n)++] = i;
    sort_rows = d->infos.rows;
    qsort(ix, *n, sizeof *ix, survivors ? by_old : by_retained);
    return ix;
}

size_t *dbg_diff_new_order(const DbgDiff *d, size_t *n)
{
    return order(d, false, n);
}

size_t *dbg_diff_survivor_order(const DbgDiff *d, size_t *n)
{
    return order(d, true, n);
}

static void free_table(DbgDiffTable *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->rows[i].key);
    free(t->rows);
    *t = (DbgDiffTable){0};
}

void dbg_diff_free(DbgDiff *d)
{
    free_table(&d->growth);
    free_table(&d->infos);
    dbg_diff_new_free(d->paths);
    d->paths = NULL;
}
