/*
 * base/GrowArray.c -- growing C arrays by doubling, and shrinking them
 * (see GrowArray.h).
 * Relies only on realloc.
 */
#include "GrowArray.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int grow_array_reserve(void **items, size_t *capacity, size_t n_needed, size_t elem_bytes,
                       size_t min_capacity)
{
    if (n_needed <= *capacity)
        return 0;
    size_t cap = *capacity > min_capacity ? *capacity : min_capacity;
    while (cap < n_needed) {
        if (cap > SIZE_MAX / 2)
            return ENOMEM;
        cap *= 2;
    }
    if (elem_bytes != 0 && cap > SIZE_MAX / elem_bytes)
        return ENOMEM;
    void *n = realloc(*items, cap * elem_bytes);
    if (n == NULL)
        return ENOMEM;
    *items = n;
    *capacity = cap;
    return 0;
}

void grow_array_shrink(void **items, size_t *capacity, size_t n_used, size_t elem_bytes,
                       size_t min_capacity)
{
    if (*capacity <= min_capacity || n_used >= *capacity / 4)
        return;
    size_t cap = n_used < min_capacity ? min_capacity : n_used;
    void *n = realloc(*items, cap * elem_bytes);
    if (n == NULL)
        return;
    *items = n;
    *capacity = cap;
}
