/*
 * utils/strata-debug/DiffCmd.c -- `strata-debug diff A B`: what grew
 * between two moments, what is new and alive and who holds it, and what
 * survived (docs/strata-debug.md).  A is a snapshot; B a later snapshot
 * or a running program (--socket).  The analysis is DebugDiff.h's; A is
 * closed before B is read, so only one heap is in memory at a time.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "CmdOptions.h"
#include "DebugDiff.h"
#include "DiffCmd.h"
#include "Json.h"
#include "Moments.h"
#include "Print.h"
#include "TextOut.h"

/* How many of the new groups get a retainer path. */
#define DIFF_PATHS 3

typedef struct {
    const char *a, *b, *socket, *by;
    long limit, timeout_ms;
    bool json, color;
} DiffOpts;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "strata-debug: diff: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

/* The command line into o: the shared options (CmdOptions.c) and the two
 * heaps; -1 to go on, else the exit status. */
static int parse(int argc, char **argv, DiffOpts *o)
{
    Opts opts = {.limit = 10, .timeout_ms = 10000};
    CmdSource src = {0};
    const char *heaps[2] = {NULL, NULL};
    int st = cmd_options_parse(argc, argv, "diff", &opts, &src, heaps);
    if (st >= 0)
        return st;
    *o = (DiffOpts){.a = heaps[0], .b = heaps[1], .socket = src.socket, .by = opts.by,
                    .limit = opts.limit, .timeout_ms = opts.timeout_ms, .json = opts.json,
                    .color = opts.color};
    if (o->a == NULL || (o->b == NULL) == (o->socket == NULL))
        return cmd_usage_error("diff", "expects A.snap and then B.snap or --socket PATH");
    if (o->by != NULL && strcmp(o->by, "info") != 0 && strcmp(o->by, "type") != 0 &&
        strcmp(o->by, "module") != 0 && strcmp(o->by, "era") != 0)
        return cmd_usage_error("diff", "--by expects info, type, module or era, got '%s'", o->by);
    return -1;
}

static DbgCensusBy by_of(const char *by)
{
    if (by == NULL || strcmp(by, "info") == 0)
        return DBG_BY_INFO;
    return strcmp(by, "type") == 0 ? DBG_BY_TYPE : strcmp(by, "era") == 0 ? DBG_BY_ERA
                                                                         : DBG_BY_MODULE;
}

/* A row's label: an info table's name (and closure type), or the census
 * label, as text (print_text). */
static const char *row_label(const DbgDiffRow *r, char *buf, size_t len)
{
    char raw[1024];
    if (r->info != NULL && strchr(r->key, '\x1f') != NULL)
        snprintf(raw, sizeof raw, "%s (%s)", dbg_type_label(r->info),
                 dbg_closure_type_name(r->info->type));
    else
        snprintf(raw, sizeof raw, "%.*s", (int)strcspn(r->key, "\x1f"), r->key);
    text_escape(buf, len, raw, strlen(raw), TEXT_TERMINAL);
    return buf;
}

static void moment(const char *what, const char *name, uint64_t era, uint64_t at)
{
    printf("%s: ", what);
    print_text(name);
    printf(", era %" PRIu64, era);
    if (at != 0) {
        time_t s = (time_t)(at / 1000000000u);
        char when[64];
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", localtime(&s));
        printf(", taken %s", when);
    }
    printf("\n");
}

static void print_growth(const DbgDiff *d, const DiffOpts *o)
{
    static const char *const names[] = {"closure type", "info table", "era", "module"};
    printf("\ngrowth by %s (bytes gained, most first):\n", names[d->by]);
    printf("%11s %14s %11s %14s %15s  %s\n", "A objects", "A bytes", "B objects", "B bytes",
           "change", "label");
    size_t shown = 0;
    for (size_t i = 0; i < d->growth.n && shown < (size_t)o->limit; i++, shown++) {
        const DbgDiffRow *r = &d->growth.rows[i];
        char label[1024], ao[32], ab[32], bo[32], bb[32], ch[32];
        printf("%11s %14s %11s %14s %15s  %s", grouped(r->a_objects, ao), grouped(r->a_bytes, ab),
               grouped(r->b_objects, bo), grouped(r->b_bytes, bb),
               grouped_signed((int64_t)r->b_bytes - (int64_t)r->a_bytes, ch),
               row_label(r, label, sizeof label));
        if (r->info != NULL && d->by == DBG_BY_INFO)
            print_provenance(r->info);
        printf("\n");
    }
    char ta[32], tb[32];
    printf("%zu label%s shown of %zu (limit %ld); total %s -> %s bytes\n", shown,
           shown == 1 ? "" : "s", d->growth.n, o->limit, grouped(d->a_total_bytes, ta),
           grouped(d->b_total_bytes, tb));
}

static int print_new(DbgClient *b, const DbgDiff *d, const DiffOpts *o)
{
    size_t n;
    size_t *ix = dbg_diff_new_order(d, &n);
    if (ix == NULL)
        return fail("%s", "out of memory");
    char nb[32], no[32];
    printf("\nnew and alive: %s objects (%s bytes) of B of eras after %" PRIu64
           ", by retained size:\n", grouped(d->new_total_objects, no),
           grouped(d->new_total_bytes, nb), d->a_era);
    Style s = {o->color, false};
    size_t shown = n < (size_t)o->limit ? n : (size_t)o->limit;
    for (size_t k = 0; k < shown; k++) {
        const DbgDiffRow *r = &d->infos.rows[ix[k]];
        char label[1024], nr[32];
        printf("%zu. %s objects, %s bytes, retaining %s bytes: %s", k + 1,
               grouped(r->new_objects, no), grouped(r->new_bytes, nb),
               grouped(r->retained_bytes, nr), row_label(r, label, sizeof label));
        print_provenance(r->info);
        printf("\n");
        if (r->info != NULL)
            print_sites_in_eras(b, r->info, d->a_era + 1, UINT64_MAX, "of them");
        DbgPath p;
        if (k < DIFF_PATHS && r->example != 0) {
            if (dbg_diff_path(b, d, r->example, &p) != 0 || print_path_of(b, &s, &p) != 0) {
                free(ix);
                return fail("%s", dbg_error(b));
            }
            dbg_path_free(&p);
        }
    }
    printf("%zu group%s shown of %zu (limit %ld; a retainer path for the first %d)\n", shown,
           shown == 1 ? "" : "s", n, o->limit, DIFF_PATHS);
    free(ix);
    return 0;
}

/* What the survivors' counts include, which depends on whether an era
 * began as A was taken (Note [What is new, by era] in
 * utils/debug-client/Diff.c): a_new_era is the era the program resumed
 * in after A (snapshot --new-era), else 0. */
static void print_survivors_footer(const DbgDiff *d, uint64_t a_new_era)
{
    if (a_new_era != 0)
        printf("A started era %" PRIu64 " as the program resumed, so everything allocated "
               "after A is newer: these were all alive at A\n", a_new_era);
    else if (d->b_era == d->a_era)
        printf("A records no new era and B is still in era %" PRIu64 ", so objects allocated "
               "after A count as alive at A (take A with snapshot --new-era to tell them "
               "apart)\n", d->a_era);
    else
        printf("A records no new era, so objects allocated in era %" PRIu64 " after A (before "
               "the next era began) count as alive at A (take A with snapshot --new-era to "
               "tell them apart)\n", d->a_era);
}

static int print_survivors(const DbgDiff *d, const DiffOpts *o, uint64_t a_new_era)
{
    size_t n;
    size_t *ix = dbg_diff_survivor_order(d, &n);
    if (ix == NULL)
        return fail("%s", "out of memory");
    printf("\nsurvivors: what was alive at A (eras up to %" PRIu64 ") and still is in B:\n",
           d->a_era);
    printf("%11s %14s %11s %14s %6s  %s\n", "A objects", "A bytes", "alive", "bytes", "kept",
           "label");
    size_t shown = n < (size_t)o->limit ? n : (size_t)o->limit;
    for (size_t k = 0; k < shown; k++) {
        const DbgDiffRow *r = &d->infos.rows[ix[k]];
        char label[1024], ao[32], ab[32], oo[32], ob[32];
        printf("%11s %14s %11s %14s %5.1f%%  %s\n", grouped(r->a_objects, ao),
               grouped(r->a_bytes, ab), grouped(r->old_objects, oo), grouped(r->old_bytes, ob),
               r->a_bytes ? 100.0 * (double)r->old_bytes / (double)r->a_bytes : 0.0,
               row_label(r, label, sizeof label));
    }
    printf("%zu label%s shown of %zu (limit %ld)\n", shown, shown == 1 ? "" : "s", n, o->limit);
    print_survivors_footer(d, a_new_era);
    free(ix);
    return 0;
}

static void json_row_info(Json *j, const DbgDiffRow *r)
{
    if (r->info != NULL)
        json_info(j, "info", r->info);
    else
        json_null(j, "info");
}

/* "sampled" and "allocated_at": the new objects' allocation sites (as
 * print_sites_in_eras prints them). */
static void json_new_sites(Json *j, DbgClient *b, const DbgInfo *info, uint64_t after_era)
{
    SiteGroup groups[16];
    size_t sampled = 0, n = 0;
    if (info != NULL)
        n = sites_in_eras(b, info, after_era + 1, UINT64_MAX, groups, 16, &sampled);
    json_u64(j, "sampled", sampled);
    json_open(j, "allocated_at", '[');
    for (size_t g = 0; g < n; g++) {
        json_open(j, NULL, '{');
        json_u64(j, "sampled", groups[g].n);
        json_str(j, "site", groups[g].text);
        json_close(j, '}');
    }
    json_close(j, ']');
}

static int json_new(Json *j, DbgClient *b, const DbgDiff *d, const DiffOpts *o)
{
    size_t n;
    size_t *ix = dbg_diff_new_order(d, &n);
    if (ix == NULL)
        return fail("%s", "out of memory");
    json_open(j, "new", '{');
    json_u64(j, "after_era", d->a_era);
    json_u64(j, "total_bytes", d->new_total_bytes);
    json_u64(j, "total_objects", d->new_total_objects);
    json_u64(j, "groups_in_all", n);
    json_open(j, "groups", '[');
    for (size_t k = 0; k < n && k < (size_t)o->limit; k++) {
        const DbgDiffRow *r = &d->infos.rows[ix[k]];
        json_open(j, NULL, '{');
        json_row_info(j, r);
        json_u64(j, "objects", r->new_objects);
        json_u64(j, "bytes", r->new_bytes);
        json_u64(j, "retained_bytes", r->retained_bytes);
        json_new_sites(j, b, r->info, d->a_era);
        DbgPath p;
        if (k < DIFF_PATHS && r->example != 0 && dbg_diff_path(b, d, r->example, &p) == 0) {
            json_open(j, "retainers", '{');
            json_path_of(j, b, &p, false);
            json_close(j, '}');
            dbg_path_free(&p);
        } else {
            json_null(j, "retainers");
        }
        json_close(j, '}');
    }
    json_close(j, ']');
    json_close(j, '}');
    free(ix);
    return 0;
}

static int json_diff(DbgClient *b, const DbgDiff *d, const DiffOpts *o, uint64_t a_new_era,
                     const char *no_eras)
{
    static const char *const names[] = {"type", "info", "era", "module"};
    Json j;
    json_begin(&j, stdout, b, "diff");
    json_open(&j, "a", '{');
    json_str(&j, "snapshot", o->a);
    json_u64(&j, "era", d->a_era);
    json_u64(&j, "paused_at_ns", d->a_paused_at);
    if (a_new_era != 0)
        json_u64(&j, "resumes_in_era", a_new_era);
    else
        json_null(&j, "resumes_in_era");
    json_close(&j, '}');
    json_open(&j, "b", '{');
    json_str(&j, o->b != NULL ? "snapshot" : "socket", o->b != NULL ? o->b : o->socket);
    json_u64(&j, "era", d->b_era);
    json_u64(&j, "paused_at_ns", d->b_paused_at);
    json_close(&j, '}');
    json_str(&j, "by", names[d->by]);
    json_u64(&j, "limit", (uint64_t)o->limit);
    json_open(&j, "growth", '[');
    for (size_t i = 0; i < d->growth.n && i < (size_t)o->limit; i++) {
        const DbgDiffRow *r = &d->growth.rows[i];
        char label[1024];
        json_open(&j, NULL, '{');
        json_str(&j, "label", row_label(r, label, sizeof label));
        if (d->by == DBG_BY_INFO)
            json_row_info(&j, r);
        json_u64(&j, "a_bytes", r->a_bytes);
        json_u64(&j, "a_objects", r->a_objects);
        json_u64(&j, "b_bytes", r->b_bytes);
        json_u64(&j, "b_objects", r->b_objects);
        json_i64(&j, "change_bytes", (int64_t)r->b_bytes - (int64_t)r->a_bytes);
        json_i64(&j, "change_objects", (int64_t)r->b_objects - (int64_t)r->a_objects);
        json_close(&j, '}');
    }
    json_close(&j, ']');
    if (no_eras[0] != '\0') {   /* new and survivors need eras */
        json_null(&j, "new");
        json_null(&j, "survivors");
        json_str(&j, "no_eras", no_eras);
        json_end(&j);
        return 0;
    }
    if (json_new(&j, b, d, o) != 0)
        return 1;
    size_t n;
    size_t *ix = dbg_diff_survivor_order(d, &n);
    if (ix == NULL)
        return fail("%s", "out of memory");
    json_open(&j, "survivors", '[');
    for (size_t k = 0; k < n && k < (size_t)o->limit; k++) {
        const DbgDiffRow *r = &d->infos.rows[ix[k]];
        char label[1024];
        json_open(&j, NULL, '{');
        json_str(&j, "label", row_label(r, label, sizeof label));
        json_row_info(&j, r);
        json_u64(&j, "a_bytes", r->a_bytes);
        json_u64(&j, "a_objects", r->a_objects);
        json_u64(&j, "alive_bytes", r->old_bytes);
        json_u64(&j, "alive_objects", r->old_objects);
        json_close(&j, '}');
    }
    json_close(&j, ']');
    json_end(&j);
    free(ix);
    return 0;
}

/* Opens B: a snapshot, or the live program paused. */
static DbgClient *open_b(const DiffOpts *o)
{
    char err[1024];
    DbgClient *b = o->b != NULL ? dbg_open_snapshot(o->b, err, sizeof err)
                                : dbg_connect(o->socket, err, sizeof err);
    if (b == NULL) {
        fail("%s", err);
        return NULL;
    }
    if (dbg_pause(b, (uint32_t)o->timeout_ms, NULL) != 0) {
        fail("pause: %s", dbg_error(b));
        dbg_close(b);
        return NULL;
    }
    return b;
}

int diff_main(int argc, char **argv)
{
    DiffOpts o;
    int parsed = parse(argc, argv, &o);
    if (parsed >= 0)
        return parsed;
    char err[1024];
    DbgClient *a = dbg_open_snapshot(o.a, err, sizeof err);
    if (a == NULL)
        return fail("A: %s", err);
    DbgDiff d;
    if (dbg_diff_begin(a, by_of(o.by), &d) != 0) {
        int st = fail("A: %s", dbg_error(a));
        dbg_close(a);
        return st;
    }
    char a_program[256];
    snprintf(a_program, sizeof a_program, "%s", dbg_target(a)->program);
    uint64_t a_new_era = dbg_target(a)->resumes_in_era;   /* snapshot --new-era */
    /* Without eras (a GHC program not built with -prof, or not run with
     * -he) nothing tells new objects from old: growth alone applies. */
    const char *why = NULL;
    char no_eras[256] = "";
    if (!dbg_heap_has_eras(a, &why))
        snprintf(no_eras, sizeof no_eras, "%s", why);
    dbg_close(a);
    if (no_eras[0] != '\0' && o.by != NULL && strcmp(o.by, "era") == 0) {
        dbg_diff_free(&d);
        return fail("--by era: this heap has no eras: %s", no_eras);
    }
    DbgClient *b = open_b(&o);
    if (b == NULL) {
        dbg_diff_free(&d);
        return 1;
    }
    int st = 0;
    if (strcmp(a_program, dbg_target(b)->program) != 0) {
        fprintf(stderr, "strata-debug: diff: A is of program '%s', B of '%s'\n", a_program,
                dbg_target(b)->program);
        st = 1;
    } else if (dbg_diff_finish(b, &d) != 0) {
        st = fail("B: %s", dbg_error(b));
    } else if (o.json) {
        st = json_diff(b, &d, &o, a_new_era, no_eras);
    } else {
        moment("A", o.a, d.a_era, d.a_paused_at);
        moment("B", o.b != NULL ? o.b : o.socket, d.b_era, d.b_paused_at);
        print_growth(&d, &o);
        if (no_eras[0] != '\0') {
            printf("\nnew and alive, survivors: not told apart, the heap has no eras (%s)\n",
                   no_eras);
        } else {
            st = print_new(b, &d, &o);
            if (st == 0)
                st = print_survivors(&d, &o, a_new_era);
        }
    }
    dbg_diff_free(&d);
    dbg_close(b);
    return st;
}
