/*
 * utils/strata-debug/QueryCmds.c -- the commands that ask about the
 * objects a query matches: retainers (a path to each) and boundary (the
 * holders of old ones from later eras).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "QueryCmds.h"
#include "DebugAnalysis.h"
#include "DebugClient.h"
#include "Json.h"
#include "Print.h"

/* How many of the nearest names a "did you mean" offers, out of how many
 * nearest it looks at (a substring match may rank below closer names). */
#define SUGGESTIONS_MAX 3
#define NAMES_RANKED 64

/* Whether a live constructor name is close enough to a misspelt query to
 * suggest: a few edits (a third of the query's length, at least 2), or
 * the query is part of it ("Session" for SessionEntry). */
static bool name_is_close(const DbgNameMatch *m, const char *query)
{
    size_t allowed = strlen(query) / 3;
    return m->distance <= (allowed > 2 ? allowed : 2) || strstr(m->name, query) != NULL;
}

/* Appends "A", "A or B", "A, B or C" (conj " or ") to buf. */
static void name_list(char *buf, size_t len, const char **names, size_t n, const char *conj)
{
    size_t used = strlen(buf);
    for (size_t i = 0; i < n && used < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 < n ? ", " : conj;
        int w = snprintf(buf + used, len - used, "%s%s", sep, names[i]);
        used += w > 0 ? (size_t)w : 0;
    }
}

/* A --constructor search found nothing.  If no live constructor has that
 * name, that is an error worth saying, with the nearest names; else the
 * name is right and nothing matched in the eras asked for. */
static void json_retainers(DbgClient *c, const DbgReach *r, const Opts *o, const uint64_t *found,
                           size_t n, size_t limit);

static int unknown_constructor(DbgClient *c, const DbgReach *r, const char *name, const Opts *o)
{
    DbgNameMatch near[NAMES_RANKED];
    size_t n;
    if (dbg_constructor_names_near(c, r, name, near, NAMES_RANKED, &n) != 0)
        return die("retainers: %s", dbg_error(c));
    if (n > 0 && near[0].distance == 0) {
        if (o->json)
            json_retainers(c, r, o, NULL, 0, (size_t)o->limit);
        else
            printf("0 matches shown (no live %s in the eras selected)\n", name);
        return 0;
    }
    if (n > NAMES_RANKED)
        n = NAMES_RANKED;
    const char *offer[SUGGESTIONS_MAX];
    size_t n_close = 0;
    for (size_t i = 0; i < n && n_close < SUGGESTIONS_MAX; i++)
        if (name_is_close(&near[i], name))
            offer[n_close++] = near[i].name;
    char list[1024] = "";
    if (n_close > 0) {
        snprintf(list, sizeof list, "did you mean ");
        name_list(list, sizeof list, offer, n_close, " or ");
        strncat(list, "?", sizeof list - strlen(list) - 1);
    } else if (n > 0) {
        for (size_t i = 0; i < n && i < SUGGESTIONS_MAX; i++)
            offer[i] = near[i].name;
        snprintf(list, sizeof list, "no name is close; its constructors include ");
        name_list(list, sizeof list, offer, n < SUGGESTIONS_MAX ? n : SUGGESTIONS_MAX, " and ");
    } else {
        snprintf(list, sizeof list, "it holds no constructors");
    }
    return die("retainers: no constructor named '%s' in the live heap (%s)", name, list);
}

/* The query as given: {"constructor": ...} or info, type; "eras". */
void json_query(Json *j, const Opts *o)
{
    json_open(j, "query", '{');
    if (o->constructor != NULL)
        json_str(j, "constructor", o->constructor);
    if (o->info != NULL)
        json_str(j, "info", o->info);
    if (o->type != NULL)
        json_str(j, "type", o->type);
    DbgEraRange eras = {0};
    if (o->era != NULL && dbg_parse_era_range(o->era, &eras))
        json_range(j, "eras", eras.lo, eras.hi);
    else
        json_null(j, "eras");
    json_close(j, '}');
}

static void json_retainers(DbgClient *c, const DbgReach *r, const Opts *o, const uint64_t *found,
                           size_t n, size_t limit)
{
    Json j;
    json_begin(&j, stdout, c, "retainers");
    json_query(&j, o);
    json_u64(&j, "limit", limit);
    json_bool(&j, "full", o->full);
    json_open(&j, "matches", '[');
    for (size_t i = 0; i < n; i++) {
        json_open(&j, NULL, '{');
        if (json_path(&j, c, r, found[i], o->full) != 0)
            json_str(&j, "error", dbg_error(c));
        json_close(&j, '}');
    }
    json_close(&j, ']');
    json_end(&j);
}

/* Fills q from --constructor/--info/--type (DBG_MATCH_ANY if none) and
 * --era; returns non-zero after an error message. */
int query_from_opts(const Opts *o, const char *cmd, DbgQuery *q)
{
    memset(q, 0, sizeof *q);
    q->kind = DBG_MATCH_ANY;
    if (o->constructor != NULL) {
        q->kind = DBG_MATCH_CONSTRUCTOR;
        q->name = o->constructor;
    } else if (o->info != NULL) {
        char *end;
        q->kind = DBG_MATCH_INFO;
        q->info = strtoull(o->info, &end, 0);
        if (*end != '\0' || q->info == 0)
            return die("%s: --info expects an address like 0x4a3f20, got '%s'", cmd, o->info);
    } else if (o->type != NULL) {
        q->kind = DBG_MATCH_TYPE;
        q->name = o->type;
    }
    if (o->era != NULL)
        dbg_parse_era_range(o->era, &q->eras);
    return 0;
}

/* r is a dbg_reach_search traversal for q: it found the matches. */
int cmd_retainers(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    size_t limit = (size_t)o->limit, n;
    const uint64_t *found = dbg_reach_found(r, &n);
    if (n == 0 && q->kind == DBG_MATCH_CONSTRUCTOR)
        return unknown_constructor(c, r, q->name, o);
    if (o->json) {
        json_retainers(c, r, o, found, n, limit);
        return 0;
    }
    Style s = {o->color, o->full};
    for (size_t i = 0; i < n; i++) {
        printf("match %zu:\n", i + 1);
        if (print_path(c, r, &s, found[i]) != 0)
            return die("retainers: %s", dbg_error(c));
    }
    printf("%zu match%s shown (limit %zu; one path per object)\n", n, n == 1 ? "" : "es",
           limit);
    return 0;
}

/* Objects of later eras holding objects of the old ones, ranked by the old
 * bytes they alone keep alive. */
int cmd_boundary(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *query)
{
    (void)query;   /* its own, made after the traversal as it always was */
    DbgQuery q;
    if (query_from_opts(o, "boundary", &q) != 0)
        return 1;
    DbgBoundary b;
    if (dbg_boundary_reach(c, r, &q, &b) != 0)
        return die("boundary: %s", dbg_error(c));
    size_t shown = b.n < (size_t)o->limit ? b.n : (size_t)o->limit;
    if (o->json) {
        Json j;
        json_begin(&j, stdout, c, "boundary");
        json_query(&j, o);
        json_u64(&j, "limit", (uint64_t)o->limit);
        json_u64(&j, "holder_kinds", b.n);
        json_open(&j, "groups", '[');
        for (size_t i = 0; i < shown; i++) {
            const DbgBoundaryGroup *g = &b.groups[i];
            json_open(&j, NULL, '{');
            json_info(&j, "holder", g->holder);
            json_u64(&j, "retained_bytes", g->retained_bytes);
            json_u64(&j, "retained_objects", g->retained_objects);
            json_u64(&j, "holders", g->n_holders);
            json_u64(&j, "edges", g->n_edges);
            json_range(&j, "holder_eras", g->era_lo, g->era_hi);
            json_range(&j, "target_eras", g->target_era_lo, g->target_era_hi);
            json_open(&j, "example", '{');
            json_closure(&j, c, "holder", g->example_holder);
            json_closure(&j, c, "target", g->example_target);
            json_close(&j, '}');
            json_close(&j, '}');
        }
        json_close(&j, ']');
        json_end(&j);
        dbg_boundary_free(&b);
        return 0;
    }
    /* The eras as --era names them: "era 1", "eras 1-2". */
    if (q.eras.lo == q.eras.hi)
        printf("holders of era %" PRIu64, q.eras.lo);
    else
        printf("holders of eras %" PRIu64 "-%" PRIu64, q.eras.lo, q.eras.hi);
    printf(" from later eras, by the old bytes only they keep alive:\n");
    Style s = {o->color, o->full};
    for (size_t i = 0; i < shown; i++) {
        const DbgBoundaryGroup *g = &b.groups[i];
        char nb[32], no[32];
        printf("%zu. %s bytes (%s objects) kept by %" PRIu64 " ", i + 1,
               grouped(g->retained_bytes, nb), grouped(g->retained_objects, no), g->n_holders);
        print_text(dbg_type_label(g->holder));
        printf(" (%s, 0x%" PRIx64 ", ", dbg_closure_type_name(g->holder->type), g->holder->addr);
        print_range("era", "eras", g->era_lo, g->era_hi);
        printf(")");
        print_provenance(g->holder);
        printf("\n    %" PRIu64 " pointer%s into ", g->n_edges, g->n_edges == 1 ? "" : "s");
        print_range("era", "eras", g->target_era_lo, g->target_era_hi);
        printf("; for example:\n");
        print_closure_line(c, &s, g->example_holder, "    ");
        print_closure_line(c, &s, g->example_target, "    -> ");
    }
    print_sites_in_eras(c, NULL, q.eras.lo, q.eras.hi, "objects of those eras");
    printf("%zu holder kind%s shown of %zu (limit %ld)\n", shown, shown == 1 ? "" : "s", b.n,
           o->limit);
    dbg_boundary_free(&b);
    return 0;
}
