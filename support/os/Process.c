/*
 * support/os/Process.c -- the process's identity, fault-free reads of its
 * own memory and the calling thread's call stack (see Process.h).  Relies
 * on Linux's /proc and process_vm_readv, with a pipe as the fallback (Note
 * [Safe reads]), and on the C library's backtrace.
 */
#include "Process.h"

#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#include "File.h"

int os_process_id(void)
{
    return (int)getpid();
}

int os_process_parent_id(void)
{
    return (int)getppid();
}

uint32_t os_process_uid(void)
{
    return (uint32_t)getuid();
}

bool os_process_exists(int pid)
{
    return pid > 0 && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

size_t os_process_call_stack(void **pcs, size_t max)
{
    int n = backtrace(pcs, max > INT32_MAX ? INT32_MAX : (int)max);
    return n > 0 ? (size_t)n : 0;
}

int os_process_exe_path(char *buf, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    if (n < 0) {
        buf[0] = '\0';
        return errno;
    }
    buf[n] = '\0';
    return 0;
}

/* Note [Safe reads]
 * ~~~~~~~~~~~~~~~~~
 * Info tables, static closures and the strings of root sites live outside
 * the heap, at addresses a debugger client sends.  Reading them directly
 * could fault, so they are copied with process_vm_readv on our own pid,
 * which the kernel answers with EFAULT for an unmapped page instead of a
 * signal.  Where that call is not allowed (seccomp, old kernels) a write()
 * of the range into a pipe does the same check. */

static int read_via_pipe(void *dst, uint64_t addr, size_t n)
{
    int fds[2];
    if (os_pipe(fds) != 0)
        return EFAULT;
    int err = 0;
    size_t done = 0;
    while (err == 0 && done < n) {
        size_t chunk = n - done < 4096 ? n - done : 4096;
        ssize_t w = write(fds[1], (const void *)(uintptr_t)(addr + done), chunk);
        if (w <= 0 || read(fds[0], (char *)dst + done, (size_t)w) != w)
            err = EFAULT;
        else
            done += (size_t)w;
    }
    close(fds[0]);
    close(fds[1]);
    return err;
}

int os_process_read_memory(void *dst, uint64_t addr, size_t n)
{
    if (n == 0)
        return 0;
    if (addr == 0 || addr + n < addr)
        return EFAULT;
    struct iovec local = {dst, n};
    struct iovec remote = {(void *)(uintptr_t)addr, n};
    ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (got == (ssize_t)n)
        return 0;
    if (got < 0 && (errno == ENOSYS || errno == EPERM))
        return read_via_pipe(dst, addr, n);
    return EFAULT;
}

long os_processor_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n;
}
