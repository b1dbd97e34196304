/*
 * utils/strata-debug/Json.h -- strata-debug's --json output: a small
 * streaming JSON writer and the objects every command shares (closures,
 * path steps, roots, info tables).  The schema is in docs/strata-debug.md,
 * "JSON output".
 */
#ifndef STRATA_DEBUG_JSON_H
#define STRATA_DEBUG_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "DebugAnalysis.h"
#include "DebugClient.h"

/* The schema's version, "schema" in every document. */
#define JSON_SCHEMA_VERSION 1
#define JSON_MAX_DEPTH 32

typedef struct {
    FILE *f;
    int depth;
    bool need_comma[JSON_MAX_DEPTH];
} Json;

/* key is NULL for an array element (or the document itself). */
void json_open(Json *j, const char *key, char bracket);   /* '{' or '[' */
void json_close(Json *j, char bracket);                   /* '}' or ']' */
void json_str(Json *j, const char *key, const char *v);   /* NULL: null */
void json_u64(Json *j, const char *key, uint64_t v);
void json_i64(Json *j, const char *key, int64_t v);
void json_bool(Json *j, const char *key, bool v);
void json_null(Json *j, const char *key);
/* An address as a string "0x7f…" (a number would lose bits past 2^53). */
void json_addr(Json *j, const char *key, uint64_t addr);
/* [lo, hi] */
void json_range(Json *j, const char *key, uint64_t lo, uint64_t hi);

/* {"schema": 1, "command": cmd, "target": {...}, then the caller's keys;
 * json_end closes it with a newline. */
void json_begin(Json *j, FILE *f, DbgClient *c, const char *cmd);
void json_end(Json *j);

/* The shared objects. */
void json_info(Json *j, const char *key, const DbgInfo *in);
void json_closure(Json *j, DbgClient *c, const char *key, uint64_t addr);
/* "allocated_at": the object's allocation site (sample, era, bytes,
 * frames), when it is a sampled object (+RTS --alloc-sample); nothing
 * otherwise.  json_closure adds it. */
void json_alloc_site(Json *j, DbgClient *c, uint64_t addr);
void json_root(Json *j, DbgClient *c, const char *key, const DbgRoot *r);
/* A retainer path: "object", "path" (steps: runs of one info table, or
 * single closures when full) and "root"; json_path_of for a path already
 * found (dbg_diff_path). */
int json_path_of(Json *j, DbgClient *c, const DbgPath *p, bool full);
int json_path(Json *j, DbgClient *c, const DbgReach *r, uint64_t addr, bool full);

#endif /* STRATA_DEBUG_JSON_H */
