/*
 * utils/strata-debug/Sockets.h -- the programs' debug sockets: `list`, and
 * the socket of a process (--pid).  The whole API of Sockets.c.
 */
#ifndef STRATA_DEBUG_SOCKETS_H
#define STRATA_DEBUG_SOCKETS_H

#include <stddef.h>

/* strata-debug list [--json]. */
int cmd_list(int argc, char **argv);
/* The socket of process pid (a decimal string) into path; non-zero after
 * an error message. */
int socket_of_pid(const char *pid, char *path, size_t len);

#endif /* STRATA_DEBUG_SOCKETS_H */
