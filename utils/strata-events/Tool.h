/*
 * utils/strata-events/Tool.h -- what the commands of strata-events share
 * (Tool.c): opening a log, reporting its errors, printing strings (wire/
 * TextOut.c), breakdown names and durations.  Reads logs only through
 * EventLogReader.h.  The whole API of Tool.c; each command has its own
 * file and header (ShowCmd, CheckCmd, SummaryCmd, PprofCmd, PausesCmd).
 */
#ifndef STRATA_EVENTS_TOOL_H
#define STRATA_EVENTS_TOOL_H

#include <stdint.h>
#include <stdio.h>

#include "EventLogReader.h"

#define TOOL_NAME "strata-events"

/* Exit codes (docs/strata-events.md). */
#define TOOL_EXIT_OK 0
#define TOOL_EXIT_FAIL 1    /* unreadable or bad log, or check found a problem */
#define TOOL_EXIT_USAGE 2

/* A duration such as "10ms", "0.5ms", "250us", "1s" or "1500ns" (a
 * decimal number and a unit), in ns, > 0 and at most an hour.  Returns 0
 * if s is not one. */
int tool_parse_duration(const char *s, uint64_t *ns_out);

/* ns as the shortest exact form with a unit ("10ms", "1500us", "1s"). */
void tool_format_duration(char *buf, size_t len, uint64_t ns);

/* Opens path ("-" = stdin) and its reader.  On failure prints
 * "strata-events: cannot open X: <strerror>" and returns NULL. */
EventLogReader *tool_open(const char *path, FILE **file_out);

/* Closes what tool_open opened. */
void tool_close(EventLogReader *r, FILE *f);

/* Prints "strata-events: FILE: offset N: problem" for the reader's error
 * to stderr. */
void tool_report_error(const EventLogReader *r);

/* Prints "strata-events: FILE: warning: offset N: no data end marker ..."
 * to stderr if the log stopped without one. */
void tool_warn_no_data_end(const EventLogReader *r);

/* Writes s as text to go inside double quotes, and in them, and as a
 * JSON string literal: UTF-8 as it is, '"' and '\\' escaped, control
 * characters and invalid bytes as \xNN (\u00NN and \\xNN in JSON), by
 * Note [One way to write a string] in wire/TextOut.c. */
void tool_print_escaped(FILE *out, const char *s, size_t len);
void tool_print_quoted(FILE *out, const char *s, size_t len);
void tool_print_json_string(FILE *out, const char *s, size_t len);

/* The +RTS flag of a heap profile breakdown code ("-hT"), and its name
 * ("closure type"); "?" and "unknown" for codes GHC does not define. */
const char *tool_breakdown_flag(uint32_t code);
const char *tool_breakdown_name(uint32_t code);

#endif /* STRATA_EVENTS_TOOL_H */
