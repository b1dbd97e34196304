/*
 * reader/Pauses.c -- the pauses of a program from its eventlog, and the
 * latency figures over them (Pauses.h).  Reads only event types and
 * times, so it takes strata's logs and GHC's alike.
 */
#include "Pauses.h"

#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"
#include "SortedSearch.h"

/* Note [Pauses from the eventlog]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A pause is time in which the program's threads cannot run because the
 * runtime stopped them.  Two kinds of event delimit one:
 *
 *  - A collection: from the first REQUEST_SEQ_GC, REQUEST_PAR_GC or
 *    GC_START on any capability to the first GC_END after it.  GHC posts
 *    the request when a capability asks for a GC, and that capability's
 *    thread waits from then on while the others are being stopped: under
 *    GHC 9.10 -N2 on a busy machine the wait is often longer than the
 *    collection (a request 9.6 ms before GC_START, a collection of
 *    0.5 ms), and the program's own timing of its work sees both.  Every
 *    capability in the collection posts GC_START and GC_END, the leader
 *    first, and the others' GC_END come after the program runs again
 *    (2.4 ms after, once): the leader's end is when the world restarts,
 *    and each other capability's next GC_END is its share of the same
 *    collection, not the end of a later one.  strata posts the request
 *    just before GC_START, from the one thread that collects, before it
 *    does anything with the world stopped (a sync it runs comes after).
 *  - The sync of a non-moving collector: from CONC_SYNC_BEGIN to
 *    CONC_SYNC_END, on any capability or the global buffer (GHC posts
 *    each twice; the first begin and the first end after it count).  The
 *    concurrent mark and sweep between syncs are not pauses: the program
 *    runs beside them.
 *
 * Capabilities write their events in blocks of their own, so the marks are
 * put in time order (ties in the order read) before the walk.  A
 * collection and a sync that overlap make one pause of both kinds.  An
 * end with nothing open (a log that starts within a collection) is
 * ignored; a pause still open when the log ends (a program killed in a
 * collection) ends at the last event.  The run spans the first event's
 * time to the last's. */

void pause_log_init(PauseLog *pl)
{
    memset(pl, 0, sizeof *pl);
}

static int push_pause(PauseLog *pl, uint64_t start_ns, uint64_t end_ns, unsigned kinds)
{
    if (GROW_ARRAY_RESERVE_MIN(pl->pauses, pl->pauses_cap, pl->n_pauses + 1, 256) != 0)
        return 0;
    pl->pauses[pl->n_pauses++] = (Pause){start_ns, end_ns, kinds};
    return 1;
}

int pause_log_add(PauseLog *pl, const EvrEvent *ev)
{
    uint64_t t = ev->time_ns;
    if (!pl->seen_event || t < pl->first_ns)
        pl->first_ns = t;
    if (!pl->seen_event || t > pl->last_ns)
        pl->last_ns = t;
    pl->seen_event = 1;
    switch (ev->type) {
    case EVENT_REQUEST_SEQ_GC: case EVENT_REQUEST_PAR_GC: case EVENT_GC_START:
    case EVENT_GC_END: case EVENT_CONC_SYNC_BEGIN: case EVENT_CONC_SYNC_END:
        break;
    default:
        return 1;
    }
    if (GROW_ARRAY_RESERVE_MIN(pl->marks, pl->marks_cap, pl->n_marks + 1, 256) != 0)
        return 0;
    pl->marks[pl->n_marks] = (PauseMark){t, pl->n_marks, ev->cap, ev->type};
    pl->n_marks++;
    return 1;
}

/* The walk's state: the open collection and sync, and which capabilities
 * are inside a collection (in_gc) or still owe the GC_END of one that
 * has ended (late).  Indexed by cap + 1. */
typedef struct {
    uint64_t gc_since_ns, sync_since_ns;
    int gc_open, sync_open;
    unsigned char *in_gc, *late;
    size_t n_caps;
} PauseWalk;

static int walk_cap(PauseWalk *w, int cap, size_t *index)
{
    size_t i = (size_t)(cap + 1);
    if (i >= w->n_caps) {
        size_t n = i + 1 > 2 * w->n_caps ? i + 1 : 2 * w->n_caps;
        unsigned char *in_gc = realloc(w->in_gc, n), *late;
        if (in_gc == NULL)
            return 0;
        w->in_gc = in_gc;
        if ((late = realloc(w->late, n)) == NULL)
            return 0;
        w->late = late;
        memset(w->in_gc + w->n_caps, 0, n - w->n_caps);
        memset(w->late + w->n_caps, 0, n - w->n_caps);
        w->n_caps = n;
    }
    *index = i;
    return 1;
}

/* A capability's GC_END: the end of the open collection, or its share of
 * one that has ended (see the Note). */
static int walk_gc_end(PauseLog *pl, PauseWalk *w, size_t c, uint64_t t)
{
    if (!w->in_gc[c])
        return 1;
    w->in_gc[c] = 0;
    if (w->late[c]) {
        w->late[c] = 0;
        return 1;
    }
    if (!w->gc_open)
        return 1;
    w->gc_open = 0;
    for (size_t i = 0; i < w->n_caps; i++)
        if (w->in_gc[i])
            w->late[i] = 1;
    return push_pause(pl, w->gc_since_ns, t, PAUSE_GC);
}

static int walk_mark(PauseLog *pl, PauseWalk *w, const PauseMark *m)
{
    size_t c;
    if (!walk_cap(w, m->cap, &c))
        return 0;
    switch (m->type) {
    case EVENT_GC_END:
        return walk_gc_end(pl, w, c, m->time_ns);
    case EVENT_CONC_SYNC_BEGIN:
        if (!w->sync_open) {
            w->sync_open = 1;
            w->sync_since_ns = m->time_ns;
        }
        return 1;
    case EVENT_CONC_SYNC_END:
        if (!w->sync_open)
            return 1;
        w->sync_open = 0;
        return push_pause(pl, w->sync_since_ns, m->time_ns, PAUSE_SYNC);
    default:   /* a request or a start */
        w->in_gc[c] = 1;
        if (!w->gc_open) {
            w->gc_open = 1;
            w->gc_since_ns = m->time_ns;
        }
        return 1;
    }
}

static int by_time(const void *a, const void *b)
{
    const PauseMark *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);   /* qsort is not stable */
}

/* The pauses, from the marks in time order. */
static int walk_marks(PauseLog *pl)
{
    if (pl->n_marks > 1)   /* qsort wants a real array, even of none */
        qsort(pl->marks, pl->n_marks, sizeof *pl->marks, by_time);
    PauseWalk w = {0};
    int ok = 1;
    for (size_t i = 0; ok && i < pl->n_marks; i++)
        ok = walk_mark(pl, &w, &pl->marks[i]);
    if (ok && w.gc_open)
        ok = push_pause(pl, w.gc_since_ns, pl->last_ns, PAUSE_GC);
    if (ok && w.sync_open)
        ok = push_pause(pl, w.sync_since_ns, pl->last_ns, PAUSE_SYNC);
    free(w.in_gc);
    free(w.late);
    return ok;
}

static int by_start(const void *a, const void *b)
{
    const Pause *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Sorts the intervals and merges every overlapping (or touching) run. */
static void merge(PauseLog *pl)
{
    if (pl->n_pauses == 0)
        return;
    qsort(pl->pauses, pl->n_pauses, sizeof *pl->pauses, by_start);
    size_t out = 0;
    for (size_t i = 1; i < pl->n_pauses; i++) {
        Pause *cur = &pl->pauses[out], *next = &pl->pauses[i];
        if (next->start_ns <= cur->end_ns) {
            if (next->end_ns > cur->end_ns)
                cur->end_ns = next->end_ns;
            cur->kinds |= next->kinds;
        } else {
            pl->pauses[++out] = *next;
        }
    }
    pl->n_pauses = out + 1;
}

int pause_log_finish(PauseLog *pl)
{
    free(pl->pauses);
    pl->pauses = NULL;
    pl->n_pauses = pl->pauses_cap = 0;
    if (!walk_marks(pl))
        return 0;
    merge(pl);
    size_t n = pl->n_pauses;
    free(pl->sorted_ns);
    free(pl->prefix_ns);
    pl->sorted_ns = malloc((n ? n : 1) * sizeof *pl->sorted_ns);
    pl->prefix_ns = malloc((n + 1) * sizeof *pl->prefix_ns);
    if (pl->sorted_ns == NULL || pl->prefix_ns == NULL)
        return 0;
    pl->prefix_ns[0] = 0;
    for (size_t i = 0; i < n; i++) {
        pl->sorted_ns[i] = pl->pauses[i].end_ns - pl->pauses[i].start_ns;
        pl->prefix_ns[i + 1] = pl->prefix_ns[i] + pl->sorted_ns[i];
    }
    if (n > 1)
        qsort(pl->sorted_ns, n, sizeof *pl->sorted_ns, by_value);
    return 1;
}

uint64_t pause_log_span_ns(const PauseLog *pl)
{
    return pl->seen_event ? pl->last_ns - pl->first_ns : 0;
}

uint64_t pause_log_paused_ns(const PauseLog *pl)
{
    return pl->prefix_ns != NULL ? pl->prefix_ns[pl->n_pauses] : 0;
}

uint64_t pause_log_percentile(const PauseLog *pl, unsigned pct)
{
    size_t n = pl->n_pauses;
    if (n == 0 || pl->sorted_ns == NULL)
        return 0;
    if (pct > 100)
        pct = 100;
    size_t rank = ((size_t)pct * n + 99) / 100;   /* ceil(pct% of n), from 1 */
    return pl->sorted_ns[rank == 0 ? 0 : rank - 1];
}

ptrdiff_t pause_log_worst(const PauseLog *pl)
{
    ptrdiff_t worst = -1;
    for (size_t i = 0; i < pl->n_pauses; i++) {
        const Pause *p = &pl->pauses[i];
        if (worst < 0 || p->end_ns - p->start_ns >
                             pl->pauses[worst].end_ns - pl->pauses[worst].start_ns)
            worst = (ptrdiff_t)i;
    }
    return worst;
}

/* Note [Minimum mutator utilisation]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * MMU(w) (Cheng and Blelloch, 2001) is the smallest share of any window of
 * length w, inside the run, that is not paused: 0 when some pause is as
 * long as w, 1 with no pause.  The paused time in [t, t+w] changes with t
 * at rate (t+w paused) - (t paused): while t is not in a pause it never
 * falls, so moving a window right until its start reaches the next
 * pause's start, or the run's last window, loses nothing.  The maximum is
 * therefore at t = some pause's start (held inside [first, last - w]) or
 * at t = last - w.  Each candidate costs two binary searches over the
 * merged pauses and a prefix sum: O(n log n) for n pauses.  The unit test
 * checks it against a scan of every window. */

/* The first pause ending after t, or n. */
static size_t first_ending_after(const PauseLog *pl, uint64_t t)
{
    return SORTED_COUNT_AT_OR_BELOW(pl->pauses, pl->n_pauses, Pause, end_ns, t);
}

/* The number of pauses starting before t. */
static size_t count_starting_before(const PauseLog *pl, uint64_t t)
{
    return SORTED_COUNT_BELOW(pl->pauses, pl->n_pauses, Pause, start_ns, t);
}

/* Paused time inside [a, b]. */
static uint64_t paused_within(const PauseLog *pl, uint64_t a, uint64_t b)
{
    size_t i = first_ending_after(pl, a), j_end = count_starting_before(pl, b);
    if (i >= j_end)
        return 0;
    size_t j = j_end - 1;
    uint64_t total = pl->prefix_ns[j + 1] - pl->prefix_ns[i];
    if (pl->pauses[i].start_ns < a)
        total -= a - pl->pauses[i].start_ns;
    if (pl->pauses[j].end_ns > b)
        total -= pl->pauses[j].end_ns - b;
    return total;
}

static uint64_t clamp(uint64_t t, uint64_t lo, uint64_t hi)
{
    return t < lo ? lo : t > hi ? hi : t;
}

double pause_log_mmu(const PauseLog *pl, uint64_t window_ns)
{
    if (window_ns == 0 || !pl->seen_event || window_ns > pause_log_span_ns(pl))
        return -1;
    uint64_t lo = pl->first_ns, hi = pl->last_ns - window_ns;
    uint64_t worst = paused_within(pl, hi, hi + window_ns);
    for (size_t i = 0; i < pl->n_pauses; i++) {
        uint64_t t = clamp(pl->pauses[i].start_ns, lo, hi);
        uint64_t p = paused_within(pl, t, t + window_ns);
        if (p > worst)
            worst = p;
    }
    return 1.0 - (double)worst / (double)window_ns;
}

void pause_log_free(PauseLog *pl)
{
    free(pl->marks);
    free(pl->pauses);
    free(pl->sorted_ns);
    free(pl->prefix_ns);
    pause_log_init(pl);
}
