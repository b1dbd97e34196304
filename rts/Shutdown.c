/*
 * rts/Shutdown.c -- the way out of the runtime for a condition it cannot
 * go on from (Shutdown.h).  See Note [The way out].
 */
#include "Shutdown.h"

#include <stdlib.h>

/* Note [The way out]
 * ~~~~~~~~~~~~~~~~~~
 * A <<loop>> is found in Eval.c, a deadlocked blackhole in Blackholes.c,
 * a foreign call gone wrong in rts/ffi/; each must end the program as
 * hs_exit would, with the statistics and a well-formed eventlog.  That
 * shutdown is RtsStartup.c's (it calls into every module), so the modules
 * below it cannot call it by name without making every module depend on
 * every other (an include circle of ten files, issue 48).  Instead
 * hs_init hands its shutdown to this module, which depends on nothing,
 * as it hands sm/ the heap-overflow handler (docs/design/layers.md). */

static void (*shutdown_fn)(void);

void rts_shutdown_set(void (*shutdown)(void))
{
    shutdown_fn = shutdown;
}

void rts_shutdown_and_exit(int status)
{
    if (shutdown_fn != NULL)
        shutdown_fn();
    exit(status);
}
