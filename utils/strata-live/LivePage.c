/*
 * utils/strata-live/LivePage.c -- the live page's profile and its
 * renderings through strata-html's code: profile_take_event (the events),
 * json_write_report (the data) and page_write_parts (the page).  Note [The
 * live page's data].
 */
#include "LivePage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef STRATA_LIVE_PAGE
#include "profile.h"

int live_page_built(void)
{
    return 1;
}

/* Note [The live page's data]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The page draws what strata-html would draw for the log read so far: a
 * strata-html Profile (bounded: Note [Bounded series] in series.c, every
 * census folded into 400 bins keeping each bin's peak) fed every event,
 * and json_write_report's JSON of it.  Rendering costs a pass over the
 * bands, so it is done at most once per change (`version`) and kept
 * (`json`), whatever the number of browsers: each request gets a copy.
 *
 * A census is drawn once it is whole: while one is being read its bands
 * hold part of it (Band.cur_bytes), so the data is not rendered then;
 * a request gets the last rendering, and when the census ends the data
 * is rendered at once if someone has asked for it since the last
 * rendering (`watched`), so that a page waiting for it has it at its next
 * poll.  Nobody watching: nothing is rendered. */
struct LivePage {
    char *source_name;
    Filters filters;            /* none: traceMarker markers, as strata-html */
    Options options;            /* strata-html's defaults: 15 chart bands by size */
    Profile *shown;             /* the served stream's profile (never NULL) */
    Profile *next;              /* a new stream's, before it is promoted, or NULL */
    uint64_t version;
    char *json;                 /* the last rendering, of json_version */
    size_t json_len;
    uint64_t json_version;
    int watched;                /* data asked for since the last rendering */
};

static Profile *profile_new(LivePage *lp)
{
    Profile *p = malloc(sizeof *p);
    if (p != NULL)
        profile_init(p, lp->source_name, &lp->filters);
    return p;
}

static void profile_delete(Profile *p)
{
    if (p != NULL) {
        profile_free(p);
        free(p);
    }
}

LivePage *live_page_new(const char *source_name)
{
    LivePage *lp = calloc(1, sizeof *lp);
    if (lp == NULL)
        return NULL;
    lp->options.bands = 15;
    lp->options.sort = SORT_SIZE;
    lp->source_name = strdup(source_name);
    lp->shown = lp->source_name != NULL ? profile_new(lp) : NULL;
    if (lp->shown == NULL) {
        free(lp->source_name);
        free(lp);
        return NULL;
    }
    lp->version = 1;
    return lp;
}

void live_page_free(LivePage *lp)
{
    if (lp == NULL)
        return;
    profile_delete(lp->shown);
    profile_delete(lp->next);
    free(lp->json);
    free(lp->source_name);
    free(lp);
}

void live_page_stream_begin(LivePage *lp)
{
    profile_delete(lp->next);
    lp->next = profile_new(lp);   /* NULL when out of memory: the stream is not drawn */
}

static void render(LivePage *lp)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return;
    Profile *ps[1] = { lp->shown };
    json_write_report(f, &lp->options, ps, 1);
    if (fclose(f) != 0) {
        free(buf);
        return;
    }
    free(lp->json);
    lp->json = buf;
    lp->json_len = len;
    lp->json_version = lp->version;
    lp->watched = 0;
}

void live_page_add(LivePage *lp, const EvrEvent *ev, int promote)
{
    if (promote && lp->next != NULL) {
        profile_delete(lp->shown);
        lp->shown = lp->next;
        lp->next = NULL;
        lp->version++;
    }
    Profile *p = lp->next != NULL ? lp->next : lp->shown;
    if (p->out_of_memory)
        return;
    int was_open = p->census_open;
    uint64_t markers = p->n_markers;
    profile_take_event(p, ev);
    if (p != lp->shown)
        return;
    if ((was_open && !p->census_open) || p->n_markers != markers) {
        lp->version++;
        if (lp->watched && !p->census_open)
            render(lp);
    }
}

void live_page_stream_end(LivePage *lp)
{
    profile_delete(lp->next);
    lp->next = NULL;
    if (lp->shown->census_open) {   /* cut short: the census read so far */
        profile_census_end(lp->shown);
        lp->version++;
    }
}

uint64_t live_page_version(const LivePage *lp)
{
    return lp->version;
}

char *live_page_data(LivePage *lp, size_t *len, uint64_t *version)
{
    /* Note [The live page's data]: a census being read is not drawn. */
    if (lp->json == NULL || (lp->json_version != lp->version && !lp->shown->census_open))
        render(lp);
    lp->watched = 1;
    if (lp->json == NULL)
        return NULL;
    char *copy = malloc(lp->json_len + 1);
    if (copy == NULL)
        return NULL;
    memcpy(copy, lp->json, lp->json_len + 1);
    *len = lp->json_len;
    *version = lp->json_version;
    return copy;
}

static void write_data(FILE *out, void *ctx)
{
    LivePage *lp = ctx;
    size_t len;
    uint64_t version;
    char *json = live_page_data(lp, &len, &version);
    if (json != NULL)
        fwrite(json, 1, len, out);
    free(json);
}

char *live_page_html(LivePage *lp, const char *config_json, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    if (f == NULL)
        return NULL;
    const char *program = lp->shown->program != NULL ? lp->shown->program : lp->source_name;
    const char *slash = strrchr(program, '/');
    char title[300];
    snprintf(title, sizeof title, "%s - strata-live", slash != NULL && slash[1] ? slash + 1
                                                                             : program);
    static const char head[] = "<script type=\"application/json\" id=\"strata-live-config\">";
    static const char close_[] = "</script>\n";
    char *config = malloc(sizeof head + strlen(config_json) + sizeof close_);
    if (config == NULL) {
        fclose(f);
        free(buf);
        return NULL;
    }
    strcpy(config, head);
    strcat(config, config_json);
    strcat(config, close_);
    page_write_parts(f, "strata-live", title, config, write_data, lp, html_asset_live_js);
    free(config);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

#else /* !STRATA_LIVE_PAGE: built without node and npm, so without the page */

int live_page_built(void)
{
    return 0;
}

LivePage *live_page_new(const char *source_name)
{
    (void)source_name;
    return NULL;
}

/* With no page there is no LivePage: these are called with NULL only, or
 * not at all (main.c and PageHttp.c check for one). */
void live_page_free(LivePage *lp)
{
    (void)lp;
}

void live_page_stream_begin(LivePage *lp)
{
    (void)lp;
}

void live_page_add(LivePage *lp, const EvrEvent *ev, int promote)
{
    (void)lp, (void)ev, (void)promote;
}

void live_page_stream_end(LivePage *lp)
{
    (void)lp;
}

uint64_t live_page_version(const LivePage *lp)
{
    (void)lp;
    return 0;
}

char *live_page_data(LivePage *lp, size_t *len, uint64_t *version)
{
    (void)lp, (void)len, (void)version;
    return NULL;
}

char *live_page_html(LivePage *lp, const char *config_json, size_t *len)
{
    (void)lp, (void)config_json, (void)len;
    return NULL;
}

#endif
