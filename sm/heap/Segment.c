/*
 * sm/heap/Segment.c -- the size classes and the eras of the non-moving
 * generation's segments, and formatting a segment (Note [Segments] in
 * Segment.h).  Relies on the block allocator's groups (a segment is one)
 * and the block floor's era runs for objects outside segments.
 */
#include "Segment.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "BlockAlloc.h"
#include "EraRuns.h"
#include "Messages.h"

/* Note [Size classes]
 * ~~~~~~~~~~~~~~~~~~~
 * A slot holds one object of its class's size or less; what is left of
 * the slot is waste.  Every size from 2 to 16 words has a class of its
 * own (most objects are that small), and above that each doubling of the
 * size has eight classes, so a slot wastes under an eighth of itself;
 * from 128 to 256 words the step is 8 words, because a 1 KiB byte array
 * (130 words with its header: a message of the msgbuf benchmark, a
 * ByteString's buffer) is common: it takes a 136-word slot, 4.4% lost,
 * where GHC's power-of-two classes give it a 2 KiB slot.  The largest
 * class covers the largest object that is not a large object
 * (LARGE_OBJECT_THRESHOLD).  A segment holds as many slots and their mark
 * bytes as fit after its header: from 1,923 two-word slots to 9 of 416
 * words (8% of that segment unused). */
const uint16_t segment_class_words[SEGMENT_CLASSES] = {
    2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
    18, 20, 22, 24, 26, 28, 30, 32,
    36, 40, 44, 48, 52, 56, 60, 64,
    72, 80, 88, 96, 104, 112, 120, 128,
    136, 144, 152, 160, 168, 176, 184, 192, 200, 208, 216, 224, 232, 240, 248, 256,
    288, 320, 352, 384, 416,
};
_Static_assert(SEGMENT_MAX_OBJECT_WORDS <= 416, "the largest class holds every small object");

uint16_t segment_class_slots[SEGMENT_CLASSES];
uint8_t segment_class_of_words[SEGMENT_MAX_OBJECT_WORDS + 1];

/* Bytes before slot 0 in a segment of n slots. */
static StgWord header_bytes(unsigned n)
{
    return ROUND_UP_WORDS(offsetof(Segment, marks) + n) * WORD_SIZE;
}

void segment_classes_init(void)
{
    unsigned c = 0;
    for (StgWord w = 0; w <= SEGMENT_MAX_OBJECT_WORDS; w++) {
        while (segment_class_words[c] < w)
            c++;
        segment_class_of_words[w] = (uint8_t)c;
    }
    StgWord seg_bytes = SEGMENT_WORDS * WORD_SIZE;
    for (c = 0; c < SEGMENT_CLASSES; c++) {
        StgWord slot_bytes = (StgWord)segment_class_words[c] * WORD_SIZE;
        StgWord n = (seg_bytes - offsetof(Segment, marks)) / (slot_bytes + 1);
        while (header_bytes((unsigned)n) + n * slot_bytes > seg_bytes)
            n--;
        segment_class_slots[c] = (uint16_t)n;
    }
}

/* ----------------------------------------------------------------------
 * Formatting
 * ---------------------------------------------------------------------- */

/* The byte after the segment's last slot word. */
static char *segment_end(Segment *seg)
{
    return (char *)seg + SEGMENT_WORDS * WORD_SIZE;
}

static bool all_zero(const uint8_t *p, const char *end)
{
    for (; (const char *)p < end; p++)
        if (*p != 0)
            return false;
    return true;
}

void segment_reformat(Segment *seg, unsigned c)
{
    segment_release(seg);
    seg->link = NULL;
    seg->size_class = (uint8_t)c;
    seg->list = SEGMENT_ON_NONE;
    seg->slot_words = segment_class_words[c];
    seg->n_slots = segment_class_slots[c];
    seg->next_free = 0;
    seg->n_used = 0;
    seg->era = 0;
    seg->slots = (StgPtr)((char *)seg + header_bytes(seg->n_slots));
    /* Everything after the header is zero (the sweep zeroed what it
     * freed), so the old class's marks and slots read as the new class's
     * zero marks and free slots: nothing to clear. */
    ASSERT_EXPENSIVE(all_zero(seg->marks, segment_end(seg)));
    Bdescr(seg)->free = segment_slots_end(seg);
}

Segment *segment_format(BlockDesc *bd, unsigned c, struct Generation_ *gen, uint16_t gen_no)
{
    ASSERT(bd->blocks == SEGMENT_BLOCKS);
    for (unsigned k = 0; k < SEGMENT_BLOCKS; k++) {
        BlockDesc *d = bd + k;
        if (k > 0) {
            d->start = bd->start + (StgWord)k * BLOCK_SIZE_W;
            d->free = d->start;
            d->blocks = 0;
            d->link = bd;
            d->u.back = NULL;
        }
        d->gen = gen;
        d->dest_no = gen_no;
        d->flags = BF_NONMOVING;
        d->pad_node = (uint16_t)k;
        d->era = 0;
        d->n_era_runs = 0;
    }
    for (unsigned k = 1; k < SEGMENT_BLOCKS; k++)
        bd[k].gen_no = gen_no;   /* heads only count in the young-group map */
    block_set_gen_no(bd, gen_no);
    Segment *seg = (Segment *)bd->start;
    seg->runs = NULL;
    seg->n_runs = seg->cap_runs = 0;
    memset(seg->marks, 0, (size_t)(segment_end(seg) - (char *)seg->marks));
    segment_reformat(seg, c);
    return seg;
}

void segment_release(Segment *seg)
{
    free(seg->runs);
    seg->runs = NULL;
    seg->n_runs = seg->cap_runs = 0;
}

/* ----------------------------------------------------------------------
 * Eras
 * ---------------------------------------------------------------------- */

/* Note [The eras of a segment]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An object keeps the era it was allocated in when it is copied into a
 * segment (.inv.block-era), and a segment's slots are reused after each
 * sweep, so one segment may hold objects of several eras.  A segment of
 * one era keeps it in seg->era, at no cost per slot.  Otherwise it keeps
 * *runs*: sorted (first slot, era) pairs, the era of slot i being that of
 * the last run starting at or before it -- the era runs of a block
 * (EraRuns.h), indexed by slot, in the C heap because a segment's count
 * of them is not fixed.  Only allocated slots have an era that matters,
 * so giving slot i an era also gives it to the free slots after i, up to
 * the next allocated one: the collector fills a segment's free slots in
 * order, so the objects of one collection, mostly of one era, make one
 * run, however the slots they fill are scattered among live ones.  The
 * sweep rewrites the runs from the slots still allocated
 * (segment_compact_eras), merging runs that only freed slots separated,
 * and drops them when one era is left (a sweep beside the program leaves
 * that to the next collection: Note [The sweep beside the program] in
 * sm/NonMovingSweep.c).
 *
 * Rejected: an era per slot (eight bytes a slot in every segment of
 * several eras: +50% on two-word objects once a program changes era
 * regularly); one segment per era and class (a segment per live era per
 * class: 100,000 eras of a few objects would hold 3 GB); a dictionary of
 * eras and a byte or two per slot (costs every slot of a mixed segment,
 * where runs cost one record per change of era in slot order). */

uint64_t segment_era_run_lookup(const Segment *seg, unsigned i)
{
    uint32_t lo = 0, hi = seg->n_runs;   /* runs[lo].first <= i < runs[hi].first */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (seg->runs[mid].first <= i)
            lo = mid;
        else
            hi = mid;
    }
    return seg->runs[lo].era;
}

static void runs_reserve(Segment *seg, uint32_t n)
{
    if (n <= seg->cap_runs)
        return;
    uint32_t cap = seg->cap_runs < 4 ? 4 : seg->cap_runs;
    while (cap < n)
        cap *= 2;
    SegmentEraRun *r = realloc(seg->runs, cap * sizeof *r);
    if (r == NULL)
        rts_panic("out of C heap for a segment's era runs (runs=%u)", (unsigned)n);
    seg->runs = r;
    seg->cap_runs = cap;
}

/* The index of the first run starting at or after slot i. */
static uint32_t first_run_from(const Segment *seg, unsigned i)
{
    uint32_t lo = 0, hi = seg->n_runs;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (seg->runs[mid].first < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void runs_insert(Segment *seg, uint32_t at, unsigned first, uint64_t era)
{
    runs_reserve(seg, seg->n_runs + 1);
    memmove(&seg->runs[at + 1], &seg->runs[at], (seg->n_runs - at) * sizeof seg->runs[0]);
    seg->runs[at] = (SegmentEraRun){.era = era, .first = first};
    seg->n_runs++;
}

bool segment_set_era(Segment *seg, unsigned i, unsigned free_end, uint64_t era)
{
    ASSERT(i < free_end && free_end <= seg->n_slots && seg->marks[i] == 0);
    if (segment_era_at(seg, i) == era)
        return true;
    if (seg->runs == NULL) {
        if (seg->n_used == 0) {
            seg->era = era;   /* an empty segment takes the era whole */
            return true;
        }
        runs_reserve(seg, 4);
        seg->runs[0] = (SegmentEraRun){.era = seg->era, .first = 0};
        seg->n_runs = 1;
    }
    bool has_after = free_end < seg->n_slots;
    uint64_t after = has_after ? segment_era_at(seg, free_end) : 0;
    /* The runs starting in [i, free_end] cover only free slots and the
     * slot free_end, whose era is put back below. */
    uint32_t lo = first_run_from(seg, i), hi = first_run_from(seg, free_end + 1);
    memmove(&seg->runs[lo], &seg->runs[hi], (seg->n_runs - hi) * sizeof seg->runs[0]);
    seg->n_runs -= hi - lo;
    uint32_t at = lo;
    if (at == 0 || seg->runs[at - 1].era != era)
        runs_insert(seg, at++, i, era);
    if (has_after && after != era)
        runs_insert(seg, at++, free_end, after);
    /* A following run of the era just before it says nothing. */
    if (at < seg->n_runs && at > 0 && seg->runs[at].era == seg->runs[at - 1].era) {
        memmove(&seg->runs[at], &seg->runs[at + 1], (seg->n_runs - at - 1) * sizeof seg->runs[0]);
        seg->n_runs--;
    }
    return true;
}

bool segment_compact_eras(Segment *seg)
{
    if (seg->runs == NULL)
        return true;
    SegmentEraRun *out = malloc(seg->n_runs * sizeof *out);
    if (out == NULL)
        return false;
    uint32_t n_out = 0, r = 0;
    for (unsigned i = 0; i < seg->n_slots; i++) {
        if (seg->marks[i] == 0)
            continue;
        while (r + 1 < seg->n_runs && seg->runs[r + 1].first <= i)
            r++;
        uint64_t era = seg->runs[r].era;
        if (n_out == 0)
            out[n_out++] = (SegmentEraRun){.era = era, .first = 0};
        else if (out[n_out - 1].era != era)
            out[n_out++] = (SegmentEraRun){.era = era, .first = i};
    }
    if (n_out <= 1) {
        if (n_out == 1)
            seg->era = out[0].era;
        free(out);
        segment_release(seg);
        return true;
    }
    free(seg->runs);
    seg->runs = out;
    seg->n_runs = n_out;
    seg->cap_runs = n_out;
    return true;
}

uint64_t heap_object_era(const void *p)
{
    const BlockDesc *bd = Bdescr(p);
    if (bd_is_segment(bd)) {
        const Segment *seg = segment_of_bd(bd);
        return segment_era_at(seg, segment_slot_index(seg, p));
    }
    return block_era_at(bd, p);
}
