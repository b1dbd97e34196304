/*
 * utils/heapprof/HeapModel.c -- the tools' one heap-profile model
 * (HeapModel.h): censuses assembled from the events, the bands' labels,
 * and what each band is (info table, source location, closure type, era,
 * cost-centre stack).  Reads events only through reader/EventLogReader.h;
 * names closure types with libstrata-wire's table.  See Note [One rule
 * per case] and Note [Censuses go by].
 */
#include "HeapModel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"
#include "strata/InfoTables.h"

/* Note [One rule per case]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every tool reads its censuses here, so an odd log gets one reading in
 * all of them.  Where the tools used to differ, eventlog2html's reading
 * was taken (it closes a census when the next one begins or the log ends,
 * whatever SAMPLE_END says):
 *  - A census is a SAMPLE_BEGIN (a BIO_SAMPLE_BEGIN, at its sample time;
 *    a .hp BEGIN_SAMPLE).  It ends at its SAMPLE_END, at the next
 *    SAMPLE_BEGIN or at the end of the log, whichever comes first, and
 *    counts in each case, with the samples read: the census of a program
 *    killed mid-census is shown.  So the numbers run 1, 2, ... without a
 *    gap, and the number of censuses is the number of SAMPLE_BEGINs.
 *  - A census with no samples counts; every band is 0 in it.
 *  - A label repeated within a census adds up: the band has the sum.
 *    (eventlog2html sums in its table and draws the last; neither GHC nor
 *    strata repeats a label.)
 *  - A sample outside a census (before the first SAMPLE_BEGIN, or after a
 *    SAMPLE_END and before the next) is dropped, as is a SAMPLE_END with
 *    no census open; neither runtime writes them.
 *  - A string sample's band is its label as written, whatever the
 *    breakdown: -hi addresses in the case and width the runtime wrote
 *    (reader/IpeTable.h finds the IPE for any), -hT closure type names,
 *    -he era numbers, -hy/-hd descriptions.
 *  - A -hc sample (HEAP_PROF_SAMPLE_COST_CENTRE) is keyed by its stack's
 *    ids, innermost first, joined by ',' ("254,253,12"); CCS_MAIN is left
 *    out, so the empty stack is "MAIN".  Stacks whose cost centres share
 *    names stay apart (eventlog2html too keys stacks by ids), and a sample
 *    read before its cost centres are defined still finds its band.  The
 *    name hp2ps gives the stack is made when a census holding the band
 *    ends, again if cost centres were defined since (GHC defines them all
 *    before the first census); strata-events summary merges stacks of the
 *    same name, as hp2ps does.
 *  - Of HEAP_PROF_BEGIN and WALL_CLOCK_TIME the first counts; an IPE
 *    address or cost-centre id described twice keeps its first.
 */

/* Note [Censuses go by]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * strata-html and strata-live read logs and streams of any length, so the
 * model keeps no list of censuses: a census is read into `next` and, when
 * it ends, becomes `last` (the old `last`'s arrays are reused), and the
 * reader folds it into its own figures before the next one ends.  What
 * stays is the band labels, the IPE table (one entry per info table of
 * the program) and the cost centres.  A band's label is kept once, in
 * `labels`, so that readers keep per-band figures in arrays by band
 * number.  strata-live keeps only the latest census, and a -he stream
 * brings a new era label at each census; with `latest_only` the bands
 * that `last` lacks are forgotten (and the rest renumbered) whenever they
 * outnumber it, so that its memory stays that of one census.
 */

void heap_model_init(HeapModel *m)
{
    memset(m, 0, sizeof *m);
}

static void census_free(HmCensus *c)
{
    free(c->e);
    memset(c, 0, sizeof *c);
}

static void bands_free(HeapModel *m)
{
    for (size_t i = 0; i < m->labels.n; i++)
        free(m->bands[i].stack_name);
    free(m->bands);
    m->bands = NULL;
    m->bands_cap = 0;
    evr_label_index_free(&m->labels);
}

void heap_model_free(HeapModel *m)
{
    evr_ipe_table_free(&m->ipes);
    hp_cost_centres_free(&m->ccs);
    bands_free(m);
    census_free(&m->next);
    census_free(&m->last);
    memset(m, 0, sizeof *m);
}

/* ----------------------------------------------------------------------
 * Bands and censuses: see Note [One rule per case]
 * ------------------------------------------------------------------- */

/* A new band labelled label; EVR_NO_LABEL when out of memory.  Out of
 * line: census_add's usual case is a band already known. */
__attribute__((noinline)) static size_t band_new(HeapModel *m, const char *label, size_t len)
{
    if (GROW_ARRAY_RESERVE_MIN(m->bands, m->bands_cap, m->labels.n + 1, 32) != 0)
        return EVR_NO_LABEL;
    size_t b = evr_label_add(&m->labels, label, len);
    if (b != EVR_NO_LABEL)
        m->bands[b] = (HmBand){ 0 };
    return b;
}

/* Adds bytes to the band labelled label (made if new) in the open census;
 * the band's number, or EVR_NO_LABEL when out of memory. */
static inline size_t census_add(HeapModel *m, const char *label, size_t len, uint64_t bytes)
{
    size_t b = evr_label_find(&m->labels, label, len);
    if (b == EVR_NO_LABEL && (b = band_new(m, label, len)) == EVR_NO_LABEL)
        return EVR_NO_LABEL;
    HmCensus *c = &m->next;
    HmBand *band = &m->bands[b];
    if (band->census != c->number) {
        if (GROW_ARRAY_RESERVE_MIN(c->e, c->cap, c->n + 1, 32) != 0)
            return EVR_NO_LABEL;
        band->census = c->number;
        band->slot = c->n;
        c->e[c->n++] = (HmEntry){ .band = b, .bytes = 0 };
    }
    c->e[band->slot].bytes += bytes;
    c->total_bytes += bytes;
    return b;
}

int heap_model_census_begin(HeapModel *m, uint64_t counter, uint64_t time_ns)
{
    int ended = heap_model_census_end(m);
    HmCensus *c = &m->next;
    c->number = ++m->n_censuses;
    c->counter = counter;
    c->time_ns = time_ns;
    c->total_bytes = 0;
    c->n = 0;
    m->open = 1;
    return ended;
}

void heap_model_census_sample(HeapModel *m, const char *label, size_t len, uint64_t bytes)
{
    if (m->open && census_add(m, label, len, bytes) == EVR_NO_LABEL)
        m->out_of_memory = 1;
}

/* Names the -hc stacks of c not named since the last cost centre was
 * defined. */
static void name_stacks(HeapModel *m, const HmCensus *c)
{
    if (!m->have_stacks)
        return;
    for (size_t i = 0; i < c->n; i++) {
        HmBand *band = &m->bands[c->e[i].band];
        if (!band->is_stack || (band->stack_name != NULL && band->named_at == m->ccs_defined))
            continue;
        EvrStr key = evr_label(&m->labels, c->e[i].band);
        char *name = hp_stack_name(&m->ccs, key.ptr, key.len);
        if (name == NULL) {
            m->out_of_memory = 1;
            continue;
        }
        free(band->stack_name);
        band->stack_name = name;
        band->named_at = m->ccs_defined;
    }
}

/* Note [Censuses go by]: keeps only the bands of `last`, renumbered. */
static void forget_bands(HeapModel *m)
{
    HmCensus *c = &m->last;
    EvrLabelIndex labels = { 0 };
    HmBand *bands = malloc((c->n ? c->n : 1) * sizeof *bands);
    if (bands == NULL)
        return;   /* kept as they are: correct, only larger */
    for (size_t i = 0; i < c->n; i++) {
        EvrStr l = evr_label(&m->labels, c->e[i].band);
        if (evr_label_add(&labels, l.ptr, l.len) != i) {
            evr_label_index_free(&labels);
            free(bands);
            return;
        }
    }
    for (size_t i = 0; i < c->n; i++) {
        bands[i] = m->bands[c->e[i].band];
        bands[i].slot = i;
        m->bands[c->e[i].band].stack_name = NULL;   /* moved */
        c->e[i].band = i;
    }
    bands_free(m);
    m->labels = labels;
    m->bands = bands;
    m->bands_cap = c->n ? c->n : 1;
}

int heap_model_census_end(HeapModel *m)
{
    if (!m->open)
        return 0;
    HmCensus done = m->next;
    m->next = m->last;   /* its arrays, for the next census */
    m->last = done;
    m->open = 0;
    m->have_last = 1;
    name_stacks(m, &m->last);
    if (m->latest_only && m->labels.n > 2 * m->last.n + 64)
        forget_bands(m);
    return 1;
}

/* Note [One rule per case]: a -hc sample's band is its stack's ids. */
static void take_stack_sample(HeapModel *m, const EvrEvent *ev)
{
    if (!m->open)
        return;
    char key[256 * 11 + 8];
    size_t n = 0;
    if (ev->u.sample_cc.depth == 0)
        n = (size_t)snprintf(key, sizeof key, "MAIN");
    for (size_t k = 0; k < ev->u.sample_cc.depth; k++)
        n += (size_t)snprintf(key + n, sizeof key - n, "%s%" PRIu32, k ? "," : "",
                              evr_ccs_id(ev, k));
    size_t b = census_add(m, key, n, ev->u.sample_cc.residency_bytes);
    if (b == EVR_NO_LABEL) {
        m->out_of_memory = 1;
        return;
    }
    m->bands[b].is_stack = 1;
    m->have_stacks = 1;
}

static void take_cost_centre(HeapModel *m, const EvrEvent *ev)
{
    uint32_t id = ev->u.cost_centre.id;
    int known = hp_cost_centre(&m->ccs, id) != NULL;
    if (hp_cost_centre_define(&m->ccs, id, ev->u.cost_centre.label, ev->u.cost_centre.module,
                              ev->u.cost_centre.srcloc) != 0)
        m->out_of_memory = 1;
    else if (!known && hp_cost_centre(&m->ccs, id) != NULL)
        m->ccs_defined++;
}

/* HEAP_PROF_BEGIN and WALL_CLOCK_TIME: the first of each counts. */
static void take_profile(HeapModel *m, const EvrEvent *ev)
{
    if (ev->type == EVENT_HEAP_PROF_BEGIN && !m->have_profile) {
        m->have_profile = 1;
        m->breakdown = ev->u.prof_begin.breakdown;
        m->interval_ns = ev->u.prof_begin.interval_ns;
        m->begin_ns = ev->time_ns;
    } else if (ev->type == EVENT_WALL_CLOCK_TIME && !m->have_wall_clock) {
        m->have_wall_clock = 1;
        m->wall_ns = ev->u.wall_clock.secs * 1000000000u + ev->u.wall_clock.nsecs;
        m->wall_event_ns = ev->time_ns;
    }
}

int heap_model_take(HeapModel *m, const EvrEvent *ev)
{
    switch (ev->type) {
    case EVENT_HEAP_PROF_BEGIN:
    case EVENT_WALL_CLOCK_TIME:
        take_profile(m, ev);
        return 0;
    case EVENT_IPE:
        if (!evr_ipe_table_add(&m->ipes, ev))
            m->out_of_memory = 1;
        return 0;
    case EVENT_HEAP_PROF_COST_CENTRE:
        take_cost_centre(m, ev);
        return 0;
    case EVENT_HEAP_PROF_SAMPLE_BEGIN:
    case EVENT_HEAP_BIO_PROF_SAMPLE_BEGIN:
        return heap_model_census_begin(m, ev->u.sample.census, ev->u.sample.sample_time_ns);
    case EVENT_HEAP_PROF_SAMPLE_STRING: {
        EvrStr l = ev->u.sample_string.label;   /* heap_model_census_sample, inlined */
        if (m->open && census_add(m, l.ptr, l.len, ev->u.sample_string.residency_bytes) ==
                           EVR_NO_LABEL)
            m->out_of_memory = 1;
        return 0;
    }
    case EVENT_HEAP_PROF_SAMPLE_COST_CENTRE:
        take_stack_sample(m, ev);
        return 0;
    case EVENT_HEAP_PROF_SAMPLE_END:
        return heap_model_census_end(m);
    default:
        return 0;
    }
}

EvrStr heap_model_label(const HeapModel *m, size_t b)
{
    return evr_label(&m->labels, b);
}

EvrStr heap_model_band_name(const HeapModel *m, size_t b)
{
    const char *s = m->bands[b].stack_name;
    if (s != NULL)
        return (EvrStr){ .ptr = s, .len = strlen(s) };
    return evr_label(&m->labels, b);
}

uint64_t heap_model_unix_ns(const HeapModel *m, const HmCensus *c)
{
    if (!m->have_wall_clock)
        return 0;
    return m->wall_ns + (c->time_ns - m->wall_event_ns);
}

/* ----------------------------------------------------------------------
 * Ranking
 * ------------------------------------------------------------------- */

/* qsort has no context argument. */
static const HeapModel *rank_model;
static const HmCensus *rank_census;

static int by_bytes(const void *pa, const void *pb)
{
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    const HmCensus *c = rank_census;
    if (c->e[a].bytes != c->e[b].bytes)
        return c->e[a].bytes < c->e[b].bytes ? 1 : -1;
    EvrStr la = evr_label(&rank_model->labels, c->e[a].band);
    EvrStr lb = evr_label(&rank_model->labels, c->e[b].band);
    size_t n = la.len < lb.len ? la.len : lb.len;
    int k = memcmp(la.ptr, lb.ptr, n);
    if (k != 0)
        return k;
    return (la.len > lb.len) - (la.len < lb.len);
}

void heap_model_rank(const HeapModel *m, const HmCensus *c, size_t *order)
{
    for (size_t i = 0; i < c->n; i++)
        order[i] = i;
    rank_model = m;
    rank_census = c;
    qsort(order, c->n, sizeof *order, by_bytes);
    rank_model = NULL;
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

const char *heap_model_breakdown_name(uint32_t breakdown)
{
    if (breakdown >= sizeof breakdown_names / sizeof breakdown_names[0] ||
        breakdown_names[breakdown] == NULL)
        return "unknown";
    return breakdown_names[breakdown];
}

const char *heap_model_closure_type_name(uint64_t n)
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

void heap_model_split_srcloc(EvrStr srcloc, EvrStr *file, int64_t *line)
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

void heap_model_band_info(const HeapModel *m, const HmCensus *c, size_t i, HmBandInfo *out)
{
    static const char empty[] = "";
    EvrStr none = { .ptr = empty, .len = 0 };
    size_t band = c->e[i].band;
    EvrStr label = evr_label(&m->labels, band);
    *out = (HmBandInfo){ .label = label, .name = label, .module = none, .fn = none,
                         .type = none, .srcloc = none, .file = none };
    if (m->bands[band].is_stack) {
        out->is_stack = 1;
        out->name = heap_model_band_name(m, band);
        return;
    }
    switch (m->breakdown) {
    case HEAP_PROF_BREAKDOWN_INFO_TABLE: {
        const EvrIpe *ipe = evr_ipe_table_find_label(&m->ipes, label.ptr, label.len);
        if (ipe == NULL)
            return;
        out->info = ipe->info;
        if (ipe->table_name.len > 0)
            out->name = ipe->table_name;
        out->module = ipe->module;
        out->fn = ipe->label;
        out->type = ipe->ty_desc;
        out->srcloc = ipe->srcloc;
        heap_model_split_srcloc(ipe->srcloc, &out->file, &out->line);
        int64_t ct = parse_decimal(ipe->closure_desc);
        if (ct >= 0)
            out->closure_type = heap_model_closure_type_name((uint64_t)ct);
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
