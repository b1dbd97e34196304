/*
 * utils/report/AllocJson.h -- a profile's sampled allocations (+RTS
 * --alloc-sample) in the report's JSON: the "alloc_sites" member that the
 * allocation-sites view (alloc.js) draws as a flame graph.  The format is
 * docs/strata-html.md's ("The JSON data").  The whole API of AllocJson.c.
 */
#ifndef STRATA_REPORT_ALLOC_JSON_H
#define STRATA_REPORT_ALLOC_JSON_H

#include <stdio.h>

#include "AllocModel.h"

/* Writes ,"alloc_sites":{...} for m (null when its log had no allocation
 * sampling). */
void alloc_json_write(FILE *out, const AllocModel *m);

#endif /* STRATA_REPORT_ALLOC_JSON_H */
