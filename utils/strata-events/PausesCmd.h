/*
 * utils/strata-events/PausesCmd.h -- `strata-events pauses FILE`.  The whole API
 * of PausesCmd.c.
 */
#ifndef STRATA_EVENTS_PAUSES_CMD_H
#define STRATA_EVENTS_PAUSES_CMD_H

#include <stddef.h>
#include <stdint.h>

/* The run's pauses and latency figures, with the minimum mutator
 * utilisation at each of the n_windows window lengths (ns); or, with
 * list, every pause.  Returns an exit code. */
#define PAUSES_MAX_WINDOWS 16
int cmd_pauses(const char *path, int json, int list, const uint64_t *windows, size_t n_windows);

#endif /* STRATA_EVENTS_PAUSES_CMD_H */
