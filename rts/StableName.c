/*
 * rts/StableName.c -- stable names (strata_make_stable_name, GHC's
 * makeStableName): a table of named objects and a hash from an object's
 * address to its name (index + 1).  Relies on the collector's weak root
 * sources (sm/GC.h) to learn, after each collection, where each named
 * object moved and which died, and on WordMap for the hash.
 *
 * Note [Stable names do not keep objects alive]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The table holds each named object's address, but it is not a root: it
 * is a weak root source, visited after the collector has found everything
 * reachable, which replaces each address with the object's new one or
 * NULL.  A NULL entry is freed there, the free list is rebuilt lowest
 * index first (so that names stay small), the table is cut after its
 * highest live entry, and the hash is rebuilt from the new addresses --
 * the hash is by address, and addresses change at every GC.  Two entries
 * can end up at one address when a named thunk has been evaluated and
 * its value was named too (indirections are followed, by the collector
 * and by strata_make_stable_name): the value's own name is kept and the
 * thunk's freed, so that one object has one name from then on, and the
 * name already handed out for the value does not change.  GHC makes the
 * same choice of following indirections and has the same collapse.
 */
#include "StableName.h"

#include <stdlib.h>

#include "ClosureSize.h"
#include "GrowArray.h"
#include "Messages.h"
#include "os/Thread.h"
#include "WordMapOrPanic.h"
#include "strata/Weak.h"

static StgWord *table;        /* object address, or (next_free << 1) | 1 */
static size_t capacity;       /* entries allocated */
static StgWord length;        /* entries in use or free below the highest live */
static StgWord free_head;     /* index + 1 of the first free entry; 0 = none */
static StgWord n_live;
static WordMap by_address;    /* address -> index + 1 */
static OsMutex names_lock = OS_MUTEX_INIT;   /* the table, between collections */

static bool entry_is_free(StgWord e)
{
    return (e & 1) != 0;
}

static StgClosure *strip_indirections(StgClosure *p)
{
    while (p->info->type == IND || p->info->type == IND_STATIC)
        p = ((StgInd *)p)->indirectee;
    return p;
}

StgWord strata_make_stable_name(StgClosure *obj)
{
    if (obj == NULL) {
        rts_error("strata_make_stable_name: the object is NULL");
        abort();
    }
    obj = strip_indirections(obj);
    os_mutex_lock(&names_lock);   /* threads on every capability name objects */
    bool found;
    uint64_t *slot = word_map_slot_or_panic(&by_address, (uint64_t)(uintptr_t)obj, &found);
    if (found) {
        StgWord name = *slot;
        os_mutex_unlock(&names_lock);
        return name;
    }
    StgWord i;
    if (free_head != 0) {
        i = free_head - 1;
        free_head = table[i] >> 1;
    } else {
        if (GROW_ARRAY_RESERVE_MIN(table, capacity, length + 1, 64) != 0)
            rts_panic("out of C heap growing the stable name table (names=%lu)",
                      (unsigned long)n_live);
        i = length++;
    }
    table[i] = (StgWord)obj;
    n_live++;
    *slot = i + 1;
    os_mutex_unlock(&names_lock);
    return i + 1;
}

/* True if the entry names an object that has since become an indirection
 * (an evaluated thunk).  An IND is never evacuated (the collector
 * short-circuits it), so its info pointer is still readable here. */
static bool names_an_indirection(StgWord e)
{
    const StgClosure *c = (const StgClosure *)e;
    return !closure_is_forwarded(c) && c->info->type == IND;
}

/* Updates entry i after a GC: frees it if its object died or is already
 * named by an entry kept before it. */
static void update_entry(StgWord i, RootEvacFn evac, void *ctx, StgWord *highest)
{
    evac((StgClosure **)&table[i], ctx);
    if (table[i] == 0) {
        table[i] = 1;   /* free; threaded later */
        return;
    }
    bool found;
    uint64_t *slot = word_map_slot_or_panic(&by_address, (uint64_t)table[i], &found);
    if (found) {
        table[i] = 1;
        return;
    }
    *slot = i + 1;
    n_live++;
    if (i + 1 > *highest)
        *highest = i + 1;
}

/* See Note [Stable names do not keep objects alive]. */
void stable_name_visit_weak_roots(RootEvacFn evac, void *ctx)
{
    word_map_clear(&by_address);
    n_live = 0;
    StgWord highest = 0;   /* index + 1 of the highest live entry */
    /* Names of objects themselves first, then names given to thunks
     * since evaluated: when both reach one object, the object's own name
     * is the one kept. */
    for (int pass = 0; pass < 2; pass++)
        for (StgWord i = 0; i < length; i++)
            if (!entry_is_free(table[i]) && names_an_indirection(table[i]) == (pass == 1))
                update_entry(i, evac, ctx, &highest);
    length = highest;
    free_head = 0;
    for (StgWord i = length; i-- > 0;)
        if (entry_is_free(table[i])) {
            table[i] = (free_head << 1) | 1;
            free_head = i + 1;
        }
    GROW_ARRAY_SHRINK_MIN(table, capacity, length, 64);
}

StgWord stable_name_count(void)
{
    return n_live;
}

StgWord stable_name_table_size(void)
{
    return length;
}

void stable_name_exit(void)
{
    GROW_ARRAY_FREE(table, length, capacity);
    free_head = n_live = 0;
    word_map_free(&by_address);
}
