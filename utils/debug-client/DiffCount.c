/*
 * utils/debug-client/DiffCount.c -- one side of a diff counted into its
 * two tables: by the census label (the growth table) and by info table
 * (new objects and survivors), each object into its rows, or into a cell
 * of its info table and era first (Note [Counting by cells]).  A's rows
 * are found again by key when B is counted.  Diff.c and DiffNewObjects.c
 * count with it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Analysis.h"
#include "BlockIndex.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "DiffCount.h"
#include "DiffTypes.h"
#include "GrowArray.h"
#include "HeapLookup.h"

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
     * of the count: see Note [One walk of B] in DiffNewObjects.c. */
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
