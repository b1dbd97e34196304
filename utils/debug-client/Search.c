/*
 * utils/debug-client/Search.c -- the objects a query matches, among those
 * a traversal reached, and the live constructor names nearest to one that
 * matched nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "BlockIndex.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "EraRange.h"
#include "GrowArray.h"
#include "Marks.h"
#include "ReachState.h"
#include "Search.h"
#include "WordMap.h"
#include "strata/Debug.h"

/* ----------------------------------------------------------------------
 * Search
 * ---------------------------------------------------------------------- */

bool dbg_query_matches(const DbgQuery *q, const DbgClosure *cl)
{
    if (cl->block == NULL || !dbg_era_selected(&q->eras, cl->era))
        return false;
    if (q->sampled != NULL && word_map_get((const WordMap *)q->sampled, cl->addr) == NULL)
        return false;
    switch (q->kind) {
    case DBG_MATCH_ANY:
        return true;
    case DBG_MATCH_CONSTRUCTOR:
        return dbg_type_is_constr(cl->info->type) &&
               (strcmp(cl->info->name, q->name) == 0 ||
                strcmp(cl->info->closure_desc, q->name) == 0);
    case DBG_MATCH_INFO:
        return cl->info->addr == q->info;
    case DBG_MATCH_TYPE:
        return strcmp(dbg_closure_type_name(cl->info->type), q->name) == 0;
    }
    return false;
}

int dbg_search(DbgClient *c, const DbgReach *r, const DbgQuery *q, uint64_t *out, size_t cap,
               size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < r->n && *n < cap; i++) {
        DbgClosure cl;
        if (dbg_closure(c, r->order[i], &cl) != 0)
            return -1;
        if (dbg_query_matches(q, &cl))
            out[(*n)++] = r->order[i];
    }
    return 0;
}

/* ----------------------------------------------------------------------
 * Constructor names near a misspelt one
 * ---------------------------------------------------------------------- */

/* Names longer than this are compared by their first NAME_CMP_MAX bytes. */
#define NAME_CMP_MAX 255

/* Levenshtein distance: insertions, deletions and substitutions, one each. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strnlen(a, NAME_CMP_MAX), lb = strnlen(b, NAME_CMP_MAX);
    size_t row[NAME_CMP_MAX + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];   /* row[i-1][j-1] */
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int name_match_cmp(const void *a, const void *b)
{
    const DbgNameMatch *x = a, *y = b;
    if (x->distance != y->distance)
        return x->distance < y->distance ? -1 : 1;
    return strcmp(x->name, y->name);
}

typedef struct {
    WordMap seen;                /* info tables already looked at */
    const char *name;
    DbgNameMatch *all;
    size_t n_all, cap_all;
} NamesNear;

static int name_near(DbgClient *c, const DbgClosure *cl, void *env)
{
    NamesNear *w = env;
    const DbgInfo *in = cl->info;
    if (!dbg_type_is_constr(in->type) || word_map_get(&w->seen, in->addr) != NULL)
        return 0;
    if (word_map_put(&w->seen, in->addr, 1) != 0)
        return dbg_fail(c, "out of memory");
    /* A query matches the table's name or its closure description. */
    const char *names[2] = {in->name, in->closure_desc};
    for (int k = 0; k < 2; k++) {
        if (names[k][0] == '\0' || (k == 1 && strcmp(names[1], names[0]) == 0))
            continue;
        if (GROW_ARRAY_RESERVE_MIN(w->all, w->cap_all, w->n_all + 1, 64) != 0)
            return dbg_fail(c, "out of memory");
        w->all[w->n_all++] = (DbgNameMatch){names[k], edit_distance(w->name, names[k])};
    }
    return 0;
}

/* Over the heap objects in address order: the answer is a set of names,
 * sorted, so any order of the objects gives it, and traversals that kept
 * no order (dbg_reach_search) have this one. */
int dbg_constructor_names_near(DbgClient *c, const DbgReach *r, const char *name,
                               DbgNameMatch *out, size_t cap, size_t *n)
{
    *n = 0;
    NamesNear w = {{0}, name, NULL, 0, 0};
    int st = dbg_reach_for_each_heap(c, r, name_near, &w) != 0 ? -1 : 0;
    word_map_free(&w.seen);
    if (st == 0 && w.n_all > 0) {
        qsort(w.all, w.n_all, sizeof *w.all, name_match_cmp);
        size_t u = 0;   /* two tables may share a name: keep one */
        for (size_t i = 0; i < w.n_all; i++)
            if (u == 0 || strcmp(w.all[u - 1].name, w.all[i].name) != 0)
                w.all[u++] = w.all[i];
        for (size_t i = 0; i < u && i < cap; i++)
            out[i] = w.all[i];
        *n = u;
    }
    free(w.all);
    return st;
}
