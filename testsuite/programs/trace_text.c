/*
 * testsuite/programs/trace_text.c -- posts its arguments as user messages
 * (traceEvent), for the scripts that check what the eventlog makes of
 * arbitrary text (invalid UTF-8, messages longer than a payload) and of a
 * log too big for its file (a write error part-way through).
 *
 *     trace_text [-n COUNT] MSG... +RTS -l ... -RTS
 *
 * Each MSG is posted COUNT times (default 1), in order.  Exits 0, or 2 on
 * bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata.h>

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long count = 1;
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "-n") == 0) {
        char *end;
        count = strtol(argv[2], &end, 10);
        if (*end != '\0' || count < 0) {
            fprintf(stderr, "trace_text: bad COUNT (got %s, want a number >= 0)\n", argv[2]);
            hs_exit();
            return 2;
        }
        first = 3;
    }
    for (long k = 0; k < count; k++)
        for (int i = first; i < argc; i++)
            traceEvent(argv[i]);
    hs_exit();
    return 0;
}
