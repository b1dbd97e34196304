/*
 * utils/strata-live/LivePage.h -- the live page's model: the heap profile
 * of the stream being read, built by the report library strata-html uses
 * (utils/report/Profile.h) from the same events LiveState takes in,
 * and its renderings: the report's JSON data (what strata-html --json
 * writes) and the whole page.  The whole API of the module; Note [The
 * live page's data] in LivePage.c.
 *
 * Thread safety: none here.  Every call is made under the lock that
 * guards the LiveState (main.c).
 */
#ifndef STRATA_LIVE_PAGE_H
#define STRATA_LIVE_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "EventLogReader.h"

typedef struct LivePage LivePage;

/* 1 if strata-live was built with its page (the report page's inlined
 * npm libraries need node and npm at configure time); else
 * live_page_new returns NULL and the page's urls say why. */
int live_page_built(void);

/* source_name: the stream's name as the page shows it (the socket path,
 * the file).  NULL when out of memory. */
LivePage *live_page_new(const char *source_name);
void live_page_free(LivePage *lp);

/* A new stream begins; its events go to a profile that is not shown until
 * live_page_add is told to promote it (Note [A preamble alone replaces
 * nothing] in LiveState.c), when it replaces the shown one. */
void live_page_stream_begin(LivePage *lp);

/* Takes in one event of the current stream; promote: LiveState made the
 * new stream the served one at this event. */
void live_page_add(LivePage *lp, const EvrEvent *ev, int promote);

/* The stream ended: a new stream that was never promoted is dropped. */
void live_page_stream_end(LivePage *lp);

/* Renders the data again if it changed and it is time to (Note [The
 * live page's data]); returns the version live_page_data now gives.  The
 * version goes up with every change (a census completed, a marker, a new
 * stream). */
uint64_t live_page_refresh(LivePage *lp);

/* The report's JSON data, as last rendered (rendered now if never), as a
 * malloc'd copy (*len bytes), with its version in *version; NULL when out
 * of memory. */
char *live_page_data(LivePage *lp, size_t *len, uint64_t *version);

/* The whole page (malloc'd, *len bytes): the report with the data now,
 * then config_json (a JSON object for live.js) and live.js; NULL when out
 * of memory. */
char *live_page_html(LivePage *lp, const char *config_json, size_t *len);

#endif /* STRATA_LIVE_PAGE_H */
