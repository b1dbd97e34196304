/*
 * utils/strata-events/SummaryAlloc.c -- the allocation sites part of
 * `strata-events summary`: a log's sampled allocations (+RTS
 * --alloc-sample, read into utils/heapprof/AllocModel.h) merged by call
 * stack over eras, the top N by estimated bytes allocated and by
 * estimated bytes still alive, each named by its frames ("function
 * (file:line)", innermost first).  Printed only for a log that samples,
 * so that every other log's summary is as it was.  docs/strata-events.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "AllocModel.h"
#include "SummaryAlloc.h"
#include "Tool.h"

/* One call stack's figures, every era together. */
typedef struct Site {
    uint32_t stack;
    uint64_t samples;
    double alloc_objects, alloc_bytes, inuse_objects, inuse_bytes;
} Site;

typedef struct Sites {
    Site *s;
    size_t n;
} Sites;

static int by_alloc(const void *pa, const void *pb)
{
    const Site *a = pa, *b = pb;
    if (a->alloc_bytes != b->alloc_bytes)
        return a->alloc_bytes > b->alloc_bytes ? -1 : 1;
    return a->stack < b->stack ? -1 : a->stack > b->stack;
}

static int by_inuse(const void *pa, const void *pb)
{
    const Site *a = pa, *b = pb;
    if (a->inuse_bytes != b->inuse_bytes)
        return a->inuse_bytes > b->inuse_bytes ? -1 : 1;
    return by_alloc(pa, pb);
}

/* The model's buckets merged by stack; 0 when out of memory. */
static int sites_collect(const AllocModel *m, Sites *out)
{
    out->n = 0;
    out->s = calloc(m->bucket_keys.n ? m->bucket_keys.n : 1, sizeof *out->s);
    if (out->s == NULL)
        return 0;
    for (size_t b = 0; b < m->bucket_keys.n; b++) {
        const AmBucket *bk = &m->buckets[b];
        size_t i = 0;
        while (i < out->n && out->s[i].stack != bk->stack)
            i++;
        if (i == out->n)
            out->s[out->n++] = (Site){.stack = bk->stack};
        Site *s = &out->s[i];
        s->samples += bk->samples;
        s->alloc_objects += bk->alloc_objects;
        s->alloc_bytes += bk->alloc_bytes;
        s->inuse_objects += bk->inuse_objects;
        s->inuse_bytes += bk->inuse_bytes;
    }
    return 1;
}

static void text_stack(FILE *out, const AllocModel *m, uint32_t stack)
{
    const AmStack *st = alloc_model_stack(m, stack);
    if (st == NULL) {
        fprintf(out, "stack %" PRIu32 " (not defined in the log)", stack);
        return;
    }
    if (st->depth == 0)
        fputs("(no frames)", out);
    for (size_t k = 0; k < st->depth; k++) {
        char name[1200];
        alloc_model_frame_name(m, st->frames[k], name, sizeof name);
        if (k > 0)
            fputs(" <- ", out);
        tool_print_escaped(out, name, strlen(name));
    }
}

static void text_sites(FILE *out, const AllocModel *m, const char *what, const Site *s,
                       size_t n)
{
    fprintf(out, "top allocation sites by %s (estimated):\n", what);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "  %2zu. %14.0f bytes %12.0f objects allocated, %14.0f bytes %12.0f "
                     "objects alive  ",
                i + 1, s[i].alloc_bytes, s[i].alloc_objects, s[i].inuse_bytes,
                s[i].inuse_objects);
        text_stack(out, m, s[i].stack);
        fputc('\n', out);
    }
}

static void json_stack(FILE *out, const AllocModel *m, uint32_t stack)
{
    const AmStack *st = alloc_model_stack(m, stack);
    fputc('[', out);
    for (size_t k = 0; st != NULL && k < st->depth; k++) {
        const AmFrame *fr = alloc_model_frame(m, st->frames[k]);
        fputs(k ? ", {\"function\": " : "{\"function\": ", out);
        const char *fn = fr != NULL ? fr->function : "", *file = fr != NULL ? fr->file : "";
        tool_print_json_string(out, fn, strlen(fn));
        fputs(", \"file\": ", out);
        tool_print_json_string(out, file, strlen(file));
        fprintf(out, ", \"line\": %" PRIu32 "}", fr != NULL ? fr->line : 0);
    }
    fputc(']', out);
}

static void json_sites(FILE *out, const AllocModel *m, const char *key, const Site *s,
                       size_t n, int last)
{
    fprintf(out, "    \"%s\": [", key);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s{\"stack\": %" PRIu32 ", \"samples\": %" PRIu64
                     ", \"alloc_bytes\": %.0f, \"alloc_objects\": %.0f, \"inuse_bytes\": %.0f, "
                     "\"inuse_objects\": %.0f, \"frames\": ",
                i ? ",\n      " : "\n      ", s[i].stack, s[i].samples, s[i].alloc_bytes,
                s[i].alloc_objects, s[i].inuse_bytes, s[i].inuse_objects);
        json_stack(out, m, s[i].stack);
        fputc('}', out);
    }
    fputs(n ? "\n    ]" : "]", out);
    fputs(last ? "\n" : ",\n", out);
}

int tool_summary_alloc(FILE *out, const AllocModel *m, size_t top, int json)
{
    if (!m->have_sampling)
        return 1;
    Sites by;
    if (!sites_collect(m, &by))
        return 0;
    size_t n = top == 0 || top > by.n ? by.n : top;
    Site *alloc = malloc((by.n ? by.n : 1) * sizeof *alloc);
    if (alloc == NULL) {
        free(by.s);
        return 0;
    }
    memcpy(alloc, by.s, by.n * sizeof *alloc);
    qsort(alloc, by.n, sizeof *alloc, by_alloc);
    qsort(by.s, by.n, sizeof *by.s, by_inuse);
    if (json) {
        fprintf(out, "  \"allocation_sampling\": {\"rate_bytes\": %" PRIu64
                     ", \"samples\": %" PRIu64 ", \"alive\": %zu, \"stacks\": %zu,\n",
                m->rate_bytes, m->n_samples, m->n_live, by.n);
        json_sites(out, m, "top_by_allocated", alloc, n, 0);
        json_sites(out, m, "top_by_alive", by.s, n, 1);
        fputs("  },\n", out);
    } else {
        fprintf(out, "allocation sampling: one sample per %" PRIu64 " bytes, %" PRIu64
                     " samples, %zu alive, %zu call stacks\n",
                m->rate_bytes, m->n_samples, m->n_live, by.n);
        text_sites(out, m, "bytes allocated", alloc, n);
        text_sites(out, m, "bytes alive", by.s, n);
    }
    free(alloc);
    free(by.s);
    return 1;
}
