/*
 * support/os/Ticker.h -- periodic work without signals: a thread that wakes at
 * the registered intervals and asks the mutator for attention (an atomic
 * flag plus the interrupt function set by ticker_set_interrupt, which clears
 * every capability's hp_lim, Note [The allocation limit] in sm/alloc/Storage.c).
 * The actions themselves run on a mutator thread, at its next allocation
 * slow path, via ticker_run_due_actions.  Linux (pthreads,
 * CLOCK_MONOTONIC).  See Note [The ticker] in Ticker.c.
 *
 * Preconditions: ticker_add_action and ticker_exit are called from the
 * thread that runs hs_init/hs_exit; ticker_run_due_actions from any thread
 * that holds a capability.
 */
#ifndef STRATA_OS_TICKER_H
#define STRATA_OS_TICKER_H

#include <stdbool.h>

/* Most actions at once (the eventlog flush, the heap census, ...). */
#define TICKER_MAX_ACTIONS 8

/* Runs fn on the mutator about every interval_secs (> 0) from now; starts
 * the ticker thread on the first call.  Returns 0, EINVAL (bad interval or
 * fn), ENOSPC (too many actions) or the errno of pthread_create. */
int ticker_add_action(double interval_secs, void (*fn)(void));

/* True if a tick has asked for attention that no ticker_run_due_actions
 * has served yet.  Cheap (one atomic load); the allocation slow path
 * checks it so that a lost hp_lim = NULL store cannot lose a tick. */
bool ticker_attention_pending(void);

/* The function a tick calls to get the mutators' attention (from the
 * ticker thread, not holding the ticker's lock); set before the first
 * ticker_add_action (storage_init sets capabilities_interrupt_all). */
void ticker_set_interrupt(void (*fn)(void));

/* Runs every action whose interval has elapsed since it last ran (on the
 * mutator; may allocate and collect). */
void ticker_run_due_actions(void);

/* Stops and joins the thread and forgets every action (hs_exit). */
void ticker_exit(void);

#endif /* STRATA_OS_TICKER_H */
