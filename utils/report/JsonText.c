/*
 * utils/report/JsonText.c -- the JSON report's strings and numbers
 * (ReportJson.c): strings as every tool writes them (wire/TextOut.c),
 * safe inside the page's <script> element; numbers without a fraction as
 * integers, non-finite as null.
 */
#include <math.h>
#include <stdio.h>

#include "JsonText.h"
#include "TextOut.h"

/* A JSON string: Note [One way to write a string] in wire/TextOut.c, for
 * JSON that stands inside the page's <script> element. */
void json_string(FILE *out, const char *s)
{
    if (s == NULL) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    text_write_cstr(out, s, TEXT_JSON_SCRIPT);
    fputc('"', out);
}

void json_number(FILE *out, double v)
{
    if (!isfinite(v))
        fputs("null", out);
    else if (v == floor(v) && fabs(v) < 1e15)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.6g", v);
}
