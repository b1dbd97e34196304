/*
 * support/os/Thread.c -- threads, mutexes and condition variables (see
 * Thread.h).  Relies on pthreads, and on Linux's gettid system call, made
 * through syscall(2) so that glibc versions without the gettid wrapper
 * build too.
 */
#include "Thread.h"

#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

long os_thread_id(void)
{
    return (long)syscall(SYS_gettid);
}

int os_thread_start(OsThread *thread, void *(*fn)(void *), void *arg)
{
    return pthread_create(thread, NULL, fn, arg);
}

int os_thread_join(OsThread thread)
{
    return pthread_join(thread, NULL);
}

int os_thread_key_create(OsThreadKey *key, void (*destructor)(void *value))
{
    return pthread_key_create(key, destructor);
}

void os_thread_key_set(OsThreadKey key, void *value)
{
    (void)pthread_setspecific(key, value);
}

void os_mutex_lock(OsMutex *m)
{
    pthread_mutex_lock(m);
}

void os_mutex_unlock(OsMutex *m)
{
    pthread_mutex_unlock(m);
}

void os_cond_wait(OsCond *c, OsMutex *m)
{
    pthread_cond_wait(c, m);
}

int os_cond_wait_until(OsCond *c, OsMutex *m, const OsDeadline *deadline)
{
    struct timespec ts = {.tv_sec = (time_t)deadline->sec, .tv_nsec = deadline->nsec};
    return pthread_cond_timedwait(c, m, &ts);
}

void os_cond_broadcast(OsCond *c)
{
    pthread_cond_broadcast(c);
}

OsDeadline os_deadline_after_ms(uint32_t timeout_ms)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    OsDeadline d = {.sec = (int64_t)now.tv_sec + timeout_ms / 1000,
                    .nsec = now.tv_nsec + (long)(timeout_ms % 1000) * 1000000L};
    if (d.nsec >= 1000000000L) {
        d.sec++;
        d.nsec -= 1000000000L;
    }
    return d;
}

bool os_mutex_trylock(OsMutex *m)
{
    return pthread_mutex_trylock(m) == 0;
}

void os_thread_yield(void)
{
    (void)sched_yield();
}

int os_thread_at_fork_child(void (*fn)(void))
{
    return pthread_atfork(NULL, NULL, fn);
}

unsigned os_cpus_available(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0)
            return (unsigned)n;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (unsigned)online : 1;
}
