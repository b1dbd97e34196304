/*
 * utils/strata-events/CheckCmd.h -- `strata-events check FILE`.  The whole API of
 * CheckCmd.c.
 */
#ifndef STRATA_EVENTS_CHECK_CMD_H
#define STRATA_EVENTS_CHECK_CMD_H

#include <stddef.h>

/* Checks the log at path; returns an exit code (1: a problem). */
int cmd_check(const char *path);

#endif /* STRATA_EVENTS_CHECK_CMD_H */
