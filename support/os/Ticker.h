/*
 * support/os/Ticker.h -- periodic work without signals: a thread that wakes at
 * the registered intervals and asks the mutator for attention (an atomic
 * flag plus strata_regs.hp_lim = NULL, Note [The allocation limit] in
 * sm/Storage.c).  The actions themselves run on the mutator thread, at its
 * next allocation slow path, via ticker_run_due_actions.  Linux (pthreads,
 * CLOCK_MONOTONIC).  See Note [The ticker] in Ticker.c.
 *
 * Preconditions: ticker_add_action, ticker_run_due_actions and ticker_exit
 * are called from the mutator thread only.
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

/* Runs every action whose interval has elapsed since it last ran (on the
 * mutator; may allocate and collect). */
void ticker_run_due_actions(void);

/* Stops and joins the thread and forgets every action (hs_exit). */
void ticker_exit(void);

#endif /* STRATA_OS_TICKER_H */
