/*
 * eventlog/LabelIndex.h -- heap profile band labels numbered 0, 1, 2, ...
 * in the order first seen, for the readers that keep per-band figures in
 * an array beside it (strata-events summary, strata-html).  Labels are
 * byte strings compared by length and content; the index owns a
 * NUL-terminated copy of each.
 */
#ifndef STRATA_LABELINDEX_H
#define STRATA_LABELINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "EventLogReader.h"

#define EVR_NO_LABEL SIZE_MAX

typedef struct EvrLabelIndex {
    EvrStr *labels;     /* [0 .. n): owned, NUL-terminated copies */
    size_t n, cap;
    size_t *hash;       /* open addressing: 1 + label number, 0 = empty */
    size_t hash_cap;    /* a power of two, more than twice n */
} EvrLabelIndex;

/* The number of label, or EVR_NO_LABEL if it has none yet. */
size_t evr_label_find(const EvrLabelIndex *ix, const char *label, size_t len);

/* Numbers a label evr_label_find does not know: returns n before the call,
 * or EVR_NO_LABEL when out of memory (ix is then unchanged). */
size_t evr_label_add(EvrLabelIndex *ix, const char *label, size_t len);

/* Frees what ix holds and empties it (a zeroed index is empty). */
void evr_label_index_free(EvrLabelIndex *ix);

#endif /* STRATA_LABELINDEX_H */
