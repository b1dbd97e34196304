/*
 * base/SortedSearch.h -- bisection over a sorted array of records keyed by
 * a uint64_t field (an address, a time): how many come before a key.  The
 * one binary search that the DWARF index, the code map, the ELF symbols
 * and the pause log each used to write out.
 */
#ifndef STRATA_SORTED_SEARCH_H
#define STRATA_SORTED_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/* How many of the n records (stride bytes apart from items, each with a
 * uint64_t key key_offset bytes in, in ascending key order) have a key
 * below key: the index of the first whose key is >= key, or n. */
size_t sorted_count_below(const void *items, size_t n, size_t stride, size_t key_offset,
                          uint64_t key);

/* The same for keys at or below key: the index of the first whose key is
 * > key, or n. */
size_t sorted_count_at_or_below(const void *items, size_t n, size_t stride, size_t key_offset,
                                uint64_t key);

/* The typed forms, for T *arr whose member field is the key; the build
 * refuses a field that is not 8 bytes. */
#define SORTED_COUNT_BELOW(arr, n, T, field, key) \
    sorted_count_below((arr), (n), sizeof(T), SORTED_KEY_OFFSET(T, field), (key))
#define SORTED_COUNT_AT_OR_BELOW(arr, n, T, field, key) \
    sorted_count_at_or_below((arr), (n), sizeof(T), SORTED_KEY_OFFSET(T, field), (key))
#define SORTED_KEY_OFFSET(T, field)                                                       \
    (offsetof(T, field) +                                                                 \
     0 * sizeof(struct {                                                                  \
         _Static_assert(sizeof(((T *)0)->field) == sizeof(uint64_t), "the key is 8 bytes"); \
         int unused;                                                                      \
     }))

#endif /* STRATA_SORTED_SEARCH_H */
