/*
 * support/os/Thread.h -- naming the calling OS thread.  Linux only (gettid),
 * like the rest of support/os/.  Used by rts/OwnerThread.c to say in a
 * message which thread holds the runtime and which one tried to use it.
 */
#ifndef STRATA_OS_THREAD_H
#define STRATA_OS_THREAD_H

/* The kernel's id of the calling thread (what ps -L and gdb show); never
 * fails, never 0. */
long os_thread_id(void);

#endif /* STRATA_OS_THREAD_H */
