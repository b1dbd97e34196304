/*
 * rts/RtsStartup.h -- start-up and shutdown of the runtime.
 */
#ifndef STRATA_RTSSTARTUP_H
#define STRATA_RTSSTARTUP_H

#include <stdbool.h>

/* Writes the statistics (and, later, flushes the eventlog) and exits the
 * process with status: heap overflow (251), <<loop>> (1). */
_Noreturn void rts_shutdown_and_exit(int status);

#endif /* STRATA_RTSSTARTUP_H */
