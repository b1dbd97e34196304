/*
 * support/os/Thread.h -- OS threads for the runtime's services: the calling
 * thread's kernel id (rts/OwnerThread.c names threads in messages), and the
 * thread, mutex and condition variable the debug stub uses for its server
 * thread and the pause handshake (rts/debug/DebugServer.c).  Linux/POSIX
 * (gettid, pthreads), like the rest of support/os/.
 *
 * The types are the pthread ones under strata's names, so that they can be
 * initialised statically (OS_MUTEX_INIT, OS_COND_INIT).
 *
 * Preconditions: a mutex or condition variable is initialised (statically)
 * before use and never copied; os_mutex_unlock and the waits are called by
 * the thread that holds the mutex; a thread is joined at most once.  Lock,
 * unlock, wait and broadcast fail only on those misuses, so they return
 * nothing.
 */
#ifndef STRATA_OS_THREAD_H
#define STRATA_OS_THREAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* The kernel's id of the calling thread (what ps -L and gdb show); never
 * fails, never 0. */
long os_thread_id(void);

/* The size of a cache line on the targets strata runs on (x86-64,
 * AArch64): a word other threads keep writing gets a line of its own
 * (_Alignas(OS_CACHE_LINE)), so that nothing beside it moves with it. */
#define OS_CACHE_LINE 64

typedef pthread_t OsThread;
typedef pthread_mutex_t OsMutex;
typedef pthread_cond_t OsCond;
#define OS_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define OS_COND_INIT PTHREAD_COND_INITIALIZER

/* A point in time for os_cond_wait_until (the wall clock, as
 * pthread_cond_timedwait measures it). */
typedef struct {
    int64_t sec;   /* seconds since the epoch */
    long nsec;     /* 0 .. 999,999,999 */
} OsDeadline;

/* Starts fn(arg) on a new thread (default attributes) and stores it in
 * *thread.  Returns 0, or the errno value (EAGAIN: no resources). */
int os_thread_start(OsThread *thread, void *(*fn)(void *), void *arg);

/* Waits for thread to return.  Returns 0 or an errno value. */
int os_thread_join(OsThread thread);

/* A value per thread whose destructor the C library calls, with the
 * value, when a thread that set it (non-NULL) ends, while the thread's
 * _Thread_local variables still exist.  Create returns 0 or an errno
 * value (EAGAIN: too many keys). */
typedef pthread_key_t OsThreadKey;
int os_thread_key_create(OsThreadKey *key, void (*destructor)(void *value));
void os_thread_key_set(OsThreadKey key, void *value);

void os_mutex_lock(OsMutex *m);
void os_mutex_unlock(OsMutex *m);
/* Takes m if it is free and returns true; false at once if it is held. */
bool os_mutex_trylock(OsMutex *m);

/* Releases m, waits for a broadcast on c (or a spurious wake-up: callers
 * test their condition in a loop) and takes m again. */
void os_cond_wait(OsCond *c, OsMutex *m);

/* As os_cond_wait, but gives up at deadline: returns 0 when woken,
 * ETIMEDOUT when the deadline passed (m is held again either way). */
int os_cond_wait_until(OsCond *c, OsMutex *m, const OsDeadline *deadline);

/* Wakes every thread waiting on c. */
void os_cond_broadcast(OsCond *c);

/* Lets another runnable thread have the processor (sched_yield). */
void os_thread_yield(void);

/* Has fn run in the child after every fork (pthread_atfork): the child
 * has only the forking thread, so state kept for others must be reset.
 * Returns 0 or an errno value. */
int os_thread_at_fork_child(void (*fn)(void));

/* The processors this process may run on (its affinity mask; the online
 * count where that cannot be read), at least 1. */
unsigned os_cpus_available(void);

/* The deadline timeout_ms milliseconds from now. */
OsDeadline os_deadline_after_ms(uint32_t timeout_ms);

#endif /* STRATA_OS_THREAD_H */
