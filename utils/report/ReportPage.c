/*
 * utils/report/ReportPage.c -- the report page: one HTML file holding the
 * data (ReportJson.c) and, inlined, the charting and table libraries and
 * the page's own script and style (ReportAssets.c, generated at build time
 * from the npm-installed files by embed.js).  Opening it fetches nothing.
 * The same page, with a script of its own added, is strata-live's live
 * page.
 */
#include <stdlib.h>
#include <string.h>

#include "ReportAssets.h"
#include "ReportPage.h"
#include "TextOut.h"

static void html_text(FILE *out, const char *s)
{
    text_write_cstr(out, s, TEXT_HTML);
}

int report_page_write_parts(FILE *out, const char *generator, const char *title,
                            const char *extra_html, int (*write_data)(FILE *out, void *ctx),
                            void *ctx, const char *extra_js)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", out);
    fputs("<meta name=\"generator\" content=\"", out);
    html_text(out, generator);
    fputs(" (", out);
    html_text(out, html_asset_versions);
    fputs(")\">\n<title>", out);
    html_text(out, title);
    fputs("</title>\n<style>\n", out);
    fputs(html_asset_tabulator_css, out);
    fputs("\n</style>\n<style>\n", out);
    fputs(html_asset_report_css, out);
    fputs("\n</style>\n</head>\n<body>\n", out);
    if (extra_html != NULL)
        fputs(extra_html, out);
    fputs("<div id=\"app\"><p id=\"loading\">Loading the report"
          "...</p></div>\n<script type=\"application/json\" id=\"strata-data\">", out);
    if (write_data(out, ctx) != 0)
        return -1;
    fputs("</script>\n<script>\n", out);
    fputs(html_asset_echarts_js, out);
    fputs("\n</script>\n<script>\n", out);
    fputs(html_asset_tabulator_js, out);
    fputs("\n</script>\n<script>\n", out);
    fputs(html_asset_alloc_js, out);
    fputs("\n</script>\n<script>\n", out);
    fputs(html_asset_report_js, out);
    if (extra_js != NULL) {
        fputs("\n</script>\n<script>\n", out);
        fputs(extra_js, out);
    }
    fputs("\n</script>\n</body>\n</html>\n", out);
    return 0;
}

typedef struct ReportData {
    const ReportOptions *o;
    Profile *const *profiles;
    size_t n;
} ReportData;

static int write_report_data(FILE *out, void *ctx)
{
    const ReportData *d = ctx;
    return report_json_write(out, d->o, d->profiles, d->n);
}

int report_page_write(FILE *out, const ReportOptions *o, Profile *const *profiles, size_t n)
{
    size_t len = strlen(profiles[0]->path) + (n == 2 ? strlen(profiles[1]->path) : 0) + 32;
    char *title = malloc(len);
    if (title == NULL)
        return -1;
    if (n == 2)
        snprintf(title, len, "%s vs %s - strata-html", profiles[0]->path, profiles[1]->path);
    else
        snprintf(title, len, "%s - strata-html", profiles[0]->path);
    ReportData d = { o, profiles, n };
    int rc = report_page_write_parts(out, "strata-html", title, NULL, write_report_data, &d, NULL);
    free(title);
    return rc;
}
