/*
 * rts/Control.h -- control commands from eventlog socket clients: the
 * socket thread hands each one over (control_submit), and the mutator runs
 * them at its next safe point (control_serve_pending, from the attention
 * handler).  The built-in namespaces "eventlog-socket" (heap profiling)
 * and "strata" (era, GC, flush) and the program's own
 * (strata_control_register, strata/Control.h).  See
 * docs/design/eventlog.md, "Control commands".
 */
#ifndef STRATA_CONTROL_INTERNAL_H
#define STRATA_CONTROL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ControlWire.h"

/* Commands waiting for the mutator, at most; more are dropped and
 * counted. */
#define CONTROL_PENDING_MAX 1024

/* On any thread (the socket thread): queues cmd and asks the mutator for
 * attention. */
void control_submit(const ControlCommand *cmd);

/* On the mutator at a safe point: runs every queued command in order. */
void control_serve_pending(void);

typedef struct {
    uint64_t run;          /* commands run */
    uint64_t unknown;      /* unknown namespace or command: skipped */
    uint64_t overflowed;   /* dropped: CONTROL_PENDING_MAX were waiting */
} ControlStats;

void control_get_stats(ControlStats *out);

/* Forgets pending commands and counts (hs_init); registrations stay. */
void control_reset(void);

/* Every registration and queue index is consistent. */
bool control_check(void);

#endif /* STRATA_CONTROL_INTERNAL_H */
