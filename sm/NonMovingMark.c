/*
 * sm/NonMovingMark.c -- the mark queue and the marking of the non-moving
 * generation (NonMovingMark.h): an object of the generation is marked by
 * its slot's mark byte, or a large or pinned group by the epoch bits of
 * its descriptor, and traced by pushing the objects of the generation its
 * fields point at.  Relies on the segment layout (Segment.h) and the
 * closure layouts (ClosureSize.h).  See Note [Mark epochs] in NonMoving.c.
 *
 * Note [Tracing beside the mutators]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A mark that runs beside the mutators sees them change the objects it
 * reads (never the collector, which stops it).  A
 * field is read once, with a relaxed atomic load, and only a value that
 * lies in the generation is pushed; a young object is new since the
 * snapshot and needs no mark (Note [The snapshot] in NonMoving.c), and
 * checking its block is safe because no collection runs between the
 * load and the check.  The value read may be the one at the snapshot or
 * a later one; the write barrier logged the snapshot's value before any
 * write replaced it, so either way everything the snapshot reached gets
 * marked.  The info pointer is loaded with acquire (a thunk's update
 * publishes its indirectee with a release store).  A BLACKHOLE's words
 * are not read at all: its header word 1 holds the thunk's info table,
 * but an update writes the indirectee there before the IND info pointer,
 * so a reader could take a closure for an info table.  Nothing is lost:
 * a thunk that became a BLACKHOLE after the snapshot had its free
 * variables logged by whoever blackholed it (rts/Eval.c), and one that
 * was a BLACKHOLE at the snapshot was traced in the snapshot's pause,
 * where nothing moves (nonmoving_gc_reached).  A TSO's and a STACK's
 * links are not read either: the root source queued every chunk of every
 * thread at the snapshot, and the program relinks them without atomics.
 * A mutable array is traced
 * MARK_ARRAY_CHUNK elements at a time, the rest pushed back, so that a
 * large array neither floods the queue nor keeps the mark thread from
 * parking.  A STACK's frames are roots, read only in a pause; here only
 * its link to the older chunk is traced.
 */
#include "NonMovingMark.h"

#include <stdlib.h>

#include "ClosureSize.h"
#include "Heap.h"
#include "MBlock.h"
#include "Messages.h"
#include "os/Thread.h"

uint8_t nonmoving_epoch = 1;
StgWord nonmoving_marked_words = 0;
StgWord nonmoving_marked_objects = 0;

/* Elements of a mutable array traced per queue entry. */
#define MARK_ARRAY_CHUNK 128

/* Objects marked between two looks at whether the world is stopping. */
#define MARK_STOP_CHECK_EVERY 256

/* ----------------------------------------------------------------------
 * The queue
 * ---------------------------------------------------------------------- */

/* Note [The mark queue's chunks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The snapshot's collection fills the GC threads' queues, which the mark
 * thread then empties: chunks taken from the C heap on one thread were
 * freed on another, at every cycle.  Each free that left much of an arena
 * unused gave it back to the kernel, and each malloc that outgrew one
 * asked for it again; both take the process's memory-map lock for
 * writing, which waits for every page fault and populate call in
 * flight.  msgbuf 200000 1000000 movable under perf's sched_switch: the
 * mark thread blocked 5 ms in such a malloc while the program waited to
 * stop the world for a minor collection (stop_world), a stall in no
 * pause.  So an emptied chunk goes to a pool shared by every queue, up
 * to MARK_CHUNK_POOL_MAX chunks (4 MiB), and a queue takes chunks from
 * it first: the next cycles reuse the chunks of the first. */
#define MARK_CHUNK_POOL_MAX 1024

static OsMutex chunk_pool_lock = OS_MUTEX_INIT;
static MarkChunk *chunk_pool;          /* under chunk_pool_lock */
static unsigned chunk_pool_n;          /* under chunk_pool_lock */
StgWord nonmoving_mark_chunks_allocated;   /* under chunk_pool_lock */

static MarkChunk *chunk_get(void)
{
    os_mutex_lock(&chunk_pool_lock);
    MarkChunk *c = chunk_pool;
    if (c != NULL) {
        chunk_pool = c->next;
        chunk_pool_n--;
    } else {
        nonmoving_mark_chunks_allocated++;
    }
    os_mutex_unlock(&chunk_pool_lock);
    if (c == NULL && (c = malloc(sizeof *c)) == NULL)
        rts_panic("out of C heap for the non-moving mark queue");
    return c;
}

static void chunk_put(MarkChunk *c)
{
    os_mutex_lock(&chunk_pool_lock);
    bool keep = chunk_pool_n < MARK_CHUNK_POOL_MAX;
    if (keep) {
        c->next = chunk_pool;
        chunk_pool = c;
        chunk_pool_n++;
    }
    os_mutex_unlock(&chunk_pool_lock);
    if (!keep)
        free(c);
}

void mark_chunk_pool_exit(void)
{
    os_mutex_lock(&chunk_pool_lock);
    for (MarkChunk *c = chunk_pool, *next; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    chunk_pool = NULL;
    chunk_pool_n = 0;
    nonmoving_mark_chunks_allocated = 0;
    os_mutex_unlock(&chunk_pool_lock);
}

void mark_queue_push_slow(MarkQueue *q, StgClosure *p, StgWord from)
{
    MarkChunk *c = q->spare;
    if (c != NULL)
        q->spare = NULL;
    else
        c = chunk_get();
    c->n = 0;
    c->next = q->top;
    q->top = c;
    c->e[c->n++] = (MarkEntry){p, from};
}

bool mark_queue_pop(MarkQueue *q, MarkEntry *out)
{
    for (;;) {
        MarkChunk *c = q->top;
        if (c == NULL)
            return false;
        if (c->n > 0) {
            *out = c->e[--c->n];
            return true;
        }
        q->top = c->next;
        if (q->spare == NULL)
            q->spare = c;
        else
            chunk_put(c);
    }
}

void mark_queue_append(MarkQueue *into, MarkQueue *from)
{
    MarkChunk *c = from->top;
    if (c != NULL) {
        MarkChunk *last = c;
        while (last->next != NULL)
            last = last->next;
        last->next = into->top;
        into->top = c;
        from->top = NULL;
    }
}

void mark_queue_free(MarkQueue *q)
{
    for (MarkChunk *c = q->top, *next; c != NULL; c = next) {
        next = c->next;
        chunk_put(c);
    }
    if (q->spare != NULL)
        chunk_put(q->spare);
    q->top = q->spare = NULL;
}

/* ----------------------------------------------------------------------
 * Marks
 * ---------------------------------------------------------------------- */

static inline uint8_t *slot_mark(const StgClosure *p, const BlockDesc *bd)
{
    Segment *seg = segment_of_bd(bd);
    return &seg->marks[segment_slot_index(seg, p)];
}

bool nonmoving_is_marked(const StgClosure *p)
{
    const BlockDesc *bd = Bdescr(p);
    if (bd_is_segment(bd))
        return __atomic_load_n(slot_mark(p, bd), __ATOMIC_RELAXED) == nonmoving_epoch;
    return nonmoving_group_epoch(bd) == nonmoving_epoch;
}

StgClosure *nonmoving_alive_or_null(StgClosure *p)
{
    for (;;) {
        if (p == NULL || !nonmoving_holds(p))
            return p;
        if (p->info->type != IND)
            return nonmoving_is_marked(p) ? p : NULL;
        p = ((StgInd *)p)->indirectee;
    }
}

bool nonmoving_mark(const StgClosure *p)
{
    BlockDesc *bd = Bdescr(p);
    if (bd_is_segment(bd)) {
        uint8_t *m = slot_mark(p, bd);
        uint8_t old = __atomic_load_n(m, __ATOMIC_RELAXED);
        ASSERT(old != 0);   /* a free slot is reachable from nothing */
        if (old == nonmoving_epoch)
            return false;
        __atomic_store_n(m, nonmoving_epoch, __ATOMIC_RELAXED);
        return true;
    }
    /* A large object is its group's head; a pinned byte array lies in its
     * (single) pinned block. */
    uint16_t flags = __atomic_load_n(&bd->flags, __ATOMIC_RELAXED);
    uint16_t want = (uint16_t)((flags & ~BF_NM_EPOCH_MASK) |
                               ((unsigned)nonmoving_epoch << BF_NM_EPOCH_SHIFT));
    if (flags == want)
        return false;
    __atomic_store_n(&bd->flags, want, __ATOMIC_RELAXED);
    return true;
}

bool nonmoving_mark_atomic(const StgClosure *p)
{
    BlockDesc *bd = Bdescr(p);
    if (bd_is_segment(bd))
        return __atomic_exchange_n(slot_mark(p, bd), nonmoving_epoch, __ATOMIC_RELAXED) !=
               nonmoving_epoch;
    uint16_t flags = __atomic_load_n(&bd->flags, __ATOMIC_RELAXED), want;
    do {
        want = (uint16_t)((flags & ~BF_NM_EPOCH_MASK) |
                          ((unsigned)nonmoving_epoch << BF_NM_EPOCH_SHIFT));
        if (flags == want)
            return false;
    } while (!__atomic_compare_exchange_n(&bd->flags, &flags, want, true, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return true;
}

/* ----------------------------------------------------------------------
 * Tracing
 * ---------------------------------------------------------------------- */

/* Note [Short-cutting indirections in the mark]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The copying collector replaces a pointer to an indirection with the
 * indirectee as it evacuates (Evac.c); an object of the non-moving
 * generation is never evacuated, so its fields would keep their
 * indirections (and the evaluated thunks' whole size) for ever.  A mark
 * with the world stopped replaces them as it traces: a field holding an
 * IND of the generation whose indirectee is in the generation too, or
 * static, gets the indirectee (a young one would need the object
 * remembered, so that one is left).  Beside the mutators the fields are
 * left alone: a constructor's fields are read by the program without
 * atomics, and a write there would race with them. */
static inline StgClosure *short_cut(StgClosure **field, StgClosure *v)
{
    if (__atomic_load_n(&v->info, __ATOMIC_ACQUIRE)->type != IND)
        return v;
    StgClosure *w = ((StgInd *)v)->indirectee;
    if (w == NULL || (heap_alloced(w) && !nonmoving_holds(w)))
        return v;
    __atomic_store_n(field, w, __ATOMIC_RELAXED);
    return w;
}

static inline void push_field(MarkQueue *q, StgClosure **field, bool concurrent)
{
    /* Acquire: the program publishes an object it allocated straight into
     * the generation (a large or pinned group) by a barriered write, a
     * release store; the load pairs with it, so that the group's
     * descriptor, written before, is what nonmoving_holds reads. */
    StgClosure *v = __atomic_load_n(field, __ATOMIC_ACQUIRE);
    if (v == NULL || !nonmoving_holds(v))
        return;
    if (!concurrent)
        v = short_cut(field, v);   /* Note [Short-cutting indirections in the mark] */
    mark_queue_push_unmarked(q, v);
}

static inline void push_fields(MarkQueue *q, StgClosure **fields, StgWord n, bool concurrent)
{
    for (StgWord i = 0; i < n; i++)
        push_field(q, &fields[i], concurrent);
}

/* Traces elements [from, ..) of array a, at most a chunk, pushing the
 * rest back first. */
static void trace_array_from(MarkQueue *q, StgMutArrPtrs *a, StgWord from, bool concurrent)
{
    StgWord n = a->ptrs;
    StgWord to = from + MARK_ARRAY_CHUNK < n ? from + MARK_ARRAY_CHUNK : n;
    if (to < n)
        mark_queue_push(q, (StgClosure *)a, to);
    push_fields(q, &a->payload[from], to - from, concurrent);
}

/* Pushes the fields of c, which has just been marked; returns its size in
 * words for the tally (0 for one not counted). */
static StgWord trace(MarkQueue *q, StgClosure *c, const StgInfoTable *info, bool concurrent)
{
    switch (info->type) {
    case CONSTR: case CONSTR_1_0: case CONSTR_0_1: case CONSTR_2_0:
    case CONSTR_1_1: case CONSTR_0_2: case CONSTR_NOCAF:
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1:
    case FUN_0_2:
        push_fields(q, c->payload, info->ptrs, concurrent);
        return 1 + (StgWord)info->ptrs + info->nptrs;
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0:
    case THUNK_1_1: case THUNK_0_2:
        push_fields(q, ((StgThunk *)c)->payload, info->ptrs, concurrent);
        return THUNK_HEADER_WORDS + (StgWord)info->ptrs + info->nptrs;
    case BLACKHOLE: {
        if (concurrent)
            return 0;   /* Note [Tracing beside the mutators] */
        const StgInfoTable *t = ((StgBlackhole *)c)->thunk_info;
        push_fields(q, ((StgBlackhole *)c)->payload, t->ptrs, concurrent);
        return THUNK_HEADER_WORDS + (StgWord)t->ptrs + t->nptrs;
    }
    case IND:
        push_field(q, &((StgInd *)c)->indirectee, concurrent);
        return 0;   /* never counted: the copying collector short-circuits it */
    case ARR_WORDS:
        return closure_sizeW_info(c, info);
    case MUT_VAR_CLEAN: case MUT_VAR_DIRTY:
        push_field(q, &((StgMutVar *)c)->var, concurrent);
        return 2;
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
        trace_array_from(q, (StgMutArrPtrs *)c, 0, concurrent);
        return closure_sizeW_info(c, info);
    case PAP: {
        StgPAP *pap = (StgPAP *)c;
        push_field(q, &pap->fun, concurrent);
        push_fields(q, pap->payload, pap->n_args, concurrent);
        return pap_sizeW(pap);
    }
    case AP: {
        StgAP *ap = (StgAP *)c;
        StgWord n = __atomic_load_n(&ap->n_args, __ATOMIC_RELAXED);
        push_field(q, &ap->fun, concurrent);
        push_fields(q, ap->payload, n, concurrent);
        return sizeof(StgAP) / WORD_SIZE + n;
    }
    case WEAK:
        /* Key and value are the weak pass's (Note [Weak pointers and the
         * non-moving generation] in Weak.c). */
        return sizeof(StgWeak) / WORD_SIZE;
    case TSO:
        /* Every chunk the snapshot's threads had was queued by their root
         * source; the program relinks them without atomics. */
        if (!concurrent) {
            push_field(q, (StgClosure **)&((StgTSO *)c)->stack, concurrent);
            push_field(q, (StgClosure **)&((StgTSO *)c)->spare_stack, concurrent);
        }
        return closure_sizeW_info(c, info);
    case STACK:
        if (!concurrent)
            push_field(q, (StgClosure **)&((StgStack *)c)->prev, concurrent);
        return closure_sizeW_info(c, info);
    default:
        rts_panic("non-moving mark: object of unexpected closure type (object=%p, type=%u %s)",
                  (void *)c, (unsigned)info->type, strata_closure_type_name(info->type));
    }
}

/* Counts c (size words and table info, read once by the trace) into
 * tally if its era is one it counts.  A pinned block counts its group,
 * once, as the copying collector's census does, and so does a large
 * object by era (its descriptor's words); a large object by table is
 * counted from what the trace read, as the program may be writing its
 * header.  A mutable object counts as clean: that is what it was at the
 * snapshot, and the program may have dirtied it since (Note [A census
 * from the snapshot] in NonMoving.c). */
static void count(LiveTally *tally, StgClosure *c, const StgInfoTable *info, StgWord size)
{
    BlockDesc *bd = Bdescr(c);
    if ((bd->flags & BF_PINNED) || ((bd->flags & BF_LARGE) && tally->by_era)) {
        live_tally_add_group(tally, bd);
        return;
    }
    if (size == 0)
        return;
    if (info == &stg_MUT_ARR_PTRS_DIRTY_info)
        info = &stg_MUT_ARR_PTRS_CLEAN_info;
    else if (info == &stg_MUT_VAR_DIRTY_info)
        info = &stg_MUT_VAR_CLEAN_info;
    uint64_t era = heap_object_era(c);
    if (live_tally_counts_era(tally, era))
        live_tally_count(tally, info, era, size);
}

void nonmoving_mark_blackhole_stw(MarkQueue *q, StgClosure *bh, LiveTally *tally)
{
    if (!nonmoving_mark_atomic(bh))
        return;
    const StgInfoTable *t = ((StgBlackhole *)bh)->thunk_info;
    push_fields(q, ((StgBlackhole *)bh)->payload, t->ptrs, true);
    if (tally != NULL)
        count(tally, bh, bh->info, THUNK_HEADER_WORDS + (StgWord)t->ptrs + t->nptrs);
}

/* Marks and traces one entry. */
static void mark_entry(MarkQueue *q, MarkEntry e, bool concurrent, LiveTally *tally)
{
    if (e.from != 0) {
        trace_array_from(q, (StgMutArrPtrs *)e.p, e.from, concurrent);
        return;
    }
    StgClosure *c = e.p;
    if (!nonmoving_mark(c))
        return;
    BlockDesc *bd = Bdescr(c);
    StgWord size;
    const StgInfoTable *info = NULL;
    if (bd->flags & BF_PINNED) {
        size = (StgWord)(bd->free - bd->start);   /* byte arrays: nothing to trace */
    } else {
        info = __atomic_load_n(&c->info, __ATOMIC_ACQUIRE);
        size = trace(q, c, info, concurrent);
    }
    /* Live words as memory: a whole slot, or the group's used words. */
    nonmoving_marked_objects++;
    nonmoving_marked_words += bd_is_segment(bd) ? segment_of_bd(bd)->slot_words
                                                : (StgWord)(bd->free - bd->start);
    if (tally != NULL)
        count(tally, c, info, size);
}

bool nonmoving_mark_until(MarkQueue *q, bool concurrent, LiveTally *tally,
                          bool (*stop)(void *), void *arg)
{
    MarkEntry e;
    unsigned since_check = 0;
    while (mark_queue_pop(q, &e)) {
        mark_entry(q, e, concurrent, tally);
        if (stop != NULL && ++since_check == MARK_STOP_CHECK_EVERY) {
            since_check = 0;
            if (stop(arg))
                return mark_queue_empty(q);
        }
    }
    return true;
}
