/*
 * utils/debug-client/DiffCount.h -- one side of a diff counted into
 * its two tables (by the census label, by info table), object by object
 * or cell by cell (Note [Counting by cells] in DiffCount.c).  The whole
 * API of DiffCount.c.
 */
#ifndef STRATA_DEBUG_DIFF_COUNT_H
#define STRATA_DEBUG_DIFF_COUNT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"
#include "DiffTypes.h"
#include "WordMap.h"

/* One table's rows as a side is counted. */
typedef struct {
    DbgDiffTable *t;
    WordMap by_key;              /* hash of the key -> row + 1 (collisions: compared) */
    uint64_t last_key;           /* the key looked up last, and its row + 1 (0: none) */
    size_t last_row;
} DbgDiffRows;

/* Objects of one info table and era: Note [Counting by cells] in DiffCount.c. */
typedef struct {
    const DbgInfo *info;
    uint64_t era, bytes, objects;
} DbgDiffCell;

/* The census of one side into d's two tables (Diff.c). */
typedef struct {
    DbgDiff *d;
    bool is_b;
    DbgDiffRows growth, infos;
    WordMap growth_of, info_of;  /* info address (or era + 1) -> row + 1 */
    bool order_matters;          /* B: a row met two info tables of its key */
    DbgDiffCell *cells;          /* in the order made */
    size_t n_cells, cap_cells, last_cell;
    WordMap cell_of;             /* hash of info and era -> cell + 1 (compared) */
} DbgDiffCount;

int dbg_diff_count_start(DbgClient *c, DbgDiff *d, bool is_b, DbgDiffCount *k);
/* Counts heap object cl once: its bytes into its rows and the totals. */
int dbg_diff_count(DbgClient *c, DbgDiffCount *k, const DbgClosure *cl);
/* Counts cl into its cell, and the cells into the rows (then empty). */
int dbg_diff_count_cell(DbgClient *c, DbgDiffCount *k, const DbgClosure *cl);
int dbg_diff_count_cells_flush(DbgClient *c, DbgDiffCount *k);
/* The row of cl's info table in d->infos (made if new); NULL on no memory. */
DbgDiffRow *dbg_diff_info_row(DbgClient *c, DbgDiffCount *k, const DbgClosure *cl);
void dbg_diff_count_end(DbgDiffCount *k);
/* Forgets B's counts (of a count to be done again in another order). */
void dbg_diff_count_reset(DbgDiffCount *k);

#endif /* STRATA_DEBUG_DIFF_COUNT_H */
