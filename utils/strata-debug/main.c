/*
 * utils/strata-debug/main.c -- strata-debug: the heap debugger's command
 * line.  Attaches to a running program's debug socket (pausing it for the
 * duration of the command) or opens a snapshot, and runs one analysis of
 * the client library (utils/debug-client).  See docs/strata-debug.md.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "DebugAnalysis.h"
#include "DebugClient.h"
#include "Json.h"
#include "Print.h"
#include "Moments.h"
#include "strata/Debug.h"
#include "tui/Tui.h"

static const char *prog = "strata-debug";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s list\n"
            "       %s COMMAND (--socket PATH | --pid PID | --snapshot FILE) [OPTIONS]\n"
            "commands:\n"
            "  census [--by type|info|era|module] [--era LO-HI] [--retained]\n"
            "  retainers (--constructor NAME | --info ADDR | --type CLOSURE_TYPE)\n"
            "            [--era LO-HI] [--limit N] [--color] [--full]\n"
            "  boundary --era LO-HI [--constructor NAME | --info ADDR | --type CLOSURE_TYPE]\n"
            "            [--limit N]\n"
            "  dominators [--limit N]\n"
            "  fragmentation [--retainers K] [--color] [--full]\n"
            "  thunks | weaks | duplicates | roots\n"
            "  gml FILE | snapshot FILE [--new-era] | mark\n"
            "  diff A.snap (B.snap | --socket PATH | --pid PID) [--by type|info|module|era]\n"
            "            [--limit N]  (docs/strata-debug.md)\n"
            "  tui                  (interactive; docs/strata-debug-tui.md)\n"
            "options: --timeout MS (pause timeout, default 10000), --stats (timings),\n"
            "         --json (one JSON document on stdout; docs/strata-debug.md)\n",
            prog, prog);
}

/* Tool errors: "strata-debug: message", exit 1. */
static int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ----------------------------------------------------------------------
 * Finding sockets
 * ---------------------------------------------------------------------- */

static int socket_dirs(char dirs[2][512])
{
    int n = 0;
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg != NULL && xdg[0] == '/')
        snprintf(dirs[n++], 512, "%s/strata/debug", xdg);
    snprintf(dirs[n++], 512, "/tmp/strata-%u/debug", (unsigned)getuid());
    return n;
}

/* Calls f for every socket in the default directories. */
static int for_each_socket(int (*f)(const char *path, long pid, const char *name, void *env),
                           void *env)
{
    char dirs[2][512];
    int nd = socket_dirs(dirs);
    for (int d = 0; d < nd; d++) {
        DIR *dir = opendir(dirs[d]);
        if (dir == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            char path[1024];
            struct stat st;
            if ((size_t)snprintf(path, sizeof path, "%.500s/%.500s", dirs[d], e->d_name) >=
                sizeof path)
                continue;
            if (stat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
                continue;
            char *dash;
            long pid = strtol(e->d_name, &dash, 10);
            if (*dash != '-')
                continue;
            int r = f(path, pid, dash + 1, env);
            if (r != 0) {
                closedir(dir);
                return r;
            }
        }
        closedir(dir);
    }
    return 0;
}

typedef struct {
    int count;
    Json *json;                  /* NULL: text */
} ListOut;

static int list_one(const char *path, long pid, const char *name, void *env)
{
    ListOut *l = env;
    bool alive = kill((pid_t)pid, 0) == 0 || errno == EPERM;
    if (l->json != NULL) {
        json_open(l->json, NULL, '{');
        json_u64(l->json, "pid", (uint64_t)pid);
        json_str(l->json, "program", name);
        json_str(l->json, "path", path);
        json_bool(l->json, "stale", !alive);
        json_close(l->json, '}');
    } else {
        printf("%-8ld %-20s %s%s\n", pid, name, path, alive ? "" : "  (stale: process gone)");
    }
    l->count++;
    return 0;
}

typedef struct {
    long pid;
    char path[1024];
} PidFind;

static int find_pid(const char *path, long pid, const char *name, void *env)
{
    (void)name;
    PidFind *p = env;
    if (pid != p->pid)
        return 0;
    snprintf(p->path, sizeof p->path, "%s", path);
    return 1;
}

/* ----------------------------------------------------------------------
 * Commands
 * ---------------------------------------------------------------------- */

typedef struct {
    const char *by, *era, *constructor, *info, *type, *file;
    long limit, retainers;
    bool color, stats, full, retained, json, new_era;
} Opts;

static void print_census(const DbgCensus *cs, const char *what)
{
    printf("%14s %10s  %s\n", "bytes", "objects", what);
    for (size_t i = 0; i < cs->n; i++)
        printf("%14" PRIu64 " %10" PRIu64 "  %s\n", cs->buckets[i].bytes, cs->buckets[i].objects,
               cs->buckets[i].label);
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
    for (size_t i = 0; i < cs->n; i++)
        printf("%14" PRIu64 " %14" PRIu64 " %10" PRIu64 "  %s\n", cs->buckets[i].retained_bytes,
               cs->buckets[i].bytes, cs->buckets[i].objects, cs->buckets[i].label);
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

static int cmd_census(DbgClient *c, DbgReach *r, const Opts *o)
{
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
static void json_query(Json *j, const Opts *o)
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

/* The retainers command's query from its options; non-zero (said) if bad. */
static int retainers_query(const Opts *o, DbgQuery *q)
{
    *q = (DbgQuery){0};
    if (o->constructor != NULL) {
        q->kind = DBG_MATCH_CONSTRUCTOR;
        q->name = o->constructor;
    } else if (o->info != NULL) {
        char *end;
        q->kind = DBG_MATCH_INFO;
        q->info = strtoull(o->info, &end, 0);
        if (*end != '\0' || q->info == 0)
            return die("retainers: --info expects an address like 0x4a3f20, got '%s'",
                       o->info);
    } else {
        q->kind = DBG_MATCH_TYPE;
        q->name = o->type;
    }
    if (o->era != NULL)
        dbg_parse_era_range(o->era, &q->eras);
    return 0;
}

/* r is a dbg_reach_search traversal for q: it found the matches. */
static int cmd_retainers(DbgClient *c, const DbgReach *r, const Opts *o, const DbgQuery *q)
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

typedef struct {
    uint64_t *out;
    size_t n, cap;
    const DbgReach *r;
} PickLive;

static bool pick_live(DbgClient *c, const DbgClosure *cl, void *env)
{
    (void)c;
    PickLive *p = env;
    if (dbg_reach_has(p->r, cl->addr) && p->n < p->cap)
        p->out[p->n++] = cl->addr;
    return false;   /* one object per block */
}

static int cmd_fragmentation(DbgClient *c, const DbgReach *r, const Opts *o)
{
    DbgFrag f;
    if (dbg_fragmentation(c, r, &f) != 0)
        return die("fragmentation: %s", dbg_error(c));
    Json j;
    if (o->json) {
        json_begin(&j, stdout, c, "fragmentation");
        json_u64(&j, "mblocks", f.n_mblocks);
        json_u64(&j, "mblocks_used", f.n_mblocks_used);
        json_u64(&j, "blocks", f.n_blocks);
        json_u64(&j, "pinned_blocks", f.n_pinned_blocks);
        json_open(&j, "histogram", '[');
        for (int i = 0; i < 10; i++)
            json_u64(&j, NULL, f.histogram[i]);
        json_close(&j, ']');
        json_open(&j, "retainers", '[');
    } else {
        printf("megablocks: %" PRIu64 " held by the block allocator, %" PRIu64
               " holding blocks in use\n", f.n_mblocks, f.n_mblocks_used);
        printf("blocks in use: %" PRIu64 "\n", f.n_blocks);
        printf("pinned blocks: %" PRIu64 "\n", f.n_pinned_blocks);
        printf("pinned-block utilisation (live bytes / block bytes):\n");
        for (int i = 0; i < 10; i++)
            printf("  %3d-%3d%%  %8" PRIu64 "\n", i * 10, i * 10 + 10, f.histogram[i]);
    }
    if (o->retainers > 0) {
        uint64_t *objs = malloc((size_t)o->retainers * sizeof *objs);
        PickLive p = {objs, 0, (size_t)o->retainers, r};
        const DbgBlock *bs;
        size_t nb;
        dbg_blocks(c, &bs, &nb);
        for (size_t i = 0; i < f.n_pinned && objs != NULL && p.n < p.cap; i++) {
            if (f.pinned[i].live_bytes == 0)
                continue;
            const DbgBlock *b = dbg_block_of(c, f.pinned[i].start);
            /* The first live object of the block. */
            size_t before = p.n;
            for (uint64_t a = b->start; a < b->start + b->used_bytes && p.n == before;) {
                DbgClosure cl;
                if (((const uint64_t *)(const void *)b->data)[(a - b->start) / 8] == 0) {
                    a += 8;
                    continue;
                }
                if (dbg_closure(c, a, &cl) != 0)
                    break;
                pick_live(c, &cl, &p);
                a += (uint64_t)cl.n_words * 8;
            }
        }
        Style s = {o->color, o->full};
        for (size_t i = 0; i < p.n; i++) {
            const DbgBlock *b = dbg_block_of(c, objs[i]);
            size_t k = 0;
            while (k < f.n_pinned && f.pinned[k].start != b->start)
                k++;
            uint64_t live = k < f.n_pinned ? f.pinned[k].live_bytes : 0;
            uint64_t size = (uint64_t)b->n_blocks * dbg_target(c)->block_size;
            if (o->json) {
                json_open(&j, NULL, '{');
                json_addr(&j, "block", b->start);
                json_u64(&j, "live_bytes", live);
                json_u64(&j, "block_bytes", size);
                if (json_path(&j, c, r, objs[i], o->full) != 0)
                    json_str(&j, "error", dbg_error(c));
                json_close(&j, '}');
                continue;
            }
            printf("object %zu, in pinned block 0x%" PRIx64 " (%" PRIu64 " of %" PRIu64
                   " bytes live):\n", i + 1, b->start, live, size);
            print_path(c, r, &s, objs[i]);
        }
        free(objs);
    }
    if (o->json) {
        json_close(&j, ']');
        json_end(&j);
    }
    dbg_frag_free(&f);
    return 0;
}

/* ----- Weak pointers ----- */

/* "alive": the key is reachable; "key-dead": it is not, and no collection
 * has yet seen that; "dead": one has (or strata_finalize_weak). */
static const char *weak_status(const DbgWeak *w)
{
    return w->dead ? "dead" : w->key_alive ? "alive" : "key-dead";
}

/* One weak as JSON (the schema's WEAK). */
static void json_weak(Json *j, DbgClient *c, const DbgWeak *w)
{
    json_open(j, NULL, '{');
    json_closure(j, c, "weak", w->addr);
    json_str(j, "status", weak_status(w));
    json_bool(j, "reachable", w->reachable);
    if (w->dead) {
        json_null(j, "key");
        json_null(j, "key_alive");
        json_null(j, "value");
    } else {
        json_addr(j, "key", w->key);
        json_bool(j, "key_alive", w->key_alive);
        json_closure(j, c, "value", w->value);
    }
    json_bool(j, "finalizer", w->has_finalizer);
    json_close(j, '}');
}

/* One weak as text: status, key, value and its label, finalizer, then the
 * weak's own era, block and provenance as print_closure_line gives them. */
static void print_weak(DbgClient *c, const Style *s, const DbgWeak *w, const char *indent)
{
    char prefix[512];
    if (w->dead) {
        snprintf(prefix, sizeof prefix, "%sdead      key -  value -  ", indent);
    } else {
        DbgClosure v;
        const char *label = dbg_closure(c, w->value, &v) == 0 ? dbg_type_label(v.info)
                                                               : "<undecodable>";
        snprintf(prefix, sizeof prefix,
                 "%s%-8s  key 0x%" PRIx64 "  value 0x%" PRIx64 " %s  %s  ", indent,
                 weak_status(w), w->key, w->value, label,
                 w->has_finalizer ? "finalizer" : "no finalizer");
    }
    print_closure_line(c, s, w->addr, prefix);
}

static int cmd_weaks(DbgClient *c, const DbgReach *r, const Opts *o)
{
    DbgWeak *ws;
    size_t n;
    if (dbg_weaks(c, r, &ws, &n) != 0)
        return die("weaks: %s", dbg_error(c));
    uint64_t alive = 0, key_dead = 0, dead = 0;
    for (size_t i = 0; i < n; i++) {
        if (ws[i].dead)
            dead++;
        else if (ws[i].key_alive)
            alive++;
        else
            key_dead++;
    }
    if (o->json) {
        Json j;
        json_begin(&j, stdout, c, "weaks");
        json_open(&j, "weaks", '[');
        for (size_t i = 0; i < n; i++)
            json_weak(&j, c, &ws[i]);
        json_close(&j, ']');
        json_u64(&j, "alive", alive);
        json_u64(&j, "key_dead", key_dead);
        json_u64(&j, "dead", dead);
        json_u64(&j, "total", n);
        json_end(&j);
        free(ws);
        return 0;
    }
    Style s = {o->color, o->full};
    for (size_t i = 0; i < n; i++)
        print_weak(c, &s, &ws[i], "");
    printf("%zu weak pointer%s: %" PRIu64 " alive, %" PRIu64 " with a dead key not yet "
           "collected, %" PRIu64 " dead\n", n, n == 1 ? "" : "s", alive, key_dead, dead);
    free(ws);
    return 0;
}

static int cmd_roots(DbgClient *c, const Opts *o)
{
    const DbgRoot *roots;
    size_t n;
    if (dbg_roots(c, &roots, &n) != 0)
        return die("roots: %s", dbg_error(c));
    /* The weak pointers beside them: the collector keeps each while its
     * key lives, through its weak list rather than as a root. */
    DbgReach *r = dbg_reach_marks(c);
    DbgWeak *ws = NULL;
    size_t nw = 0;
    if (r == NULL || dbg_weaks(c, r, &ws, &nw) != 0) {
        dbg_reach_free(r);
        return die("roots: %s", dbg_error(c));
    }
    if (o->json) {
        Json j;
        json_begin(&j, stdout, c, "roots");
        json_open(&j, "roots", '[');
        for (size_t i = 0; i < n; i++) {
            json_open(&j, NULL, '{');
            json_root(&j, c, "root", &roots[i]);
            json_closure(&j, c, "closure", roots[i].addr);
            json_close(&j, '}');
        }
        json_close(&j, ']');
        json_open(&j, "weaks", '[');
        for (size_t i = 0; i < nw; i++)
            json_weak(&j, c, &ws[i]);
        json_close(&j, ']');
        json_end(&j);
    } else {
        Style s = {false, false};
        for (size_t i = 0; i < n; i++) {
            print_root(&roots[i]);
            print_closure_line(c, &s, roots[i].addr, "      ");
        }
        if (nw > 0)
            printf("    weak pointers (kept while their keys live; not roots):\n");
        for (size_t i = 0; i < nw; i++)
            print_weak(c, &s, &ws[i], "      ");
    }
    free(ws);
    dbg_reach_free(r);
    return 0;
}

/* The objects that keep the most memory, heads of one-table chains. */
static int cmd_dominators(DbgClient *c, DbgReach *r, const Opts *o)
{
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

/* Fills q from --constructor/--info/--type (DBG_MATCH_ANY if none) and
 * --era; returns non-zero after an error message. */
static int query_from_opts(const Opts *o, const char *cmd, DbgQuery *q)
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

/* Objects of later eras holding objects of the old ones, ranked by the old
 * bytes they alone keep alive. */
static int cmd_boundary(DbgClient *c, DbgReach *r, const Opts *o)
{
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
    printf("holders of eras %" PRIu64 "-%" PRIu64 " from later eras, by the old bytes only "
           "they keep alive:\n", q.eras.lo, q.eras.hi);
    Style s = {o->color, o->full};
    for (size_t i = 0; i < shown; i++) {
        const DbgBoundaryGroup *g = &b.groups[i];
        char nb[32], no[32];
        printf("%zu. %s bytes (%s objects) kept by %" PRIu64 " %s", i + 1,
               grouped(g->retained_bytes, nb), grouped(g->retained_objects, no), g->n_holders,
               dbg_type_label(g->holder));
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
    printf("%zu holder kind%s shown of %zu (limit %ld)\n", shown, shown == 1 ? "" : "s", b.n,
           o->limit);
    dbg_boundary_free(&b);
    return 0;
}

static int run_command(DbgClient *c, const char *cmd, const Opts *o)
{
    if (strcmp(cmd, "roots") == 0)
        return cmd_roots(c, o);
    double t0 = now_s();
    bool paths = strcmp(cmd, "fragmentation") == 0 && o->retainers > 0;
    /* A census, the dominator tree and the boundary need only the marks
     * and the ranks (Note [Marks only] in Marks.c), retainers the paths
     * and its matches but not the order (Note [Paths without the
     * order]). */
    bool marks = strcmp(cmd, "census") == 0 || strcmp(cmd, "boundary") == 0 ||
                 strcmp(cmd, "dominators") == 0;
    DbgQuery q;
    bool retainers = strcmp(cmd, "retainers") == 0;
    if (retainers && retainers_query(o, &q) != 0)
        return 1;
    DbgReach *r = marks ? dbg_reach_marks(c)
                  : retainers ? dbg_reach_search(c, &q, (size_t)o->limit)
                              : dbg_reach_opts(c, paths);
    if (r == NULL)
        return die("%s: %s", cmd, dbg_error(c));
    double t1 = now_s();
    int st = 0;
    uint64_t new_era = 0;   /* snapshot --new-era: the era the program resumes in */
    if (strcmp(cmd, "census") == 0) {
        st = cmd_census(c, r, o);
    } else if (strcmp(cmd, "retainers") == 0) {
        st = cmd_retainers(c, r, o, &q);
    } else if (strcmp(cmd, "boundary") == 0) {
        st = cmd_boundary(c, r, o);
    } else if (strcmp(cmd, "dominators") == 0) {
        st = cmd_dominators(c, r, o);
    } else if (strcmp(cmd, "fragmentation") == 0) {
        st = cmd_fragmentation(c, r, o);
    } else if (strcmp(cmd, "thunks") == 0 || strcmp(cmd, "duplicates") == 0) {
        DbgCensus cs;
        bool thunks = cmd[0] == 't';
        if ((thunks ? dbg_thunks(c, r, &cs) : dbg_duplicates(c, r, &cs)) != 0) {
            st = die("%s: %s", cmd, dbg_error(c));
        } else {
            if (o->json)
                json_census(c, cmd, &cs, "info", NULL, false);
            else
                print_census(&cs, thunks ? "thunks by info table"
                                         : "duplicate copies (beyond the first) by info table");
            dbg_census_free(&cs);
        }
    } else if (strcmp(cmd, "weaks") == 0) {
        st = cmd_weaks(c, r, o);
    } else if (strcmp(cmd, "gml") == 0) {
        char err[1200];
        int fd = dbg_create_private(o->file, err, sizeof err);
        FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
        if (fd < 0) {
            st = die("gml: %s", err);
        } else if (f == NULL) {
            st = die("gml: %s: %s", o->file, strerror(errno));
            close(fd);
        } else {
            int w = dbg_write_gml(c, r, f);
            if (fclose(f) != 0 || w != 0)
                st = die("gml: %s: %s", o->file, w ? dbg_error(c) : strerror(errno));
        }
    } else if (strcmp(cmd, "snapshot") == 0) {
        if (dbg_write_snapshot(c, r, o->file) != 0)
            st = die("snapshot: %s", dbg_error(c));
        else if (o->new_era && mark_new_era(c, "snapshot", o->json ? NULL : stdout, &new_era))
            st = 1;
    }
    if (st == 0 && o->json && (strcmp(cmd, "gml") == 0 || strcmp(cmd, "snapshot") == 0)) {
        size_t n;
        dbg_reach_objects(r, &n);
        Json j;
        json_begin(&j, stdout, c, cmd);
        json_str(&j, "file", o->file);
        json_u64(&j, "objects", n);
        if (strcmp(cmd, "snapshot") == 0)
            json_u64(&j, "new_era", new_era);
        json_end(&j);
    }
    if (o->stats)
        fprintf(stderr, "%s: traversal %.3f s (%zu objects), %s %.3f s\n", prog, t1 - t0,
                dbg_reach_count(r), cmd, now_s() - t1);
    dbg_reach_free(r);
    return st;
}

/* ----------------------------------------------------------------------
 * Arguments
 * ---------------------------------------------------------------------- */

static const char *const commands[] = {"census", "retainers", "boundary", "dominators",
                                       "fragmentation", "thunks", "weaks",
                                       "duplicates", "gml", "snapshot", "roots", "tui",
                                       "mark", NULL};

static bool known_command(const char *s)
{
    for (int i = 0; commands[i] != NULL; i++)
        if (strcmp(commands[i], s) == 0)
            return true;
    return false;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (s[0] == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "list") == 0) {
        bool json = argc == 3 && strcmp(argv[2], "--json") == 0;
        if (argc != 2 && !json)
            return die("list takes no arguments but --json");
        Json j;
        ListOut l = {0, json ? &j : NULL};
        if (json) {
            json_begin(&j, stdout, NULL, "list");
            json_open(&j, "sockets", '[');
        }
        for_each_socket(list_one, &l);
        if (json) {
            json_close(&j, ']');
            json_end(&j);
        } else if (l.count == 0) {
            printf("no debug sockets found\n");
        }
        return 0;
    }
    if (strcmp(cmd, "diff") == 0)
        return diff_main(argc, argv);
    if (!known_command(cmd)) {
        usage(stderr);
        return die("unknown command '%s'", cmd);
    }
    Opts o = {.limit = 10};
    const char *socket_path = NULL, *snapshot = NULL, *pid = NULL;
    long timeout_ms = 10000;
    int argi = 2;
    if (strcmp(cmd, "gml") == 0 || strcmp(cmd, "snapshot") == 0) {
        if (argc < 3 || argv[2][0] == '-')
            return die("%s expects an output FILE", cmd);
        o.file = argv[argi++];
    }
    for (; argi < argc; argi++) {
        const char *a = argv[argi];
        const char *v = argi + 1 < argc ? argv[argi + 1] : NULL;
#define TAKE(opt, dst)                                                                  \
    if (strcmp(a, opt) == 0) {                                                          \
        if (v == NULL)                                                                  \
            return die("%s expects a value", opt);                                      \
        dst = v;                                                                        \
        argi++;                                                                         \
        continue;                                                                       \
    }
        TAKE("--socket", socket_path)
        TAKE("--snapshot", snapshot)
        TAKE("--pid", pid)
        TAKE("--by", o.by)
        TAKE("--era", o.era)
        TAKE("--constructor", o.constructor)
        TAKE("--info", o.info)
        TAKE("--type", o.type)
#undef TAKE
        if (strcmp(a, "--color") == 0) {
            o.color = true;
            continue;
        }
        if (strcmp(a, "--stats") == 0) {
            o.stats = true;
            continue;
        }
        if (strcmp(a, "--full") == 0) {
            o.full = true;
            continue;
        }
        if (strcmp(a, "--retained") == 0) {
            o.retained = true;
            continue;
        }
        if (strcmp(a, "--json") == 0) {
            o.json = true;
            continue;
        }
        if (strcmp(a, "--new-era") == 0 && strcmp(cmd, "snapshot") == 0) {
            o.new_era = true;
            continue;
        }
        if (strcmp(a, "--limit") == 0 || strcmp(a, "--retainers") == 0 ||
            strcmp(a, "--timeout") == 0) {
            long *dst = a[2] == 'l' ? &o.limit : a[2] == 'r' ? &o.retainers : &timeout_ms;
            if (v == NULL || !parse_long(v, a[2] == 't' ? 1 : 1, 100000000, dst))
                return die("%s expects a positive number, got '%s'", a, v ? v : "");
            argi++;
            continue;
        }
        return die("%s: unknown option '%s'", cmd, a);
    }
    if ((socket_path != NULL) + (snapshot != NULL) + (pid != NULL) != 1)
        return die("%s needs exactly one of --socket PATH, --pid PID or --snapshot FILE", cmd);
    if (strcmp(cmd, "retainers") == 0 &&
        (o.constructor != NULL) + (o.info != NULL) + (o.type != NULL) != 1)
        return die("retainers needs exactly one of --constructor NAME, --info ADDR or "
                   "--type CLOSURE_TYPE");
    if (strcmp(cmd, "boundary") == 0 && o.era == NULL)
        return die("boundary needs --era LO-HI: the old eras whose holders it looks for");
    if (strcmp(cmd, "boundary") == 0 &&
        (o.constructor != NULL) + (o.info != NULL) + (o.type != NULL) > 1)
        return die("boundary takes at most one of --constructor NAME, --info ADDR or "
                   "--type CLOSURE_TYPE");
    if (o.type != NULL && dbg_closure_type_by_name(o.type) < 0)
        return die("%s: unknown closure type '%s' (e.g. CONSTR_2_0, THUNK, ARR_WORDS)",
                   cmd, o.type);
    DbgEraRange er;
    if (o.era != NULL && !dbg_parse_era_range(o.era, &er))
        return die("--era expects LO-HI or N (eras, LO <= HI), got '%s'", o.era);
    if (o.by != NULL && strcmp(o.by, "type") != 0 && strcmp(o.by, "info") != 0 &&
        strcmp(o.by, "era") != 0 && strcmp(o.by, "module") != 0)
        return die("--by expects type, info, era or module, got '%s'", o.by);

    char err[1024];
    DbgClient *c;
    if (snapshot != NULL) {
        c = dbg_open_snapshot(snapshot, err, sizeof err);
    } else {
        PidFind pf = {0};
        if (pid != NULL) {
            if (!parse_long(pid, 1, 1L << 30, &pf.pid))
                return die("--pid expects a process id, got '%s'", pid);
            if (for_each_socket(find_pid, &pf) == 0)
                return die("no debug socket for pid %ld (is it running with +RTS "
                           "--debug-socket, or STRATA_DEBUG_SOCKET elsewhere?)", pf.pid);
            socket_path = pf.path;
            if (kill((pid_t)pf.pid, 0) != 0 && errno == ESRCH)
                return die("process %ld is gone; %s is a stale socket (it was killed "
                           "before it could remove it)", pf.pid, socket_path);
        }
        c = dbg_connect(socket_path, err, sizeof err);
    }
    if (c == NULL)
        return die("%s", err);
    uint64_t latency = 0;
    double t0 = now_s();
    if (dbg_pause(c, (uint32_t)timeout_ms, &latency) != 0) {
        int st = die("pause: %s", dbg_error(c));
        dbg_close(c);
        return st;
    }
    if (o.stats && !dbg_is_snapshot(c))
        fprintf(stderr, "%s: paused in %.3f ms (request to safe point %.3f ms)\n", prog,
                (now_s() - t0) * 1e3, latency / 1e6);
    if (o.json && strcmp(cmd, "tui") == 0) {
        dbg_close(c);
        return die("tui is interactive: it has no --json output");
    }
    int st = strcmp(cmd, "tui") == 0
                 ? tui_run(c, snapshot ? snapshot : socket_path, (uint32_t)timeout_ms, o.stats)
             : strcmp(cmd, "mark") == 0 ? cmd_mark(c, o.json)
                                        : run_command(c, cmd, &o);
    dbg_close(c);
    return st;
}
