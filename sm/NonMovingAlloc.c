/*
 * sm/NonMovingAlloc.c -- promotion into the non-moving generation: the
 * segment lists, the slot a copy takes, and the list of copies each GC
 * thread still has to scan.  Runs in the copying collector's threads
 * with the world stopped.  Relies on the segment layout (Segment.h), the
 * GC threads (GCThread.h) and the scan of one object (Scav.c).  See Note
 * [Segments] in Segment.h and Note [Promoting into segments] below.
 *
 * Note [Promoting into segments]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A copy bound for the oldest generation takes a slot in one of the
 * copying thread's current segments, one per size class, so no lock is
 * taken per copy; a thread whose current segment of a class is full
 * takes the next from its class's list of segments with free slots, the
 * pool of empty ones, or the block allocator, under one lock.  Within a
 * segment a copy takes the first free slot at or after the segment's
 * hint, so one collection's copies fill the holes a sweep left in order
 * (and share era runs: Note [The eras of a segment] in Segment.c).  The
 * slot's mark byte is set to the current epoch as it is taken: a copy
 * made while a cycle marks is marked already (allocated black), and one
 * made between cycles waits for the next cycle's mark like any object.
 *
 * Copies into segments are not contiguous, so the Cheney scan of to-space
 * blocks cannot find them: each thread lists its copies in a block of
 * pointers (its todo block) and scans them from the end, as a stack.  A
 * full todo block is given up onto the thread's deque in a parallel
 * collection, where another thread may take it (a BF_NM_TODO block), only
 * when the next copy needs a new block: by then every copy it lists is
 * complete.  A copy taken back (another thread won the object) was the
 * thread's latest, so its slot is freed and its entry popped.
 * At the end of each collection every current segment goes back to its
 * list, so between collections each segment is on exactly one list and
 * the sweep may take any of them.
 */
#include "NonMovingPrivate.h"

#include <string.h>

#include "BlockAlloc.h"
#include "ClosureSize.h"
#include "GCPrivate.h"
#include "GCThread.h"
#include "Messages.h"

OsMutex nonmoving_segments_lock = OS_MUTEX_INIT;
Segment *nonmoving_active[SEGMENT_CLASSES];
Segment *nonmoving_filled[SEGMENT_CLASSES];
Segment *nonmoving_free_pool;
StgWord nonmoving_n_free_pool;
Segment *nonmoving_sweep_active[SEGMENT_CLASSES];
Segment *nonmoving_sweep_filled[SEGMENT_CLASSES];

/* Segments in use (on the generation's list, the pool included), and
 * blocks of them added since the generation was last counted. */
static StgWord n_segments;
static StgWord new_segment_blocks;

/* The pool keeps at most this many empty segments, plus one for each
 * NONMOVING_POOL_SHARE in use. */
#define NONMOVING_POOL_MIN 16
#define NONMOVING_POOL_SHARE 32

/* ----------------------------------------------------------------------
 * Lists
 * ---------------------------------------------------------------------- */

static void push(Segment **list, Segment *seg, SegmentList which)
{
    seg->link = *list;
    seg->list = (uint8_t)which;
    *list = seg;
}

static Segment *pop(Segment **list)
{
    Segment *seg = *list;
    if (seg != NULL) {
        *list = seg->link;
        seg->link = NULL;
        seg->list = SEGMENT_ON_NONE;
    }
    return seg;
}

void nonmoving_segment_put_locked(Segment *seg)
{
    unsigned c = seg->size_class;
    if (seg->n_used == 0)
        push(&nonmoving_free_pool, seg, SEGMENT_ON_FREE), nonmoving_n_free_pool++;
    else if (seg->n_used == seg->n_slots)
        push(&nonmoving_filled[c], seg, SEGMENT_ON_FILLED);
    else
        push(&nonmoving_active[c], seg, SEGMENT_ON_ACTIVE);
}

bool nonmoving_pool_has_room(void)
{
    return nonmoving_n_free_pool < NONMOVING_POOL_MIN + n_segments / NONMOVING_POOL_SHARE;
}

BlockDesc *nonmoving_segment_release_locked(Segment *seg)
{
    ASSERT(seg->n_used == 0);
    if (nonmoving_pool_has_room()) {
        segment_release(seg);
        push(&nonmoving_free_pool, seg, SEGMENT_ON_FREE);
        nonmoving_n_free_pool++;
        return NULL;
    }
    segment_release(seg);
    BlockDesc *head = Bdescr(seg);
    dbl_link_remove(head, &oldest_gen->segments);
    n_segments--;
    return head;
}

/* A segment of class c with a free slot, for a GC thread's copies. */
static Segment *take_segment(unsigned c)
{
    bool locked = gct->parallel;
    if (locked)
        os_mutex_lock(&nonmoving_segments_lock);
    Segment *seg = pop(&nonmoving_active[c]);
    if (seg == NULL && (seg = pop(&nonmoving_free_pool)) != NULL) {
        nonmoving_n_free_pool--;
        segment_reformat(seg, c);
    }
    if (seg == NULL) {
        sm_lock();
        BlockDesc *bd = block_alloc_group(SEGMENT_BLOCKS);
        sm_unlock();
        if (bd == NULL) {
            if (locked)
                os_mutex_unlock(&nonmoving_segments_lock);
            storage_heap_overflow(SEGMENT_WORDS * WORD_SIZE);
        }
        seg = segment_format(bd, c, oldest_gen, oldest_gen->no);
        dbl_link_onto(bd, &oldest_gen->segments);
        n_segments++;
        new_segment_blocks += SEGMENT_BLOCKS;
    }
    if (locked)
        os_mutex_unlock(&nonmoving_segments_lock);
    return seg;
}

static void put_segment(Segment *seg)
{
    bool locked = gct->parallel;
    if (locked)
        os_mutex_lock(&nonmoving_segments_lock);
    nonmoving_segment_put_locked(seg);
    if (locked)
        os_mutex_unlock(&nonmoving_segments_lock);
}

/* ----------------------------------------------------------------------
 * The copies to scan
 * ---------------------------------------------------------------------- */

static void give_up_todo(GCThread *t, NonMovingThread *nm, BlockDesc *bd)
{
    if (t->parallel) {
        gc_share_block(bd);
        return;
    }
    bd->link = nm->todo_full;
    nm->todo_full = bd;
}

static void todo_push(GCThread *t, NonMovingThread *nm, StgPtr copy)
{
    BlockDesc *bd = nm->todo;
    if (bd == NULL || bd->free >= bd->start + BLOCK_SIZE_W) {
        if (bd != NULL)
            give_up_todo(t, nm, bd);
        bd = gc_alloc_pointer_block();
        bd->flags = BF_NM_TODO;
        bd->link = NULL;
        nm->todo = bd;
    }
    *bd->free++ = (StgWord)copy;
}

/* Scans c, a copy into the generation: its children are copied into the
 * generation too (eager promotion), or c is remembered. */
static inline __attribute__((always_inline)) void scan_copy(GCThread *t, StgClosure *c)
{
    t->evac_gen = oldest_gen->no;
    t->failed_to_evac = false;
    StgWord size = scavenge_heap_object(c);
    if (t->failed_to_evac)
        gc_remember(oldest_gen->no, c);
    /* Counted after the scan, which may clean a dirty object's header
     * (Note [Counting during the GC] in LiveTally.c). */
    if (t->tally != NULL) {
        uint64_t era = heap_object_era(c);
        if (live_tally_counts_era(t->tally, era))
            live_tally_count(t->tally, c->info, era, size);
    }
}

static void scan_todo_block(GCThread *t, BlockDesc *bd)
{
    while (bd->free > bd->start)
        scan_copy(t, (StgClosure *)*--bd->free);
    bd->link = t->nm->spent;
    t->nm->spent = bd;
}

/* How many copies nonmoving_scavenge_own scans in one call, while the
 * thread's scan queue stays empty (so the queue keeps its turn, as when
 * each call scanned one): one call per copy cost binary-trees 5% of its
 * pause instructions in the calls' entries and exits. */
#define OWN_SCAN_BATCH 64u

bool nonmoving_scavenge_own(void)
{
    GCThread *t = gct;
    NonMovingThread *nm = t->nm;
    if (nm == NULL)
        return false;
    /* nm->todo is read again after each scan: a scan's copies may give
     * the block up (give_up_todo) and start another. */
    unsigned n = 0;
    for (BlockDesc *bd; n < OWN_SCAN_BATCH && (bd = nm->todo) != NULL && bd->free > bd->start;
         n++) {
        if (n > 0 && t->scan_queue_len > 0)
            break;
        scan_copy(t, (StgClosure *)*--bd->free);
    }
    if (n > 0)
        return true;
    BlockDesc *bd = nm->todo_full;
    if (bd == NULL)
        return false;
    nm->todo_full = bd->link;
    scan_todo_block(t, bd);
    return true;
}

void nonmoving_scavenge_todo_block(BlockDesc *bd)
{
    scan_todo_block(gct, bd);
}

/* ----------------------------------------------------------------------
 * Copies
 * ---------------------------------------------------------------------- */

/* Note [The common copy into a segment]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Under --nonmoving-gc most copies out of the nursery land here, so the
 * common case -- the class's current segment has a free slot, its slots
 * are of one era and it is the copy's, and the todo block has room -- is
 * nonmoving_alloc_copy_inline (NonMoving.h), inlined into the copy's
 * slow path in Evac.c; nonmoving_alloc_copy below does the same with
 * every other case handled (a segment taken, an era run begun, a todo
 * block given up).  Both take the first free slot at or after the hint
 * through nonmoving_first_free_slot and nonmoving_take_slot, so they fill
 * a segment in the same order.  Out of line, the call, with the scan's below,
 * cost binary-trees 8% of its pause instructions
 * (bench/optimisations.md, "the common copy into a segment, inline"). */

/* Note [Copies with nothing to scan]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A copy whose info table gives it a fixed layout without pointers (a
 * box: an Int, a Double, a constructor of non-pointer fields only) has
 * nothing for the scan to evacuate and never needs remembering, so it is
 * not listed in the todo block (nonmoving_copy_needs_scan): mutarray's
 * minor collections copy a box into the generation for nearly every
 * element the program wrote, and listing and scanning each one had cost
 * about a sixth of their instructions (bench/optimisations.md, "issue 50,
 * session 10").  A collection that counts a census still lists them: the
 * scan is where a copy is counted (scan_copy).  nonmoving_retract_copy
 * asks the same question of the copy's header, which is written before a
 * claim can fail. */

/* How far a copy of a new era looks for free slots after its own. */
#define ERA_FREE_SCAN 32u

StgPtr nonmoving_alloc_copy(StgWord n_words, uint64_t era, bool scan)
{
    GCThread *t = gct;
    NonMovingThread *nm = t->nm;
    ASSERT(n_words <= SEGMENT_MAX_OBJECT_WORDS);
    unsigned c = segment_class_of(n_words);
    Segment *seg = nm->current[c];
    if (STRATA_UNLIKELY(seg == NULL || seg->n_used == seg->n_slots)) {
        if (seg != NULL)
            put_segment(seg);
        seg = nm->current[c] = take_segment(c);
    }
    unsigned i = nonmoving_first_free_slot(seg);
    if (STRATA_UNLIKELY(segment_era_at(seg, i) != era)) {
        /* Free slots after i that may take the era too: a few suffice (the
         * runs stay exact, at most one run more until the slots fill), and
         * scanning a fresh segment's whole free tail at every change of
         * era cost 4,000 instructions a copy at 100,000 eras. */
        unsigned end = i + 1;
        while (end < seg->n_slots && end - i < ERA_FREE_SCAN && seg->marks[end] == 0)
            end++;
        segment_set_era(seg, i, end, era);
    }
    StgPtr to = nonmoving_take_slot(seg, i);
    if (scan)
        todo_push(t, nm, to);
    return to;
}

void nonmoving_retract_copy(StgPtr to)
{
    Segment *seg = segment_of(to);
    unsigned i = segment_slot_index(seg, to);
    GCThread *t = gct;
    NonMovingThread *nm = t->nm;
    if (nonmoving_copy_needs_scan(((StgClosure *)to)->info, t->tally != NULL)) {
        ASSERT(nm->todo != NULL && nm->todo->free > nm->todo->start &&
               nm->todo->free[-1] == (StgWord)to);
        nm->todo->free--;
    }
    memset(to, 0, (size_t)seg->slot_words * WORD_SIZE);   /* free slots read as slop */
    __atomic_store_n(&seg->marks[i], 0, __ATOMIC_RELAXED);
    seg->n_used--;
    if (i < seg->next_free)
        seg->next_free = (uint16_t)i;
}

void nonmoving_gc_reached(StgClosure *q)
{
    GCThread *t = gct;
    if (!t->nm_push || nonmoving_is_marked(q))
        return;
    if (__atomic_load_n(&q->info, __ATOMIC_ACQUIRE)->type == BLACKHOLE)
        nonmoving_mark_blackhole_stw(&t->nm->reached, q, t->tally);   /* Note [The snapshot] */
    else
        mark_queue_push(&t->nm->reached, q, 0);
}

void nonmoving_adopt_group(BlockDesc *bd)
{
    uint16_t flags = __atomic_load_n(&bd->flags, __ATOMIC_RELAXED);
    flags = (uint16_t)((flags & ~BF_NM_EPOCH_MASK) | BF_NONMOVING |
                       ((unsigned)nonmoving_epoch << BF_NM_EPOCH_SHIFT));
    __atomic_store_n(&bd->flags, flags, __ATOMIC_RELAXED);
}

/* ----------------------------------------------------------------------
 * The end of a collection
 * ---------------------------------------------------------------------- */

static void free_todo_chain(BlockDesc *bd)
{
    for (BlockDesc *next; bd != NULL; bd = next) {
        next = bd->link;
        ASSERT(bd->free == bd->start);   /* every copy was scanned */
        block_free_group(bd);
    }
}

void nonmoving_gc_done(void)
{
    for (unsigned i = 0; i < gc_threads_max; i++) {
        GCThread *t = gc_threads[i];
        NonMovingThread *nm = t->nm;
        for (unsigned c = 0; c < SEGMENT_CLASSES; c++) {
            if (nm->current[c] != NULL)
                nonmoving_segment_put_locked(nm->current[c]);
            nm->current[c] = NULL;
        }
        free_todo_chain(nm->todo);
        free_todo_chain(nm->todo_full);
        free_todo_chain(nm->spent);
        nm->todo = nm->todo_full = nm->spent = NULL;
        mark_queue_append(&nonmoving_queue, &nm->reached);
        t->nm_push = false;
    }
    oldest_gen->n_blocks += new_segment_blocks;
    new_segment_blocks = 0;
}

void nonmoving_occupancy(NonMovingOccupancy *out)
{
    memset(out, 0, sizeof *out);
    for (BlockDesc *bd = oldest_gen->segments; bd != NULL; bd = bd->link) {
        Segment *seg = (Segment *)bd->start;
        if (seg->list == SEGMENT_ON_FREE) {
            out->free_segments++;
            continue;
        }
        out->segments++;
        out->slot_words += (StgWord)seg->n_slots * seg->slot_words;
        out->used_slot_words += (StgWord)seg->n_used * seg->slot_words;
    }
}

/* ----------------------------------------------------------------------
 * Start-up
 * ---------------------------------------------------------------------- */

void nonmoving_alloc_init(void)
{
    memset(nonmoving_active, 0, sizeof nonmoving_active);
    memset(nonmoving_filled, 0, sizeof nonmoving_filled);
    nonmoving_free_pool = NULL;
    nonmoving_n_free_pool = 0;
    memset(nonmoving_sweep_active, 0, sizeof nonmoving_sweep_active);
    memset(nonmoving_sweep_filled, 0, sizeof nonmoving_sweep_filled);
    n_segments = 0;
    new_segment_blocks = 0;
}
