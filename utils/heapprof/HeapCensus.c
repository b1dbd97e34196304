/*
 * utils/heapprof/HeapCensus.c -- the latest complete heap census of an
 * eventlog, and what each of its bands is (info table, source location,
 * closure type, era), for strata-events pprof and strata-live.  Reads
 * events only through reader/EventLogReader.h; names closure types with
 * libstrata-wire's table.  See Note [Only the latest census].
 */
#include "HeapCensus.h"

#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"
#include "strata/InfoTables.h"

/* Note [Only the latest census]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * strata-live reads streams of any length, so nothing here grows with the
 * number of events or censuses: a census is read into `next` (its own label
 * index and byte counts) and, at its SAMPLE_END, becomes `last`, whose old
 * contents are freed.  What stays for the whole stream is the IPE table,
 * which has one entry per info table of the program (a fixed set, as GHC's
 * IPE map is), and the bands of at most two censuses.  A band's label
 * repeated within one census adds to its bytes, so a census has one figure
 * per label.  A census that the stream cuts short (a SAMPLE_BEGIN with no
 * SAMPLE_END) is never shown, nor is one begun before the previous ended:
 * the new SAMPLE_BEGIN discards it.
 */

/* ----------------------------------------------------------------------
 * Censuses
 * ------------------------------------------------------------------- */

static void census_free(HcCensus *c)
{
    evr_label_index_free(&c->labels);
    free(c->bytes);
    memset(c, 0, sizeof *c);
}

/* Adds bytes to the band labelled label; 0 when out of memory. */
static int census_add_band(HcCensus *c, EvrStr label, uint64_t bytes)
{
    size_t i = evr_label_find(&c->labels, label.ptr, label.len);
    if (i == EVR_NO_LABEL) {
        if (GROW_ARRAY_RESERVE_MIN(c->bytes, c->bytes_cap, c->labels.n + 1, 32) != 0)
            return 0;
        i = evr_label_add(&c->labels, label.ptr, label.len);
        if (i == EVR_NO_LABEL)
            return 0;
        c->bytes[i] = 0;
    }
    c->bytes[i] += bytes;
    c->total_bytes += bytes;
    return 1;
}

void heap_census_init(HeapCensus *hc)
{
    memset(hc, 0, sizeof *hc);
}

void heap_census_free(HeapCensus *hc)
{
    evr_ipe_table_free(&hc->ipes);
    census_free(&hc->next);
    census_free(&hc->last);
    memset(hc, 0, sizeof *hc);
}

int heap_census_add(HeapCensus *hc, const EvrEvent *ev)
{
    if (!ev->decoded)
        return 0;
    switch (ev->type) {
    case EVENT_HEAP_PROF_BEGIN:
        if (!hc->have_profile) {
            hc->have_profile = 1;
            hc->breakdown = ev->u.prof_begin.breakdown;
        }
        return 0;
    case EVENT_WALL_CLOCK_TIME:
        if (!hc->have_wall_clock) {
            hc->have_wall_clock = 1;
            hc->wall_ns = ev->u.wall_clock.secs * 1000000000u + ev->u.wall_clock.nsecs;
            hc->wall_event_ns = ev->time_ns;
        }
        return 0;
    case EVENT_IPE:
        if (!evr_ipe_table_add(&hc->ipes, ev))
            hc->out_of_memory = 1;
        return 0;
    case EVENT_HEAP_PROF_SAMPLE_BEGIN:
    case EVENT_HEAP_BIO_PROF_SAMPLE_BEGIN:
        census_free(&hc->next);
        hc->open = 1;
        hc->n_censuses++;
        hc->next.number = hc->n_censuses;
        hc->next.counter = ev->u.sample.census;
        hc->next.time_ns = ev->u.sample.sample_time_ns;
        return 0;
    case EVENT_HEAP_PROF_SAMPLE_STRING:
        if (hc->open && !census_add_band(&hc->next, ev->u.sample_string.label,
                                         ev->u.sample_string.residency_bytes))
            hc->out_of_memory = 1;
        return 0;
    case EVENT_HEAP_PROF_SAMPLE_END:
        if (!hc->open)
            return 0;
        census_free(&hc->last);
        hc->last = hc->next;
        memset(&hc->next, 0, sizeof hc->next);
        hc->open = 0;
        hc->have_last = 1;
        return 1;
    default:
        return 0;
    }
}

uint64_t heap_census_unix_ns(const HeapCensus *hc, const HcCensus *c)
{
    if (!hc->have_wall_clock)
        return 0;
    return hc->wall_ns + (c->time_ns - hc->wall_event_ns);
}

/* ----------------------------------------------------------------------
 * Ranking
 * ------------------------------------------------------------------- */

static const HcCensus *rank_census;   /* qsort has no context argument */

static int by_bytes(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const HcCensus *c = rank_census;
    if (c->bytes[a] != c->bytes[b])
        return c->bytes[a] < c->bytes[b] ? 1 : -1;
    EvrStr la = evr_label(&c->labels, a), lb = evr_label(&c->labels, b);
    size_t n = la.len < lb.len ? la.len : lb.len;
    int k = memcmp(la.ptr, lb.ptr, n);
    if (k != 0)
        return k;
    return (la.len > lb.len) - (la.len < lb.len);
}

void heap_census_rank(const HcCensus *c, size_t *order)
{
    for (size_t i = 0; i < c->labels.n; i++)
        order[i] = i;
    rank_census = c;
    qsort(order, c->labels.n, sizeof *order, by_bytes);
    rank_census = NULL;
}

/* ----------------------------------------------------------------------
 * What a band is
 * ------------------------------------------------------------------- */

static const char *const breakdown_names[] = {
    [HEAP_PROF_BREAKDOWN_COST_CENTRE] = "cost_centre",
    [HEAP_PROF_BREAKDOWN_MODULE] = "module",
    [HEAP_PROF_BREAKDOWN_CLOSURE_DESCR] = "closure_description",
    [HEAP_PROF_BREAKDOWN_TYPE_DESCR] = "type_description",
    [HEAP_PROF_BREAKDOWN_RETAINER] = "retainer_set",
    [HEAP_PROF_BREAKDOWN_BIOGRAPHY] = "biography",
    [HEAP_PROF_BREAKDOWN_CLOSURE_TYPE] = "closure_type",
    [HEAP_PROF_BREAKDOWN_INFO_TABLE] = "info_table",
    [HEAP_PROF_BREAKDOWN_ERA] = "era",
};

const char *heap_census_breakdown_name(uint32_t breakdown)
{
    if (breakdown >= sizeof breakdown_names / sizeof breakdown_names[0] ||
        breakdown_names[breakdown] == NULL)
        return "unknown";
    return breakdown_names[breakdown];
}

const char *heap_census_closure_type_name(uint64_t n)
{
    if (n >= N_CLOSURE_TYPES)
        return NULL;
    return strata_closure_type_name((StgHalfWord)n);
}

/* The value of a decimal string, or -1 if it is not one (or too big). */
static int64_t parse_decimal(EvrStr s)
{
    if (s.len == 0 || s.len > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < s.len; i++) {
        if (s.ptr[i] < '0' || s.ptr[i] > '9')
            return -1;
        v = v * 10 + (s.ptr[i] - '0');
    }
    return v;
}

void heap_census_split_srcloc(EvrStr srcloc, EvrStr *file, int64_t *line)
{
    *file = (EvrStr){ .ptr = srcloc.ptr, .len = 0 };
    *line = 0;
    for (size_t i = 0; i < srcloc.len; i++) {
        if (srcloc.ptr[i] != ':')
            continue;
        size_t j = i + 1;
        while (j < srcloc.len && srcloc.ptr[j] >= '0' && srcloc.ptr[j] <= '9')
            j++;
        if (j == i + 1 || (j < srcloc.len && srcloc.ptr[j] != ':'))
            continue;
        int64_t n = parse_decimal((EvrStr){ .ptr = srcloc.ptr + i + 1, .len = j - i - 1 });
        if (n < 0)
            continue;
        file->len = i;
        *line = n;
        return;
    }
    *file = srcloc;   /* a file with no line */
}

void heap_census_band_info(const HeapCensus *hc, const HcCensus *c, size_t i,
                           HcBandInfo *out)
{
    static const char empty[] = "";
    EvrStr none = { .ptr = empty, .len = 0 };
    EvrStr label = evr_label(&c->labels, i);
    *out = (HcBandInfo){ .label = label, .name = label, .module = none, .fn = none,
                         .type = none, .srcloc = none, .file = none };
    switch (hc->breakdown) {
    case HEAP_PROF_BREAKDOWN_INFO_TABLE: {
        const EvrIpe *ipe = evr_ipe_table_find_label(&hc->ipes, label.ptr, label.len);
        if (ipe == NULL)
            return;
        out->info = ipe->info;
        if (ipe->table_name.len > 0)
            out->name = ipe->table_name;
        out->module = ipe->module;
        out->fn = ipe->label;
        out->type = ipe->ty_desc;
        out->srcloc = ipe->srcloc;
        heap_census_split_srcloc(ipe->srcloc, &out->file, &out->line);
        int64_t ct = parse_decimal(ipe->closure_desc);
        if (ct >= 0)
            out->closure_type = heap_census_closure_type_name((uint64_t)ct);
        return;
    }
    case HEAP_PROF_BREAKDOWN_CLOSURE_TYPE:
        /* The label is the closure type's name (strata and GHC alike). */
        out->closure_type = label.ptr;
        return;
    case HEAP_PROF_BREAKDOWN_ERA: {
        int64_t era = parse_decimal(label);
        if (era >= 0) {
            out->have_era = 1;
            out->era = (uint64_t)era;
        }
        return;
    }
    default:
        return;
    }
}
