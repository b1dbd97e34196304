/*
 * bench/workloads/msgbuf -- the message buffer of Pusher's latency
 * benchmark ("Low latency, large working set, and GHC's garbage
 * collector: pick two of three", 2016; kept as gc-latency-experiment),
 * on the strata C API.
 *
 * A window of W messages of 1 KiB lives in a boxed mutable array.  Each of
 * N pushes makes message i (1024 bytes, each i mod 256) and stores it in
 * slot i mod W, dropping the message W pushes older; so W KiB stay live
 * and everything else dies young.  Each push, from the allocation to the
 * store, is timed with the monotonic clock: the worst push is the longest
 * the program was held up, by a collection or anything else.
 *
 * A message is a BS constructor (a pointer to the bytes and their length)
 * over a byte array, as GHC's ByteString is a constructor over a pinned
 * byte array.  MODE says which byte array: `pinned` (the default; what
 * ghc.hs's ByteString allocates, never moved) or `movable` (an ordinary
 * byte array, copied by the collector like any other object).
 *
 * Prints the window, the count and a checksum of the last window's
 * messages on stdout (the same for every variant, bench/run compares
 * them), and the worst push on stderr:
 *
 *     worst push: 12.345 ms
 *
 *     strata <window> <pushes> [pinned|movable] [+RTS ... -RTS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <strata.h>

#define MESSAGE_BYTES 1024

STRATA_CONSTR_INFO(BS_info, "BS", 1, 1);   /* bytes, length */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Message n: a BS over 1 KiB of (n mod 256).  r is a root for the bytes. */
static StgClosure *make_message(long n, int pinned, StgClosure **r)
{
    *r = pinned ? strata_alloc_pinned_bytes(MESSAGE_BYTES) : strata_alloc_bytes(MESSAGE_BYTES);
    memset(STRATA_BYTES_PTR(*r), (int)(n & 0xff), MESSAGE_BYTES);
    StgClosure *bs = strata_alloc_constr(&BS_info);
    STRATA_FIELD(bs, 0) = *r;
    STRATA_WORD(bs, 1) = MESSAGE_BYTES;     /* after the one pointer */
    return bs;
}

/* The first, middle and last byte of every message in the window. */
static uint64_t checksum(StgClosure *buffer)
{
    uint64_t sum = 0;
    for (StgWord i = 0; i < STRATA_MUT_ARRAY_LEN(buffer); i++) {
        StgClosure *bs = strata_mut_array_read(buffer, i);
        if (bs == NULL)
            continue;
        const uint8_t *bytes = STRATA_BYTES_PTR(STRATA_FIELD(bs, 0));
        sum += bytes[0] + bytes[MESSAGE_BYTES / 2] + bytes[MESSAGE_BYTES - 1];
    }
    return sum;
}

static int parse_args(int argc, char **argv, long *window, long *pushes, int *pinned)
{
    if (argc < 3 || argc > 4)
        return 0;
    char *end;
    *window = strtol(argv[1], &end, 10);
    if (*end != '\0' || *window < 1)
        return 0;
    *pushes = strtol(argv[2], &end, 10);
    if (*end != '\0' || *pushes < 0)
        return 0;
    *pinned = argc < 4 || strcmp(argv[3], "pinned") == 0;
    return *pinned || strcmp(argv[3], "movable") == 0;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long window, pushes;
    int pinned;
    if (!parse_args(argc, argv, &window, &pushes, &pinned)) {
        fprintf(stderr, "usage: %s WINDOW PUSHES [pinned|movable] [+RTS ... -RTS]\n", argv[0]);
        hs_exit();
        return 2;
    }
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_mut_array((StgWord)window);
    uint64_t worst_ns = 0;
    for (long i = 0; i < pushes; i++) {
        uint64_t t0 = now_ns();
        StgClosure *bs = make_message(i, pinned, &r[1]);
        strata_mut_array_write(r[0], (StgWord)(i % window), bs);
        uint64_t t = now_ns() - t0;
        if (t > worst_ns)
            worst_ns = t;
    }
    uint64_t sum = checksum(r[0]);
    STRATA_ROOTS_POP(r);
    printf("msgbuf window=%ld pushes=%ld checksum=%llu\n", window, pushes,
           (unsigned long long)sum);
    fprintf(stderr, "worst push: %.3f ms\n", (double)worst_ns / 1e6);
    hs_exit();
    return 0;
}
