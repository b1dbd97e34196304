/*
 * utils/report/AllocJson.c -- the "alloc_sites" member of a profile's JSON
 * (AllocJson.h): the frames and stacks by number and the model's buckets
 * by (stack, era), so that the page can total any era range by call path
 * without asking again.  Memory and size are the model's: frames, stacks,
 * one bucket per (stack, era).
 */
#include "AllocJson.h"

#include <inttypes.h>

#include "JsonText.h"

static void write_frames(FILE *out, const AllocModel *m)
{
    fputs("\"frames\":[", out);
    for (size_t f = 0; f < m->n_frames; f++) {
        const AmFrame *fr = alloc_model_frame(m, (uint32_t)f);
        if (f > 0)
            fputc(',', out);
        if (fr == NULL) {
            fputs("null", out);
            continue;
        }
        fputc('[', out);
        json_string(out, fr->function);
        fputc(',', out);
        json_string(out, fr->file);
        fprintf(out, ",%" PRIu32 "]", fr->line);
    }
    fputc(']', out);
}

static void write_stacks(FILE *out, const AllocModel *m)
{
    fputs(",\"stacks\":[", out);
    for (size_t s = 0; s < m->n_stacks; s++) {
        const AmStack *st = alloc_model_stack(m, (uint32_t)s);
        if (s > 0)
            fputc(',', out);
        if (st == NULL) {
            fputs("null", out);
            continue;
        }
        fputc('[', out);
        for (size_t k = 0; k < st->depth; k++)
            fprintf(out, "%s%" PRIu32, k ? "," : "", st->frames[k]);
        fputc(']', out);
    }
    fputc(']', out);
}

void alloc_json_write(FILE *out, const AllocModel *m)
{
    fputs(",\"alloc_sites\":", out);
    if (!m->have_sampling) {
        fputs("null", out);
        return;
    }
    fprintf(out, "{\"rate_bytes\":%" PRIu64 ",\"samples\":%" PRIu64 ",\"alive\":%zu,",
            m->rate_bytes, m->n_samples, m->n_live);
    write_frames(out, m);
    write_stacks(out, m);
    /* [stack, era, inuse_bytes, inuse_objects, alloc_bytes, alloc_objects] */
    fputs(",\"buckets\":[", out);
    for (size_t b = 0; b < m->bucket_keys.n; b++) {
        const AmBucket *k = &m->buckets[b];
        fprintf(out, "%s[%" PRIu32 ",%" PRIu64 ",%.0f,%.0f,%.0f,%.0f]", b ? ",\n" : "", k->stack,
                k->era, k->inuse_bytes, k->inuse_objects, k->alloc_bytes, k->alloc_objects);
    }
    fputs("]}", out);
}
