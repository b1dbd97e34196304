/*
 * utils/strata-debug/tui/Tui.h -- `strata-debug tui`: an interactive
 * terminal UI over an open client (live and paused by the caller, or a
 * snapshot).  See docs/strata-debug-tui.md and docs/design/tui.md.
 */
#ifndef STRATA_TUI_H
#define STRATA_TUI_H

#include <stdbool.h>
#include <stdint.h>

#include "DebugClient.h"

/* Runs until the user quits; the caller closes c (which resumes a live
 * program).  source names the socket or snapshot in the header;
 * timeout_ms is the pause timeout for refresh; stats prints timings and
 * memory on stderr at exit.  Returns the exit status (0, or 1 with a
 * message on stderr). */
int tui_run(DbgClient *c, const char *source, uint32_t timeout_ms, bool stats);

#endif /* STRATA_TUI_H */
