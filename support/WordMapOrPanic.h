/*
 * support/WordMapOrPanic.h -- base/WordMap.h for the runtime, whose
 * bookkeeping has no way on when the C heap runs out: the insertion
 * panics instead of returning NULL (Messages.h).
 */
#ifndef STRATA_WORDMAPORPANIC_H
#define STRATA_WORDMAPORPANIC_H

#include "Messages.h"
#include "WordMap.h"

/* word_map_slot, never NULL. */
static inline uint64_t *word_map_slot_or_panic(WordMap *m, uint64_t key, bool *found)
{
    uint64_t *slot = word_map_slot(m, key, found);
    if (slot == NULL)
        rts_panic("word map: out of C heap (slots=%zu)", m->cap);
    return slot;
}

#endif /* STRATA_WORDMAPORPANIC_H */
