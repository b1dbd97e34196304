/*
 * utils/debug-client/DiffTypes.h -- what changed between two moments
 * of a program: the heap of snapshot A against the heap of B (a later
 * snapshot or the live program), exact by era.  A's moment is the era
 * current when A was taken (DbgTarget.era): B's objects of later eras
 * were born after A, the others were alive at A (or born in A's era after
 * it, unless A was taken with a new era).  See docs/strata-debug.md
 * ("diff") and Note [What is new, by era] in Diff.c.  Types only: the
 * functions are Diff.h's, DiffCount.h's and DiffNewObjects.h's.
 */
#ifndef STRATA_DEBUG_DIFF_TYPES_H
#define STRATA_DEBUG_DIFF_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"

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
                                  * [Retained by the new objects] in DiffNewObjects.c */
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

#endif /* STRATA_DEBUG_DIFF_TYPES_H */
