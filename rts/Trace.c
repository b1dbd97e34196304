/*
 * rts/Trace.c -- the public user-event API (strata/Trace.h): messages and
 * markers go to the eventlog (class u); markers also become MARK lines of
 * a .hp heap profile when there is no eventlog, as in GHC.
 */
#include <string.h>

#include "EventLog.h"
#include "ProfHeap.h"
#include "strata/Trace.h"

void traceEvent(const char *msg)
{
    if (msg != NULL)
        eventlog_post_user_msg(msg, strlen(msg));
}

void traceMarker(const char *msg)
{
    if (msg == NULL)
        return;
    eventlog_post_user_marker(msg, strlen(msg));
    prof_heap_mark();
}

void strata_eventlog_flush(void)
{
    eventlog_flush();
}
