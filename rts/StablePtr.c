/*
 * rts/StablePtr.c -- stable pointers: a table of heap pointers the
 * collector treats as roots and updates, handed to C code as small
 * integers (index + 1, so that NULL is never a valid stable pointer).
 * Free entries form a list threaded through the table, tagged with the low
 * bit so that they can never be mistaken for a closure pointer.  Threads
 * on every capability make, read and free them, so the table is under
 * table_lock (never held across an allocation: .inv.no-lock-across-alloc);
 * the collector visits it
 * with the world stopped.
 */
#include "StablePtr.h"

#include <stdlib.h>

#include "GrowArray.h"
#include "Messages.h"
#include "os/Thread.h"
#include "strata/Roots.h"

static StgWord *table = NULL;     /* closure pointer, or (next_free << 1) | 1 */
static StgWord capacity = 0;
static StgWord free_head = 0;     /* index + 1 of the first free entry; 0 = none */
static OsMutex table_lock = OS_MUTEX_INIT;

static int entry_is_free(StgWord e)
{
    return (e & 1) != 0;
}

static void table_grow(void)
{
    size_t cap = capacity;
    if (GROW_ARRAY_RESERVE_MIN(table, cap, capacity + 1, 64) != 0)
        rts_panic("out of C heap growing the stable pointer table (entries=%lu)",
                  (unsigned long)capacity);
    /* Thread the new entries onto the free list in index order. */
    for (StgWord i = capacity; i < cap; i++)
        table[i] = ((i + 2) << 1) | 1;   /* next free: entry i + 1 */
    table[cap - 1] = (free_head << 1) | 1;
    free_head = capacity + 1;
    capacity = cap;
}

StgStablePtr getStablePtr(StgClosure *p)
{
    os_mutex_lock(&table_lock);
    if (free_head == 0)
        table_grow();
    StgWord i = free_head - 1;
    free_head = table[i] >> 1;
    table[i] = (StgWord)p;
    os_mutex_unlock(&table_lock);
    return (StgStablePtr)(i + 1);
}

/* The index of a live entry; called with table_lock held. */
static StgWord checked_index(StgStablePtr sp, const char *who)
{
    StgWord i = (StgWord)sp - 1;
    if ((StgWord)sp == 0 || i >= capacity || entry_is_free(table[i])) {
        os_mutex_unlock(&table_lock);
        rts_error("%s: invalid stable pointer %p (never made, or already freed)", who, sp);
        abort();
    }
    return i;
}

bool stable_ptr_is_live(StgStablePtr sp)
{
    os_mutex_lock(&table_lock);
    StgWord i = (StgWord)sp - 1;
    bool live = (StgWord)sp != 0 && i < capacity && !entry_is_free(table[i]);
    os_mutex_unlock(&table_lock);
    return live;
}

StgClosure *deRefStablePtr(StgStablePtr sp)
{
    os_mutex_lock(&table_lock);
    StgClosure *p = (StgClosure *)table[checked_index(sp, "deRefStablePtr")];
    os_mutex_unlock(&table_lock);
    return p;
}

void freeStablePtr(StgStablePtr sp)
{
    os_mutex_lock(&table_lock);
    StgWord i = checked_index(sp, "freeStablePtr");
    table[i] = (free_head << 1) | 1;
    free_head = i + 1;
    os_mutex_unlock(&table_lock);
}

void stable_ptr_visit_roots(RootEvacFn evac, void *ctx)
{
    for (StgWord i = 0; i < capacity; i++)
        if (!entry_is_free(table[i]))
            evac((StgClosure **)&table[i], ctx);
}

void stable_ptr_for_each(void (*f)(StgWord handle, StgClosure *p, void *env), void *env)
{
    for (StgWord i = 0; i < capacity; i++)
        if (!entry_is_free(table[i]))
            f(i + 1, (StgClosure *)table[i], env);
}

void stable_ptr_exit(void)
{
    free(table);
    table = NULL;
    capacity = free_head = 0;
}
