/*
 * utils/strata-html/page.c -- the report page: one HTML file holding the
 * data (json.c) and, inlined, the charting and table libraries and the
 * page's own script and style (assets.c, generated at build time from the
 * npm-installed files by embed.js).  Opening it fetches nothing.
 */
#include <string.h>

#include "profile.h"

static void html_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", out);
        else if (*s == '>')
            fputs("&gt;", out);
        else if (*s == '&')
            fputs("&amp;", out);
        else if (*s == '"')
            fputs("&quot;", out);
        else
            fputc(*s, out);
    }
}

void page_write(FILE *out, const Options *o, Profile *const *profiles, size_t n)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n", out);
    fputs("<meta name=\"generator\" content=\"strata-html (", out);
    html_text(out, html_asset_versions);
    fputs(")\">\n<title>", out);
    html_text(out, profiles[0]->path);
    if (n == 2) {
        fputs(" vs ", out);
        html_text(out, profiles[1]->path);
    }
    fputs(" - strata-html</title>\n<style>\n", out);
    fputs(html_asset_tabulator_css, out);
    fputs("\n</style>\n<style>\n", out);
    fputs(html_asset_report_css, out);
    fputs("\n</style>\n</head>\n<body>\n<div id=\"app\"><p id=\"loading\">Loading the report"
          "...</p></div>\n<script type=\"application/json\" id=\"strata-data\">", out);
    json_write_report(out, o, profiles, n);
    fputs("</script>\n<script>\n", out);
    fputs(html_asset_echarts_js, out);
    fputs("\n</script>\n<script>\n", out);
    fputs(html_asset_tabulator_js, out);
    fputs("\n</script>\n<script>\n", out);
    fputs(html_asset_report_js, out);
    fputs("\n</script>\n</body>\n</html>\n", out);
}
