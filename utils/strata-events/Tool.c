/*
 * utils/strata-events/Tool.c -- what the commands of strata-events share
 * (Tool.h): opening a log and reporting its errors, printing strings as
 * every tool does (wire/TextOut.c), breakdown names, durations.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TextOut.h"
#include "Tool.h"

EventLogReader *tool_open(const char *path, FILE **file_out)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot open %s: %s\n", TOOL_NAME, path, strerror(errno));
        return NULL;
    }
    EventLogReader *r = evr_open_file(f, path);
    if (r == NULL) {
        fprintf(stderr, "%s: out of memory opening %s\n", TOOL_NAME, path);
        if (f != stdin)
            fclose(f);
        return NULL;
    }
    *file_out = f;
    return r;
}

void tool_close(EventLogReader *r, FILE *f)
{
    evr_close(r);
    if (f != NULL && f != stdin)
        fclose(f);
}

void tool_report_error(const EventLogReader *r)
{
    fprintf(stderr, "%s: %s: %s\n", TOOL_NAME, evr_name(r), evr_error(r));
}

void tool_warn_no_data_end(const EventLogReader *r)
{
    if (evr_error(r) == NULL && !evr_saw_data_end(r))
        fprintf(stderr, "%s: %s: warning: offset %llu: no data end marker (log cut short?)\n",
                TOOL_NAME, evr_name(r), (unsigned long long)evr_offset(r));
}

void tool_print_escaped(FILE *out, const char *s, size_t len)
{
    text_write(out, s, len, TEXT_QUOTED);
}

void tool_print_quoted(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    text_write(out, s, len, TEXT_QUOTED);
    fputc('"', out);
}

void tool_print_json_string(FILE *out, const char *s, size_t len)
{
    fputc('"', out);
    text_write(out, s, len, TEXT_JSON);
    fputc('"', out);
}

static const struct {
    const char *flag;
    const char *name;
} breakdowns[] = {
    [HEAP_PROF_BREAKDOWN_COST_CENTRE] = {"-hc", "cost centre stack"},
    [HEAP_PROF_BREAKDOWN_MODULE] = {"-hm", "module"},
    [HEAP_PROF_BREAKDOWN_CLOSURE_DESCR] = {"-hd", "closure description"},
    [HEAP_PROF_BREAKDOWN_TYPE_DESCR] = {"-hy", "type description"},
    [HEAP_PROF_BREAKDOWN_RETAINER] = {"-hr", "retainer set"},
    [HEAP_PROF_BREAKDOWN_BIOGRAPHY] = {"-hb", "biography"},
    [HEAP_PROF_BREAKDOWN_CLOSURE_TYPE] = {"-hT", "closure type"},
    [HEAP_PROF_BREAKDOWN_INFO_TABLE] = {"-hi", "info table"},
    [HEAP_PROF_BREAKDOWN_ERA] = {"-he", "era"},
};

const char *tool_breakdown_flag(uint32_t code)
{
    if (code >= sizeof breakdowns / sizeof breakdowns[0] || breakdowns[code].flag == NULL)
        return "?";
    return breakdowns[code].flag;
}

const char *tool_breakdown_name(uint32_t code)
{
    if (code >= sizeof breakdowns / sizeof breakdowns[0] || breakdowns[code].name == NULL)
        return "unknown";
    return breakdowns[code].name;
}

static const struct {
    const char *name;
    uint64_t ns;
} duration_units[] = {{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}, {"ns", 1}};

#define DURATION_MAX_NS (3600 * UINT64_C(1000000000))

int tool_parse_duration(const char *s, uint64_t *ns_out)
{
    uint64_t whole = 0, frac = 0, frac_scale = 1;
    const char *c = s;
    if (*c < '0' || *c > '9')
        return 0;
    for (; *c >= '0' && *c <= '9'; c++) {
        whole = whole * 10 + (uint64_t)(*c - '0');
        if (whole > DURATION_MAX_NS)
            return 0;
    }
    if (*c == '.') {
        for (c++; *c >= '0' && *c <= '9'; c++)
            if (frac_scale < 1000000000) {   /* past 1e-9: no ns unit has it */
                frac = frac * 10 + (uint64_t)(*c - '0');
                frac_scale *= 10;
            }
    }
    for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++) {
        if (strcmp(c, duration_units[i].name) != 0)
            continue;
        uint64_t unit = duration_units[i].ns;
        if (whole > DURATION_MAX_NS / unit)
            return 0;
        uint64_t ns = whole * unit + frac * unit / frac_scale;
        if (ns == 0 || ns > DURATION_MAX_NS)
            return 0;
        *ns_out = ns;
        return 1;
    }
    return 0;
}

void tool_format_duration(char *buf, size_t len, uint64_t ns)
{
    size_t i = 0;
    while (ns % duration_units[i].ns != 0)
        i++;
    snprintf(buf, len, "%" PRIu64 "%s", ns / duration_units[i].ns, duration_units[i].name);
}
