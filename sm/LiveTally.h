/*
 * sm/LiveTally.h -- the live bytes and objects of each info table, counted
 * by a major GC as it scavenges its survivors (Note [Counting during the
 * GC]).  The heap profiler asks for one when a census is due and turns it
 * into labelled buckets; profiling/Census.c's heap walk gives the same
 * figures a second pass over memory later (checked under -DS).
 */
#ifndef STRATA_LIVETALLY_H
#define STRATA_LIVETALLY_H

#include <stdbool.h>
#include <stdint.h>

#include "Era.h"
#include "WordMap.h"
#include "strata/Block.h"
#include "strata/InfoTables.h"

/* Direct-mapped cache in front of the per-table totals. */
#define LIVE_TALLY_SLOTS 64

/* An entry counts an info table's objects, or in a tally by_era an
 * era's (era 0, never counted by -he, marks an empty slot). */
typedef struct {
    union {
        const StgInfoTable *info;
        uint64_t era;
    };
    uint64_t bytes, objects;
} LiveTallyEntry;

typedef struct {
    union {
        const StgInfoTable *info;   /* NULL (era 0): empty */
        uint64_t era;
    };
    uint64_t bytes, objects;    /* not yet added to the entry */
} LiveTallySlot;

typedef struct {
    EraRange eras;              /* which blocks count: those of these eras */
    bool by_era;                /* entries are eras, not info tables (-he;
                                   counted only by the non-moving collector) */
    bool filled;                /* set by the GC (or cycle) that counted */
    bool counting;              /* a non-moving cycle's mark counts into it
                                   (Note [A census from the snapshot] in
                                   NonMoving.c); filled when its mark ends */
    uint64_t at_ns;             /* with counting: the snapshot's moment
                                   (clock_elapsed_ns) */
    LiveTallySlot cache[LIVE_TALLY_SLOTS];
    WordMap index;              /* info pointer -> entry index */
    LiveTallyEntry *entries;    /* in first-seen order; valid once flushed */
    size_t n_entries, cap_entries;
} LiveTally;

/* An empty tally counting blocks of the eras in eras. */
void live_tally_init(LiveTally *t, EraRange eras);
void live_tally_free(LiveTally *t);

/* Empties t for the next GC, keeping its era range and memory. */
void live_tally_reset(LiveTally *t);

static inline bool live_tally_counts_era(const LiveTally *t, uint64_t era)
{
    return era_range_has(t->eras, era);
}

void live_tally_miss(LiveTally *t, LiveTallySlot *s, const StgInfoTable *info);
void live_tally_miss_era(LiveTally *t, LiveTallySlot *s, uint64_t era);

/* One object of sizeW words with table info: two loads and two adds when
 * the table was seen recently. */
static inline void live_tally_add(LiveTally *t, const StgInfoTable *info, StgWord sizeW)
{
    LiveTallySlot *s = &t->cache[((uintptr_t)info >> 3) % LIVE_TALLY_SLOTS];
    if (STRATA_UNLIKELY(s->info != info))
        live_tally_miss(t, s, info);
    s->bytes += sizeW * WORD_SIZE;
    s->objects++;
}

/* One object of sizeW words, table info and era era, counted by its era
 * in a tally by_era, else by its table (era 0 is never counted by era). */
static inline void live_tally_count(LiveTally *t, const StgInfoTable *info, uint64_t era,
                                    StgWord sizeW)
{
    if (!t->by_era) {
        live_tally_add(t, info, sizeW);
    } else if (era != 0) {
        LiveTallySlot *s = &t->cache[era % LIVE_TALLY_SLOTS];
        if (STRATA_UNLIKELY(s->era != era))
            live_tally_miss_era(t, s, era);
        s->bytes += sizeW * WORD_SIZE;
        s->objects++;
    }
}

/* A large or pinned group of the heap: its objects (a pinned block's
 * used words), each era run by its era in a tally by_era, else by table
 * if the group's era is counted. */
void live_tally_add_group(LiveTally *t, const BlockDesc *bd);

/* Walks the objects of [p, end) (a pinned block: byte arrays and zeroed
 * slop) into t. */
void live_tally_add_range(LiveTally *t, StgPtr p, StgPtr end);

/* Moves the cached counts into the entries; called by the GC when done. */
void live_tally_flush(LiveTally *t);

/* Adds the entries of from (flushed) to into (flushed): a GC thread's
 * counts into thread 0's.  Tables new to into come after its own. */
void live_tally_merge(LiveTally *into, const LiveTally *from);

#endif /* STRATA_LIVETALLY_H */
