/*
 * utils/strata-debug/CensusCmds.c -- the commands that count: census (by
 * label, or --retained), thunks, duplicates and dominators.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CensusCmds.h"
#include "DebugAnalysis.h"
#include "DebugClient.h"
#include "Json.h"
#include "Print.h"

static void print_census(const DbgCensus *cs, const char *what)
{
    printf("%14s %10s  %s\n", "bytes", "objects", what);
    for (size_t i = 0; i < cs->n; i++) {
        printf("%14" PRIu64 " %10" PRIu64 "  ", cs->buckets[i].bytes, cs->buckets[i].objects);
        print_text(cs->buckets[i].label);
        printf("\n");
    }
    printf("total %" PRIu64 " bytes in %" PRIu64 " objects\n", cs->total_bytes,
           cs->total_objects);
}

static DbgCensusBy census_by(const Opts *o)
{
    if (o->by == NULL || strcmp(o->by, "type") == 0)
        return DBG_BY_TYPE;
    if (strcmp(o->by, "info") == 0)
        return DBG_BY_INFO;
    if (strcmp(o->by, "era") == 0)
        return DBG_BY_ERA;
    return DBG_BY_MODULE;
}

static void print_census_retained(const DbgCensus *cs)
{
    printf("%14s %14s %10s  %s\n", "retained", "bytes", "objects", "label");
    for (size_t i = 0; i < cs->n; i++) {
        printf("%14" PRIu64 " %14" PRIu64 " %10" PRIu64 "  ", cs->buckets[i].retained_bytes,
               cs->buckets[i].bytes, cs->buckets[i].objects);
        print_text(cs->buckets[i].label);
        printf("\n");
    }
    printf("total %" PRIu64 " bytes in %" PRIu64 " objects\n", cs->total_bytes,
           cs->total_objects);
}

static const char *by_name(DbgCensusBy by)
{
    static const char *const names[] = {"type", "info", "era", "module"};
    return names[by];
}

/* A census (or thunks, duplicates) as JSON: "buckets" and the totals. */
static void json_census(DbgClient *c, const char *cmd, const DbgCensus *cs, const char *by,
                        const DbgEraRange *eras, bool retained)
{
    Json j;
    json_begin(&j, stdout, c, cmd);
    json_str(&j, "by", by);
    if (eras != NULL && eras->on)
        json_range(&j, "eras", eras->lo, eras->hi);
    else
        json_null(&j, "eras");
    json_bool(&j, "retained", retained);
    json_open(&j, "buckets", '[');
    for (size_t i = 0; i < cs->n; i++) {
        json_open(&j, NULL, '{');
        json_str(&j, "label", cs->buckets[i].label);
        json_u64(&j, "bytes", cs->buckets[i].bytes);
        json_u64(&j, "objects", cs->buckets[i].objects);
        if (retained)
            json_u64(&j, "retained_bytes", cs->buckets[i].retained_bytes);
        json_close(&j, '}');
    }
    json_close(&j, ']');
    json_u64(&j, "total_bytes", cs->total_bytes);
    json_u64(&j, "total_objects", cs->total_objects);
    json_end(&j);
}

int cmd_census(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    (void)q;
    if (o->retained) {
        DbgEraRange eras = {0};
        if (o->era != NULL)
            dbg_parse_era_range(o->era, &eras);
        DbgDom *d = dbg_dominators(c, r);
        DbgCensus cs;
        if (d == NULL || dbg_census_retained(c, r, d, census_by(o), &eras, &cs) != 0) {
            dbg_dom_free(d);
            return die("census: %s", dbg_error(c));
        }
        if (o->json)
            json_census(c, "census", &cs, by_name(census_by(o)), &eras, true);
        else
            print_census_retained(&cs);
        dbg_census_free(&cs);
        dbg_dom_free(d);
        return 0;
    }
    DbgCensusBy by = census_by(o);
    DbgEraRange eras = {0};
    if (o->era != NULL)
        dbg_parse_era_range(o->era, &eras);
    DbgCensus cs;
    if (dbg_census(c, r, by, &eras, &cs) != 0)
        return die("census: %s", dbg_error(c));
    if (o->json)
        json_census(c, "census", &cs, by_name(by), &eras, false);
    else
        print_census(&cs, "label");
    dbg_census_free(&cs);
    return 0;
}

/* thunks and duplicates: a census of one kind of object by info table. */
static int census_of(DbgClient *c, DbgReach *r, const Opts *o, bool thunks)
{
    const char *cmd = thunks ? "thunks" : "duplicates";
    DbgCensus cs;
    if ((thunks ? dbg_thunks(c, r, &cs) : dbg_duplicates(c, r, &cs)) != 0)
        return die("%s: %s", cmd, dbg_error(c));
    if (o->json)
        json_census(c, cmd, &cs, "info", NULL, false);
    else
        print_census(&cs, thunks ? "thunks by info table"
                                 : "duplicate copies (beyond the first) by info table");
    dbg_census_free(&cs);
    return 0;
}

int cmd_thunks(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    (void)q;
    return census_of(c, r, o, true);
}

int cmd_duplicates(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    (void)q;
    return census_of(c, r, o, false);
}

/* The objects that keep the most memory, heads of one-table chains. */
int cmd_dominators(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    (void)q;
    DbgDom *d = dbg_dominators(c, r);
    if (d == NULL)
        return die("dominators: %s", dbg_error(c));
    size_t n;
    DbgDomEntry *top = malloc((size_t)o->limit * sizeof *top);
    if (top == NULL || dbg_dom_top(c, d, top, (size_t)o->limit, &n) != 0) {
        free(top);
        dbg_dom_free(d);
        return top == NULL ? die("out of memory") : die("dominators: %s", dbg_error(c));
    }
    if (o->json) {
        Json j;
        json_begin(&j, stdout, c, "dominators");
        json_u64(&j, "limit", (uint64_t)o->limit);
        json_open(&j, "objects", '[');
        for (size_t i = 0; i < n; i++) {
            json_open(&j, NULL, '{');
            json_closure(&j, c, "closure", top[i].addr);
            json_u64(&j, "retained_bytes", top[i].retained_bytes);
            json_u64(&j, "retained_objects", top[i].retained_objects);
            json_u64(&j, "own_bytes", top[i].own_bytes);
            if (top[i].idom != 0)
                json_addr(&j, "idom", top[i].idom);
            else
                json_null(&j, "idom");
            json_close(&j, '}');
        }
        json_close(&j, ']');
        json_end(&j);
        free(top);
        dbg_dom_free(d);
        return 0;
    }
    printf("%14s %10s %8s  %s\n", "retained", "objects", "own", "closure");
    Style s = {o->color, o->full};
    for (size_t i = 0; i < n; i++) {
        char prefix[64];
        snprintf(prefix, sizeof prefix, "%14" PRIu64 " %10" PRIu64 " %8" PRIu64 "  ",
                 top[i].retained_bytes, top[i].retained_objects, top[i].own_bytes);
        print_closure_line(c, &s, top[i].addr, prefix);
    }
    printf("%zu object%s shown (limit %ld; an object dominated by one of its own info table "
           "is part of that one)\n", n, n == 1 ? "" : "s", o->limit);
    free(top);
    dbg_dom_free(d);
    return 0;
}
