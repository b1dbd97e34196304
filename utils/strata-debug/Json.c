/*
 * utils/strata-debug/Json.c -- the JSON writer and shared objects of
 * strata-debug --json (Json.h).  Output is one document per command, keys
 * in a fixed order, so that two runs on one snapshot print the same bytes.
 * Schema: docs/strata-debug.md, "JSON output".
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "Json.h"
#include "TextOut.h"
#include "strata/Debug.h"

/* ----------------------------------------------------------------------
 * Writing
 * ---------------------------------------------------------------------- */

/* Note [One way to write a string] in wire/TextOut.c. */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    text_write_cstr(f, s, TEXT_JSON);
    fputc('"', f);
}

/* The comma and key before a value. */
static void member(Json *j, const char *key)
{
    if (j->need_comma[j->depth])
        fputc(',', j->f);
    j->need_comma[j->depth] = true;
    if (key != NULL) {
        put_string(j->f, key);
        fputc(':', j->f);
    }
}

void json_open(Json *j, const char *key, char bracket)
{
    member(j, key);
    fputc(bracket, j->f);
    if (j->depth + 1 < JSON_MAX_DEPTH)
        j->depth++;
    j->need_comma[j->depth] = false;
}

void json_close(Json *j, char bracket)
{
    fputc(bracket, j->f);
    if (j->depth > 0)
        j->depth--;
}

void json_str(Json *j, const char *key, const char *v)
{
    member(j, key);
    if (v == NULL)
        fputs("null", j->f);
    else
        put_string(j->f, v);
}

void json_u64(Json *j, const char *key, uint64_t v)
{
    member(j, key);
    fprintf(j->f, "%" PRIu64, v);
}

void json_i64(Json *j, const char *key, int64_t v)
{
    member(j, key);
    fprintf(j->f, "%" PRId64, v);
}

void json_bool(Json *j, const char *key, bool v)
{
    member(j, key);
    fputs(v ? "true" : "false", j->f);
}

void json_null(Json *j, const char *key)
{
    member(j, key);
    fputs("null", j->f);
}

void json_addr(Json *j, const char *key, uint64_t addr)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%" PRIx64, addr);
    json_str(j, key, buf);
}

void json_range(Json *j, const char *key, uint64_t lo, uint64_t hi)
{
    json_open(j, key, '[');
    json_u64(j, NULL, lo);
    json_u64(j, NULL, hi);
    json_close(j, ']');
}

void json_begin(Json *j, FILE *f, DbgClient *c, const char *cmd)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    json_open(j, NULL, '{');
    json_u64(j, "schema", JSON_SCHEMA_VERSION);
    json_str(j, "command", cmd);
    if (c == NULL)
        return;
    const DbgTarget *t = dbg_target(c);
    json_open(j, "target", '{');
    json_str(j, "program", t->program);
    json_u64(j, "pid", t->pid);
    json_u64(j, "era", t->era);
    json_bool(j, "snapshot", dbg_is_snapshot(c));
    json_close(j, '}');
}

void json_end(Json *j)
{
    json_close(j, '}');
    fputc('\n', j->f);
}

/* ----------------------------------------------------------------------
 * Shared objects
 * ---------------------------------------------------------------------- */

static void json_provenance(Json *j, const DbgInfo *in)
{
    if (in->prov_source == DEBUG_PROV_NONE) {
        json_null(j, "provenance");
        return;
    }
    json_open(j, "provenance", '{');
    json_str(j, "label", in->label);
    json_str(j, "module", in->module);
    json_str(j, "file", in->src_file);
    json_str(j, "span", in->src_span);
    json_bool(j, "derived", in->prov_source == DEBUG_PROV_DERIVED);
    json_close(j, '}');
}

void json_info(Json *j, const char *key, const DbgInfo *in)
{
    json_open(j, key, '{');
    json_addr(j, "addr", in->addr);
    json_str(j, "label", dbg_type_label(in));
    json_str(j, "type", dbg_closure_type_name(in->type));
    json_provenance(j, in);
    json_close(j, '}');
}

void json_closure(Json *j, DbgClient *c, const char *key, uint64_t addr)
{
    DbgClosure cl;
    json_open(j, key, '{');
    json_addr(j, "addr", addr);
    if (dbg_closure(c, addr, &cl) != 0) {
        json_str(j, "error", dbg_error(c));
        json_close(j, '}');
        return;
    }
    json_addr(j, "info", cl.info->addr);
    json_str(j, "label", dbg_type_label(cl.info));
    json_str(j, "type", dbg_closure_type_name(cl.info->type));
    json_u64(j, "bytes", (uint64_t)cl.n_words * 8);
    if (cl.block != NULL) {
        json_u64(j, "era", cl.era);
        json_str(j, "block", dbg_block_kind_name(cl.block->kind));
        json_u64(j, "gen", cl.block->gen);
        json_null(j, "static");
    } else {
        char name[1024];
        dbg_static_name(c, addr, name, sizeof name);
        json_null(j, "era");
        json_null(j, "block");
        json_null(j, "gen");
        json_str(j, "static", name);
    }
    json_provenance(j, cl.info);
    json_alloc_site(j, c, addr);
    json_close(j, '}');
}

void json_alloc_site(Json *j, DbgClient *c, uint64_t addr)
{
    const DbgAllocSite *site = dbg_alloc_site(c, addr);
    if (site == NULL)
        return;
    json_open(j, "allocated_at", '{');
    json_u64(j, "sample", site->sample);
    json_u64(j, "era", site->era);
    json_u64(j, "bytes", site->size_bytes);
    json_open(j, "frames", '[');
    for (size_t k = 0; k < site->n_frames; k++) {
        json_open(j, NULL, '{');
        json_str(j, "function", site->frames[k].function);
        json_str(j, "file", site->frames[k].file);
        json_u64(j, "line", site->frames[k].line);
        json_close(j, '}');
    }
    json_close(j, ']');
    json_close(j, '}');
}

void json_root(Json *j, DbgClient *c, const char *key, const DbgRoot *r)
{
    json_open(j, key, '{');
    json_str(j, "kind", dbg_root_kind_label(c, r->kind));
    json_u64(j, "index", r->index);
    json_u64(j, "slot", r->slot);
    json_str(j, "func", r->func);
    json_str(j, "file", r->file);
    json_u64(j, "line", r->line);
    char name[1024];
    dbg_static_root_name(r, name, sizeof name);
    json_str(j, "name", name);
    json_addr(j, "addr", r->addr);
    json_close(j, '}');
}

/* One step: count closures from first to last (count 1: first == last). */
static void json_step(Json *j, DbgClient *c, const DbgPathRun *run)
{
    json_open(j, NULL, '{');
    json_u64(j, "count", run->n);
    json_range(j, "eras", run->era_lo, run->era_hi);
    json_range(j, "gens", run->gen_lo, run->gen_hi);
    json_closure(j, c, "first", run->first_addr);
    json_closure(j, c, "last", run->last_addr);
    json_close(j, '}');
}

int json_path_of(Json *j, DbgClient *c, const DbgPath *path, bool full)
{
    DbgPath p = *path;
    DbgPathRun *runs = NULL;
    size_t n_runs = 0;
    if (dbg_path_runs(c, &p, 1, &runs, &n_runs) != 0)
        return -1;
    json_closure(j, c, "object", p.addrs[0]);
    json_open(j, "path", '[');   /* what holds it, up to the root's closure */
    for (size_t i = 0; i < n_runs; i++) {
        if (!full) {
            json_step(j, c, &runs[i]);
            continue;
        }
        for (size_t k = runs[i].first; k < runs[i].first + runs[i].n; k++) {
            DbgPathRun one = runs[i];
            DbgClosure cl;
            one.first = k;
            one.n = 1;
            one.first_addr = one.last_addr = p.addrs[k];
            if (dbg_closure(c, p.addrs[k], &cl) == 0) {
                one.era_lo = one.era_hi = cl.era;
                one.gen_lo = one.gen_hi = cl.block != NULL ? cl.block->gen : 0;
            }
            json_step(j, c, &one);
        }
    }
    json_close(j, ']');
    const DbgRoot *roots;
    size_t nr;
    if (dbg_roots(c, &roots, &nr) == 0 && p.root < nr)
        json_root(j, c, "root", &roots[p.root]);
    free(runs);
    return 0;
}

int json_path(Json *j, DbgClient *c, const DbgReach *r, uint64_t addr, bool full)
{
    DbgPath p;
    if (dbg_retainer_path(c, r, addr, &p) != 0)
        return -1;
    int st = json_path_of(j, c, &p, full);
    dbg_path_free(&p);
    return st;
}
