/*
 * rts/Shutdown.h -- the way out of the runtime for a condition it cannot
 * go on from (<<loop>>, a deadlocked blackhole, a foreign call gone wrong,
 * heap overflow): whatever module meets it calls rts_shutdown_and_exit,
 * which runs the shutdown hs_init set (statistics and a well-formed
 * eventlog; RtsStartup.c) and exits.  The whole API of Shutdown.c; Note
 * [The way out] there.
 */
#ifndef STRATA_SHUTDOWN_H
#define STRATA_SHUTDOWN_H

/* What runs before the exit; NULL: nothing (before hs_init). */
void rts_shutdown_set(void (*shutdown)(void));

/* Runs the shutdown set, then exits the process with status: heap
 * overflow (251), <<loop>> (1), ... */
_Noreturn void rts_shutdown_and_exit(int status);

#endif /* STRATA_SHUTDOWN_H */
