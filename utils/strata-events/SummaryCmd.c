/*
 * utils/strata-events/SummaryCmd.c -- `strata-events summary FILE [--json]`:
 * the program and its arguments, the RTS identifier, the heap profile
 * (mode, interval, samples and the censuses the interval asked for, top
 * buckets by peak and by integrated size,
 * -hi buckets named from their IPE events), heap maxima and user markers.
 * The censuses come from the tools' heap-profile model
 * (utils/heapprof/HeapModel.h), folded into buckets here; a log's sampled
 * allocations (--alloc-sample) add the top allocation sites
 * (SummaryAlloc.c).  One pass over
 * the log; memory grows only with the number of distinct bucket labels,
 * IPE addresses, cost centres and markers.  See Note [Integrated size],
 * Note [Naming -hi buckets] and Note [Naming -hc buckets].  Output
 * formats: docs/strata-events.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "AllocModel.h"
#include "GrowArray.h"
#include "HeapModel.h"
#include "SummaryAlloc.h"
#include "SummaryCmd.h"
#include "Tool.h"


/* Note [Integrated size]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * A bucket's integrated size is the area under its residency curve, in
 * byte-seconds, by the trapezoid rule over the census times (each sample's
 * SAMPLE_BEGIN timestamp, or the sample time of a biographical sample).  A
 * bucket absent from a census counts as 0 there, as hp2ps draws it, so a
 * bucket seen once in a run of censuses still gets the two half-areas
 * either side.  A single census has no area.  Ranking ties are broken by
 * label so that the output is stable.
 */

typedef struct Bucket {
    const char *label;         /* the copy in Summary.labels; may hold NULs */
    size_t label_len;
    uint64_t peak_bytes;       /* largest residency in any census */
    uint64_t cur_bytes;        /* residency in the open census */
    uint64_t last_bytes;       /* residency in the last closed census */
    double area_byte_ns;       /* integral so far (byte-nanoseconds) */
} Bucket;

/* Note [Naming -hi buckets]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An info-table profile (-hi, breakdown 8) labels each bucket with the
 * info table's address, and the log describes each table once in an IPE
 * event.  The model keeps every IPE event in an EvrIpeTable
 * (reader/IpeTable.h), which says which IPE a label names.  Other
 * breakdowns' labels are never looked up, even when they happen to look
 * like addresses.
 */

typedef struct Marker {
    uint64_t time_ns;
    char *name;                /* owned */
    size_t name_len;
} Marker;

typedef struct Summary {
    char *args;                /* owned copy of PROGRAM_ARGS (NUL-separated) */
    size_t args_len;
    char *rts_id;              /* owned copy of RTS_IDENTIFIER */
    size_t rts_id_len;
    HeapModel m;               /* the heap profile: its censuses, IPEs, cost centres */
    AllocModel am;             /* the sampled allocations (--alloc-sample) */
    int have_last_sample;      /* a census has been folded in */
    uint64_t last_sample_time_ns;
    EvrLabelIndex labels;      /* bucket i has label number i */
    Bucket *buckets;
    size_t n_buckets, buckets_capacity;
    size_t *bucket_of;         /* per band of the model: its bucket */
    uint64_t *bucket_named;    /* per band: 1 + its named_at when bucket_of was set; 0: unset */
    size_t bucket_of_capacity;
    int have_heap_size, have_heap_live, have_blocks_size;
    uint64_t max_heap_size, max_heap_live, max_blocks_size;
    Marker *markers;
    size_t n_markers, markers_capacity;
    uint64_t n_events;
    uint64_t n_gcs;
    uint64_t last_time_ns;
    int out_of_memory;
} Summary;

/* ----------------------------------------------------------------------
 * Buckets
 * ------------------------------------------------------------------- */

/* The bucket for label, created if new; NULL when out of memory. */
static Bucket *bucket_get(Summary *s, EvrStr label)
{
    size_t i = evr_label_find(&s->labels, label.ptr, label.len);
    if (i != EVR_NO_LABEL)
        return &s->buckets[i];
    if (GROW_ARRAY_RESERVE_MIN(s->buckets, s->buckets_capacity, s->n_buckets + 1, 32) != 0)
        return NULL;
    i = evr_label_add(&s->labels, label.ptr, label.len);
    if (i == EVR_NO_LABEL)
        return NULL;
    s->buckets[i] = (Bucket){ .label = evr_label(&s->labels, i).ptr, .label_len = label.len };
    s->n_buckets++;
    return &s->buckets[i];
}

/* The bucket of the model's band b, found by its name (Note [Naming -hc
 * buckets]) when it has none yet or its name changed; NULL when out of
 * memory. */
static Bucket *bucket_find(Summary *s, size_t b)
{
    if (b >= s->bucket_of_capacity) {
        size_t old = s->bucket_of_capacity, cap = old;
        if (GROW_ARRAY_RESERVE_MIN(s->bucket_of, cap, b + 1, 64) != 0)
            return NULL;
        cap = old;
        if (GROW_ARRAY_RESERVE_MIN(s->bucket_named, cap, b + 1, 64) != 0)
            return NULL;
        memset(s->bucket_named + old, 0, (cap - old) * sizeof *s->bucket_named);
        s->bucket_of_capacity = cap;
    }
    Bucket *k = bucket_get(s, heap_model_band_name(&s->m, b));
    if (k == NULL)
        return NULL;
    s->bucket_of[b] = (size_t)(k - s->buckets);
    s->bucket_named[b] = s->m.bands[b].named_at + 1;
    return k;
}

/* Folds in census c, the model's latest: see Note [Integrated size]. */
static void census_fold(Summary *s, const HmCensus *c)
{
    for (size_t i = 0; i < c->n; i++) {
        size_t band = c->e[i].band;
        Bucket *k = band < s->bucket_of_capacity &&
                            s->bucket_named[band] == s->m.bands[band].named_at + 1
                        ? &s->buckets[s->bucket_of[band]]
                        : bucket_find(s, band);
        if (k == NULL) {
            s->out_of_memory = 1;
            return;
        }
        k->cur_bytes += c->e[i].bytes;
    }
    double dt_ns = s->have_last_sample
                       ? (double)c->time_ns - (double)s->last_sample_time_ns : 0.0;
    for (size_t i = 0; i < s->n_buckets; i++) {
        Bucket *b = &s->buckets[i];
        if (s->have_last_sample)
            b->area_byte_ns += dt_ns * ((double)b->last_bytes + (double)b->cur_bytes) / 2.0;
        if (b->cur_bytes > b->peak_bytes)
            b->peak_bytes = b->cur_bytes;
        b->last_bytes = b->cur_bytes;
        b->cur_bytes = 0;
    }
    s->have_last_sample = 1;
    s->last_sample_time_ns = c->time_ns;
}

/* Note [Censuses asked for]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The log does not record the -i ticks, but it says what they asked for:
 * one census per interval (HEAP_PROF_BEGIN's) from the start of the
 * profile to the last census, plus the census at exit -- what GHC, which
 * takes a census at every tick, would have taken.  Under strata's census
 * budget fewer are taken (docs/design/profiling.md).  The runtime's own
 * count (+RTS -s) counts the ticks the program served, which can be fewer
 * when the mutator did not allocate for a whole interval.  With interval
 * 0 (-i0) every major GC asks, so asked is taken; a log without samples
 * asked for none.  A census beyond the intervals' count was asked for by
 * someone (the program, GHC's requestHeapCensus), so asked is never less
 * than taken. */
static uint64_t censuses_asked(const Summary *s)
{
    const HeapModel *m = &s->m;
    if (!m->have_profile || m->interval_ns == 0 || m->n_censuses == 0 ||
        s->last_sample_time_ns < m->begin_ns)
        return m->n_censuses;
    uint64_t asked = (s->last_sample_time_ns - m->begin_ns) / m->interval_ns + 1;
    return asked > m->n_censuses ? asked : m->n_censuses;
}

/* Whether the log's command line holds the argument a. */
static int args_have(const Summary *s, const char *a)
{
    size_t n = strlen(a);
    for (size_t i = 0; i < s->args_len;) {
        const char *nul = memchr(s->args + i, '\0', s->args_len - i);
        size_t len = nul ? (size_t)(nul - (s->args + i)) : s->args_len - i;
        if (len == n && memcmp(s->args + i, a, n) == 0)
            return 1;
        i += len + 1;
    }
    return 0;
}

#define EVERY_TICK_FLAG "--census-gc=every-tick"

/* Whether strata's census budget took fewer censuses than the ticks asked
 * for (docs/design/profiling.md, "When a census runs"): a strata log
 * (GHC takes one at every tick), automatic censuses, and no every-tick on
 * the command line (the only record of the policy: GHCRTS is not in the
 * log). */
static int census_budget_applied(const Summary *s)
{
    static const char strata[] = "strata";
    return s->rts_id != NULL && s->rts_id_len >= sizeof strata - 1 &&
           memcmp(s->rts_id, strata, sizeof strata - 1) == 0 && s->m.have_profile &&
           s->m.interval_ns > 0 && censuses_asked(s) > s->m.n_censuses &&
           !args_have(s, EVERY_TICK_FLAG);
}

/* ----------------------------------------------------------------------
 * IPE entries: see Note [Naming -hi buckets]
 * ------------------------------------------------------------------- */

/* The closure description is decimal (the reader checks it); *fits is 0
 * when it is too big for 64 bits. */
static uint64_t parse_closure_type(EvrStr d, int *fits)
{
    uint64_t v = 0;
    *fits = 1;
    for (size_t i = 0; i < d.len; i++) {
        unsigned digit = (unsigned)(d.ptr[i] - '0');
        if (v > (UINT64_MAX - digit) / 10)
            *fits = 0;
        v = v * 10 + digit;
    }
    return v;
}

/* The IPE naming bucket b, or NULL: see Note [Naming -hi buckets]. */
static const EvrIpe *bucket_ipe(const Summary *s, const Bucket *b)
{
    if (!s->m.have_profile || s->m.breakdown != HEAP_PROF_BREAKDOWN_INFO_TABLE)
        return NULL;
    return evr_ipe_table_find_label(&s->m.ipes, b->label, b->label_len);
}

/* ----------------------------------------------------------------------
 * Collecting
 * ------------------------------------------------------------------- */

static char *copy_bytes(Summary *s, EvrStr str)
{
    char *c = evr_str_dup(str);
    if (c == NULL)
        s->out_of_memory = 1;
    return c;
}

static void marker_add(Summary *s, uint64_t time_ns, EvrStr name)
{
    if (GROW_ARRAY_RESERVE_MIN(s->markers, s->markers_capacity, s->n_markers + 1, 16) != 0) {
        s->out_of_memory = 1;
        return;
    }
    char *c = copy_bytes(s, name);
    if (c == NULL)
        return;
    s->markers[s->n_markers++] = (Marker){ .time_ns = time_ns, .name = c, .name_len = name.len };
}

static void max_update(int *have, uint64_t *max, uint64_t v)
{
    if (!*have || v > *max)
        *max = v;
    *have = 1;
}

/* Note [Naming -hc buckets]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The model keys a -hc band by its stack's cost-centre ids and names it
 * as hp2ps does (hp_stack_name: the labels innermost first joined by '/',
 * a CAF cost centre as "Module.CAF", an empty stack "MAIN", an id never
 * defined "cc<id>"), from the cost centres defined when a census holding
 * it ends (GHC defines every cost centre at start-up).  A bucket is a
 * name, so stacks with the same names share one, as in hp2ps's output and
 * ghc-events' reading that ghc-logs.sh compares with.
 */

static void summary_add(Summary *s, const EvrEvent *ev)
{
    s->n_events++;
    if (ev->time_ns > s->last_time_ns)
        s->last_time_ns = ev->time_ns;
    if (ev->type == EVENT_GC_START)
        s->n_gcs++;
    if (!ev->decoded)
        return;
    if (alloc_model_add(&s->am, ev)) {
        if (s->am.out_of_memory)
            s->out_of_memory = 1;
        return;
    }
    if (heap_model_add(&s->m, ev))
        census_fold(s, &s->m.last);
    if (s->m.out_of_memory)
        s->out_of_memory = 1;
    switch (ev->type) {
    case EVENT_PROGRAM_ARGS:
        if (s->args == NULL) {
            s->args = copy_bytes(s, ev->u.args.args);
            s->args_len = ev->u.args.args.len;
        }
        break;
    case EVENT_RTS_IDENTIFIER:
        if (s->rts_id == NULL) {
            s->rts_id = copy_bytes(s, ev->u.rts_id.ident);
            s->rts_id_len = ev->u.rts_id.ident.len;
        }
        break;
    case EVENT_HEAP_SIZE:
        max_update(&s->have_heap_size, &s->max_heap_size, ev->u.heap.bytes);
        break;
    case EVENT_HEAP_LIVE:
        max_update(&s->have_heap_live, &s->max_heap_live, ev->u.heap.bytes);
        break;
    case EVENT_BLOCKS_SIZE:
        max_update(&s->have_blocks_size, &s->max_blocks_size, ev->u.heap.bytes);
        break;
    case EVENT_USER_MARKER:
        marker_add(s, ev->time_ns, ev->u.user.text);
        break;
    default:
        break;
    }
}

static void summary_free(Summary *s)
{
    heap_model_free(&s->m);
    alloc_model_free(&s->am);
    evr_label_index_free(&s->labels);
    for (size_t i = 0; i < s->n_markers; i++)
        free(s->markers[i].name);
    free(s->buckets);
    free(s->bucket_of);
    free(s->bucket_named);
    free(s->markers);
    free(s->args);
    free(s->rts_id);
}

/* ----------------------------------------------------------------------
 * Ranking
 * ------------------------------------------------------------------- */

static int label_cmp(const Bucket *a, const Bucket *b)
{
    size_t n = a->label_len < b->label_len ? a->label_len : b->label_len;
    int c = memcmp(a->label, b->label, n);
    if (c != 0)
        return c;
    return (a->label_len > b->label_len) - (a->label_len < b->label_len);
}

static int by_peak(const void *pa, const void *pb)
{
    const Bucket *a = *(const Bucket *const *)pa, *b = *(const Bucket *const *)pb;
    if (a->peak_bytes != b->peak_bytes)
        return a->peak_bytes < b->peak_bytes ? 1 : -1;
    return label_cmp(a, b);
}

static int by_area(const void *pa, const void *pb)
{
    const Bucket *a = *(const Bucket *const *)pa, *b = *(const Bucket *const *)pb;
    if (a->area_byte_ns != b->area_byte_ns)
        return a->area_byte_ns < b->area_byte_ns ? 1 : -1;
    return label_cmp(a, b);
}

/* The top `limit` buckets under cmp (all of them for 0), into top[];
 * returns how many. */
static size_t rank_buckets(const Summary *s, int (*cmp)(const void *, const void *),
                           size_t limit, const Bucket **top, const Bucket **scratch)
{
    for (size_t i = 0; i < s->n_buckets; i++)
        scratch[i] = &s->buckets[i];
    qsort(scratch, s->n_buckets, sizeof *scratch, cmp);
    size_t n = limit == 0 || s->n_buckets < limit ? s->n_buckets : limit;
    memcpy(top, scratch, n * sizeof *top);
    return n;
}

/* ----------------------------------------------------------------------
 * Output
 * ------------------------------------------------------------------- */

static double byte_seconds(const Bucket *b)
{
    return b->area_byte_ns / 1e9;
}

/* Calls fn on each NUL-separated argument. */
static void args_each(const Summary *s, void (*fn)(FILE *, const char *, size_t, int),
                      FILE *out, int skip_first)
{
    size_t i = 0;
    int k = 0;
    while (i < s->args_len) {
        const char *nul = memchr(s->args + i, '\0', s->args_len - i);
        size_t n = nul ? (size_t)(nul - (s->args + i)) : s->args_len - i;
        if (!(skip_first && k == 0))
            fn(out, s->args + i, n, k - skip_first);
        k++;
        i += n + 1;
    }
}

static size_t args_first_len(const Summary *s)
{
    const char *nul = memchr(s->args, '\0', s->args_len);
    return nul ? (size_t)(nul - s->args) : s->args_len;
}

static void text_arg(FILE *out, const char *a, size_t n, int k)
{
    (void)k;
    fputc(' ', out);
    tool_print_quoted(out, a, n);
}

static void text_max(FILE *out, const char *what, int have, uint64_t v)
{
    if (have)
        fprintf(out, "%s: %" PRIu64 " bytes\n", what, v);
    else
        fprintf(out, "%s: none\n", what);
}

/* After a bucket's quoted label: its IPE's non-empty fields, two spaces
 * apart, "TABLE  MODULE.LABEL  :: TYPE  SRCLOC". */
static void text_ipe(FILE *out, const EvrIpe *ipe)
{
    if (ipe->table_name.len > 0) {
        fputs("  ", out);
        tool_print_escaped(out, ipe->table_name.ptr, ipe->table_name.len);
    }
    if (ipe->module.len > 0 || ipe->label.len > 0) {
        fputs("  ", out);
        tool_print_escaped(out, ipe->module.ptr, ipe->module.len);
        if (ipe->module.len > 0 && ipe->label.len > 0)
            fputc('.', out);
        tool_print_escaped(out, ipe->label.ptr, ipe->label.len);
    }
    if (ipe->ty_desc.len > 0) {
        fputs("  :: ", out);
        tool_print_escaped(out, ipe->ty_desc.ptr, ipe->ty_desc.len);
    }
    if (ipe->srcloc.len > 0) {
        fputs("  ", out);
        tool_print_escaped(out, ipe->srcloc.ptr, ipe->srcloc.len);
    }
}

static void text_bucket_label(FILE *out, const Summary *s, const Bucket *b)
{
    tool_print_quoted(out, b->label, b->label_len);
    const EvrIpe *ipe = bucket_ipe(s, b);
    if (ipe != NULL)
        text_ipe(out, ipe);
    fputc('\n', out);
}

static void summary_print_text(const Summary *s, const char *path, const Bucket **peak,
                               size_t n_peak, const Bucket **area, size_t n_area, size_t top)
{
    FILE *out = stdout;
    fprintf(out, "file: %s\n", path);
    fputs("program: ", out);
    if (s->args != NULL) {
        tool_print_quoted(out, s->args, args_first_len(s));
        fputs("\nargs:", out);
        args_each(s, text_arg, out, 1);
        fputc('\n', out);
    } else {
        fputs("unknown\nargs:\n", out);
    }
    fputs("rts: ", out);
    if (s->rts_id != NULL)
        tool_print_quoted(out, s->rts_id, s->rts_id_len);
    else
        fputs("unknown", out);
    fputc('\n', out);
    const HeapModel *m = &s->m;
    if (m->have_profile)
        fprintf(out, "profile: %s (%s), interval %" PRIu64 " ns\n",
                tool_breakdown_flag(m->breakdown), tool_breakdown_name(m->breakdown),
                m->interval_ns);
    else
        fputs("profile: none\n", out);
    fprintf(out, "samples: %" PRIu64 "\n", m->n_censuses);
    if (m->have_profile && m->interval_ns > 0 && m->n_censuses > 0 &&
        s->last_sample_time_ns >= m->begin_ns)
        fprintf(out, "censuses asked for: %" PRIu64 " (one per interval over %" PRIu64
                     " ns of profile, and one at exit)\n",
                censuses_asked(s), s->last_sample_time_ns - m->begin_ns);
    else
        fprintf(out, "censuses asked for: %" PRIu64 "\n", censuses_asked(s));
    if (census_budget_applied(s))
        fprintf(out, "census budget: %" PRIu64 " taken of %" PRIu64 " asked for: strata "
                     "forces a major GC for a census only within 5%% of the run, so some "
                     "ticks waited for the next major GC and shared its census; +RTS "
                     EVERY_TICK_FLAG " takes one at every tick\n",
                s->m.n_censuses, censuses_asked(s));
    fprintf(out, "events: %" PRIu64 "\n", s->n_events);
    fprintf(out, "gcs: %" PRIu64 "\n", s->n_gcs);
    fprintf(out, "end time: %" PRIu64 " ns\n", s->last_time_ns);
    fprintf(out, "top buckets by peak (bytes):\n");
    for (size_t i = 0; i < n_peak; i++) {
        fprintf(out, "  %2zu. %14" PRIu64 "  ", i + 1, peak[i]->peak_bytes);
        text_bucket_label(out, s, peak[i]);
    }
    fprintf(out, "top buckets by integrated size (byte-seconds):\n");
    for (size_t i = 0; i < n_area; i++) {
        fprintf(out, "  %2zu. %14.6f  ", i + 1, byte_seconds(area[i]));
        text_bucket_label(out, s, area[i]);
    }
    if (!tool_summary_alloc(out, &s->am, top, 0))
        fputs("allocation sampling: out of memory\n", out);
    text_max(out, "max heap size", s->have_heap_size, s->max_heap_size);
    text_max(out, "max heap live", s->have_heap_live, s->max_heap_live);
    text_max(out, "max blocks size", s->have_blocks_size, s->max_blocks_size);
    fprintf(out, "markers: %zu\n", s->n_markers);
    for (size_t i = 0; i < s->n_markers; i++) {
        fprintf(out, "  %14" PRIu64 " ns  ", s->markers[i].time_ns);
        tool_print_quoted(out, s->markers[i].name, s->markers[i].name_len);
        fputc('\n', out);
    }
}

static void json_arg(FILE *out, const char *a, size_t n, int k)
{
    if (k > 0)
        fputs(", ", out);
    tool_print_json_string(out, a, n);
}

static void json_max(FILE *out, const char *key, int have, uint64_t v)
{
    if (have)
        fprintf(out, "  \"%s\": %" PRIu64 ",\n", key, v);
    else
        fprintf(out, "  \"%s\": null,\n", key);
}

static void json_ipe_string(FILE *out, const char *key, EvrStr str)
{
    fprintf(out, ", \"%s\": ", key);
    tool_print_json_string(out, str.ptr, str.len);
}

/* The bucket's "ipe" value: see Note [Naming -hi buckets]. */
static void json_ipe(FILE *out, const EvrIpe *ipe)
{
    if (ipe == NULL) {
        fputs("null", out);
        return;
    }
    fputs("{\"table_name\": ", out);
    tool_print_json_string(out, ipe->table_name.ptr, ipe->table_name.len);
    int fits;
    uint64_t closure_type = parse_closure_type(ipe->closure_desc, &fits);
    if (fits)
        fprintf(out, ", \"closure_desc\": %" PRIu64, closure_type);
    else
        fputs(", \"closure_desc\": null", out);
    json_ipe_string(out, "ty_desc", ipe->ty_desc);
    json_ipe_string(out, "label", ipe->label);
    json_ipe_string(out, "module", ipe->module);
    json_ipe_string(out, "srcloc", ipe->srcloc);
    fputc('}', out);
}

static void json_buckets(FILE *out, const Summary *s, const char *key, const Bucket **b,
                         size_t n)
{
    fprintf(out, "  \"%s\": [", key);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n    " : "\n    ", out);
        fputs("{\"label\": ", out);
        tool_print_json_string(out, b[i]->label, b[i]->label_len);
        fprintf(out, ", \"peak_bytes\": %" PRIu64 ", \"integrated_byte_seconds\": %.6f, "
                     "\"ipe\": ", b[i]->peak_bytes, byte_seconds(b[i]));
        json_ipe(out, bucket_ipe(s, b[i]));
        fputc('}', out);
    }
    fputs(n ? "\n  ],\n" : "],\n", out);
}

static void summary_print_json(const Summary *s, const char *path, const Bucket **peak,
                               size_t n_peak, const Bucket **area, size_t n_area, size_t top)
{
    FILE *out = stdout;
    fputs("{\n  \"file\": ", out);
    tool_print_json_string(out, path, strlen(path));
    fputs(",\n  \"program\": ", out);
    if (s->args != NULL)
        tool_print_json_string(out, s->args, args_first_len(s));
    else
        fputs("null", out);
    fputs(",\n  \"args\": [", out);
    if (s->args != NULL)
        args_each(s, json_arg, out, 1);
    fputs("],\n  \"rts_identifier\": ", out);
    if (s->rts_id != NULL)
        tool_print_json_string(out, s->rts_id, s->rts_id_len);
    else
        fputs("null", out);
    fputs(",\n  \"profile\": ", out);
    const HeapModel *m = &s->m;
    if (m->have_profile)
        fprintf(out, "{\"mode\": \"%s\", \"breakdown\": %" PRIu32 ", \"breakdown_name\": "
                     "\"%s\", \"interval_ns\": %" PRIu64 "}",
                tool_breakdown_flag(m->breakdown), m->breakdown,
                tool_breakdown_name(m->breakdown), m->interval_ns);
    else
        fputs("null", out);
    fprintf(out, ",\n  \"samples\": %" PRIu64 ",\n", m->n_censuses);
    fprintf(out, "  \"censuses_asked_for\": %" PRIu64 ",\n", censuses_asked(s));
    if (census_budget_applied(s))
        fprintf(out, "  \"census_budget\": {\"taken\": %" PRIu64 ", \"asked_for\": %" PRIu64
                     ", \"every_tick_flag\": \"" EVERY_TICK_FLAG "\"},\n",
                s->m.n_censuses, censuses_asked(s));
    else
        fputs("  \"census_budget\": null,\n", out);
    fprintf(out, "  \"events\": %" PRIu64 ",\n", s->n_events);
    fprintf(out, "  \"gcs\": %" PRIu64 ",\n", s->n_gcs);
    fprintf(out, "  \"end_time_ns\": %" PRIu64 ",\n", s->last_time_ns);
    json_buckets(out, s, "top_by_peak", peak, n_peak);
    json_buckets(out, s, "top_by_integrated", area, n_area);
    if (!tool_summary_alloc(out, &s->am, top, 1))
        fputs("  \"allocation_sampling\": null,\n", out);
    json_max(out, "max_heap_size_bytes", s->have_heap_size, s->max_heap_size);
    json_max(out, "max_heap_live_bytes", s->have_heap_live, s->max_heap_live);
    json_max(out, "max_blocks_size_bytes", s->have_blocks_size, s->max_blocks_size);
    fputs("  \"markers\": [", out);
    for (size_t i = 0; i < s->n_markers; i++) {
        fprintf(out, "%s{\"time_ns\": %" PRIu64 ", \"name\": ", i ? ",\n    " : "\n    ",
                s->markers[i].time_ns);
        tool_print_json_string(out, s->markers[i].name, s->markers[i].name_len);
        fputc('}', out);
    }
    fputs(s->n_markers ? "\n  ]\n}\n" : "]\n}\n", out);
}

/* ----------------------------------------------------------------------
 * The command
 * ------------------------------------------------------------------- */

int cmd_summary(const char *path, int json, size_t top)
{
    FILE *f;
    EventLogReader *r = tool_open(path, &f);
    if (r == NULL)
        return TOOL_EXIT_FAIL;
    Summary s;
    memset(&s, 0, sizeof s);
    heap_model_init(&s.m);
    alloc_model_init(&s.am);
    EvrEvent ev;
    int rc;
    while ((rc = evr_next(r, &ev)) == 1 && !s.out_of_memory)
        summary_add(&s, &ev);
    int status = TOOL_EXIT_OK;
    const Bucket **scratch = NULL, **peak = NULL, **area = NULL;
    if (rc < 0) {
        tool_report_error(r);
        status = TOOL_EXIT_FAIL;
        goto done;
    }
    if (heap_model_census_end(&s.m))   /* the end of the log ends a census */
        census_fold(&s, &s.m.last);
    if (s.m.out_of_memory)
        s.out_of_memory = 1;
    size_t n_alloc = s.n_buckets ? s.n_buckets : 1;
    scratch = malloc(n_alloc * sizeof *scratch);
    peak = malloc(n_alloc * sizeof *peak);
    area = malloc(n_alloc * sizeof *area);
    if (s.out_of_memory || scratch == NULL || peak == NULL || area == NULL) {
        fprintf(stderr, "%s: %s: out of memory (buckets=%zu, ipes=%zu)\n", TOOL_NAME, path,
                s.n_buckets, s.m.ipes.n_ipes);
        status = TOOL_EXIT_FAIL;
        goto done;
    }
    tool_warn_no_data_end(r);
    size_t n_peak = rank_buckets(&s, by_peak, top, peak, scratch);
    size_t n_area = rank_buckets(&s, by_area, top, area, scratch);
    if (json)
        summary_print_json(&s, path, peak, n_peak, area, n_area, top);
    else
        summary_print_text(&s, path, peak, n_peak, area, n_area, top);
done:
    free(scratch);
    free(peak);
    free(area);
    summary_free(&s);
    tool_close(r, f);
    return status;
}
