/*
 * utils/report/ReportPage.h -- the report page: one self-contained HTML
 * file holding the report's data (ReportJson.h) and, inlined, the charting
 * and table libraries and the page's own script and style
 * (ReportAssets.h).  The whole API of ReportPage.c.
 */
#ifndef STRATA_REPORT_REPORT_PAGE_H
#define STRATA_REPORT_REPORT_PAGE_H

#include <stddef.h>
#include <stdio.h>

#include "Profile.h"
#include "ReportJson.h"

/* strata-html's page of profiles[0..n) (as report_json_write); 0, or -1
 * when out of memory. */
int report_page_write(FILE *out, const ReportOptions *o, Profile *const *profiles, size_t n);

/* The same page for another tool (strata-live): generator names the tool,
 * extra_html goes first in <body>, the data is written by write_data
 * (which returns 0, or -1 when out of memory), and extra_js (may be NULL)
 * runs after the report's own script.  0, or write_data's -1. */
int report_page_write_parts(FILE *out, const char *generator, const char *title,
                            const char *extra_html, int (*write_data)(FILE *out, void *ctx),
                            void *ctx, const char *extra_js);

#endif /* STRATA_REPORT_REPORT_PAGE_H */
