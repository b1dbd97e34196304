/*
 * base/StrIndex.c -- strings numbered in first-seen order (StrIndex.h).
 */
#include "StrIndex.h"

#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"

static size_t str_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603u;   /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211u;
    return (size_t)h;
}

/* The hash slot holding s, or the empty one where it would go. */
static size_t *slot_for(const StrIndex *ix, const char *s, size_t len)
{
    size_t j = str_hash(s, len) & (ix->hash_cap - 1);
    while (ix->hash[j] != 0) {
        const StrView *l = &ix->strs[ix->hash[j] - 1];
        if (l->len == len && memcmp(l->ptr, s, len) == 0)
            break;
        j = (j + 1) & (ix->hash_cap - 1);
    }
    return &ix->hash[j];
}

/* Rehashes into twice the slots (64 at first); 0 when out of memory. */
static int hash_grow(StrIndex *ix)
{
    if (ix->hash_cap > SIZE_MAX / 2 / sizeof(size_t))
        return 0;
    size_t cap = ix->hash_cap ? ix->hash_cap * 2 : 64;
    size_t *h = calloc(cap, sizeof *h);
    if (h == NULL)
        return 0;
    for (size_t i = 0; i < ix->n; i++) {
        size_t j = str_hash(ix->strs[i].ptr, ix->strs[i].len) & (cap - 1);
        while (h[j] != 0)
            j = (j + 1) & (cap - 1);
        h[j] = i + 1;
    }
    free(ix->hash);
    ix->hash = h;
    ix->hash_cap = cap;
    return 1;
}

size_t str_index_find(const StrIndex *ix, const char *s, size_t len)
{
    if (ix->n == 0)
        return STR_INDEX_NONE;
    size_t k = *slot_for(ix, s, len);
    return k ? k - 1 : STR_INDEX_NONE;
}

size_t str_index_add(StrIndex *ix, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return STR_INDEX_NONE;
    if (2 * (ix->n + 1) >= ix->hash_cap && !hash_grow(ix))
        return STR_INDEX_NONE;
    if (GROW_ARRAY_RESERVE_MIN(ix->strs, ix->cap, ix->n + 1, 32) != 0)
        return STR_INDEX_NONE;
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return STR_INDEX_NONE;
    memcpy(copy, s, len);
    copy[len] = '\0';
    size_t *slot = slot_for(ix, s, len);   /* empty: s is new */
    ix->strs[ix->n] = (StrView){ .ptr = copy, .len = len };
    *slot = ++ix->n;
    return ix->n - 1;
}

size_t str_index_intern(StrIndex *ix, const char *s, size_t len)
{
    size_t k = str_index_find(ix, s, len);
    return k != STR_INDEX_NONE ? k : str_index_add(ix, s, len);
}

void str_index_free(StrIndex *ix)
{
    for (size_t i = 0; i < ix->n; i++)
        free((char *)ix->strs[i].ptr);
    free(ix->strs);
    free(ix->hash);
    memset(ix, 0, sizeof *ix);
}
