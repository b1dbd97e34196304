/*
 * utils/report/JsonText.h -- the JSON report's strings and numbers.  The
 * whole API of JsonText.c.
 */
#ifndef STRATA_REPORT_JSON_TEXT_H
#define STRATA_REPORT_JSON_TEXT_H

#include <stdio.h>

/* A JSON string (NULL as null; Note [One way to write a string] in
 * wire/TextOut.c, with < > & escaped for the page's <script> element) and
 * a JSON number (non-finite as null). */
void json_string(FILE *out, const char *s);
void json_number(FILE *out, double v);

#endif /* STRATA_REPORT_JSON_TEXT_H */
