/*
 * support/os/Crash.h -- the fatal-signal handler: a crash (SIGSEGV,
 * SIGBUS, SIGILL, SIGFPE) prints one line saying where it came and what to
 * do next, then takes the signal's previous action, so core dumps, exit
 * statuses and a sanitizer's own report stay as they were.  See Note [A
 * crash says what to do next] in Crash.c.
 */
#ifndef STRATA_OS_CRASH_H
#define STRATA_OS_CRASH_H

#include <signal.h>

/* Installs the handler.  prog names the program in the line; the handler
 * reads *in_collector to say whether the crash came in the collector.
 * Both must outlive the handler.  Returns 0 or an errno value. */
int os_crash_handler_install(const char *const *prog,
                             const volatile sig_atomic_t *in_collector);

/* Puts back the actions the handler replaced. */
void os_crash_handler_remove(void);

#endif /* STRATA_OS_CRASH_H */
