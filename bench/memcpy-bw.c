/*
 * bench/memcpy-bw.c -- memcpy bandwidth, the physical limit for a copying
 * collector, measured by bench/run next to the GC copy throughput.
 *
 * Copies a 256 MiB buffer into another TRIALS times and prints the best
 * rate in GB/s (10^9 bytes copied per second: each byte is read once and
 * written once, as when a collector copies it).  Both buffers are touched
 * first so that page faults are not timed.
 *
 *     cc -O2 bench/memcpy-bw.c -o memcpy-bw && ./memcpy-bw [MIB [TRIALS]]
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
    int trials = argc > 2 ? atoi(argv[2]) : 8;
    if (argc > 3 || mib == 0 || trials <= 0) {
        fprintf(stderr, "usage: %s [MIB (default 256) [TRIALS (default 8)]]\n", argv[0]);
        return 2;
    }
    size_t size = mib << 20;
    unsigned char *src = malloc(size), *dst = malloc(size);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "%s: cannot allocate 2 x %zu MiB\n", argv[0], mib);
        return 1;
    }
    memset(src, 1, size);
    memset(dst, 0, size);

    double best = 0;
    unsigned long sink = 0;
    for (int i = 0; i < trials; i++) {
        src[(size_t)i * 4099 % size] = (unsigned char)i;
        double t0 = now();
        memcpy(dst, src, size);
        double t = now() - t0;
        sink += dst[(size_t)i * 4099 % size];  /* the copy is used */
        if (t > 0 && (double)size / t > best)
            best = (double)size / t;
    }
    printf("%.2f\n", best / 1e9);
    fprintf(stderr, "memcpy: %zu MiB x %d trials, best %.2f GB/s (check %lu)\n",
            mib, trials, best / 1e9, sink);
    free(src);
    free(dst);
    return 0;
}
