/*
 * utils/report/ReportAssets.h -- the files the report page inlines, as C
 * strings: ReportAssets.c, generated in the build tree by embed.js from
 * the npm-installed libraries (pinned by utils/package-lock.json) and the
 * page's own script and style (report.js, report.css).
 * docs/design/html.md.
 */
#ifndef STRATA_REPORT_REPORT_ASSETS_H
#define STRATA_REPORT_REPORT_ASSETS_H

extern const char html_asset_echarts_js[];
extern const char html_asset_tabulator_js[];
extern const char html_asset_tabulator_css[];
extern const char html_asset_alloc_js[];   /* the allocation-sites view */
extern const char html_asset_report_js[];
extern const char html_asset_report_css[];
extern const char html_asset_versions[];   /* "echarts X, tabulator-tables Y" */

#endif /* STRATA_REPORT_REPORT_ASSETS_H */
