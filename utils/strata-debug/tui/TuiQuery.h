/*
 * utils/strata-debug/tui/TuiQuery.h -- the search line of the terminal UI:
 * words like
 *
 *     SessionEntry era:1-2 limit:20
 *     type:THUNK_1_0   info:0x4a3f20   con:Just   era:3
 *
 * parsed into criteria that must all hold.  A bare word is a closure type
 * if it names one (CONSTR_2_0, ARR_WORDS), an info table if it starts with
 * 0x, else a constructor name.  Pure; matching uses the client library's
 * dbg_query_matches for each criterion.
 */
#ifndef STRATA_TUIQUERY_H
#define STRATA_TUIQUERY_H

#include "DebugAnalysis.h"

#define TUI_QUERY_MAX_TERMS 8
#define TUI_QUERY_DEFAULT_LIMIT 100
#define TUI_QUERY_MAX_LIMIT 1000000

typedef struct {
    DbgQuery terms[TUI_QUERY_MAX_TERMS];   /* each with the era range below */
    char names[TUI_QUERY_MAX_TERMS][128];  /* storage for terms[i].name */
    size_t n_terms;
    DbgEraRange eras;                      /* on: only these eras */
    size_t limit;                          /* at most this many results */
} TuiQuery;

/* Parses text; false with a message naming the bad word in err. */
bool tui_query_parse(const char *text, TuiQuery *q, char *err, size_t err_len);
/* True if the closure satisfies every term (and the era range; a query
 * with no terms but an era range matches every heap object of those
 * eras). */
bool tui_query_matches(const TuiQuery *q, const DbgClosure *cl);
/* A one-line description ("constructor SessionEntry, eras 1-2, limit 20"). */
void tui_query_describe(const TuiQuery *q, char *buf, size_t len);

#endif /* STRATA_TUIQUERY_H */
