/*
 * rts/Threads.h -- strata threads: one per OS thread attached to the
 * runtime (hs_init's thread, and every rts_lock), each with its TSO and
 * local-root stack, and the capability it holds while it runs.  GHC's
 * rts_lock / rts_unlock / suspendThread / resumeThread, for C threads.
 * See docs/design/capabilities.md.
 */
#ifndef STRATA_RTS_THREADS_H
#define STRATA_RTS_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "Capability.h"
#include "GC.h"
#include "strata/Closures.h"

typedef struct StrataThread_ {
    StgTSO *tso;                 /* a root: the collector updates it */
    uint32_t id;                 /* the eventlog's ThreadId, from 1 */
    long os_tid;                 /* kernel id, for messages */
    bool suspended;              /* between rts_suspend and rts_resume */
    Capability *locked_cap;      /* what rts_lock returned (rts_unlock's
                                    argument; after rts_resume the thread
                                    may hold another) */
    struct StrataThread_ *next;  /* threads_all, newest first */
    /* While it waits for a blackhole another thread evaluates, under the
     * lock of rts/Blackholes.c (Note [Cycles of blackhole waits]): */
    StgClosure **blocked_on;     /* the rooted slot holding the blackhole */
    StgStack *blocked_stack;     /* its newest chunk and that chunk's stack */
    StgPtr blocked_sp;           /* pointer when it began to wait */
    struct StrataThread_ *next_waiter;
} StrataThread;

/* The calling OS thread's strata thread, or NULL if it is not attached. */
StrataThread *threads_mine(void);

/* Calls f on every attached thread, oldest first (the world stopped, or
 * under the registry's lock: f must not attach or detach threads). */
void threads_for_each(void (*f)(StrataThread *t, void *env), void *env);

/* Attaches the calling thread to the runtime, holding cap: a new TSO and
 * root stack (hs_init's thread is thread 1). */
StrataThread *threads_attach(Capability *cap);

/* Detaches the calling thread (it holds its capability still). */
void threads_detach(void);

/* Gives the calling thread's capability back while it waits (a foreign
 * call, a blackhole another thread evaluates): STOP_THREAD with status
 * (THREAD_STOP_*); threads_unblock takes one again. */
void threads_block(uint16_t status);
void threads_unblock(void);

/* Writes what t waits for into buf and returns true, or returns false
 * (blackholes_describe_wait, passed down by hs_exit: the blackholes are a
 * module above this one). */
typedef bool ThreadWaitDescriber(const StrataThread *t, char *buf, size_t size);

/* hs_exit: waits up to timeout_ms for every other thread to give its
 * capability back; reports the ones that did not, by kernel id and thread
 * id and what describe_wait says each waits for.  Returns true if none is
 * left. */
bool threads_wait_for_others(uint32_t timeout_ms, ThreadWaitDescriber *describe_wait);

/* The capability hook run before a capability parks (the root stack
 * pointer becomes visible to the collector). */
void threads_before_park(void);

/* A root source (GC.h): every attached thread's TSO, its chunks and every
 * frame's slots (roots_visit_thread).  Registered by hs_init. */
void threads_visit_roots(RootEvacFn evac, void *ctx);

void threads_exit(void);

#endif /* STRATA_RTS_THREADS_H */
