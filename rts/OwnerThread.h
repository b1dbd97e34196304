/*
 * rts/OwnerThread.h -- which OS thread holds the runtime.
 *
 * strata has one capability and no locks around the heap, so exactly one
 * thread may use the runtime: the one that called hs_init.  Entry points
 * that C code on any thread can reach (function pointers made by
 * rts_mkFunPtr, rts_dynamic_call, hs_free_fun_ptr) ask here first and
 * refuse a call from any other thread with a message naming both threads.
 * See docs/design/ffi.md (.inv.owner-thread).
 */
#ifndef STRATA_OWNERTHREAD_H
#define STRATA_OWNERTHREAD_H

#include <stdbool.h>

/* hs_init: the calling thread now holds the runtime. */
void owner_thread_claim(void);

/* hs_exit: no thread holds the runtime any more. */
void owner_thread_release(void);

/* True iff the runtime is running and the calling thread holds it.  A
 * thread-local read: cheap enough for every callback. */
bool owner_thread_is_current(void);

/* True iff some thread holds the runtime (between hs_init and hs_exit). */
bool owner_thread_runtime_running(void);

/* The kernel id of the thread holding the runtime (0 when none), and of
 * the calling thread: for messages. */
long owner_thread_holder_id(void);
long owner_thread_caller_id(void);

/* For an entry point that can return an error: OWNER_OK if the calling
 * thread holds the runtime; otherwise prints "who: ..." naming the
 * problem (the runtime is not running, or which thread holds it and which
 * one called) and says which. */
typedef enum { OWNER_OK, OWNER_NOT_RUNNING, OWNER_OTHER_THREAD } OwnerCheck;
OwnerCheck owner_thread_check(const char *who);

#endif /* STRATA_OWNERTHREAD_H */
