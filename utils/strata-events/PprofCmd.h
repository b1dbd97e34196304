/*
 * utils/strata-events/PprofCmd.h -- `strata-events pprof FILE`.  The whole API of
 * PprofCmd.c.
 */
#ifndef STRATA_EVENTS_PPROF_CMD_H
#define STRATA_EVENTS_PPROF_CMD_H

#include <stdint.h>

/* The log's sampled allocations, or, when census_asked (--sample or
 * --last) or the log has none, one census (number `sample`, 1-based; 0 =
 * the last), as a gzipped pprof profile written to out_path (NULL or "-":
 * stdout).  Returns an exit code. */
int cmd_pprof(const char *path, const char *out_path, uint64_t sample, int census_asked);

#endif /* STRATA_EVENTS_PPROF_CMD_H */
