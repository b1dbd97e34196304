/*
 * support/os/Clock.c -- clocks and resource counters from the OS (see
 * Clock.h).  Relies on POSIX clock_gettime (CLOCK_MONOTONIC,
 * CLOCK_PROCESS_CPUTIME_ID) and getrusage(RUSAGE_SELF); used by
 * rts/Stats.c for the +RTS -s and -S figures.
 */
#include "Clock.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <time.h>

static uint64_t start_ns;   /* CLOCK_MONOTONIC at clock_init */
static bool started;        /* clock_init has run */

static bool read_clock_ns(clockid_t id, uint64_t *out)
{
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return false;
    *out = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    return true;
}

void clock_init(void)
{
    uint64_t now;
    start_ns = read_clock_ns(CLOCK_MONOTONIC, &now) ? now : 0;
    started = true;
}

uint64_t clock_elapsed_ns(void)
{
    uint64_t now;
    if (!started)
        clock_init();
    if (!read_clock_ns(CLOCK_MONOTONIC, &now) || now < start_ns)
        return 0;
    return now - start_ns;
}

uint64_t clock_cpu_ns(void)
{
    uint64_t now;
    return read_clock_ns(CLOCK_PROCESS_CPUTIME_ID, &now) ? now : 0;
}

uint64_t clock_thread_cpu_ns(void)
{
    uint64_t now;
    return read_clock_ns(CLOCK_THREAD_CPUTIME_ID, &now) ? now : 0;
}

int os_page_faults(uint64_t *minor, uint64_t *major)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return errno;
    if (minor != NULL)
        *minor = (uint64_t)ru.ru_minflt;
    if (major != NULL)
        *major = (uint64_t)ru.ru_majflt;
    return 0;
}

uint64_t os_peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0 || ru.ru_maxrss < 0)
        return 0;
    return (uint64_t)ru.ru_maxrss * 1024u;
}
