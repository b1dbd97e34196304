/*
 * utils/strata-live/Send.h -- control commands into the program's eventlog
 * socket (eventlog-socket's protocol, version 0): what `--send` does and
 * what the page's buttons ask for.  The whole API of the module; see Note
 * [Sending a control command] in Send.c.
 */
#ifndef STRATA_LIVE_SEND_H
#define STRATA_LIVE_SEND_H

#include <stddef.h>
#include <stdint.h>

#include "Source.h"

/* Connects to src (a socket or TCP source; never read by the stream's
 * reader through this call), writes the n encoded messages in buf and
 * closes.  Returns 1, or 0 with why filled. */
int send_control(Source *src, const uint8_t *buf, size_t n, char *why, size_t why_len);

/* Encodes and sends one command, e.g. ("strata", 1).  As send_control. */
int send_control_one(Source *src, const char *ns, uint8_t command, char *why,
                     size_t why_len);

#endif /* STRATA_LIVE_SEND_H */
