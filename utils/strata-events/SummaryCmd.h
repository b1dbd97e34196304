/*
 * utils/strata-events/SummaryCmd.h -- `strata-events summary FILE`.  The whole API
 * of SummaryCmd.c.
 */
#ifndef STRATA_EVENTS_SUMMARY_CMD_H
#define STRATA_EVENTS_SUMMARY_CMD_H

#include <stddef.h>

/* top: buckets in each ranking (SUMMARY_TOP by default; 0 = all).
 * Returns an exit code. */
#define SUMMARY_TOP 10
int cmd_summary(const char *path, int json, size_t top);

#endif /* STRATA_EVENTS_SUMMARY_CMD_H */
