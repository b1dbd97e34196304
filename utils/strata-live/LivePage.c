/*
 * utils/strata-live/LivePage.c -- the live page's profile and its
 * renderings through the report library (utils/report/), as strata-html
 * makes its own: profile_take_event (the events), report_json_write (the
 * data) and report_page_write_parts (the page).  Note [The live page's
 * data].
 */
#include "LivePage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef STRATA_LIVE_PAGE
#include "LiveAssets.h"
#include "Profile.h"
#include "ProfileEventlog.h"
#include "ReportJson.h"
#include "ReportPage.h"

int live_page_built(void)
{
    return 1;
}

/* Note [The live page's data]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The page draws what strata-html would draw for the log read so far: a
 * report Profile (bounded: Note [Bounded series] in Series.c, every
 * census folded into 400 bins keeping each bin's peak) fed every event,
 * and report_json_write's JSON of it.  The Profile takes in a census only
 * once the heap-profile model has read it whole, so it can be rendered
 * between any two events.  Rendering costs a pass over the
 * bands, under the lock the reading thread needs, so:
 *   - it is done on request only (live_page_refresh, at a page's status
 *     poll), never by the reading thread: nobody watching, nothing is
 *     rendered, and the reader keeps its speed however fast censuses come;
 *   - at most once per change (`version`), kept (`json`) and copied to
 *     every browser, whatever their number;
 *   - while a stream is read, at most once per RENDER_MIN_NS, and never
 *     more often than every RENDER_COST_FACTOR times its own last cost,
 *     so that the reader holds the lock most of the time even with
 *     thousands of bands; a page is then a census or two behind until the
 *     log's pace slows;
 *   - once the stream has ended, at the next request whatever the last
 *     rendering cost: the reader no longer needs the lock, and the status
 *     that first says "stream ended" must come with the stream's last
 *     data, since a page (or a script) that reads it may stop polling
 *     there.  Held back, the end of a log read within one wait (the last
 *     pieces of a followed file, read in a second on a loaded machine)
 *     was missing from the page until some later poll.
 * The status tells a page the version it would get (json_version), so it
 * fetches the data only when there is new data to draw. */
#define RENDER_MIN_NS 100000000ull   /* 100 ms: the page's poll */
#define RENDER_COST_FACTOR 4
struct LivePage {
    char *source_name;
    Filters filters;            /* none: traceMarker markers, as strata-html */
    ReportOptions options;      /* strata-html's defaults: 15 chart bands by size */
    Profile *shown;             /* the served stream's profile (never NULL) */
    Profile *next;              /* a new stream's, before it is promoted, or NULL */
    uint64_t version;
    int reading;                /* a stream is being read: renderings are held back */
    char *json;                 /* the last rendering, of json_version */
    size_t json_len;
    uint64_t json_version;
    uint64_t rendered_ns;       /* when it was made (CLOCK_MONOTONIC) */
    uint64_t render_cost_ns;    /* what it took */
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

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
    lp->options = (ReportOptions)REPORT_OPTIONS_DEFAULT;
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
    lp->reading = 1;
}

static void render(LivePage *lp)
{
    uint64_t start = now_ns();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return;
    Profile *ps[1] = { lp->shown };
    int rc = report_json_write(f, &lp->options, ps, 1);
    if (fclose(f) != 0 || rc != 0) {
        free(buf);
        return;
    }
    free(lp->json);
    lp->json = buf;
    lp->json_len = len;
    lp->json_version = lp->version;
    lp->rendered_ns = now_ns();
    lp->render_cost_ns = lp->rendered_ns - start;
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
    uint64_t censuses = p->n_censuses;
    size_t markers = p->n_markers;
    uint64_t samples = p->samples.n_samples, deaths = p->samples.n_deaths;
    profile_take_event(p, ev);
    if (p == lp->shown && (p->n_censuses != censuses || p->n_markers != markers ||
                           p->samples.n_samples != samples || p->samples.n_deaths != deaths))
        lp->version++;
}

void live_page_stream_end(LivePage *lp)
{
    profile_delete(lp->next);
    lp->next = NULL;
    lp->reading = 0;
    if (profile_census_end(lp->shown))   /* cut short: the census read so far */
        lp->version++;
}

uint64_t live_page_refresh(LivePage *lp)
{
    /* Note [The live page's data] */
    if (lp->json == NULL || (lp->json_version != lp->version && !lp->reading)) {
        render(lp);
    } else if (lp->json_version != lp->version) {
        uint64_t wait = RENDER_COST_FACTOR * lp->render_cost_ns;
        if (wait < RENDER_MIN_NS)
            wait = RENDER_MIN_NS;
        if (now_ns() - lp->rendered_ns >= wait)
            render(lp);
    }
    return lp->json_version;
}

char *live_page_data(LivePage *lp, size_t *len, uint64_t *version)
{
    if (lp->json == NULL)
        render(lp);
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

static int write_data(FILE *out, void *ctx)
{
    LivePage *lp = ctx;
    size_t len;
    uint64_t version;
    char *json = live_page_data(lp, &len, &version);
    if (json == NULL)
        return -1;
    fwrite(json, 1, len, out);
    free(json);
    return 0;
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
    int rc = report_page_write_parts(f, "strata-live", title, config, write_data, lp,
                                     live_asset_js);
    free(config);
    if (fclose(f) != 0 || rc != 0) {
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

uint64_t live_page_refresh(LivePage *lp)
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
