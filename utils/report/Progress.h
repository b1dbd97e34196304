/*
 * utils/report/Progress.h -- the progress line of a tool reading a large
 * input, on stderr: nothing for an input read within a second, then at
 * most one update a second.  The whole API of Progress.c.
 */
#ifndef STRATA_REPORT_PROGRESS_H
#define STRATA_REPORT_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

typedef struct Progress {
    const char *tool;       /* the program's name, first on the line */
    const char *path;       /* the input, as named on the command line */
    uint64_t total_bytes;   /* 0 if unknown (a pipe) */
    double start_s, last_s; /* CLOCK_MONOTONIC seconds: the start, the last update */
    int shown;              /* a line was printed */
} Progress;

/* f is the input being read (its size, when it is a regular file, gives
 * the percentage). */
void progress_start(Progress *pr, const char *tool, const char *path, FILE *f);
void progress_update(Progress *pr, uint64_t done_bytes);
void progress_end(Progress *pr);

#endif /* STRATA_REPORT_PROGRESS_H */
