/*
 * utils/strata-events/ShowCmd.h -- `strata-events show FILE`.  The whole API of
 * ShowCmd.c.
 */
#ifndef STRATA_EVENTS_SHOW_CMD_H
#define STRATA_EVENTS_SHOW_CMD_H

#include <stddef.h>

/* Prints every event of the log at path; returns an exit code. */
int cmd_show(const char *path);

#endif /* STRATA_EVENTS_SHOW_CMD_H */
