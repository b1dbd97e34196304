/*
 * support/os/OSMem.c -- the OS memory layer on Linux: reserve, commit, decommit
 * and release address space with mmap, mprotect and madvise.
 *
 * This is the only file in strata that calls mmap, munmap, mprotect or
 * madvise (docs/HACKING.md, Module boundaries).  It relies on nothing but libc; every function
 * returns 0 or an errno value and never prints.  The megablock layer
 * (sm/block/MBlock.c) is its one client; docs/design/block-allocator.md explains
 * how the two fit together.
 *
 * The calls are not thread-safe with respect to the failure-injection
 * counter; the storage manager calls them with its lock held (or, today,
 * from the one capability).
 */
#include "os/OSMem.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* --------------------------------------------------------------------------
 * Failure injection
 * ----------------------------------------------------------------------- */

/* Calls left before the injected failure; 0 = injection off. */
static unsigned fail_countdown;

void os_mem_fail_after(unsigned n)
{
    fail_countdown = n;
}

/* True if this call is the one that must fail.  Injection is one-shot: the
 * counter is off again afterwards, so the next call succeeds. */
static int injected_failure(void)
{
    if (fail_countdown == 0)
        return 0;
    fail_countdown--;
    return fail_countdown == 0;
}

/* --------------------------------------------------------------------------
 * Helpers
 * ----------------------------------------------------------------------- */

static size_t page_size(void)
{
    static size_t cached;
    if (cached == 0) {
        long ps = sysconf(_SC_PAGESIZE);
        cached = ps > 0 ? (size_t)ps : 4096;
    }
    return cached;
}

static int is_page_aligned(const void *addr, size_t size)
{
    size_t mask = page_size() - 1;
    return ((uintptr_t)addr & mask) == 0 && (size & mask) == 0;
}

/* --------------------------------------------------------------------------
 * Reservation
 * ----------------------------------------------------------------------- */

/*
 * Note [Aligned reservations]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * mmap only promises page alignment, and the heap needs its megablocks
 * aligned to 1 MiB.  We reserve size + align bytes, which must contain an
 * aligned run of size bytes, and unmap the slop before and after it.  The
 * reservation is PROT_NONE and MAP_NORESERVE, so it costs neither memory
 * nor commit charge until parts of it are committed: a reservation of
 * many GiB is cheap.  Trimming gives the slop back at once instead of
 * keeping up to align bytes of dead address space around the heap.
 *
 * The alternative, asking for a hint address and retrying until the
 * kernel happens to return an aligned one, is a loop with no bound.
 */
int os_mem_reserve(size_t size, size_t align, void **out)
{
    if (out == NULL || size == 0 || align == 0 || (align & (align - 1)) != 0)
        return EINVAL;
    if (align < page_size())
        align = page_size();
    if ((size & (page_size() - 1)) != 0)
        return EINVAL;
    if (size > SIZE_MAX - align)
        return ENOMEM;
    if (injected_failure())
        return ENOMEM;

    if (align == page_size()) {
        void *exact = mmap(NULL, size, PROT_NONE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (exact == MAP_FAILED)
            return errno != 0 ? errno : ENOMEM;
        *out = exact;
        return 0;
    }

    size_t over = size + align;
    void *raw = mmap(NULL, over, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (raw == MAP_FAILED)
        return errno != 0 ? errno : ENOMEM;

    uintptr_t raw_start = (uintptr_t)raw;
    uintptr_t start = (raw_start + align - 1) & ~(uintptr_t)(align - 1);
    size_t lead = start - raw_start;
    size_t trail = over - lead - size;
    /* munmap of a part of our own fresh mapping cannot fail for any reason
     * but a kernel out of VMAs; if it does, the slop is merely wasted. */
    if (lead != 0)
        (void)munmap(raw, lead);
    if (trail != 0)
        (void)munmap((void *)(start + size), trail);

    *out = (void *)start;
    return 0;
}

int os_mem_release(void *addr, size_t size)
{
    if (addr == NULL || size == 0 || !is_page_aligned(addr, size))
        return EINVAL;
    if (injected_failure())
        return ENOMEM;
    if (munmap(addr, size) != 0)
        return errno;
    return 0;
}

/* --------------------------------------------------------------------------
 * Commit and decommit
 * ----------------------------------------------------------------------- */

/*
 * Note [Commit by mprotect]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~
 * Committing is mprotect(PROT_READ|PROT_WRITE) on part of the reservation.
 * Pages that were never touched, or that were decommitted (MADV_DONTNEED
 * on a private anonymous mapping), read as zero on first access, so a
 * commit of such a range gives zero-filled memory.  Committing a range
 * that is already committed leaves its contents alone.
 *
 * We rejected re-mapping with mmap(MAP_FIXED): it would also zero the
 * pages, but it splits and replaces mappings, and a mistaken address
 * silently replaces someone else's mapping instead of failing.
 *
 * Decommitting is madvise(MADV_DONTNEED), which drops the pages at once,
 * followed by mprotect(PROT_NONE), so that a stray access to a returned
 * megablock faults instead of quietly committing a fresh zero page.
 * MADV_FREE would be cheaper but leaves the memory counted against the
 * process until the kernel is under pressure, which is what returning
 * memory is meant to avoid.
 */
int os_mem_commit(void *addr, size_t size)
{
    if (addr == NULL || size == 0 || !is_page_aligned(addr, size))
        return EINVAL;
    if (injected_failure())
        return ENOMEM;
    if (mprotect(addr, size, PROT_READ | PROT_WRITE) != 0)
        return errno;
    return 0;
}

/* MADV_POPULATE_WRITE takes the page faults a first write would take,
 * zero-fill included, and writes nothing: so it is safe on pages another
 * thread has started to use, which a helper that touched each page itself
 * would not be.  It does not count as an injected-failure call: it only
 * ever runs on the prefault helper's thread, and the tests that inject
 * failures count the storage manager's own calls. */
int os_mem_populate(void *addr, size_t size)
{
    if (addr == NULL || size == 0 || !is_page_aligned(addr, size))
        return EINVAL;
#if defined(MADV_POPULATE_WRITE)
    if (madvise(addr, size, MADV_POPULATE_WRITE) != 0)
        return errno;
    return 0;
#else
    return EINVAL;
#endif
}

int os_mem_decommit(void *addr, size_t size)
{
    if (addr == NULL || size == 0 || !is_page_aligned(addr, size))
        return EINVAL;
    if (injected_failure())
        return ENOMEM;
    if (madvise(addr, size, MADV_DONTNEED) != 0)
        return errno;
    if (mprotect(addr, size, PROT_NONE) != 0)
        return errno;
    return 0;
}
