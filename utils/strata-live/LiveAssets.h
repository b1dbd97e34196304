/*
 * utils/strata-live/LiveAssets.h -- the live page's own script (live.js)
 * as a C string: LiveAssets.c, generated in the build tree by
 * utils/report/embed.js.  The rest of the page is the report's
 * (utils/report/ReportAssets.h).
 */
#ifndef STRATA_LIVE_ASSETS_H
#define STRATA_LIVE_ASSETS_H

extern const char live_asset_js[];

#endif /* STRATA_LIVE_ASSETS_H */
