/*
 * utils/heapprof/Pprof.c -- a heap census as a gzipped pprof profile.
 * The message types come from profile.proto through protoc-c (generated at
 * build time: profile.pb-c.{c,h} in the build tree); this file fills them
 * in, and PprofWrite.c packs them with protobuf-c and gzips the bytes
 * with zlib.  No protobuf encoding is done by hand.  See Note [A census as a pprof
 * profile].
 */
#include "Pprof.h"

#include <stdlib.h>
#include <string.h>

#include "PprofWrite.h"
#include "profile.pb-c.h"

/* Note [A census as a pprof profile]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * pprof describes samples, each with a stack of locations; a heap census
 * has bands.  Each band becomes one sample whose stack is a single
 * location, and each location has one line naming one function:
 *
 *   - the sample's value is the band's bytes, under the one sample type
 *     inuse_space/bytes (Go's name for live heap).  The eventlog carries
 *     no object counts (HEAP_PROF_SAMPLE_STRING has bytes only), so there
 *     is no inuse_objects type: a zero there would read as a fact.
 *   - -hi: the function is the info table (its name, e.g.
 *     SessionEntry_con_info) with the IPE's source file and line, and the
 *     location's address is the table's; -hT: the closure type; -he:
 *     "era N"; -hc: the cost-centre stack as hp2ps names it; other
 *     breakdowns: the label itself.  Its system name is
 *     the band's label in the log.
 *   - labels: closure_type (-hi, -hT), era (-he, numeric), and for -hi
 *     the IPE's definition site ("Module.label") and type.
 *
 * pprof merges functions by name when it reports by function (-top), so
 * every band's function name must be unique: a name already taken gets
 * the band's label appended in brackets.  Strings go into the string
 * table interned (index 0 is ""), each written as text for a person
 * (Note [One way to write a string] in wire/TextOut.c: UTF-8 as it is,
 * control characters and invalid bytes as \xNN), so that the table is
 * valid UTF-8 without NULs, as Go's decoder insists a proto3 string is.
 */

/* ----------------------------------------------------------------------
 * The profile
 * ------------------------------------------------------------------- */

#define PPROF_MAX_LABELS 4

/* Everything one profile's messages are made of, freed together. */
typedef struct Parts {
    Perftools__Profiles__Sample *samples;
    Perftools__Profiles__Sample **sample_ptrs;
    Perftools__Profiles__Location *locations;
    Perftools__Profiles__Location **location_ptrs;
    Perftools__Profiles__Function *functions;
    Perftools__Profiles__Function **function_ptrs;
    Perftools__Profiles__Line *lines;
    Perftools__Profiles__Line **line_ptrs;
    Perftools__Profiles__Label *labels;          /* PPROF_MAX_LABELS per band */
    Perftools__Profiles__Label **label_ptrs;
    uint64_t *location_ids;
    int64_t *values;
    int64_t *comments;
} Parts;

static void parts_free(Parts *p)
{
    free(p->samples);
    free(p->sample_ptrs);
    free(p->locations);
    free(p->location_ptrs);
    free(p->functions);
    free(p->function_ptrs);
    free(p->lines);
    free(p->line_ptrs);
    free(p->labels);
    free(p->label_ptrs);
    free(p->location_ids);
    free(p->values);
    free(p->comments);
}

static int parts_alloc(Parts *p, size_t n, size_t n_comments)
{
    size_t m = n ? n : 1;
    memset(p, 0, sizeof *p);
    p->samples = calloc(m, sizeof *p->samples);
    p->sample_ptrs = calloc(m, sizeof *p->sample_ptrs);
    p->locations = calloc(m, sizeof *p->locations);
    p->location_ptrs = calloc(m, sizeof *p->location_ptrs);
    p->functions = calloc(m, sizeof *p->functions);
    p->function_ptrs = calloc(m, sizeof *p->function_ptrs);
    p->lines = calloc(m, sizeof *p->lines);
    p->line_ptrs = calloc(m, sizeof *p->line_ptrs);
    p->labels = calloc(m * PPROF_MAX_LABELS, sizeof *p->labels);
    p->label_ptrs = calloc(m * PPROF_MAX_LABELS, sizeof *p->label_ptrs);
    p->location_ids = calloc(m, sizeof *p->location_ids);
    p->values = calloc(m, sizeof *p->values);
    p->comments = calloc(n_comments ? n_comments : 1, sizeof *p->comments);
    return p->samples && p->sample_ptrs && p->locations && p->location_ptrs &&
           p->functions && p->function_ptrs && p->lines && p->line_ptrs && p->labels &&
           p->label_ptrs && p->location_ids && p->values && p->comments;
}

/* The unique function name of a band: see Note [A census as a pprof profile]. */
static int64_t function_name(PprofStrings *st, EvrLabelIndex *used, const HeapModel *m,
                             const HmBandInfo *b)
{
    char buf[64];
    EvrStr name = b->name;
    if (b->have_era && m->breakdown == HEAP_PROF_BREAKDOWN_ERA) {
        int n = snprintf(buf, sizeof buf, "era %llu", (unsigned long long)b->era);
        name = (EvrStr){ .ptr = buf, .len = (size_t)n };
    }
    if (evr_label_find(used, name.ptr, name.len) == EVR_NO_LABEL) {
        if (evr_label_add(used, name.ptr, name.len) == EVR_NO_LABEL)
            st->failed = 1;
        return pprof_intern(st, name.ptr, name.len);
    }
    size_t len = name.len + b->label.len + 3;
    char *both = malloc(len + 1);
    if (both == NULL) {
        st->failed = 1;
        return 0;
    }
    snprintf(both, len + 1, "%.*s [%.*s]", (int)name.len, name.ptr, (int)b->label.len,
             b->label.ptr);
    int64_t k = pprof_intern(st, both, len);
    free(both);
    return k;
}

/* Fills band i's sample, location, line, function and labels. */
static void fill_band(Parts *p, PprofStrings *st, EvrLabelIndex *used, const HeapModel *m,
                      const HmCensus *c, size_t i, size_t slot)
{
    HmBandInfo b;
    heap_model_band_info(m, c, i, &b);
    uint64_t id = (uint64_t)slot + 1;

    Perftools__Profiles__Function *f = &p->functions[slot];
    perftools__profiles__function__init(f);
    f->id = id;
    f->name = function_name(st, used, m, &b);
    f->system_name = pprof_intern(st, b.label.ptr, b.label.len);
    f->filename = pprof_intern(st, b.file.ptr, b.file.len);
    f->start_line = b.line;
    p->function_ptrs[slot] = f;

    Perftools__Profiles__Line *ln = &p->lines[slot];
    perftools__profiles__line__init(ln);
    ln->function_id = id;
    ln->line = b.line;
    p->line_ptrs[slot] = ln;

    Perftools__Profiles__Location *loc = &p->locations[slot];
    perftools__profiles__location__init(loc);
    loc->id = id;
    loc->address = b.info;
    loc->n_line = 1;
    loc->line = &p->line_ptrs[slot];
    p->location_ptrs[slot] = loc;

    Perftools__Profiles__Label **lp = &p->label_ptrs[slot * PPROF_MAX_LABELS];
    Perftools__Profiles__Label *l = &p->labels[slot * PPROF_MAX_LABELS];
    size_t n_labels = 0;
    if (b.closure_type != NULL) {
        perftools__profiles__label__init(&l[n_labels]);
        l[n_labels].key = pprof_intern_cstr(st, "closure_type");
        l[n_labels].str = pprof_intern_cstr(st, b.closure_type);
        n_labels++;
    }
    if (b.have_era) {
        perftools__profiles__label__init(&l[n_labels]);
        l[n_labels].key = pprof_intern_cstr(st, "era");
        l[n_labels].num = (int64_t)b.era;
        n_labels++;
    }
    if (b.module.len > 0 || b.fn.len > 0) {
        size_t len = b.module.len + 1 + b.fn.len;
        char *def = malloc(len + 1);
        if (def == NULL) {
            st->failed = 1;
        } else {
            int n = snprintf(def, len + 1, "%.*s%s%.*s", (int)b.module.len, b.module.ptr,
                             b.module.len && b.fn.len ? "." : "", (int)b.fn.len, b.fn.ptr);
            perftools__profiles__label__init(&l[n_labels]);
            l[n_labels].key = pprof_intern_cstr(st, "defined_in");
            l[n_labels].str = pprof_intern(st, def, (size_t)n);
            n_labels++;
            free(def);
        }
    }
    if (b.type.len > 0) {
        perftools__profiles__label__init(&l[n_labels]);
        l[n_labels].key = pprof_intern_cstr(st, "type");
        l[n_labels].str = pprof_intern(st, b.type.ptr, b.type.len);
        n_labels++;
    }
    for (size_t k = 0; k < n_labels; k++)
        lp[k] = &l[k];

    Perftools__Profiles__Sample *s = &p->samples[slot];
    perftools__profiles__sample__init(s);
    p->location_ids[slot] = id;
    s->n_location_id = 1;
    s->location_id = &p->location_ids[slot];
    p->values[slot] = (int64_t)c->e[i].bytes;
    s->n_value = 1;
    s->value = &p->values[slot];
    s->n_label = n_labels;
    s->label = lp;
    p->sample_ptrs[slot] = s;
}

int pprof_encode_census(const HeapModel *m, const HmCensus *c, const char *const *comments,
                        size_t n_comments, uint8_t **out, size_t *out_bytes, const char **why)
{
    size_t n = c->n;
    Parts p;
    PprofStrings st = { 0 };
    EvrLabelIndex used = { 0 };
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    int ok = 0;
    *why = "out of memory";
    if (!parts_alloc(&p, n, n_comments) || order == NULL)
        goto done;
    pprof_intern(&st, "", 0);   /* string 0 */

    Perftools__Profiles__Profile prof;
    perftools__profiles__profile__init(&prof);
    Perftools__Profiles__ValueType space, *space_ptr = &space;
    perftools__profiles__value_type__init(&space);
    space.type = pprof_intern_cstr(&st, "inuse_space");
    space.unit = pprof_intern_cstr(&st, "bytes");
    prof.n_sample_type = 1;
    prof.sample_type = &space_ptr;
    prof.default_sample_type = space.type;
    Perftools__Profiles__ValueType period;
    perftools__profiles__value_type__init(&period);
    period.type = space.type;
    period.unit = space.unit;
    prof.period_type = &period;
    prof.time_nanos = (int64_t)heap_model_unix_ns(m, c);

    heap_model_rank(m, c, order);
    for (size_t k = 0; k < n; k++)
        fill_band(&p, &st, &used, m, c, order[k], k);
    for (size_t k = 0; k < n_comments; k++)
        p.comments[k] = pprof_intern_cstr(&st, comments[k]);
    if (st.failed)
        goto done;
    prof.n_sample = prof.n_location = prof.n_function = n;
    prof.sample = p.sample_ptrs;
    prof.location = p.location_ptrs;
    prof.function = p.function_ptrs;
    prof.n_comment = n_comments;
    prof.comment = p.comments;
    if (!pprof_pack_gzip(&prof, &st, out, out_bytes, why))
        goto done;
    ok = 1;
done:
    free(order);
    parts_free(&p);
    pprof_strings_free(&st);
    evr_label_index_free(&used);
    return ok;
}
