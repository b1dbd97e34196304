/*
 * support/os/Process.h -- facts about the running process and a fault-free
 * read of its own memory: the process and parent ids (the eventlog's
 * OSProcess events; the pid also in the debug stub's VERSION answer and
 * socket name), the real user id (who may connect to the debug stub), the
 * executable's path, and copying bytes from an address that may not be
 * mapped (the debug stub reads info tables at addresses a client sends),
 * and the calling thread's call stack (allocation sampling).  Linux only
 * (getpid, getppid, getuid, /proc/self/exe, process_vm_readv, glibc's
 * backtrace), like the rest of support/os/.
 */
#ifndef STRATA_OS_PROCESS_H
#define STRATA_OS_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The process id; never fails. */
int os_process_id(void);

/* Processors online (sysconf); at least 1. */
long os_processor_count(void);

/* The parent's process id; never fails. */
int os_process_parent_id(void);

/* The real user id; never fails. */
uint32_t os_process_uid(void);

/* Whether a process pid exists (ours or another user's: kill(pid, 0)). */
bool os_process_exists(int pid);

/* The running executable's path as the kernel gives it (readlink of
 * /proc/self/exe; " (deleted)" appended when the file was unlinked), cut to
 * cap - 1 bytes and NUL-terminated.  Precondition: cap >= 1.  Returns 0, or
 * the errno (ENOENT without /proc). */
int os_process_exe_path(char *buf, size_t cap);

/* The return addresses of the calling thread's stack, innermost first,
 * the caller's own return address first, at most max (the deepest are
 * left out): through the C library's backtrace, which unwinds with the
 * DWARF call frame information (.eh_frame) every x86-64 and AArch64
 * object carries, so it needs no frame pointers.  0 if it could not
 * unwind.  Allocates on its first call (it loads the unwinder); not
 * async-signal-safe. */
size_t os_process_call_stack(void **pcs, size_t max);

/* Copies n bytes at address addr of this process into dst without
 * faulting: 0 if all of them were readable, else EFAULT (an unmapped or
 * unreadable byte, addr 0, or a range that wraps), leaving dst partly
 * written.  n == 0 always succeeds.  Precondition: dst holds n bytes.
 * See Note [Safe reads] in Process.c. */
int os_process_read_memory(void *dst, uint64_t addr, size_t n);

#endif /* STRATA_OS_PROCESS_H */
