/*
 * utils/strata-debug/tui/TuiQuery.c -- parsing and matching the search
 * line (TuiQuery.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TuiQuery.h"

static bool add_term(TuiQuery *q, DbgMatchKind kind, const char *name, uint64_t info,
                     char *err, size_t err_len)
{
    if (q->n_terms == TUI_QUERY_MAX_TERMS) {
        snprintf(err, err_len, "too many search words (at most %d)", TUI_QUERY_MAX_TERMS);
        return false;
    }
    DbgQuery *t = &q->terms[q->n_terms];
    t->kind = kind;
    t->info = info;
    t->name = NULL;
    if (name != NULL) {
        if (strlen(name) >= sizeof q->names[0]) {
            snprintf(err, err_len, "name too long: '%.40s...'", name);
            return false;
        }
        strcpy(q->names[q->n_terms], name);
        t->name = q->names[q->n_terms];
    }
    q->n_terms++;
    return true;
}

static bool parse_info(const char *s, uint64_t *out)
{
    if (strncmp(s, "0x", 2) != 0 && strncmp(s, "0X", 2) != 0)
        return false;
    if (s[2] == '\0')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s + 2, &end, 16);
    if (*end != '\0' || errno != 0 || v == 0)
        return false;
    *out = v;
    return true;
}

/* One word: "key:value" or a bare value. */
static bool parse_word(TuiQuery *q, const char *w, char *err, size_t err_len)
{
    const char *colon = strchr(w, ':');
    size_t klen = colon ? (size_t)(colon - w) : 0;
    const char *v = colon ? colon + 1 : w;
    if (colon != NULL && *v == '\0') {
        snprintf(err, err_len, "'%s' has no value after the colon", w);
        return false;
    }
#define KEY(k) (klen == strlen(k) && strncmp(w, k, klen) == 0)
    if (colon == NULL) {
        uint64_t info;
        if (dbg_closure_type_by_name(w) >= 0)
            return add_term(q, DBG_MATCH_TYPE, w, 0, err, err_len);
        if (parse_info(w, &info))
            return add_term(q, DBG_MATCH_INFO, NULL, info, err, err_len);
        if (strncmp(w, "0x", 2) == 0) {
            snprintf(err, err_len, "'%s' is not an info table address (0x and hex digits)", w);
            return false;
        }
        return add_term(q, DBG_MATCH_CONSTRUCTOR, w, 0, err, err_len);
    }
    if (KEY("con") || KEY("constructor"))
        return add_term(q, DBG_MATCH_CONSTRUCTOR, v, 0, err, err_len);
    if (KEY("type")) {
        if (dbg_closure_type_by_name(v) < 0) {
            snprintf(err, err_len, "unknown closure type '%s' (e.g. CONSTR_2_0, THUNK, ARR_WORDS)",
                     v);
            return false;
        }
        return add_term(q, DBG_MATCH_TYPE, v, 0, err, err_len);
    }
    if (KEY("info")) {
        uint64_t info;
        if (!parse_info(v, &info)) {
            snprintf(err, err_len, "info:%s is not an address (0x and hex digits)", v);
            return false;
        }
        return add_term(q, DBG_MATCH_INFO, NULL, info, err, err_len);
    }
    if (KEY("era")) {
        if (!dbg_parse_era_range(v, &q->eras)) {
            snprintf(err, err_len, "era:%s is not an era range (N or LO-HI with LO <= HI)", v);
            return false;
        }
        return true;
    }
    if (KEY("limit")) {
        char *end;
        errno = 0;
        long long n = strtoll(v, &end, 10);
        if (*end != '\0' || errno != 0 || n < 1 || n > TUI_QUERY_MAX_LIMIT) {
            snprintf(err, err_len, "limit:%s is not a number from 1 to %d", v,
                     TUI_QUERY_MAX_LIMIT);
            return false;
        }
        q->limit = (size_t)n;
        return true;
    }
#undef KEY
    snprintf(err, err_len, "unknown search key '%.*s' (con, type, info, era, limit)", (int)klen,
             w);
    return false;
}

bool tui_query_parse(const char *text, TuiQuery *q, char *err, size_t err_len)
{
    memset(q, 0, sizeof *q);
    q->limit = TUI_QUERY_DEFAULT_LIMIT;
    char word[256];
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '\0')
            break;
        size_t n = strcspn(p, " \t");
        if (n >= sizeof word) {
            snprintf(err, err_len, "search word too long: '%.40s...'", p);
            return false;
        }
        memcpy(word, p, n);
        word[n] = '\0';
        p += n;
        if (!parse_word(q, word, err, err_len))
            return false;
    }
    if (q->n_terms == 0 && !q->eras.on) {
        snprintf(err, err_len, "empty search: give a constructor, type:T, info:0xADDR or era:LO-HI");
        return false;
    }
    for (size_t i = 0; i < q->n_terms; i++)
        q->terms[i].eras = q->eras;
    return true;
}

bool tui_query_matches(const TuiQuery *q, const DbgClosure *cl)
{
    if (cl->block == NULL || !dbg_era_selected(&q->eras, cl->era))
        return false;
    for (size_t i = 0; i < q->n_terms; i++)
        if (!dbg_query_matches(&q->terms[i], cl))
            return false;
    return true;
}

void tui_query_describe(const TuiQuery *q, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
#define PUT(...)                                                                   \
    do {                                                                           \
        if (at < len) {                                                            \
            int w_ = snprintf(buf + at, len - at, __VA_ARGS__);                    \
            at += w_ > 0 ? (size_t)w_ : 0;                                         \
        }                                                                          \
    } while (0)
    for (size_t i = 0; i < q->n_terms; i++) {
        const DbgQuery *t = &q->terms[i];
        PUT("%s", i ? ", " : "");
        if (t->kind == DBG_MATCH_CONSTRUCTOR)
            PUT("constructor %s", t->name);
        else if (t->kind == DBG_MATCH_TYPE)
            PUT("type %s", t->name);
        else
            PUT("info 0x%" PRIx64, t->info);
    }
    if (q->n_terms == 0)
        PUT("any object");
    if (q->eras.on) {
        if (q->eras.lo == q->eras.hi)
            PUT(", era %" PRIu64, q->eras.lo);
        else
            PUT(", eras %" PRIu64 "-%" PRIu64, q->eras.lo, q->eras.hi);
    }
    PUT(", limit %zu", q->limit);
#undef PUT
}
