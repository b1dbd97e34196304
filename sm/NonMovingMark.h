/*
 * sm/NonMovingMark.h -- marking the non-moving generation: the mark queue
 * (a stack of objects to trace, in chunks from the C heap), what counts
 * as an object of the generation, and the mark itself.  Note [Mark
 * epochs] in NonMoving.c says what a mark is; Note [Tracing beside the
 * mutators] in NonMovingMark.c how an object is traced while the
 * mutators run.
 */
#ifndef STRATA_NONMOVINGMARK_H
#define STRATA_NONMOVINGMARK_H

#include <stdbool.h>

#include "LiveTally.h"
#include "MBlock.h"
#include "Segment.h"
#include "strata/Closures.h"

/* An object to trace, or the rest of a mutable array: its elements from
 * `from` on (0: the whole object, not yet marked). */
typedef struct {
    StgClosure *p;
    StgWord from;
} MarkEntry;

#define MARK_CHUNK_ENTRIES 254

typedef struct MarkChunk_ {
    struct MarkChunk_ *next;     /* older entries */
    StgWord n;                   /* entries in e[] */
    MarkEntry e[MARK_CHUNK_ENTRIES];
} MarkChunk;

typedef struct MarkQueue_ {
    MarkChunk *top;              /* the newest entries; NULL when empty */
    MarkChunk *spare;            /* an empty chunk kept for the next push */
} MarkQueue;

void mark_queue_push_slow(MarkQueue *q, StgClosure *p, StgWord from);

static inline void mark_queue_push(MarkQueue *q, StgClosure *p, StgWord from)
{
    MarkChunk *c = q->top;
    if (STRATA_LIKELY(c != NULL && c->n < MARK_CHUNK_ENTRIES)) {
        c->e[c->n++] = (MarkEntry){p, from};
        return;
    }
    mark_queue_push_slow(q, p, from);
}

static inline bool mark_queue_empty(const MarkQueue *q)
{
    return q->top == NULL;
}

/* Takes the newest entry; false when the queue is empty. */
bool mark_queue_pop(MarkQueue *q, MarkEntry *out);

/* Moves every entry of from onto into (from ends empty). */
void mark_queue_append(MarkQueue *into, MarkQueue *from);

/* Gives the chunks back to the pool (Note [The mark queue's chunks] in
 * NonMovingMark.c). */
void mark_queue_free(MarkQueue *q);

/* Frees the pool's chunks (nonmoving_exit); chunks taken from the C heap
 * since the start, for tests. */
void mark_chunk_pool_exit(void);
extern StgWord nonmoving_mark_chunks_allocated;

/* The epoch of the cycle being marked, or last marked (Note [Mark epochs]
 * in NonMoving.c): an object of the generation whose mark is this epoch
 * is marked; one whose mark is the other epoch is not (yet). */
extern uint8_t nonmoving_epoch;

/* Whether p (any word) is an object of the non-moving generation: in a
 * segment, or a large or pinned group of it.  Heap groups only. */
static inline bool nonmoving_holds(const StgClosure *p)
{
    return heap_alloced(p) &&
           (__atomic_load_n(&Bdescr(p)->flags, __ATOMIC_RELAXED) & BF_NONMOVING) != 0;
}

/* Whether p, an object of the generation, is marked in this cycle (or was
 * allocated in it). */
bool nonmoving_is_marked(const StgClosure *p);

/* The mark of a large or pinned group of the generation: its epoch. */
static inline uint8_t nonmoving_group_epoch(const BlockDesc *bd)
{
    return (uint8_t)((__atomic_load_n(&bd->flags, __ATOMIC_RELAXED) & BF_NM_EPOCH_MASK) >>
                     BF_NM_EPOCH_SHIFT);
}

/* After a cycle's mark: p, indirections followed, if it is alive (marked,
 * or not in the generation: the copying collector answers for those);
 * NULL if it died.  The world is stopped. */
StgClosure *nonmoving_alive_or_null(StgClosure *p);

/* Marks p, an object of the generation; true if it was not marked.  The
 * atomic one for the copying collector's threads, which may race. */
bool nonmoving_mark(const StgClosure *p);
bool nonmoving_mark_atomic(const StgClosure *p);

/* Pushes p onto q if it is an object of the generation that is not
 * marked yet (a mark is never taken back within a cycle, so a marked one
 * needs no entry). */
static inline void mark_queue_push_unmarked(MarkQueue *q, StgClosure *p)
{
    if (nonmoving_holds(p) && !nonmoving_is_marked(p))
        mark_queue_push(q, p, 0);
}

/* Marks everything reachable from q's entries through the generation,
 * until q is empty or, with stop set, stop(arg) says so between objects;
 * true when q is empty.  Counts each object it marks into tally (NULL: none).
 * concurrent: the mutators run meanwhile (Note [Tracing beside the
 * mutators]). */
bool nonmoving_mark_until(MarkQueue *q, bool concurrent, LiveTally *tally,
                          bool (*stop)(void *), void *arg);

/* Marks bh, a BLACKHOLE of the generation the snapshot's collection met,
 * and queues its free variables, with the world stopped (Note [The
 * snapshot] in NonMoving.c); counts it into tally (the GC thread's
 * census count, NULL: none). */
void nonmoving_mark_blackhole_stw(MarkQueue *q, StgClosure *bh, LiveTally *tally);

/* Words this cycle's marking found live in the generation so far. */
extern StgWord nonmoving_marked_words;

/* Objects this cycle's marking has marked so far (CONC_MARK_END's count). */
extern StgWord nonmoving_marked_objects;

#endif /* STRATA_NONMOVINGMARK_H */
