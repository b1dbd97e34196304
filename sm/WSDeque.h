/*
 * sm/WSDeque.h -- a work-stealing deque (Chase and Lev, 2005, with the
 * memory orders of Lê, Pop, Cohen and Zappa Nardelli, 2013): its owner
 * pushes and pops at the bottom without a lock; other threads steal from
 * the top with one compare-and-swap.  The parallel collector keeps one per
 * GC thread, of to-space blocks with unscanned words (Note [Sharing work]
 * in Evac.c).
 *
 * Where the published algorithm has a sequentially consistent fence, this
 * one makes the neighbouring load and store sequentially consistent
 * instead: the same order, and ThreadSanitizer understands it (it does
 * not model stand-alone fences).  A full array is replaced by one twice
 * its size; the old one stays allocated until ws_deque_reset, because a
 * thief may still be reading it.
 */
#ifndef STRATA_WSDEQUE_H
#define STRATA_WSDEQUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct WSDequeArray_ {
    struct WSDequeArray_ *retired;      /* an older, smaller array, or NULL */
    size_t mask;                        /* capacity - 1, capacity a power of 2 */
    _Atomic(void *) items[];
} WSDequeArray;

typedef struct {
    atomic_long top;                    /* next to steal */
    atomic_long bottom;                 /* next free slot (owner) */
    _Atomic(WSDequeArray *) array;
} WSDeque;

/* An empty deque of initial capacity 2^log2_capacity.  Returns false if
 * the C heap is exhausted. */
bool ws_deque_init(WSDeque *q, unsigned log2_capacity);
void ws_deque_free(WSDeque *q);

/* Empties q and frees its retired arrays: no thread may be using it. */
void ws_deque_reset(WSDeque *q);

/* Owner only.  Push panics when the C heap is exhausted. */
void ws_deque_push(WSDeque *q, void *item);
void *ws_deque_pop(WSDeque *q);         /* NULL when empty */

/* Any thread: the oldest item, or NULL when q is empty or another thread
 * took that item first (the caller may try again). */
void *ws_deque_steal(WSDeque *q);

/* A hint, from any thread: q held nothing when looked at. */
static inline bool ws_deque_looks_empty(WSDeque *q)
{
    return atomic_load_explicit(&q->top, memory_order_relaxed) >=
           atomic_load_explicit(&q->bottom, memory_order_relaxed);
}

#endif /* STRATA_WSDEQUE_H */
