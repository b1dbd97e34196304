/*
 * testsuite/fuzz/fuzz_reader.c -- libFuzzer entry point for the eventlog
 * reader (reader/EventLogReader.c).  Each input is read twice, from
 * memory and through a FILE (fmemopen, so the buffered refill path runs
 * too), and the two readers must agree event for event; every decoded
 * string must lie inside its event's payload.  The events also go through
 * the pause reader (reader/Pauses.c), whose pauses must be disjoint,
 * ordered and inside the run, and its figures in range.  Built and run by fuzz.sh;
 * replayed over testsuite/fuzz/corpus/reader by make check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "EventLogReader.h"
#include "Pauses.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_check_str(const EvrEvent *ev, EvrStr s)
{
    const char *lo = (const char *)ev->payload, *hi = lo + ev->payload_bytes;
    if (s.len == 0)
        return;
    if (s.ptr < lo || s.ptr + s.len > hi)
        abort();
}

static void fuzz_check_event(const EvrEvent *ev)
{
    if (ev->payload_bytes > EVENT_PAYLOAD_SIZE_MAX || (ev->decoded && ev->malformed != NULL))
        abort();
    if (!ev->decoded)
        return;
    switch (ev->type) {
    case EVENT_USER_MSG:
    case EVENT_USER_MARKER:
        fuzz_check_str(ev, ev->u.user.text);
        break;
    case EVENT_HEAP_PROF_SAMPLE_STRING:
        fuzz_check_str(ev, ev->u.sample_string.label);
        break;
    case EVENT_IPE:
        fuzz_check_str(ev, ev->u.ipe.srcloc);
        break;
    case EVENT_PROGRAM_ARGS:
        fuzz_check_str(ev, ev->u.args.args);
        break;
    case EVENT_HEAP_PROF_BEGIN:
        for (int i = 0; i < EVR_HEAP_PROF_FILTERS; i++)
            fuzz_check_str(ev, ev->u.prof_begin.filters[i]);
        break;
    default:
        break;
    }
}

static void fuzz_check_pauses(PauseLog *pl)
{
    if (!pause_log_finish(pl))
        abort();
    for (size_t i = 0; i < pl->n_pauses; i++) {
        const Pause *p = &pl->pauses[i];
        if (p->end_ns < p->start_ns || p->start_ns < pl->first_ns || p->end_ns > pl->last_ns ||
            (i > 0 && p->start_ns <= pl->pauses[i - 1].end_ns))
            abort();
    }
    if (pause_log_paused_ns(pl) > pause_log_span_ns(pl) ||
        pause_log_percentile(pl, 99) > pause_log_percentile(pl, 100))
        abort();
    uint64_t windows[] = {1, 1000, 1000000, pause_log_span_ns(pl)};
    for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++) {
        double mmu = pause_log_mmu(pl, windows[i]);
        if (mmu != -1 && (mmu < 0 || mmu > 1))
            abort();
    }
    pause_log_free(pl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    PauseLog pl;
    pause_log_init(&pl);
    EventLogReader *m = evr_open_memory(data, size, "fuzz");
    FILE *f = size > 0 ? fmemopen((void *)data, size, "rb") : NULL;
    EventLogReader *r = f != NULL ? evr_open_file(f, "fuzz-file") : NULL;
    if (m == NULL)
        abort();
    EvrEvent a, b;
    int ra, rb;
    do {
        ra = evr_next(m, &a);
        if (ra == 1) {
            fuzz_check_event(&a);
            if (!pause_log_add(&pl, &a))
                abort();
        }
        if (r != NULL) {
            rb = evr_next(r, &b);
            if (rb != ra)
                abort();
            if (ra == 1 && (a.type != b.type || a.time_ns != b.time_ns || a.cap != b.cap ||
                            a.offset != b.offset || a.payload_bytes != b.payload_bytes ||
                            memcmp(a.payload, b.payload, a.payload_bytes) != 0))
                abort();
        }
    } while (ra == 1);
    if (ra < 0 && (evr_error(m) == NULL || strncmp(evr_error(m), "offset ", 7) != 0))
        abort();
    if (r != NULL && ra < 0 && strcmp(evr_error(m), evr_error(r)) != 0)
        abort();
    if (!evr_check(m) || (r != NULL && !evr_check(r)))
        abort();
    fuzz_check_pauses(&pl);
    evr_close(m);
    evr_close(r);
    if (f != NULL)
        fclose(f);
    return 0;
}
