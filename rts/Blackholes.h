/*
 * rts/Blackholes.h -- waiting for a blackhole another thread evaluates,
 * and naming the waits that can never end (Note [Cycles of blackhole
 * waits] in Blackholes.c).
 */
#ifndef STRATA_RTS_BLACKHOLES_H
#define STRATA_RTS_BLACKHOLES_H

#include <stdbool.h>
#include <stddef.h>

#include "Threads.h"
#include "strata/Closures.h"

/* The site of the frames strata_eval pushes (eval_thunk, eval_ap in
 * rts/Eval.c): slot 0 holds the blackhole the frame's thread evaluates.
 * Defined here, with the waits that look for it, so that Eval.c depends
 * on this module and not the other way round. */
extern const StgRootSite blackholes_eval_site;

/* Waits until the blackhole c, which no eval frame of the calling thread
 * holds, is updated; returns c, re-read after collections may have moved
 * it.  If the wait closes a cycle (the thread evaluating c waits,
 * through other threads, for a blackhole this one evaluates), reports
 * <<loop>> naming each thread and thunk of the cycle, and exits 1. */
StgClosure *blackholes_wait(StgClosure *c);

/* Wakes the threads waiting for blackholes: one was updated. */
void blackholes_announce_update(void);

/* If t waits for a blackhole, writes what it waits for (the thunk's info
 * table and which thread evaluates it) into buf and returns true.  The
 * caller holds a capability, so no collection moves the heap meanwhile. */
bool blackholes_describe_wait(const StrataThread *t, char *buf, size_t size);

#endif /* STRATA_RTS_BLACKHOLES_H */
