/*
 * utils/debug-client/DebugDiff.h -- what changed between two moments of a
 * program: the heap of snapshot A against the heap of B (a later snapshot
 * or the live program), exact by era.  A's moment is the era current when
 * A was taken (DbgTarget.era): B's objects of later eras were born after
 * A, the others were alive at A (or born in A's era after it, unless A was
 * taken with a new era).  See docs/strata-debug.md ("diff") and Note [What
 * is new, by era] in Diff.c.
 */
#ifndef STRATA_DEBUGDIFF_H
#define STRATA_DEBUGDIFF_H

#include "DebugAnalysis.h"

/* One label of the diff (an info table, or a census label). */
typedef struct {
    char *key;                   /* what matches A's rows to B's: the census
                                  * label, or for info tables name, module,
                                  * file and span (addresses differ between
                                  * runs) */
    const DbgInfo *info;         /* by info table: B's table (A's if only A has
                                  * it, and then only until A is closed) */
    uint64_t a_bytes, a_objects;     /* live in A */
    uint64_t b_bytes, b_objects;     /* live in B */
    uint64_t new_bytes, new_objects; /* live in B, of eras after A's */
    uint64_t old_bytes, old_objects; /* live in B, of eras up to A's */
    uint64_t retained_bytes;     /* the new objects' retained size: see Note
                                  * [Retained by the new objects] in DiffNew.c */
    uint64_t example;            /* the new object met first breadth first, 0 if none */
} DbgDiffRow;

typedef struct {
    DbgDiffRow *rows;
    size_t n;
} DbgDiffTable;

typedef struct DbgDiffNew DbgDiffNew;

typedef struct {
    DbgCensusBy by;
    uint64_t a_era, a_paused_at, b_era, b_paused_at;   /* the two moments */
    uint64_t a_total_bytes, a_total_objects, b_total_bytes, b_total_objects;
    uint64_t new_total_bytes, new_total_objects;
    DbgDiffTable growth;         /* by `by`: bytes gained, most first */
    DbgDiffTable infos;          /* by info table: new and survivors */
    DbgDiffNew *paths;           /* B's traversal: retainer paths of new objects */
} DbgDiff;

/* A's side: the census of A's live heap (by `by` and by info table).  A may
 * be closed after it. */
int dbg_diff_begin(DbgClient *a, DbgCensusBy by, DbgDiff *out);
/* B's side: B's census, its objects split by A's era, the new objects'
 * retained sizes and paths.  B must stay open while d's paths are used.
 * Refuses a B that is older than A (its era is below A's). */
int dbg_diff_finish(DbgClient *b, DbgDiff *d);
/* The retainer path of new object addr (a row's example), as dbg_retainer_path. */
int dbg_diff_path(DbgClient *b, const DbgDiff *d, uint64_t addr, DbgPath *out);
void dbg_diff_free(DbgDiff *d);

/* Rows of the "new and alive" part (new_objects > 0), largest retained
 * size first, then new bytes; and of the survivors (a_objects > 0), most
 * old bytes first.  Indexes into d->infos.rows, malloc'd; NULL on no memory. */
size_t *dbg_diff_new_order(const DbgDiff *d, size_t *n);
size_t *dbg_diff_survivor_order(const DbgDiff *d, size_t *n);

#endif /* STRATA_DEBUGDIFF_H */
