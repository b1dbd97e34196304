/*
 * utils/report/Progress.c -- the progress line on stderr.  Nothing is
 * printed for an input read within a second; after that, at most one update
 * a second: "TOOL: FILE: 42% (420 MB of 1000 MB)", rewritten in place
 * on a terminal and one line per update otherwise.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "Progress.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_start(Progress *pr, const char *tool, const char *path, FILE *f)
{
    struct stat st;
    pr->tool = tool;
    pr->path = path;
    pr->total_bytes = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    pr->start_s = pr->last_s = now_s();
    pr->shown = 0;
}

void progress_update(Progress *pr, uint64_t done_bytes)
{
    double t = now_s();
    if (t - pr->start_s < 1.0 || t - pr->last_s < 1.0)
        return;
    pr->last_s = t;
    int tty = isatty(STDERR_FILENO);
    double mb = (double)done_bytes / 1e6;
    if (pr->total_bytes > 0)
        fprintf(stderr, "%s%s: %s: %.0f%% (%.0f MB of %.0f MB, %.0f s)%s", tty ? "\r" : "",
                pr->tool, pr->path, 100.0 * (double)done_bytes / (double)pr->total_bytes, mb,
                (double)pr->total_bytes / 1e6, t - pr->start_s, tty ? "\033[K" : "\n");
    else
        fprintf(stderr, "%s%s: %s: %.0f MB read (%.0f s)%s", tty ? "\r" : "", pr->tool,
                pr->path, mb, t - pr->start_s, tty ? "\033[K" : "\n");
    pr->shown = 1;
}

void progress_end(Progress *pr)
{
    if (pr->shown && isatty(STDERR_FILENO))
        fputc('\n', stderr);
}
