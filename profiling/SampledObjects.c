/*
 * profiling/SampledObjects.c -- the sampled objects' table and the hook
 * that fills it (SampledObjects.h).  Relies on the allocation sampler of
 * sm/alloc/AllocSample.h (which chooses the objects), the collector's weak
 * root sources (sm/GC.h: which says where each one moved, or that it
 * died), CallStacks.h and the eventlog.  See Note [Following a sampled
 * object] and docs/design/alloc-sampling.md.
 */
#include "SampledObjects.h"

#include <stdlib.h>
#include <string.h>

#include "CallStacks.h"
#include "EventLog.h"
#include "GC.h"
#include "GrowArray.h"
#include "Messages.h"
#include "Storage.h"
#include "os/Thread.h"

/* Note [Following a sampled object]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A sampled object is followed by address, as a stable name is: the table
 * holds its address and is a weak root source of the collector (the
 * interface the copying and the non-moving collectors both drive), which,
 * once everything reachable is found, replaces each address with the
 * object's new one, or NULL if it died.  An entry whose object died posts
 * ALLOC_DEATH there and leaves the table.  So a copy, a promotion, a
 * parallel collection (which claims every copy while the table holds an
 * entry, so that an address is one object's) or a collection that moves
 * nothing all answer the same question, and the cost is the table's
 * entries: 40 bytes and one visit per sampled object alive, none per
 * heap object.  The table is filled by the allocating threads (a lock) and
 * visited with the world stopped (no lock).  A sampled thunk that is
 * evaluated is followed to its value, as the collector follows
 * indirections; a small pinned byte array lives as long as its block. */

typedef struct {
    StgClosure *obj;             /* the object (a weak root) */
    uint64_t sample;             /* its ALLOC_SAMPLE number */
    uint64_t era;
    uint64_t size_bytes;
    uint32_t stack;
    uint16_t cap;                /* the capability that allocated it */
    uint8_t kind;                /* AllocSampleKind */
} Entry;

static OsMutex table_lock = OS_MUTEX_INIT;   /* entries, between collections */
static Entry *entries;
static size_t n_entries, cap_entries;
static uint64_t next_sample;
static bool on;

/* The allocation slow path's hook: on the allocating thread. */
static void on_sample(const AllocSampleInfo *s)
{
    uint32_t stack = call_stack_here(s->caller);
    os_mutex_lock(&table_lock);
    if (GROW_ARRAY_RESERVE_MIN(entries, cap_entries, n_entries + 1, 256) != 0)
        rts_panic("alloc-sample: out of C heap (%zu sampled objects)", n_entries);
    uint64_t sample = next_sample++;
    entries[n_entries++] = (Entry){
        .obj = (StgClosure *)s->obj,
        .sample = sample,
        .era = s->era,
        .size_bytes = s->size_bytes,
        .stack = stack,
        .cap = (uint16_t)s->cap,
        .kind = (uint8_t)s->kind,
    };
    os_mutex_unlock(&table_lock);
    /* No collection can run before this: the thread holds its capability
     * and is not at a safe point, so the sample comes before its death
     * (.inv.sample-before-death). */
    eventlog_post_alloc_sample(sample, s->size_bytes, stack, s->era, (uint16_t)s->cap,
                               (uint8_t)s->kind);
}

/* The weak root source: see Note [Following a sampled object]. */
static void visit_weak_roots(RootEvacFn evac, void *ctx)
{
    size_t kept = 0;
    for (size_t i = 0; i < n_entries; i++) {
        Entry e = entries[i];
        evac(&e.obj, ctx);
        if (e.obj == NULL)
            eventlog_post_alloc_death(e.sample);
        else
            entries[kept++] = e;
    }
    n_entries = kept;
    GROW_ARRAY_SHRINK_MIN(entries, cap_entries, n_entries, 256);
}

/* Note [The samples alive at exit]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A sample is alive until a collection finds it dead, so at exit the
 * samples allocated since the last collection are alive or garbage, no
 * one knows.  The runtime does not collect at exit to find out (a minor
 * collection there cost mutarray 3.3% of its run, more than sampling
 * itself): the tools count a sample in use only from the first
 * collection that ends after it, as Go's heap profile reports the heap
 * as of the last collection (Note [In use as of the last collection] in
 * utils/heapprof/AllocModel.c), so those samples count in alloc_objects
 * and alloc_space but not in use.  Likewise an old object that died
 * since the last major GC still counts as alive. */

static StgWord held(void)
{
    return n_entries;
}

void sampled_objects_start(StgWord rate_bytes)
{
    ASSERT(!on && rate_bytes > 0);
    on = true;
    next_sample = 1;
    eventlog_post_alloc_sampling(rate_bytes);
    gc_add_weak_root_source(visit_weak_roots, held);
    storage_alloc_sample_start(rate_bytes, on_sample);
}

bool sampled_objects_on(void)
{
    return on;
}

void sampled_objects_stop(void)
{
    if (!on)
        return;
    storage_alloc_sample_stop();   /* no collection: Note [The samples alive at exit] */
    on = false;
}

static SampledObject described(const Entry *e)
{
    return (SampledObject){e->sample, e->era, e->size_bytes, e->stack};
}

bool sampled_object_find(const StgClosure *obj, SampledObject *out)
{
    for (size_t i = 0; i < n_entries; i++)
        if (entries[i].obj == obj) {
            *out = described(&entries[i]);
            return true;
        }
    return false;
}

void sampled_objects_each(SampledObjectFn fn, void *ctx)
{
    for (size_t i = 0; i < n_entries; i++) {
        SampledObject what = described(&entries[i]);
        fn(entries[i].obj, &what, ctx);
    }
}

StgWord sampled_objects_live(void)
{
    os_mutex_lock(&table_lock);
    StgWord n = n_entries;
    os_mutex_unlock(&table_lock);
    return n;
}

void sampled_objects_repost(void)
{
    os_mutex_lock(&table_lock);
    for (size_t i = 0; i < n_entries; i++) {
        const Entry *e = &entries[i];
        eventlog_post_alloc_sample(e->sample, e->size_bytes, e->stack, e->era, e->cap, e->kind);
    }
    os_mutex_unlock(&table_lock);
}

void sampled_objects_exit(void)
{
    GROW_ARRAY_FREE(entries, n_entries, cap_entries);
    next_sample = 0;
    on = false;
    call_stacks_exit();
}
