/*
 * utils/debug-client/Diff.c -- the diff of two heaps (DiffTypes.h): a
 * census of A kept as rows, then one of B merged into them, B's objects
 * split by A's era.  Each side is counted (DiffCount.c) as the marks-only
 * traversal scans it (Note [Marking in two steps] in Marks.c);
 * DiffNewObjects.c's walk of B gives the new objects' retained sizes and
 * paths.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Diff.h"
#include "DiffCount.h"
#include "DiffNewObjects.h"
#include "DiffTypes.h"
#include "Marks.h"

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

static int count_in_cell(DbgClient *c, const DbgClosure *cl, void *env)
{
    return dbg_diff_count_cell(c, env, cl);
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
    /* B is counted as it is marked: see Note [One walk of B] in DiffNewObjects.c. */
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
