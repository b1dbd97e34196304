/*
 * support/os/OSMem.h -- the OS memory services the storage manager needs:
 * reserve address space, commit and decommit parts of it, release it.
 * All return 0 or an errno value (docs/HACKING.md,
 * Module boundaries).  Tests can make the Nth
 * call fail (os_mem_fail_after) so that every error path runs.
 */
#ifndef STRATA_OSMEM_H
#define STRATA_OSMEM_H

#include <stddef.h>

/* Reserves size bytes of address space aligned to align (a power of two),
 * inaccessible and backed by nothing.  *out gets the aligned base.
 * size must be a non-zero multiple of the page size; an align below the
 * page size means page alignment.  EINVAL for bad arguments, ENOMEM (or
 * mmap's errno) when the address space cannot be had. */
int os_mem_reserve(size_t size, size_t align, void **out);

/* Makes [addr, addr+size) readable and writable.  addr and size are
 * page-aligned and inside a reservation.  Pages never committed before, or
 * decommitted since, read as zero; pages already committed keep their
 * contents. */
int os_mem_commit(void *addr, size_t size);

/* Gives the pages back to the OS; the range stays reserved and becomes
 * inaccessible again.  addr and size are page-aligned.  On failure the
 * range may have been zeroed but is still accessible: treat it as
 * committed. */
int os_mem_decommit(void *addr, size_t size);

/* Faults in the pages of [addr, addr+size), a committed range, as a first
 * write would, without changing what they hold: a page already present is
 * left alone, so the range may be in use by another thread.  addr and size
 * are page-aligned.  EINVAL where the kernel cannot (Linux before 5.14);
 * ENOMEM or EFAULT if part of the range is not committed. */
int os_mem_populate(void *addr, size_t size);

/* Unmaps a whole reservation made by os_mem_reserve (exactly the size
 * that was reserved). */
int os_mem_release(void *addr, size_t size);

/* Failure injection: the nth following call (1 = the next one) of any of
 * the above fails with ENOMEM; 0 turns injection off.  One-shot: after the
 * injected failure, injection is off again.  Calls rejected with EINVAL
 * before reaching the OS do not count. */
void os_mem_fail_after(unsigned n);

#endif /* STRATA_OSMEM_H */
