/*
 * utils/report/ReportSort.h -- the orders the report's bands can be in
 * (--sort): a type only, which the rows (ReportRows.h), the chart's bands
 * (ChartBands.h) and the options (ReportJson.h, report_sort_parse) share.
 */
#ifndef STRATA_REPORT_SORT_H
#define STRATA_REPORT_SORT_H

/* How the bands are ordered (--sort). */
typedef enum ReportSort {
    REPORT_SORT_SIZE, REPORT_SORT_STDDEV, REPORT_SORT_NAME, REPORT_SORT_NUMBER,
    REPORT_SORT_GRADIENT
} ReportSort;

#endif /* STRATA_REPORT_SORT_H */
