/*
 * support/os/Thread.c -- the calling thread's kernel id (see Thread.h).
 * Relies on Linux's gettid system call, made through syscall(2) so that
 * glibc versions without the gettid wrapper build too.
 */
#include "Thread.h"

#include <sys/syscall.h>
#include <unistd.h>

long os_thread_id(void)
{
    return (long)syscall(SYS_gettid);
}
