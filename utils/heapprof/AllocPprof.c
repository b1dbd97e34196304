/*
 * utils/heapprof/AllocPprof.c -- sampled allocations as a pprof profile
 * (AllocPprof.h): the Profile message filled in from the model, packed by
 * PprofWrite.c.  See Note [Samples as Go's heap profile].
 */
#include "AllocPprof.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"
#include "PprofWrite.h"
#include "profile.pb-c.h"

/* Note [Samples as Go's heap profile]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Go's heap profile has four sample types, alloc_objects/count,
 * alloc_space/bytes, inuse_objects/count and inuse_space/bytes, one
 * sample per call stack with its four scaled values, and the sampling
 * rate as its period (space/bytes).  /debug/pprof/heap makes inuse_space
 * the default type, /debug/pprof/allocs alloc_space; the data is the
 * same.  We write exactly that, with one sample per (stack, era) rather
 * than per stack: each carries a numeric label `era`, so that pprof's
 * -tagfocus=era=3 (or the views' era filter) answers "who allocated what
 * era 3 still holds", and -top merges the eras again.  The stack's
 * frames are the locations, leaf first as pprof wants; a frame is a
 * location with one line, and functions are interned by name and file,
 * so that two lines of one function are one function to pprof.  Values
 * are the scaled estimates (Note [Scaling a sample] in AllocModel.c),
 * rounded. */

typedef struct Enc {
    PprofStrings st;
    const AllocModel *m;
    StrIndex fn_keys;                          /* name NUL file -> function */
    Perftools__Profiles__Function *functions;  /* [fn_keys.n] */
    WordMap loc_of;                            /* frame -> location index + 1 */
    Perftools__Profiles__Location *locations;  /* [n_locs] */
    Perftools__Profiles__Line *lines;          /* [n_locs]: one per location */
    size_t n_locs, cap_locs, cap_lines;
    int failed;
} Enc;

/* The function id of a frame's name and file, made if new; 0 if out of
 * memory. */
static uint64_t function_id(Enc *e, const char *name, const char *file)
{
    size_t nl = strlen(name), fl = strlen(file);
    char *key = malloc(nl + fl + 2);
    if (key == NULL)
        return 0;
    memcpy(key, name, nl + 1);
    memcpy(key + nl + 1, file, fl + 1);
    size_t fn = str_index_find(&e->fn_keys, key, nl + fl + 1);
    if (fn == STR_INDEX_NONE) {
        fn = str_index_add(&e->fn_keys, key, nl + fl + 1);
        void *grown = fn == STR_INDEX_NONE ? NULL
                      : realloc(e->functions, (fn + 1) * sizeof *e->functions);
        if (grown == NULL) {
            free(key);
            return 0;
        }
        e->functions = grown;
        Perftools__Profiles__Function *pf = &e->functions[fn];
        perftools__profiles__function__init(pf);
        pf->id = fn + 1;
        pf->name = pprof_intern(&e->st, name, nl);
        pf->system_name = pf->name;
        pf->filename = pprof_intern(&e->st, file, fl);
    }
    free(key);
    return fn + 1;
}

/* The location id of frame f: a location per frame, with one line, made
 * on first use; 0 if out of memory. */
static uint64_t frame_location(Enc *e, uint32_t f)
{
    bool found;
    uint64_t *slot = word_map_slot(&e->loc_of, f, &found);
    if (slot == NULL)
        return e->failed = 1, 0;
    if (found)
        return *slot;
    char name[1024];
    const AmFrame *fr = alloc_model_frame(e->m, f);
    if (fr == NULL)
        snprintf(name, sizeof name, "frame %u", (unsigned)f);
    else
        snprintf(name, sizeof name, "%s", fr->function[0] ? fr->function : "?");
    uint64_t fn = function_id(e, name, fr != NULL ? fr->file : "");
    if (fn == 0 || GROW_ARRAY_RESERVE_MIN(e->locations, e->cap_locs, e->n_locs + 1, 64) != 0 ||
        GROW_ARRAY_RESERVE_MIN(e->lines, e->cap_lines, e->n_locs + 1, 64) != 0) {
        e->failed = 1;
        return 0;
    }
    size_t i = e->n_locs++;
    *word_map_get(&e->loc_of, f) = i + 1;
    Perftools__Profiles__Line *ln = &e->lines[i];
    perftools__profiles__line__init(ln);
    ln->function_id = fn;
    ln->line = fr != NULL ? fr->line : 0;
    Perftools__Profiles__Location *loc = &e->locations[i];
    perftools__profiles__location__init(loc);
    loc->id = i + 1;
    return i + 1;
}

static int64_t rounded(double v)
{
    return v <= 0 ? 0 : (int64_t)llround(v);
}

/* The profile's samples: one per bucket in the options' eras. */
typedef struct Samples {
    Perftools__Profiles__Sample *s;
    Perftools__Profiles__Sample **ptrs;
    Perftools__Profiles__Label *labels;
    Perftools__Profiles__Label **label_ptrs;
    int64_t *values;        /* 4 per sample */
    uint64_t *loc_ids;      /* every sample's stack, in turn */
    size_t n;
} Samples;

static void fill_sample(Enc *e, Samples *ss, const AmBucket *b, size_t *n_locs)
{
    size_t i = ss->n++;
    Perftools__Profiles__Sample *s = &ss->s[i];
    perftools__profiles__sample__init(s);
    const AmStack *st = alloc_model_stack(e->m, b->stack);
    size_t first = *n_locs;
    for (size_t k = 0; st != NULL && k < st->depth; k++)
        ss->loc_ids[(*n_locs)++] = frame_location(e, st->frames[k]);
    s->location_id = &ss->loc_ids[first];
    s->n_location_id = *n_locs - first;
    int64_t *v = &ss->values[4 * i];
    v[0] = rounded(b->alloc_objects);
    v[1] = rounded(b->alloc_bytes);
    v[2] = rounded(b->inuse_objects);
    v[3] = rounded(b->inuse_bytes);
    s->n_value = 4;
    s->value = v;
    Perftools__Profiles__Label *l = &ss->labels[i];
    perftools__profiles__label__init(l);
    l->key = pprof_intern_cstr(&e->st, "era");
    l->num = (int64_t)b->era;
    ss->label_ptrs[i] = l;
    s->n_label = 1;
    s->label = &ss->label_ptrs[i];
    ss->ptrs[i] = s;
}

static int samples_alloc(Samples *ss, const AllocModel *m)
{
    size_t n = m->bucket_keys.n ? m->bucket_keys.n : 1, locs = 0;
    for (size_t b = 0; b < m->bucket_keys.n; b++) {
        const AmStack *st = alloc_model_stack(m, m->buckets[b].stack);
        locs += st != NULL ? st->depth : 0;
    }
    memset(ss, 0, sizeof *ss);
    ss->s = calloc(n, sizeof *ss->s);
    ss->ptrs = calloc(n, sizeof *ss->ptrs);
    ss->labels = calloc(n, sizeof *ss->labels);
    ss->label_ptrs = calloc(n, sizeof *ss->label_ptrs);
    ss->values = calloc(4 * n, sizeof *ss->values);
    ss->loc_ids = calloc(locs ? locs : 1, sizeof *ss->loc_ids);
    return ss->s && ss->ptrs && ss->labels && ss->label_ptrs && ss->values && ss->loc_ids;
}

static void samples_free(Samples *ss)
{
    free(ss->s);
    free(ss->ptrs);
    free(ss->labels);
    free(ss->label_ptrs);
    free(ss->values);
    free(ss->loc_ids);
}

static void enc_free(Enc *e)
{
    pprof_strings_free(&e->st);
    str_index_free(&e->fn_keys);
    free(e->functions);
    word_map_free(&e->loc_of);
    free(e->locations);
    free(e->lines);
}

/* The four sample types, and the period (space/bytes at the rate). */
static void set_types(Enc *e, Perftools__Profiles__Profile *prof,
                      Perftools__Profiles__ValueType *types,
                      Perftools__Profiles__ValueType **type_ptrs,
                      Perftools__Profiles__ValueType *period, int alloc_default)
{
    static const char *const names[4][2] = {{"alloc_objects", "count"},
                                            {"alloc_space", "bytes"},
                                            {"inuse_objects", "count"},
                                            {"inuse_space", "bytes"}};
    for (int k = 0; k < 4; k++) {
        perftools__profiles__value_type__init(&types[k]);
        types[k].type = pprof_intern_cstr(&e->st, names[k][0]);
        types[k].unit = pprof_intern_cstr(&e->st, names[k][1]);
        type_ptrs[k] = &types[k];
    }
    prof->n_sample_type = 4;
    prof->sample_type = type_ptrs;
    prof->default_sample_type = types[alloc_default ? 1 : 3].type;
    perftools__profiles__value_type__init(period);
    period->type = pprof_intern_cstr(&e->st, "space");
    period->unit = pprof_intern_cstr(&e->st, "bytes");
    prof->period_type = period;
    prof->period = (int64_t)e->m->rate_bytes;
}

int pprof_encode_alloc(const AllocModel *m, const AllocPprofOptions *o,
                       const char *const *comments, size_t n_comments, uint8_t **out,
                       size_t *out_bytes, const char **why)
{
    Enc e = {.m = m};
    Samples ss;
    int ok = 0;
    int64_t *comment_ids = calloc(n_comments ? n_comments : 1, sizeof *comment_ids);
    Perftools__Profiles__Location **loc_ptrs = NULL;
    Perftools__Profiles__Line **line_ptrs = NULL;
    Perftools__Profiles__Function **fn_ptrs = NULL;
    *why = "out of memory";
    if (!samples_alloc(&ss, m) || comment_ids == NULL)
        goto done;
    pprof_intern(&e.st, "", 0);   /* string 0 */
    Perftools__Profiles__Profile prof;
    perftools__profiles__profile__init(&prof);
    Perftools__Profiles__ValueType types[4], *type_ptrs[4], period;
    set_types(&e, &prof, types, type_ptrs, &period, o->alloc_default);
    prof.time_nanos = o->time_nanos;
    size_t n_locs = 0;
    for (size_t b = 0; b < m->bucket_keys.n; b++)
        if (m->buckets[b].era >= o->era_lo && m->buckets[b].era <= o->era_hi)
            fill_sample(&e, &ss, &m->buckets[b], &n_locs);
    for (size_t k = 0; k < n_comments; k++)
        comment_ids[k] = pprof_intern_cstr(&e.st, comments[k]);
    loc_ptrs = calloc(e.n_locs ? e.n_locs : 1, sizeof *loc_ptrs);
    line_ptrs = calloc(e.n_locs ? e.n_locs : 1, sizeof *line_ptrs);
    fn_ptrs = calloc(e.fn_keys.n ? e.fn_keys.n : 1, sizeof *fn_ptrs);
    if (e.failed || e.st.failed || loc_ptrs == NULL || line_ptrs == NULL || fn_ptrs == NULL)
        goto done;
    for (size_t i = 0; i < e.n_locs; i++) {   /* the arrays have stopped moving */
        line_ptrs[i] = &e.lines[i];
        e.locations[i].n_line = 1;
        e.locations[i].line = &line_ptrs[i];
        loc_ptrs[i] = &e.locations[i];
    }
    for (size_t i = 0; i < e.fn_keys.n; i++)
        fn_ptrs[i] = &e.functions[i];
    prof.n_sample = ss.n;
    prof.sample = ss.ptrs;
    prof.n_location = e.n_locs;
    prof.location = loc_ptrs;
    prof.n_function = e.fn_keys.n;
    prof.function = fn_ptrs;
    /* One mapping, the program, whose functions, files and lines (inlined
     * calls expanded) are all here: pprof looks for nothing more. */
    Perftools__Profiles__Mapping map, *map_ptr = &map;
    perftools__profiles__mapping__init(&map);
    map.id = 1;
    map.filename = pprof_intern_cstr(&e.st, o->main_binary != NULL ? o->main_binary : "");
    map.has_functions = map.has_filenames = map.has_line_numbers = map.has_inline_frames = 1;
    prof.n_mapping = 1;
    prof.mapping = &map_ptr;
    for (size_t i = 0; i < e.n_locs; i++)
        e.locations[i].mapping_id = 1;
    prof.n_comment = n_comments;
    prof.comment = comment_ids;
    ok = pprof_pack_gzip(&prof, &e.st, out, out_bytes, why);
done:
    free(comment_ids);
    free(loc_ptrs);
    free(line_ptrs);
    free(fn_ptrs);
    samples_free(&ss);
    enc_free(&e);
    return ok;
}
