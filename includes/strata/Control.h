/*
 * strata/Control.h -- a program's own control commands, sent by a client
 * over the eventlog socket (+RTS --eventlog-socket) in eventlog-socket's
 * control protocol (docs/api-guide.md, "Control commands").
 */
#ifndef STRATA_CONTROL_H
#define STRATA_CONTROL_H

#include <stdint.h>

#include "strata/Config.h"

/* A command's handler: runs on the mutator thread at a safe point (the
 * next allocation slow path after the command arrives), so it may
 * allocate, collect and call any strata function.  data is what was
 * registered. */
typedef void (*StrataControlHandler)(uint8_t command, void *data);

/* Registers handler for command id in namespace ns (1 to 255 bytes, not
 * "eventlog-socket" or "strata", which the runtime owns).  Registering the
 * same (ns, id) again replaces the handler.  Returns 0, or -1 after a
 * message saying what was wrong.  May be called before or after hs_init;
 * registrations last for the process. */
STRATA_API int strata_control_register(const char *ns, uint8_t id, StrataControlHandler handler,
                                       void *data);

#endif /* STRATA_CONTROL_H */
