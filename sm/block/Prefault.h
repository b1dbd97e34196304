/*
 * sm/block/Prefault.h -- the prefault helper: a thread that takes the page
 * faults of memory the heap is about to grow into, on a processor the
 * program leaves idle.  The megablock layer (MBlock.c) is its only client:
 * it commits the range and says how far to go; the helper only faults
 * pages in.  See Note [Faulting in ahead of the heap] in Prefault.c.
 */
#ifndef STRATA_PREFAULT_H
#define STRATA_PREFAULT_H

#include <stdbool.h>
#include "strata/Config.h"

/* Starts the helper thread.  Returns 0, or an errno value (EAGAIN: no
 * thread).  Starting it twice is a no-op.  Where the kernel cannot
 * populate a range (Linux before 5.14), the helper finds out on its first
 * request and stops taking requests. */
int prefault_start(void);

/* Stops and joins the helper; a no-op if it is not running. */
void prefault_stop(void);

/* True while the helper runs (false again once it found the kernel
 * cannot populate). */
bool prefault_running(void);

/* Asks for [lo, hi), a committed range, to be faulted in; pages below lo
 * that were asked for earlier and not reached are skipped (the heap has
 * them now).  Returns at once. */
void prefault_extend(char *lo, char *hi);

/* Drops what was asked for and not yet reached, and waits for the
 * populate call in flight, if any, to end.  Afterwards the helper touches
 * nothing until the next prefault_extend, so the caller may decommit. */
void prefault_cancel(void);

/* Bytes faulted in by the helper since it started. */
StgWord prefault_bytes(void);

#endif /* STRATA_PREFAULT_H */
