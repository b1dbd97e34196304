/*
 * utils/strata-debug/NoStub.h -- why a running process has no debug
 * socket, for --pid.  The whole API of NoStub.c.
 */
#ifndef STRATA_DEBUG_NO_STUB_H
#define STRATA_DEBUG_NO_STUB_H

/* Says why process pid has no debug socket; returns 1 (the exit status). */
int die_no_socket(long pid);

#endif /* STRATA_DEBUG_NO_STUB_H */
