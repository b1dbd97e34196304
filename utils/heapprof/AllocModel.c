/*
 * utils/heapprof/AllocModel.c -- the sampled allocations of a log
 * (AllocModel.h): frames and stacks by number, buckets by (stack, era),
 * the samples still alive and those pending.  See Note [Scaling a
 * sample] and Note [In use as of the last collection].
 */
#include "AllocModel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"

/* Note [Scaling a sample]
 * ~~~~~~~~~~~~~~~~~~~~~~~
 * The runtime samples the object that covers a point of a Poisson process
 * over the bytes allocated, at one point per `rate` bytes on average
 * (Note [Exponential gaps] in sm/alloc/AllocSample.c), so an object of s
 * bytes is sampled with probability p = 1 - e^(-s/rate).  Each sample
 * therefore stands for 1/p objects of its size and s/p bytes: the sum over
 * samples is an unbiased estimate of what was allocated, at any mix of
 * sizes.  (Go scales each bucket by its mean size instead, which is the
 * same when a bucket's objects are of one size.)  An object much larger
 * than the rate is always sampled and stands for itself; a small one
 * stands for rate/s of its kind.  In use: Note [In use as of the last
 * collection]. */

/* Note [In use as of the last collection]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A sample is known dead only when a collection finds it so (its
 * ALLOC_DEATH), so a sample allocated since the last collection is alive
 * or garbage, no one knows yet.  As Go's heap profile does, the model
 * counts a sample in use from the first collection that ends after it
 * was allocated: until then it is pending, counted in alloc_objects and
 * alloc_space but not in inuse_objects and inuse_space, and a pending
 * sample that dies is just forgotten.  At the end of a log the samples
 * allocated after its last collection are never counted in use (the
 * runtime does not collect at exit for them: Note [The samples alive at
 * exit] in profiling/SampledObjects.c).
 *
 * The end of a collection is GC_END: the runtime posts one per
 * collection, whatever the number of capabilities, and for the
 * non-moving collector's minor collections and syncs too (the concurrent
 * mark's CONC_* events end nothing: what it finds dead is old, counted
 * already).  GC_END is in capability 0's buffer and the samples are in
 * the global one, and buffers reach the log whole, so the order of the
 * file is not the order of time: a sample counts when a GC_END later
 * than it in time has been read, whichever comes first in the file.
 *
 * A log with samples but no GC events at all (`-l` with classes that
 * leave out 'g') cannot say when a collection ended, so until the first
 * GC_END is read a sample counts in use as soon as it is read, as if
 * every sample had lived through a collection; the first GC_END then
 * takes back those later than itself, which wait as the others do. */

void alloc_model_init(AllocModel *m)
{
    memset(m, 0, sizeof *m);
}

void alloc_model_free(AllocModel *m)
{
    for (size_t i = 0; i < m->n_frames; i++) {
        free(m->frames[i].function);
        free(m->frames[i].file);
    }
    free(m->frames);
    for (size_t i = 0; i < m->n_stacks; i++)
        free(m->stacks[i].frames);
    free(m->stacks);
    str_index_free(&m->bucket_keys);
    free(m->buckets);
    word_map_free(&m->live);
    free(m->live_samples);
    free(m->pending);
    memset(m, 0, sizeof *m);
}

double alloc_model_scale(const AllocModel *m, uint64_t size_bytes)
{
    if (m->rate_bytes == 0 || size_bytes == 0)
        return 1.0;
    double p = -expm1(-(double)size_bytes / (double)m->rate_bytes);
    return p > 0 ? 1.0 / p : 1.0;
}

/* Makes room for slot id of an array of n slots (new slots zeroed). */
static int grow_slots(void **slots, size_t *n, uint32_t id, size_t elem)
{
    if (id < *n)
        return 1;
    size_t want = (size_t)id + 1, cap = *n ? *n : 16;
    while (cap < want)
        cap *= 2;
    void *p = realloc(*slots, cap * elem);
    if (p == NULL)
        return 0;
    memset((char *)p + *n * elem, 0, (cap - *n) * elem);
    *slots = p;
    *n = cap;
    return 1;
}

static void add_frame(AllocModel *m, const EvrEvent *ev)
{
    uint32_t f = ev->u.alloc_frame.frame;
    if (f >= AM_MAX_FRAME_ID)
        return;
    if (!grow_slots((void **)&m->frames, &m->n_frames, f, sizeof *m->frames)) {
        m->out_of_memory = 1;
        return;
    }
    AmFrame *fr = &m->frames[f];
    if (fr->function != NULL)
        return;   /* a repeat (a late client's preamble): the first stays */
    fr->function = evr_str_dup(ev->u.alloc_frame.function);
    fr->file = evr_str_dup(ev->u.alloc_frame.file);
    fr->line = ev->u.alloc_frame.line;
    if (fr->function == NULL || fr->file == NULL) {
        free(fr->function);
        free(fr->file);
        fr->function = fr->file = NULL;
        m->out_of_memory = 1;
    }
}

static void add_stack(AllocModel *m, const EvrEvent *ev)
{
    uint32_t s = ev->u.alloc_stack.stack;
    if (s >= AM_MAX_STACK_ID)
        return;
    if (!grow_slots((void **)&m->stacks, &m->n_stacks, s, sizeof *m->stacks)) {
        m->out_of_memory = 1;
        return;
    }
    AmStack *st = &m->stacks[s];
    if (st->frames != NULL)
        return;
    size_t depth = ev->u.alloc_stack.depth;
    st->frames = malloc((depth ? depth : 1) * sizeof *st->frames);
    if (st->frames == NULL) {
        m->out_of_memory = 1;
        return;
    }
    for (size_t k = 0; k < depth; k++)
        st->frames[k] = evr_alloc_stack_frame(ev, k);
    st->depth = (uint8_t)depth;
}

/* The bucket of (stack, era), made if new; NULL when out of memory. */
static AmBucket *bucket_of(AllocModel *m, uint32_t stack, uint64_t era, uint32_t *index)
{
    char key[12];
    memcpy(key, &stack, 4);
    memcpy(key + 4, &era, 8);
    size_t b = str_index_find(&m->bucket_keys, key, sizeof key);
    if (b == STR_INDEX_NONE) {
        if (GROW_ARRAY_RESERVE_MIN(m->buckets, m->cap_buckets, m->bucket_keys.n + 1, 64) != 0)
            return NULL;
        b = str_index_add(&m->bucket_keys, key, sizeof key);
        if (b == STR_INDEX_NONE)
            return NULL;
        m->buckets[b] = (AmBucket){.stack = stack, .era = era};
    }
    *index = (uint32_t)b;
    return &m->buckets[b];
}

/* Counts a sample of size bytes in bucket b in use (sign 1) or no longer
 * (sign -1). */
static void count_in_use(AllocModel *m, uint32_t b, uint64_t size, int sign)
{
    AmBucket *bk = &m->buckets[b];
    double w = alloc_model_scale(m, size);
    if (sign > 0) {
        bk->live_samples++;
        bk->inuse_objects += w;
        bk->inuse_bytes += w * (double)size;
        m->n_live++;
        return;
    }
    bk->live_samples--;
    bk->inuse_objects -= w;
    bk->inuse_bytes -= w * (double)size;
    if (bk->live_samples == 0)
        bk->inuse_objects = bk->inuse_bytes = 0;   /* no rounding left behind */
    m->n_live--;
}

/* Keeps a sample as counted in use: a record, found by its number. */
static int keep_record(AllocModel *m, uint64_t sample, uint32_t b, uint64_t size)
{
    if (GROW_ARRAY_RESERVE_MIN(m->live_samples, m->cap_live, m->n_records + 1, 64) != 0 ||
        word_map_put(&m->live, sample, m->n_records + 1) != 0) {
        m->out_of_memory = 1;
        return 0;
    }
    m->live_samples[m->n_records++] = (struct AmLive){sample, b, size};
    return 1;
}

/* Moves the pending samples still waiting to the front of the queue
 * (dropping the dead and those already counted), renumbering them. */
static void compact_pending(AllocModel *m)
{
    size_t kept = 0;
    for (size_t i = m->pending_head; i < m->n_pending_slots; i++) {
        if (m->pending[i].state == AM_DEAD)
            continue;
        m->pending[kept] = m->pending[i];
        (void)word_map_put(&m->live, m->pending[kept].sample, AM_PENDING_TAG | kept);   /* no growth */
        kept++;
    }
    m->pending_head = 0;
    m->n_pending_slots = kept;
    m->n_pending_dead = 0;
}

static int add_pending(AllocModel *m, uint64_t sample, uint32_t b, uint64_t size,
                       uint64_t time_ns)
{
    if (GROW_ARRAY_RESERVE_MIN(m->pending, m->cap_pending, m->n_pending_slots + 1, 64) != 0 ||
        word_map_put(&m->live, sample, AM_PENDING_TAG | m->n_pending_slots) != 0) {
        m->out_of_memory = 1;
        return 0;
    }
    uint32_t state = m->have_gc_end ? AM_WAITING : AM_COUNTED_EARLY;
    m->pending[m->n_pending_slots++] = (struct AmPending){sample, size, time_ns, b, state};
    m->n_pending++;
    if (state == AM_COUNTED_EARLY)
        count_in_use(m, b, size, 1);
    return 1;
}

static void add_sample(AllocModel *m, const EvrEvent *ev)
{
    uint64_t sample = ev->u.alloc_sample.sample;
    if (word_map_get(&m->live, sample) != NULL)
        return;   /* sent again to a late client: counted once */
    uint32_t b;
    AmBucket *bk = bucket_of(m, ev->u.alloc_sample.stack, ev->u.alloc_sample.era, &b);
    if (bk == NULL) {
        m->out_of_memory = 1;
        return;
    }
    uint64_t size = ev->u.alloc_sample.size_bytes;
    if (m->have_gc_end && ev->time_ns < m->last_gc_end_ns) {
        /* a collection later than it was read first (another buffer) */
        if (!keep_record(m, sample, b, size))
            return;
        count_in_use(m, b, size, 1);
    } else if (!add_pending(m, sample, b, size, ev->time_ns)) {
        return;
    }
    double w = alloc_model_scale(m, size);
    bk = &m->buckets[b];
    bk->samples++;
    bk->alloc_objects += w;
    bk->alloc_bytes += w * (double)size;
    m->n_samples++;
}

/* A pending sample died: forgotten (taken back if counted early). */
static void pending_died(AllocModel *m, size_t i)
{
    struct AmPending *p = &m->pending[i];
    if (p->state == AM_COUNTED_EARLY)
        count_in_use(m, p->bucket, p->size_bytes, -1);
    p->state = AM_DEAD;
    m->n_pending--;
    m->n_pending_dead++;
    (void)word_map_remove(&m->live, p->sample);
    size_t slots = m->n_pending_slots - m->pending_head;
    if (slots >= 64 && m->n_pending_dead > slots / 2)
        compact_pending(m);
}

static void add_death(AllocModel *m, const EvrEvent *ev)
{
    uint64_t *slot = word_map_get(&m->live, ev->u.alloc_death.sample);
    if (slot == NULL)
        return;
    m->n_deaths++;
    if (*slot & AM_PENDING_TAG) {
        pending_died(m, (size_t)(*slot & ~AM_PENDING_TAG));
        return;
    }
    size_t i = (size_t)*slot - 1;
    struct AmLive dead = m->live_samples[i];
    count_in_use(m, dead.bucket, dead.size_bytes, -1);
    (void)word_map_remove(&m->live, dead.sample);
    if (i + 1 != m->n_records) {
        m->live_samples[i] = m->live_samples[m->n_records - 1];
        (void)word_map_put(&m->live, m->live_samples[i].sample, i + 1);   /* no growth */
    }
    m->n_records--;
}

/* A collection ended at time t: the pending samples allocated before it
 * count in use from now on (Note [In use as of the last collection]). */
static void add_gc_end(AllocModel *m, uint64_t t)
{
    int first = !m->have_gc_end;
    m->have_gc_end = 1;
    if (t > m->last_gc_end_ns)
        m->last_gc_end_ns = t;
    while (m->pending_head < m->n_pending_slots) {
        struct AmPending p = m->pending[m->pending_head];
        if (p.state != AM_DEAD && p.time_ns >= t)
            break;
        m->pending_head++;
        if (p.state == AM_DEAD) {
            m->n_pending_dead--;
            continue;
        }
        m->n_pending--;
        if (!keep_record(m, p.sample, p.bucket, p.size_bytes))
            return;
        if (p.state == AM_WAITING)
            count_in_use(m, p.bucket, p.size_bytes, 1);
    }
    for (size_t i = m->pending_head; first && i < m->n_pending_slots; i++) {
        if (m->pending[i].state != AM_COUNTED_EARLY)
            continue;
        count_in_use(m, m->pending[i].bucket, m->pending[i].size_bytes, -1);
        m->pending[i].state = AM_WAITING;
    }
    if (m->pending_head == m->n_pending_slots || m->pending_head > m->n_pending_slots / 2)
        compact_pending(m);
}

int alloc_model_add(AllocModel *m, const EvrEvent *ev)
{
    if (!ev->decoded)
        return 0;
    switch (ev->type) {
    case EVENT_ALLOC_SAMPLING:
        if (!m->have_sampling) {
            m->have_sampling = 1;
            m->rate_bytes = ev->u.alloc_sampling.rate_bytes;
        }
        break;
    case EVENT_ALLOC_FRAME:
        add_frame(m, ev);
        break;
    case EVENT_ALLOC_STACK:
        add_stack(m, ev);
        break;
    case EVENT_ALLOC_SAMPLE:
        add_sample(m, ev);
        break;
    case EVENT_ALLOC_DEATH:
        add_death(m, ev);
        break;
    case EVENT_GC_END:
        add_gc_end(m, ev->time_ns);
        return 0;
    default:
        return 0;
    }
    m->last_time_ns = ev->time_ns;
    return 1;
}

const AmFrame *alloc_model_frame(const AllocModel *m, uint32_t f)
{
    return f < m->n_frames && m->frames[f].function != NULL ? &m->frames[f] : NULL;
}

const AmStack *alloc_model_stack(const AllocModel *m, uint32_t s)
{
    return s < m->n_stacks && m->stacks[s].frames != NULL ? &m->stacks[s] : NULL;
}

void alloc_model_frame_name(const AllocModel *m, uint32_t f, char *buf, size_t len)
{
    const AmFrame *fr = alloc_model_frame(m, f);
    if (fr == NULL)
        snprintf(buf, len, "frame %u", (unsigned)f);
    else if (fr->file[0] == '\0')
        snprintf(buf, len, "%s", fr->function[0] ? fr->function : "?");
    else if (fr->line == 0)
        snprintf(buf, len, "%s (%s)", fr->function[0] ? fr->function : "?", fr->file);
    else
        snprintf(buf, len, "%s (%s:%u)", fr->function[0] ? fr->function : "?", fr->file,
                 (unsigned)fr->line);
}
