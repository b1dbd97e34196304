/*
 * utils/report/ProfileEventlog.h -- a Profile from a GHC-format eventlog
 * (strata's or GHC's), read in one pass through the streaming reader, or
 * fed event by event from a stream someone else reads (strata-live's
 * page).  The whole API of ProfileEventlog.c.
 */
#ifndef STRATA_REPORT_PROFILE_EVENTLOG_H
#define STRATA_REPORT_PROFILE_EVENTLOG_H

#include <stdio.h>

#include "EventLogReader.h"
#include "Profile.h"

/* Fills p from the eventlog f (named p->path); 0 on success (maybe with
 * p->warning), -1 after printing an error, prefixed by tool and the
 * path, on stderr.  A progress line (Progress.h) shows on long reads. */
int profile_read_eventlog(Profile *p, FILE *f, const char *tool);

/* One event of a stream that someone else reads, taken in as
 * profile_read_eventlog takes each of its events. */
void profile_take_event(Profile *p, const EvrEvent *ev);

#endif /* STRATA_REPORT_PROFILE_EVENTLOG_H */
