/*
 * sm/heap/Segment.h -- the non-moving generation's segments: the layout of
 * one segment (a header, a mark byte per slot, then slots of one size),
 * the size classes, finding an object's segment and slot, and the era of
 * a slot.  The collector (sm/NonMoving*.c) allocates, marks and sweeps
 * segments; every heap walker (HeapIter.h, the census, the debugger, the
 * sanity checker) reads them through this header.
 *
 * Note [Segments]
 * ~~~~~~~~~~~~~~~
 * With +RTS --nonmoving-gc the oldest generation holds small objects in
 * segments: groups of SEGMENT_BLOCKS blocks (32 KiB) cut into slots of
 * one size class.  An object copied into the generation takes the first
 * free slot of its class and never moves again.  The segment's first
 * words are its header (Segment), then one mark byte per slot, then the
 * slots, word aligned.  Every block descriptor of a segment says
 * BF_NONMOVING (as does a large or pinned group of the generation, with
 * BF_LARGE or BF_PINNED), the oldest generation, and in pad_node its index in the
 * segment, so the segment of any object is two subtractions away
 * (segment_of).  A mark byte holds 0 for a free slot, or the epoch (1 or
 * 2) of the cycle that last marked or allocated it (Note [Mark epochs] in
 * sm/NonMoving.c).
 *
 * Zero words are slop to every heap walker (HeapIter.h), so a segment's
 * free slots and the words after an object in its slot are kept zero:
 * a fresh segment is zeroed, the sweep zeroes each slot it frees (and
 * the marks of a segment it keeps), and a segment taken from the pool is
 * already all zero after its header (Note [What the sweep zeroes] in
 * NonMovingSweep.c).
 * So the slots of a segment read as a block of objects separated by slop
 * (segment_slots .. segment_slots_end), and a walker that does not know
 * segments still finds every object in them; one that must tell live
 * from dead reads the mark bytes.
 */
#ifndef STRATA_SEGMENT_H
#define STRATA_SEGMENT_H

#include <stdbool.h>
#include <stdint.h>

#include "strata/Block.h"
#include "strata/Closures.h"

#define SEGMENT_BLOCKS 8
#define SEGMENT_WORDS ((StgWord)SEGMENT_BLOCKS * BLOCK_SIZE_W)

/* The size classes (Note [Size classes] in Segment.c): slot sizes from 2
 * words up to SEGMENT_MAX_OBJECT_WORDS, the largest object that is not a
 * large object. */
#define SEGMENT_CLASSES 60
#define SEGMENT_MAX_OBJECT_WORDS ((StgWord)(LARGE_OBJECT_THRESHOLD / WORD_SIZE) - 1)

/* A run of slots of one era (Note [The eras of a segment] in Segment.c). */
typedef struct {
    uint64_t era;
    uint32_t first;              /* index of the run's first slot */
    uint32_t pad;
} SegmentEraRun;

/* Which list holds a segment (sm/NonMovingAlloc.c). */
typedef enum {
    SEGMENT_ON_NONE = 0,         /* being set up, or a GC thread's current one */
    SEGMENT_ON_ACTIVE,           /* its class's list of segments with free slots
                                    (or, until swept, the sweep's copy of it) */
    SEGMENT_ON_FILLED,           /* its class's list of full segments, or the
                                    sweep's copy of either list */
    SEGMENT_ON_FREE,             /* the pool of empty segments */
} SegmentList;

typedef struct Segment_ {
    struct Segment_ *link;       /* next on the list that holds it */
    uint8_t size_class;          /* index into the class tables */
    uint8_t list;                /* SegmentList: which list holds it */
    uint16_t slot_words;         /* words per slot */
    uint16_t n_slots;
    uint16_t next_free;          /* no free slot below it (a hint: 0 is safe) */
    uint16_t n_used;             /* slots whose mark byte is not 0 */
    uint16_t pad16;
    uint32_t pad32;
    uint64_t era;                /* every slot's era while runs == NULL */
    SegmentEraRun *runs;         /* C heap, by increasing first, runs[0].first
                                    == 0; NULL while one era covers all */
    uint32_t n_runs, cap_runs;
    StgPtr slots;                /* slot 0; slot i at slots + i * slot_words */
    uint8_t marks[];             /* [n_slots]: 0 free, else an epoch */
} Segment;

/* The slot size and slot count of each class, and the class of an object
 * of n words (2 <= n <= SEGMENT_MAX_OBJECT_WORDS). */
extern const uint16_t segment_class_words[SEGMENT_CLASSES];
extern uint16_t segment_class_slots[SEGMENT_CLASSES];
extern uint8_t segment_class_of_words[SEGMENT_MAX_OBJECT_WORDS + 1];

/* Fills the tables above (heap_init). */
void segment_classes_init(void);

static inline unsigned segment_class_of(StgWord n_words)
{
    return segment_class_of_words[n_words < 2 ? 2 : n_words];
}

/* The head descriptor of the segment holding block bd (BF_NONMOVING). */
static inline BlockDesc *segment_head_bd(const BlockDesc *bd)
{
    return (BlockDesc *)bd - bd->pad_node;
}

static inline Segment *segment_of_bd(const BlockDesc *bd)
{
    return (Segment *)segment_head_bd(bd)->start;
}

static inline Segment *segment_of(const void *p)
{
    return segment_of_bd(Bdescr(p));
}

/* A block of a segment: BF_NONMOVING without BF_LARGE or BF_PINNED (a
 * large or pinned group of the generation carries BF_NONMOVING too). */
static inline bool bd_is_segment(const BlockDesc *bd)
{
    uint16_t f = __atomic_load_n(&bd->flags, __ATOMIC_RELAXED);
    return (f & (BF_NONMOVING | BF_LARGE | BF_PINNED)) == BF_NONMOVING;
}

static inline StgPtr segment_slot(const Segment *seg, unsigned i)
{
    return seg->slots + (StgWord)i * seg->slot_words;
}

static inline StgPtr segment_slots_end(const Segment *seg)
{
    return segment_slot(seg, seg->n_slots);
}

/* The slot holding p, which lies in seg's slots. */
static inline unsigned segment_slot_index(const Segment *seg, const void *p)
{
    return (unsigned)((uint32_t)((const StgWord *)p - seg->slots) / seg->slot_words);
}

/* Whether p is the start of a slot of seg. */
static inline bool segment_is_slot_start(const Segment *seg, const void *p)
{
    const StgWord *w = (const StgWord *)p;
    return w >= seg->slots && w < segment_slots_end(seg) &&
           (StgWord)(w - seg->slots) % seg->slot_words == 0;
}

/* The era of slot i (Note [The eras of a segment] in Segment.c). */
uint64_t segment_era_run_lookup(const Segment *seg, unsigned i);
static inline uint64_t segment_era_at(const Segment *seg, unsigned i)
{
    return seg->runs == NULL ? seg->era : segment_era_run_lookup(seg, i);
}

/* Gives slot i, which is being allocated, the era era.  The slots from i
 * up to free_end (exclusive) are free, so their eras may change too;
 * slot free_end and those after keep theirs.  Call before the slot's mark
 * byte is set.  Returns false when the C heap is exhausted. */
bool segment_set_era(Segment *seg, unsigned i, unsigned free_end, uint64_t era);

/* Rewrites seg's runs from its allocated slots only (after a sweep freed
 * some), dropping them when one era is left.  Returns false when the C
 * heap is exhausted (the runs are then left as they were: still right). */
bool segment_compact_eras(Segment *seg);

/* Formats a fresh group of SEGMENT_BLOCKS blocks (head bd) as an empty
 * segment of class c in generation gen_no: the descriptors, the header,
 * zeroed marks and slots. */
Segment *segment_format(BlockDesc *bd, unsigned c, struct Generation_ *gen, uint16_t gen_no);

/* Makes an emptied segment ready for class c.  Everything after its
 * header must already be zero (every mark byte, every slot): nothing is
 * cleared, so taking a segment from the pool costs no 32 KiB memset. */
void segment_reformat(Segment *seg, unsigned c);

/* Frees seg's era runs (before its blocks go back). */
void segment_release(Segment *seg);

/* The era of any heap object: its slot's if it is in a segment, else its
 * block's (block_era_at). */
uint64_t heap_object_era(const void *p);

#endif /* STRATA_SEGMENT_H */
