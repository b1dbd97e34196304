/*
 * utils/report/ProfileEventlog.c -- reading a GHC-format eventlog
 * (strata's or GHC's) into a Profile through the streaming reader
 * (reader/EventLogReader.h): one pass, bounded memory.  The heap profile's
 * events go to the model (utils/heapprof/HeapModel.h), the run's own
 * (program, date, heap sizes, markers) are taken here.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "EventLogReader.h"
#include "ProfileEventlog.h"
#include "Progress.h"

#define PROGRESS_EVERY_EVENTS 4096

/* PROGRAM_ARGS: argv[0]\0argv[1]\0...; a trailing NUL adds no argument. */
static void take_args(Profile *p, EvrStr all)
{
    if (p->program != NULL)
        return;
    size_t i = 0;
    while (i < all.len && !p->out_of_memory) {
        const char *nul = memchr(all.ptr + i, '\0', all.len - i);
        size_t n = nul ? (size_t)(nul - (all.ptr + i)) : all.len - i;
        char *a = profile_strdup(p, all.ptr + i, n);
        if (a == NULL)
            return;
        if (p->program == NULL) {
            p->program = a;
        } else {
            char **na = realloc(p->args, (p->n_args + 1) * sizeof *na);
            if (na == NULL) {
                free(a);
                p->out_of_memory = 1;
                return;
            }
            p->args = na;
            p->args[p->n_args++] = a;
        }
        i += n + 1;
    }
}

static void take_date(Profile *p, uint64_t secs)
{
    if (p->date != NULL)
        return;
    time_t t = (time_t)secs;
    struct tm tm;
    char buf[32];
    if (gmtime_r(&t, &tm) == NULL || strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        return;
    p->date = profile_strdup(p, buf, strlen(buf));
}

static void take_event(Profile *p, const EvrEvent *ev)
{
    profile_time(p, ev->time_ns);
    if (!ev->decoded)
        return;
    if (alloc_model_add(&p->samples, ev)) {
        if (p->samples.out_of_memory)
            p->out_of_memory = 1;
        return;
    }
    if (heap_model_add(&p->model, ev))
        profile_take_census(p);
    if (p->model.out_of_memory)
        p->out_of_memory = 1;
    switch (ev->type) {
    case EVENT_PROGRAM_ARGS:
        take_args(p, ev->u.args.args);
        break;
    case EVENT_RTS_IDENTIFIER:
        if (p->rts_id == NULL)
            p->rts_id = profile_strdup(p, ev->u.rts_id.ident.ptr, ev->u.rts_id.ident.len);
        break;
    case EVENT_WALL_CLOCK_TIME:
        take_date(p, ev->u.wall_clock.secs);
        break;
    case EVENT_HEAP_SIZE:
        profile_heap(p, HEAP_SERIES_SIZE, ev->time_ns, ev->u.heap.bytes);
        break;
    case EVENT_BLOCKS_SIZE:
        profile_heap(p, HEAP_SERIES_BLOCKS, ev->time_ns, ev->u.heap.bytes);
        break;
    case EVENT_HEAP_LIVE:
        profile_heap(p, HEAP_SERIES_LIVE, ev->time_ns, ev->u.heap.bytes);
        break;
    case EVENT_USER_MARKER:
        profile_marker(p, ev->time_ns, ev->u.user.text.ptr, ev->u.user.text.len, 1);
        break;
    case EVENT_USER_MSG:
        profile_marker(p, ev->time_ns, ev->u.user.text.ptr, ev->u.user.text.len, 0);
        break;
    default:
        break;
    }
}

void profile_take_event(Profile *p, const EvrEvent *ev)
{
    take_event(p, ev);
}

/* 1 if f (rewound, when it can be) starts with a .hp file's "JOB ". */
static int looks_like_hp(FILE *f)
{
    char head[4];
    if (fseek(f, 0, SEEK_SET) != 0)
        return 0;
    return fread(head, 1, 4, f) == 4 && memcmp(head, "JOB ", 4) == 0;
}

int profile_read_eventlog(Profile *p, FILE *f, const char *tool)
{
    EventLogReader *r = evr_open_file(f, p->path);
    if (r == NULL) {
        fprintf(stderr, "%s: %s: out of memory opening the eventlog\n", tool, p->path);
        return -1;
    }
    Progress pr;
    progress_start(&pr, tool, p->path, f);
    EvrEvent ev;
    int rc;
    uint64_t n = 0;
    while ((rc = evr_next(r, &ev)) == 1 && !p->out_of_memory) {
        take_event(p, &ev);
        if (++n % PROGRESS_EVERY_EVENTS == 0)
            progress_update(&pr, evr_offset(r));
    }
    progress_end(&pr);
    profile_census_end(p);   /* the end of the log, however it came, ends a census */
    int status = 0;
    if (p->out_of_memory) {
        fprintf(stderr, "%s: %s: out of memory (bands=%zu, ipes=%zu)\n", tool, p->path,
                p->n_bands, p->model.ipes.n_ipes);
        status = -1;
    } else if (rc < 0 && evr_type_count(r) == 0 && p->n_events == 0) {
        fprintf(stderr, "%s: %s: not a GHC eventlog: %s\n", tool, p->path, evr_error(r));
        if (looks_like_hp(f))
            fprintf(stderr, "%s: %s: it looks like a .hp heap profile: read it with -p\n",
                    tool, p->path);
        status = -1;
    } else if (rc < 0 && p->n_censuses == 0) {
        fprintf(stderr, "%s: %s: %s (and no heap profile census before it)\n", tool,
                p->path, evr_error(r));
        status = -1;
    } else if (rc < 0) {
        profile_set_warning(p, "%s; the report shows the %" PRIu64 " censuses before it",
                            evr_error(r), p->n_censuses);
    } else if (!evr_saw_data_end(r)) {
        profile_set_warning(p, "offset %" PRIu64 ": no data end marker (log cut short?)",
                            evr_offset(r));
    }
    /* A log of sampled allocations alone is drawn: its own view. */
    if (status == 0 && p->n_censuses == 0 && p->samples.n_samples == 0) {
        if (p->model.have_profile)
            fprintf(stderr, "%s: %s: the heap profile has no census (was the run shorter "
                            "than one -i interval?)\n", tool, p->path);
        else
            fprintf(stderr, "%s: %s: no heap profile in this eventlog (run the program with "
                            "+RTS -hT -l, or -hi, -he ...; or sampled allocations: --alloc-sample)\n", tool, p->path);
        status = -1;
    }
    evr_close(r);
    return status;
}
