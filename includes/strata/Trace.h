/*
 * strata/Trace.h -- user events in the eventlog, under GHC's Debug.Trace
 * names.  Both are no-ops unless the program runs with +RTS -l (class 'u',
 * on by default).  See docs/design/eventlog.md.
 */
#ifndef STRATA_TRACE_H
#define STRATA_TRACE_H

#include "strata/Config.h"

/* Posts a USER_MSG event holding msg (without its NUL). */
STRATA_API void traceEvent(const char *msg);

/* Posts a USER_MARKER event named msg (shown as a marker in viewers). */
STRATA_API void traceMarker(const char *msg);

/* Writes the buffered events out now (e.g. before a risky step). */
STRATA_API void strata_eventlog_flush(void);

#endif /* STRATA_TRACE_H */
