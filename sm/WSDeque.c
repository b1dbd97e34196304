/*
 * sm/WSDeque.c -- the work-stealing deque (see WSDeque.h).
 */
#include "WSDeque.h"

#include <stdlib.h>

#include "Messages.h"

static WSDequeArray *array_new(size_t capacity, WSDequeArray *retired)
{
    WSDequeArray *a = malloc(sizeof *a + capacity * sizeof a->items[0]);
    if (a == NULL)
        return NULL;
    a->retired = retired;
    a->mask = capacity - 1;
    for (size_t i = 0; i < capacity; i++)
        atomic_init(&a->items[i], NULL);
    return a;
}

bool ws_deque_init(WSDeque *q, unsigned log2_capacity)
{
    WSDequeArray *a = array_new((size_t)1 << log2_capacity, NULL);
    if (a == NULL)
        return false;
    atomic_init(&q->top, 0);
    atomic_init(&q->bottom, 0);
    atomic_init(&q->array, a);
    return true;
}

static void free_chain(WSDequeArray *a)
{
    while (a != NULL) {
        WSDequeArray *older = a->retired;
        free(a);
        a = older;
    }
}

void ws_deque_free(WSDeque *q)
{
    free_chain(atomic_load_explicit(&q->array, memory_order_relaxed));
    atomic_store_explicit(&q->array, NULL, memory_order_relaxed);
}

void ws_deque_reset(WSDeque *q)
{
    WSDequeArray *a = atomic_load_explicit(&q->array, memory_order_relaxed);
    free_chain(a->retired);
    a->retired = NULL;
    atomic_store_explicit(&q->top, 0, memory_order_relaxed);
    atomic_store_explicit(&q->bottom, 0, memory_order_relaxed);
}

/* A copy of a's items [top, bottom) in an array twice its size. */
static WSDequeArray *grow(WSDequeArray *a, long top, long bottom)
{
    WSDequeArray *b = array_new(2 * (a->mask + 1), a);
    if (b == NULL)
        rts_panic("out of C heap growing a GC work queue (items=%ld)", bottom - top);
    for (long i = top; i < bottom; i++)
        atomic_store_explicit(&b->items[(size_t)i & b->mask],
                              atomic_load_explicit(&a->items[(size_t)i & a->mask],
                                                   memory_order_relaxed),
                              memory_order_relaxed);
    return b;
}

void ws_deque_push(WSDeque *q, void *item)
{
    long b = atomic_load_explicit(&q->bottom, memory_order_relaxed);
    long t = atomic_load_explicit(&q->top, memory_order_acquire);
    WSDequeArray *a = atomic_load_explicit(&q->array, memory_order_relaxed);
    if (b - t > (long)a->mask) {
        a = grow(a, t, b);
        atomic_store_explicit(&q->array, a, memory_order_release);
    }
    atomic_store_explicit(&a->items[(size_t)b & a->mask], item, memory_order_relaxed);
    atomic_store_explicit(&q->bottom, b + 1, memory_order_release);
}

void *ws_deque_pop(WSDeque *q)
{
    long b = atomic_load_explicit(&q->bottom, memory_order_relaxed) - 1;
    WSDequeArray *a = atomic_load_explicit(&q->array, memory_order_relaxed);
    atomic_store_explicit(&q->bottom, b, memory_order_seq_cst);
    long t = atomic_load_explicit(&q->top, memory_order_seq_cst);
    if (t > b) {   /* empty */
        atomic_store_explicit(&q->bottom, b + 1, memory_order_relaxed);
        return NULL;
    }
    void *item = atomic_load_explicit(&a->items[(size_t)b & a->mask], memory_order_relaxed);
    if (t == b) {
        /* The last item: a thief may be taking it too. */
        if (!atomic_compare_exchange_strong_explicit(&q->top, &t, t + 1, memory_order_seq_cst,
                                                     memory_order_relaxed))
            item = NULL;
        atomic_store_explicit(&q->bottom, b + 1, memory_order_relaxed);
    }
    return item;
}

void *ws_deque_steal(WSDeque *q)
{
    long t = atomic_load_explicit(&q->top, memory_order_seq_cst);
    long b = atomic_load_explicit(&q->bottom, memory_order_seq_cst);
    if (t >= b)
        return NULL;
    WSDequeArray *a = atomic_load_explicit(&q->array, memory_order_acquire);
    void *item = atomic_load_explicit(&a->items[(size_t)t & a->mask], memory_order_relaxed);
    if (!atomic_compare_exchange_strong_explicit(&q->top, &t, t + 1, memory_order_seq_cst,
                                                 memory_order_relaxed))
        return NULL;
    return item;
}
