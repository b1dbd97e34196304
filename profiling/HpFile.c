/*
 * profiling/HpFile.c -- writes the .hp format of GHC's heap profiler:
 *
 *     JOB "prog args"
 *     DATE "Sun Nov 22 02:11 2026"
 *     SAMPLE_UNIT "seconds"
 *     VALUE_UNIT "bytes"
 *     BEGIN_SAMPLE 0.00
 *     END_SAMPLE 0.00
 *     BEGIN_SAMPLE 0.11
 *     <label>\t<bytes>
 *     END_SAMPLE 0.11
 *     MARK 0.20
 *
 * (docs/reference/heap-profile.md, "The .hp file").  A write error is reported once,
 * naming the file, and the profile is abandoned; the program goes on.
 */
#include "HpFile.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "Messages.h"
#include "os/File.h"

static FILE *hp = NULL;
static char *hp_path = NULL;

static void check_write(void)
{
    if (hp != NULL && ferror(hp)) {
        rts_error("heap profile: cannot write %s: %s; continuing without it", hp_path,
                  strerror(errno));
        os_stdio_close(hp);
        hp = NULL;
    }
}

bool hp_file_is_open(void)
{
    return hp != NULL;
}

bool hp_file_open(const char *path, const char *job)
{
    int err = os_stdio_open(path, "w", &hp);
    if (err != 0) {
        hp = NULL;
        rts_error("heap profile: cannot open %s: %s", path, strerror(err));
        return false;
    }
    free(hp_path);
    hp_path = strdup(path);
    char date[64];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(date, sizeof date, "%a %b %e %H:%M %Y", &tm);
    fputs("JOB \"", hp);
    for (const char *s = job; *s; s++) {   /* the job string is quoted */
        if (*s == '"')
            fputc('\\', hp);
        fputc(*s, hp);
    }
    fprintf(hp, "\"\nDATE \"%s\"\nSAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\n", date);
    fprintf(hp, "BEGIN_SAMPLE 0.00\nEND_SAMPLE 0.00\n");
    check_write();
    return hp != NULL;
}

void hp_file_write_sample(double secs, const Census *c)
{
    if (hp == NULL)
        return;
    fprintf(hp, "BEGIN_SAMPLE %.2f\n", secs);
    for (size_t i = 0; i < c->n_buckets; i++)
        if (c->buckets[i].bytes > 0)
            fprintf(hp, "%s\t%lu\n", c->buckets[i].label, (unsigned long)c->buckets[i].bytes);
    fprintf(hp, "END_SAMPLE %.2f\n", secs);
    check_write();
}

void hp_file_write_mark(double secs)
{
    if (hp == NULL)
        return;
    fprintf(hp, "MARK %.2f\n", secs);
    check_write();
}

void hp_file_close(double secs)
{
    if (hp == NULL)
        return;
    fprintf(hp, "BEGIN_SAMPLE %.2f\nEND_SAMPLE %.2f\n", secs, secs);
    check_write();
    int err = hp != NULL ? os_stdio_close(hp) : 0;
    if (err != 0)
        rts_error("heap profile: cannot write %s: %s", hp_path, strerror(err));
    hp = NULL;
    free(hp_path);
    hp_path = NULL;
}
