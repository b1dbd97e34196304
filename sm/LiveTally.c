/*
 * sm/LiveTally.c -- per-info-table live totals counted during a major GC.
 *
 * Note [Counting during the GC]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A heap census is a serial walk over every live object: the next object's
 * address needs this one's size, which needs its info table.  Run after
 * the GC as a second pass, it reads the live heap from memory again, and
 * that was nearly all of the profiling overhead (bench/optimisations.md,
 * row 6f2ec60 and the census walk above it).  But a major GC scavenges every
 * survivor exactly once -- small objects in the to-space scan, large
 * objects and pinned blocks in scavenge_large -- just after copying it,
 * while it is in cache.  So when a census is due, the profiler hands the
 * GC a LiveTally and the scavenger adds each object there; the census is
 * then built from a few hundred per-table totals instead of the heap.
 * When no census is due the scavenger pays one predictable branch per
 * block scan, not per object.  Only per-object breakdowns use it: -he
 * sums block descriptors and needs no walk at all.
 */
#include "LiveTally.h"

#include <stdlib.h>
#include <string.h>

#include "ClosureSize.h"
#include "EraRuns.h"
#include "WordMapOrPanic.h"
#include "GrowArray.h"
#include "HeapIter.h"
#include "Messages.h"

void live_tally_init(LiveTally *t, EraRange eras)
{
    memset(t, 0, sizeof *t);
    t->eras = eras;
}

void live_tally_free(LiveTally *t)
{
    word_map_free(&t->index);
    free(t->entries);
    memset(t, 0, sizeof *t);
}

void live_tally_reset(LiveTally *t)
{
    memset(t->cache, 0, sizeof t->cache);
    word_map_clear(&t->index);
    t->n_entries = 0;
    t->filled = t->counting = false;
    t->at_ns = 0;
}

static void flush_slot(LiveTally *t, LiveTallySlot *s)
{
    if (s->info == NULL)
        return;
    bool found;
    uint64_t *ix = word_map_slot_or_panic(&t->index, (uint64_t)(uintptr_t)s->info, &found);
    if (!found) {
        if (GROW_ARRAY_RESERVE_MIN(t->entries, t->cap_entries, t->n_entries + 1, 64) != 0)
            rts_panic("live tally: out of C heap (entries=%zu)", t->n_entries);
        *ix = t->n_entries;
        t->entries[t->n_entries++] = (LiveTallyEntry){.info = s->info};
    }
    t->entries[*ix].bytes += s->bytes;
    t->entries[*ix].objects += s->objects;
    s->info = NULL;
    s->bytes = s->objects = 0;
}

void live_tally_miss(LiveTally *t, LiveTallySlot *s, const StgInfoTable *info)
{
    flush_slot(t, s);
    s->info = info;
}

void live_tally_miss_era(LiveTally *t, LiveTallySlot *s, uint64_t era)
{
    flush_slot(t, s);
    s->era = era;
}

void live_tally_add_group(LiveTally *t, const BlockDesc *bd)
{
    if (!t->by_era) {
        if (live_tally_counts_era(t, bd->era))
            live_tally_add_range(t, bd->start, bd->free);
        return;
    }
    /* As the census's walk sums them: each era run's words, slop too. */
    for (uint32_t i = 0; i <= bd->n_era_runs; i++) {
        StgPtr from, to;
        uint64_t era;
        block_era_segment(bd, i, &from, &to, &era);
        if (to > from && era != 0 && live_tally_counts_era(t, era)) {
            LiveTallySlot s = {.era = era, .bytes = (uint64_t)(to - from) * WORD_SIZE};
            flush_slot(t, &s);
        }
    }
}

void live_tally_add_range(LiveTally *t, StgPtr p, StgPtr end)
{
    /* Slop is zero words (.inv.slop-zero), which the walk steps over. */
    for (p = heap_first_object(p, end); p < end;) {
        const StgInfoTable *info = ((StgClosure *)p)->info;
        StgWord size = closure_sizeW_info((StgClosure *)p, info);
        if (STRATA_UNLIKELY(size == 0))
            rts_panic("live tally: object of unknown size (object=%p, type=%u)", (void *)p,
                      (unsigned)info->type);
        live_tally_add(t, info, size);
        p = heap_next_object(p, size, end);
    }
}

void live_tally_flush(LiveTally *t)
{
    for (size_t i = 0; i < LIVE_TALLY_SLOTS; i++)
        flush_slot(t, &t->cache[i]);
}

void live_tally_merge(LiveTally *into, const LiveTally *from)
{
    for (size_t i = 0; i < from->n_entries; i++) {
        const LiveTallyEntry *e = &from->entries[i];
        LiveTallySlot s = {.info = e->info, .bytes = e->bytes, .objects = e->objects};
        flush_slot(into, &s);
    }
}
