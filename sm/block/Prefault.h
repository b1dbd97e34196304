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

/* Keeps the helper from starting another populate call and returns
 * true, if none is in flight; returns false at once, pausing nothing, if
 * one is (Note [The helper never holds up the program] in Prefault.c).
 * While paused the caller may commit without waiting for the helper;
 * prefault_resume ends the pause. */
bool prefault_pause(void);
void prefault_resume(void);

/* A thread of the runtime that wants the processor the helper would
 * take calls this with true while it works and with false when it stops
 * (the calls nest, from any threads); meanwhile the helper starts no
 * populate call. */
void prefault_make_way(bool on);

/* For tests: with stall set, the helper stops inside its next populate
 * call (before the kernel call itself) until stall is cleared, so that a
 * test can act while a call is in flight; prefault_stalled_for_test says
 * whether it is stopped there now. */
void prefault_stall_for_test(bool stall);
bool prefault_stalled_for_test(void);

/* Bytes faulted in by the helper since it started. */
StgWord prefault_bytes(void);

#endif /* STRATA_PREFAULT_H */
