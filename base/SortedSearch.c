/*
 * base/SortedSearch.c -- bisection over sorted records (see SortedSearch.h).
 */
#include "SortedSearch.h"

#include <stdbool.h>
#include <string.h>

/* How many records lead the array with a key below key (or equal to it,
 * with and_equal). */
static size_t count_leading(const void *items, size_t n, size_t stride, size_t key_offset,
                            uint64_t key, bool and_equal)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        memcpy(&k, (const char *)items + mid * stride + key_offset, sizeof k);
        if (k < key || (and_equal && k == key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t sorted_count_below(const void *items, size_t n, size_t stride, size_t key_offset,
                          uint64_t key)
{
    return count_leading(items, n, stride, key_offset, key, false);
}

size_t sorted_count_at_or_below(const void *items, size_t n, size_t stride, size_t key_offset,
                                uint64_t key)
{
    return count_leading(items, n, stride, key_offset, key, true);
}
