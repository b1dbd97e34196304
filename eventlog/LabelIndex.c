/*
 * eventlog/LabelIndex.c -- band labels numbered in first-seen order
 * (LabelIndex.h).
 */
#include "LabelIndex.h"

#include <stdlib.h>
#include <string.h>

static size_t label_hash(const char *s, size_t n)
{
    size_t h = 1469598103934665603u;   /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return h;
}

/* The hash slot holding label, or the empty one where it would go. */
static size_t *slot_for(const EvrLabelIndex *ix, const char *label, size_t len)
{
    size_t j = label_hash(label, len) & (ix->hash_cap - 1);
    while (ix->hash[j] != 0) {
        const EvrStr *l = &ix->labels[ix->hash[j] - 1];
        if (l->len == len && memcmp(l->ptr, label, len) == 0)
            break;
        j = (j + 1) & (ix->hash_cap - 1);
    }
    return &ix->hash[j];
}

static int hash_grow(EvrLabelIndex *ix)
{
    size_t cap = ix->hash_cap ? ix->hash_cap * 2 : 64;
    size_t *h = calloc(cap, sizeof *h);
    if (h == NULL)
        return 0;
    for (size_t i = 0; i < ix->n; i++) {
        size_t j = label_hash(ix->labels[i].ptr, ix->labels[i].len) & (cap - 1);
        while (h[j] != 0)
            j = (j + 1) & (cap - 1);
        h[j] = i + 1;
    }
    free(ix->hash);
    ix->hash = h;
    ix->hash_cap = cap;
    return 1;
}

size_t evr_label_find(const EvrLabelIndex *ix, const char *label, size_t len)
{
    if (ix->n == 0)
        return EVR_NO_LABEL;
    size_t k = *slot_for(ix, label, len);
    return k ? k - 1 : EVR_NO_LABEL;
}

size_t evr_label_add(EvrLabelIndex *ix, const char *label, size_t len)
{
    if (2 * (ix->n + 1) >= ix->hash_cap && !hash_grow(ix))
        return EVR_NO_LABEL;
    if (ix->n == ix->cap) {
        size_t cap = ix->cap ? ix->cap * 2 : 32;
        EvrStr *nl = realloc(ix->labels, cap * sizeof *nl);
        if (nl == NULL)
            return EVR_NO_LABEL;
        ix->labels = nl;
        ix->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return EVR_NO_LABEL;
    memcpy(copy, label, len);
    copy[len] = '\0';
    size_t *slot = slot_for(ix, label, len);   /* empty: label is new */
    ix->labels[ix->n] = (EvrStr){ .ptr = copy, .len = len };
    *slot = ++ix->n;
    return ix->n - 1;
}

void evr_label_index_free(EvrLabelIndex *ix)
{
    for (size_t i = 0; i < ix->n; i++)
        free((char *)ix->labels[i].ptr);
    free(ix->labels);
    free(ix->hash);
    memset(ix, 0, sizeof *ix);
}
