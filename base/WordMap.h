/*
 * base/WordMap.h -- an open-addressing hash map from 64-bit keys to 64-bit
 * values, for the runtime's bookkeeping (stable names by address, the
 * census's info table -> bucket map, the info tables with an IPE event,
 * resolved provenance) and the tools' (the debug client's caches by
 * address, IPE entries by info table).  Linear probing, power-of-two
 * capacity, at most three quarters full.
 *
 * A slot whose key is 0 is empty, so that a lookup reads one array until it
 * finds the key or a 0; the key 0 itself, which eras and hashes can be, is
 * kept beside the slots (has_zero, zero_val).
 */
#ifndef STRATA_WORDMAP_H
#define STRATA_WORDMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct WordMap {
    uint64_t *keys;      /* key of each slot; 0 = empty */
    uint64_t *vals;      /* value of each slot whose key is not 0 */
    size_t cap;          /* slots, a power of two (0 = nothing allocated) */
    size_t n;            /* keys held, the key 0 included */
    bool has_zero;       /* the key 0 is held, with value zero_val */
    uint64_t zero_val;
} WordMap;

static inline size_t word_map_hash(uint64_t key, size_t cap)
{
    key ^= key >> 33;   /* murmur3's finaliser: aligned addresses and small
                         * integers both spread over every slot */
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

/* The value of key, or NULL if absent.  Valid until the next insertion.
 * Inline: the debug client asks it for every pointer it follows. */
static inline uint64_t *word_map_get(const WordMap *m, uint64_t key)
{
    if (key == 0)
        return m->has_zero ? (uint64_t *)&m->zero_val : NULL;
    if (m->cap == 0)
        return NULL;
    for (size_t i = word_map_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key)
            return &m->vals[i];
        if (m->keys[i] == 0)
            return NULL;
    }
}

/* The value slot for key, created (value 0) if absent; *found says which.
 * NULL when out of memory (or the size overflows); m is then unchanged.
 * The pointer is valid until the next insertion. */
uint64_t *word_map_slot(WordMap *m, uint64_t key, bool *found);

/* Sets key's value.  Returns 0, or ENOMEM with m unchanged. */
int word_map_put(WordMap *m, uint64_t key, uint64_t val);

/* Forgets key; false if it was not there.  Other keys' value pointers are
 * invalid afterwards (entries may move). */
bool word_map_remove(WordMap *m, uint64_t key);

/* The next key after position *pos (start with *pos = 0), in no order; false
 * when there is none.  The map must not change during an iteration. */
bool word_map_next(const WordMap *m, size_t *pos, uint64_t *key, uint64_t *val);

/* The bytes the map's slots take. */
size_t word_map_bytes(const WordMap *m);

/* Forgets every key, keeping the allocated slots. */
void word_map_clear(WordMap *m);

/* Frees the slots and empties m (a zeroed map is empty). */
void word_map_free(WordMap *m);

#endif /* STRATA_WORDMAP_H */
