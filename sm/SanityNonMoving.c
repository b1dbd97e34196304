/*
 * sm/SanityNonMoving.c -- the sanity checker's part for the non-moving
 * generation (+RTS -DS --nonmoving-gc): each segment's header, mark
 * bytes, era runs and zeroed free slots, every allocated object in it,
 * every pointer into a segment, and the segment lists.  Relies on the
 * checks of one object and one pointer in Sanity.c (SanityPrivate.h) and
 * on the layout of Segment.h.
 */
#include "BlockAlloc.h"
#include "Era.h"
#include "NonMovingPrivate.h"
#include "SanityPrivate.h"

#define fail sanity_fail

static const char *type_of(const StgClosure *c)
{
    return c == NULL ? "(root slot)" : strata_closure_type_name(c->info->type);
}

/* Whether slot i of seg holds an object the running cycle's mark found
 * dead, not yet swept: it is garbage, and its fields may point at slots
 * the sweep freed already. */
static bool found_dead(const Segment *seg, unsigned i)
{
    return nonmoving_sweep_pending_slot(seg, i);
}

bool sanity_skips_group(const BlockDesc *bd)
{
    return (bd->flags & BF_NONMOVING) && nonmoving_sweep_pending_group(bd);
}

void sanity_check_segment_pointer(const StgClosure *c, StgWord field, const StgClosure *p)
{
    BlockDesc *head = segment_head_bd(Bdescr(p));
    if (!(head->flags & BF_KNOWN))
        fail("pointer into a segment that is not in the heap (object=%p %s, field=%lu, value=%p, "
             "segment=%p)", (void *)c, type_of(c), (unsigned long)field, (void *)p,
             (void *)head->start);
    const Segment *seg = (const Segment *)head->start;
    if (!segment_is_slot_start(seg, p))
        fail("pointer into the middle of a segment's slot (object=%p %s, field=%lu, value=%p, "
             "segment=%p, slot words=%u)", (void *)c, type_of(c), (unsigned long)field,
             (void *)p, (void *)seg, (unsigned)seg->slot_words);
    unsigned i = segment_slot_index(seg, p);
    if (seg->marks[i] == 0)
        fail("pointer to a free slot of a segment (object=%p %s, field=%lu, value=%p, "
             "segment=%p, slot=%u)", (void *)c, type_of(c), (unsigned long)field, (void *)p,
             (void *)seg, i);
    if (found_dead(seg, i))
        fail("pointer to an object the non-moving mark found dead (object=%p %s, field=%lu, "
             "value=%p, segment=%p, slot=%u)", (void *)c, type_of(c), (unsigned long)field,
             (void *)p, (void *)seg, i);
    if (!sanity_info_is_valid(p->info))
        fail("pointer to something that is not a closure in a segment (object=%p %s, "
             "field=%lu, value=%p, segment=%p)", (void *)c, type_of(c), (unsigned long)field,
             (void *)p, (void *)seg);
}

/* .inv.segment-eras: runs start at slot 0, increase, change era, and hold
 * eras that were current. */
static void check_segment_eras(const Segment *seg)
{
    if (seg->runs == NULL) {
        if (seg->n_used != 0 && seg->era > storage_max_era())
            fail("segment has an era that was never current (segment=%p, era=%lu)",
                 (void *)seg, (unsigned long)seg->era);
        return;
    }
    if (seg->n_runs < 1 || seg->n_runs > seg->cap_runs || seg->runs[0].first != 0)
        fail("segment's era runs are malformed (segment=%p, runs=%u, capacity=%u)", (void *)seg,
             (unsigned)seg->n_runs, (unsigned)seg->cap_runs);
    for (uint32_t r = 0; r < seg->n_runs; r++) {
        const SegmentEraRun *run = &seg->runs[r];
        if (run->era > storage_max_era() ||
            (r > 0 && (run->first <= run[-1].first || run->era == run[-1].era)) ||
            run->first >= seg->n_slots)
            fail("segment's era run %u out of order, repeated or past its slots (segment=%p, "
                 "first=%u, era=%lu, slots=%u)", (unsigned)r, (void *)seg, (unsigned)run->first,
                 (unsigned long)run->era, (unsigned)seg->n_slots);
    }
}

/* The header agrees with the class tables and the marks. */
static void check_segment_header(const Segment *seg, const BlockDesc *head)
{
    unsigned c = seg->size_class;
    if (c >= SEGMENT_CLASSES || seg->slot_words != segment_class_words[c] ||
        seg->n_slots != segment_class_slots[c] || segment_slots_end(seg) != head->free ||
        segment_slots_end(seg) > head->start + SEGMENT_WORDS || head->blocks != SEGMENT_BLOCKS)
        fail("segment header disagrees with its class (segment=%p, class=%u, slot words=%u, "
             "slots=%u, blocks=%u)", (void *)seg, c, (unsigned)seg->slot_words,
             (unsigned)seg->n_slots, (unsigned)head->blocks);
    for (unsigned k = 1; k < SEGMENT_BLOCKS; k++) {
        const BlockDesc *d = head + k;
        if (d->pad_node != k || !bd_is_segment(d))
            fail("segment's block descriptor %u does not point at its head (segment=%p)", k,
                 (void *)seg);
        if (d->gen_no != head->gen_no || d->gen != head->gen)
            fail("block of a segment on generation %u's list belongs to generation %u "
                 "(segment=%p, block %u)", (unsigned)head->gen_no, (unsigned)d->gen_no,
                 (void *)seg, k);
    }
}

/* A free slot reads as slop: all zero. */
static void check_free_slot(const Segment *seg, unsigned i)
{
    const StgWord *w = segment_slot(seg, i);
    for (unsigned k = 0; k < seg->slot_words; k++)
        if (w[k] != 0)
            fail("free slot of a segment is not zero (segment=%p, slot=%u, word %u=%#lx)",
                 (void *)seg, i, k, (unsigned long)w[k]);
}

void sanity_check_segment_objects(BlockDesc *head)
{
    const Segment *seg = (const Segment *)head->start;
    check_segment_header(seg, head);
    check_segment_eras(seg);
    unsigned used = 0, first_free = seg->n_slots;
    for (unsigned i = 0; i < seg->n_slots; i++) {
        uint8_t m = seg->marks[i];
        if (m == 0) {
            check_free_slot(seg, i);
            if (first_free == seg->n_slots)
                first_free = i;
            continue;
        }
        if (m > 2)
            fail("segment's mark byte is neither 0 nor an epoch (segment=%p, slot=%u, mark=%u)",
                 (void *)seg, i, (unsigned)m);
        used++;
        if (found_dead(seg, i))
            continue;   /* garbage the sweep has not reached */
        StgPtr p = segment_slot(seg, i), end = p + seg->slot_words;
        StgWord size = sanity_check_object((const StgClosure *)p, Bdescr(p), end);
        for (StgPtr w = p + size; w < end; w++)
            if (*w != 0)
                fail("slack after an object in its slot is not zero (object=%p, segment=%p, "
                     "word=%p)", (void *)p, (void *)seg, (void *)w);
    }
    if (used != seg->n_used)
        fail("segment counts %u allocated slots, its marks %u (segment=%p)",
             (unsigned)seg->n_used, used, (void *)seg);
    if (seg->next_free > first_free)
        fail("segment's free-slot hint skips a free slot (segment=%p, hint=%u, first free=%u)",
             (void *)seg, (unsigned)seg->next_free, first_free);
}

/* Counts the segments of one list, checking each belongs there. */
static StgWord check_list(const Segment *list, SegmentList which, int size_class)
{
    StgWord n = 0;
    for (const Segment *seg = list; seg != NULL; seg = seg->link, n++) {
        if (!(Bdescr(seg)->flags & BF_KNOWN))
            fail("segment on a list is not on the generation's list of segments (segment=%p)",
                 (void *)seg);
        bool fits = which == SEGMENT_ON_FREE     ? seg->n_used == 0
                    : which == SEGMENT_ON_FILLED ? seg->n_used == seg->n_slots
                    : which == SEGMENT_ON_ACTIVE ? seg->n_used > 0 && seg->n_used < seg->n_slots
                                                 : true;
        if (seg->list != which || (size_class >= 0 && seg->size_class != size_class) || !fits)
            fail("segment on the wrong list (segment=%p, list=%u, says %u, class=%u, used=%u of "
                 "%u)", (void *)seg, (unsigned)which, (unsigned)seg->list,
                 (unsigned)seg->size_class, (unsigned)seg->n_used, (unsigned)seg->n_slots);
    }
    return n;
}

void sanity_check_nonmoving_lists(void)
{
    StgWord on_lists = check_list(nonmoving_free_pool, SEGMENT_ON_FREE, -1);
    if (on_lists != nonmoving_n_free_pool)
        fail("the pool of free segments counts %lu, holds %lu",
             (unsigned long)nonmoving_n_free_pool, (unsigned long)on_lists);
    for (int c = 0; c < SEGMENT_CLASSES; c++) {
        on_lists += check_list(nonmoving_sweep_active[c], SEGMENT_ON_ACTIVE, c);
        on_lists += check_list(nonmoving_sweep_filled[c], SEGMENT_ON_FILLED, c);
        on_lists += check_list(nonmoving_active[c], SEGMENT_ON_ACTIVE, c);
        on_lists += check_list(nonmoving_filled[c], SEGMENT_ON_FILLED, c);
    }
    StgWord n = 0, blocks = 0;
    for (const BlockDesc *bd = oldest_gen->segments; bd != NULL; bd = bd->link, n++)
        blocks += bd->blocks;
    if (n != on_lists)
        fail("%lu segments in the non-moving generation, %lu on its lists", (unsigned long)n,
             (unsigned long)on_lists);
    /* What the running sweep freed comes off the count at the next
     * collection. */
    if (blocks + nonmoving_swept_pending.segment_blocks != oldest_gen->n_blocks)
        fail("the non-moving generation counts %lu blocks, its segments hold %lu (and %lu "
             "freed by its sweep)", (unsigned long)oldest_gen->n_blocks, (unsigned long)blocks,
             (unsigned long)nonmoving_swept_pending.segment_blocks);
    for (const BlockDesc *bd = oldest_gen->large_objects; bd != NULL; bd = bd->link)
        if (!(bd->flags & BF_NONMOVING) || (bd->flags & BF_NM_EPOCH_MASK) == 0)
            fail("large or pinned group of the non-moving generation not marked as its own "
                 "(block=%p, flags=%#x)", (void *)bd, (unsigned)bd->flags);
}
