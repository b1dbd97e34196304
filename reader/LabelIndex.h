/*
 * reader/LabelIndex.h -- heap profile band labels numbered 0, 1, 2, ...
 * in the order first seen, for the readers that keep per-band figures in
 * an array beside it (strata-events summary, strata-html, the census
 * tracker).  Labels are byte strings compared by length and content; the
 * index owns a NUL-terminated copy of each.  It is base/StrIndex.h under
 * the reader's names.
 */
#ifndef STRATA_LABELINDEX_H
#define STRATA_LABELINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "EventLogReader.h"
#include "StrIndex.h"

#define EVR_NO_LABEL STR_INDEX_NONE

typedef StrIndex EvrLabelIndex;   /* n labels; a zeroed index is empty */

/* The number of label, or EVR_NO_LABEL if it has none yet. */
static inline size_t evr_label_find(const EvrLabelIndex *ix, const char *label, size_t len)
{
    return str_index_find(ix, label, len);
}

/* Numbers a label evr_label_find does not know: returns n before the call,
 * or EVR_NO_LABEL when out of memory (ix is then unchanged). */
static inline size_t evr_label_add(EvrLabelIndex *ix, const char *label, size_t len)
{
    return str_index_add(ix, label, len);
}

/* Label number i (< ix->n): the index's NUL-terminated copy. */
static inline EvrStr evr_label(const EvrLabelIndex *ix, size_t i)
{
    return (EvrStr){ .ptr = ix->strs[i].ptr, .len = ix->strs[i].len };
}

/* Frees what ix holds and empties it. */
static inline void evr_label_index_free(EvrLabelIndex *ix)
{
    str_index_free(ix);
}

#endif /* STRATA_LABELINDEX_H */
