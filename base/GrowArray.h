/*
 * base/GrowArray.h -- the one way strata, runtime and tools alike, grows a
 * C array: capacity doubles (from a minimum) until it holds what is needed,
 * with the size arithmetic checked; one that has emptied shrinks again,
 * and a freed one is left empty.  Replaces the hand-written "double
 * with realloc" blocks that each module used to carry.
 */
#ifndef STRATA_GROWARRAY_H
#define STRATA_GROWARRAY_H

#include <stddef.h>
#include <stdlib.h>

/* Makes *items (elem_bytes each, *capacity allocated) hold at least
 * n_needed elements, doubling from min_capacity.  Returns 0, or ENOMEM
 * (out of C heap, or the size overflows); on failure nothing changes. */
int grow_array_reserve(void **items, size_t *capacity, size_t n_needed, size_t elem_bytes,
                       size_t min_capacity);

/* grow_array_reserve with the common case, room already there, inline:
 * the typed forms below sit on hot paths (a push per object traversed). */
static inline int grow_array_reserve_inline(void **items, size_t *capacity, size_t n_needed,
                                            size_t elem_bytes, size_t min_capacity)
{
    if (n_needed <= *capacity)
        return 0;
    return grow_array_reserve(items, capacity, n_needed, elem_bytes, min_capacity);
}

/* The typed form: GROW_ARRAY_RESERVE(arr, cap, n) for T *arr, size_t cap. */
#define GROW_ARRAY_RESERVE(arr, cap, n) \
    grow_array_reserve_inline((void **)&(arr), &(cap), (n), sizeof *(arr), 16)

/* The typed form with the site's own first capacity. */
#define GROW_ARRAY_RESERVE_MIN(arr, cap, n, min_capacity) \
    grow_array_reserve_inline((void **)&(arr), &(cap), (n), sizeof *(arr), (min_capacity))

/* Gives back most of an array that has emptied: when *capacity exceeds
 * min_capacity and fewer than a quarter of it are in use (n_used), shrinks
 * it to n_used elements, min_capacity at least, so that the next growth
 * does not come at once.  A failed realloc leaves it as it was: shrinking
 * is an economy, never needed. */
void grow_array_shrink(void **items, size_t *capacity, size_t n_used, size_t elem_bytes,
                       size_t min_capacity);

/* The typed form: GROW_ARRAY_SHRINK_MIN(arr, cap, n, min_capacity). */
#define GROW_ARRAY_SHRINK_MIN(arr, cap, n, min_capacity) \
    grow_array_shrink((void **)&(arr), &(cap), (n), sizeof *(arr), (min_capacity))

/* Frees arr and leaves it empty: NULL, no elements, no capacity. */
#define GROW_ARRAY_FREE(arr, n, cap) (free(arr), (arr) = NULL, (n) = 0, (cap) = 0)

#endif /* STRATA_GROWARRAY_H */
