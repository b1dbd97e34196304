/*
 * utils/report/ProfileHp.c -- reading a .hp heap profile (-p) into a
 * Profile: the text format GHC's RTS and strata's write for hp2ps
 * (JOB, DATE, SAMPLE_UNIT, VALUE_UNIT, MARK, BEGIN_SAMPLE, "label<TAB>bytes",
 * END_SAMPLE).  Line by line; a line is bounded (Note [A .hp line has a
 * bound]).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ProfileHp.h"
#include "Progress.h"

#define PROGRESS_EVERY_LINES 4096

/* Note [A .hp line has a bound]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * getline grows its buffer for as long as no newline comes, so /dev/zero
 * or a FIFO that never writes one would take all memory before the first
 * check ran.  The reader takes a line of at most HP_MAX_LINE bytes (a
 * label of a deep cost-centre stack is a few KB; GHC's JOB line holds the
 * command line) and refuses a longer one, naming it; line 1 is refused as
 * soon as its first bytes are not "JOB", so a file of another kind is
 * refused at once whatever its length.  Memory is bounded by HP_MAX_LINE
 * plus what the samples hold; time to the error by HP_MAX_LINE bytes. */
#define HP_MAX_LINE ((size_t)1 << 20)

enum { LINE_EOF = -1, LINE_TOO_LONG = -2, LINE_NOT_HP = -3, LINE_NO_MEMORY = -4 };

/* Reads one line, newline included, into *line (NUL-terminated; it may
 * hold NUL bytes, so the length is returned); or one of the LINE_ codes.
 * first: this is line 1, which must start with JOB. */
static ssize_t read_line(char **line, size_t *cap, FILE *f, bool first)
{
    size_t len = 0;
    int ch;
    while ((ch = getc_unlocked(f)) != EOF) {   /* this thread alone reads f */
        if (len + 2 > *cap) {
            if (*cap >= HP_MAX_LINE + 2)
                return LINE_TOO_LONG;
            size_t want = *cap < 256 ? 256 : *cap * 2;
            if (want > HP_MAX_LINE + 2)
                want = HP_MAX_LINE + 2;
            char *grown = realloc(*line, want);
            if (grown == NULL)
                return LINE_NO_MEMORY;
            *line = grown;
            *cap = want;
        }
        (*line)[len++] = (char)ch;
        if (first && len <= 3 && ch != "JOB"[len - 1])
            return LINE_NOT_HP;
        if (ch == '\n')
            break;
    }
    if (len == 0)
        return LINE_EOF;
    (*line)[len] = '\0';
    return (ssize_t)len;
}

/* "KEY rest": 1 and *rest if line starts with KEY and a space. */
static int keyword(const char *line, const char *key, const char **rest)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0 || (line[n] != ' ' && line[n] != '\t'))
        return 0;
    *rest = line + n + 1;
    while (**rest == ' ' || **rest == '\t')
        (*rest)++;
    return 1;
}

/* A time in seconds, "1.25", to nanoseconds; 0 if it does not parse. */
static int parse_seconds(const char *s, uint64_t *ns)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == s || *end != '\0' || errno != 0 || !(v >= 0) || v > 1.8e10)
        return 0;
    *ns = (uint64_t)llround(v * 1e9);
    return 1;
}

/* The text inside "...", or the whole rest if unquoted. */
static char *unquote(Profile *p, const char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
        return profile_strdup(p, s + 1, n - 2);
    return profile_strdup(p, s, n);
}

/* JOB "prog arg ...": the program and its arguments, split at spaces. */
static void take_job(Profile *p, const char *s)
{
    char *job = unquote(p, s);
    if (job == NULL)
        return;
    char *save = NULL;
    for (char *w = strtok_r(job, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save)) {
        /* -hc (maybe with a filter, -hcmain): the bands are cost-centre
         * stacks.  A bare -h is left alone (-hT without -prof). */
        if (strncmp(w, "-hc", 3) == 0)
            p->hp_cost_centres = 1;
        char *c = profile_strdup(p, w, strlen(w));
        if (c == NULL)
            break;
        if (p->program == NULL) {
            p->program = c;
            continue;
        }
        char **na = realloc(p->args, (p->n_args + 1) * sizeof *na);
        if (na == NULL) {
            free(c);
            p->out_of_memory = 1;
            break;
        }
        p->args = na;
        p->args[p->n_args++] = c;
    }
    free(job);
}

/* "label<TAB>bytes" (or the last run of spaces before the number). */
static int take_sample(Profile *p, const char *line, size_t len)
{
    size_t i = len;
    while (i > 0 && line[i - 1] >= '0' && line[i - 1] <= '9')
        i--;
    if (i == len || i == 0 || (line[i - 1] != '\t' && line[i - 1] != ' '))
        return 0;
    size_t label_end = i - 1;
    while (label_end > 0 && (line[label_end - 1] == ' ' || line[label_end - 1] == '\t'))
        label_end--;
    if (label_end == 0)
        return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(line + i, &end, 10);
    if (errno != 0 || (size_t)(end - line) != len)
        return 0;
    profile_census_sample(p, line, label_end, (uint64_t)v);
    return 1;
}

/* One line (without its newline); 0 if it is not .hp syntax. */
static int take_line(Profile *p, char *line, size_t len, int *in_sample)
{
    const char *rest;
    uint64_t t;
    if (len == 0)
        return 1;
    if (keyword(line, "JOB", &rest)) {
        if (p->program == NULL)
            take_job(p, rest);
        return 1;
    }
    if (keyword(line, "DATE", &rest)) {
        if (p->date == NULL)
            p->date = unquote(p, rest);
        return 1;
    }
    if (keyword(line, "SAMPLE_UNIT", &rest) || keyword(line, "VALUE_UNIT", &rest))
        return 1;
    if (keyword(line, "MARK", &rest)) {
        if (!parse_seconds(rest, &t))
            return 0;
        profile_time(p, t);
        profile_marker(p, t, "MARK", 4, 1);
        return 1;
    }
    if (keyword(line, "BEGIN_SAMPLE", &rest)) {
        if (!parse_seconds(rest, &t))
            return 0;
        /* Kept (the sizes are real), but the trapezoids and the chart
         * assume time runs forward: say so. */
        if (p->n_censuses > 0 && t < p->prev_census_time_ns)
            profile_set_warning(p, "sample at %.6f s goes back in time (the one before is at "
                                   "%.6f s); the integrated sizes and the chart assume "
                                   "increasing times", (double)t / 1e9,
                                (double)p->prev_census_time_ns / 1e9);
        profile_time(p, t);
        profile_census_begin(p, t);
        *in_sample = 1;
        return 1;
    }
    if (keyword(line, "END_SAMPLE", &rest)) {
        if (!parse_seconds(rest, &t) || !*in_sample)
            return 0;
        profile_census_end(p);
        *in_sample = 0;
        return 1;
    }
    return *in_sample && take_sample(p, line, len);
}

int profile_read_hp(Profile *p, FILE *f, const char *tool)
{
    p->from_hp = 1;
    Progress pr;
    progress_start(&pr, tool, p->path, f);
    char *line = NULL;
    size_t cap = 0, line_no = 0;
    uint64_t done = 0;
    ssize_t got;
    int in_sample = 0, status = 0;
    while (!p->out_of_memory && (got = read_line(&line, &cap, f, line_no == 0)) != LINE_EOF) {
        line_no++;
        if (got < 0) {
            status = -1;
            if (got == LINE_NOT_HP)
                fprintf(stderr, "%s: %s: not a .hp heap profile (line 1 does not start with "
                                "JOB)\n", tool, p->path);
            else if (got == LINE_TOO_LONG)
                fprintf(stderr, "%s: %s: line %zu: longer than %zu bytes, which no .hp "
                                "profile's line is\n", tool, p->path, line_no, HP_MAX_LINE);
            else
                fprintf(stderr, "%s: %s: line %zu: out of memory\n", tool, p->path,
                        line_no);
            break;
        }
        done += (uint64_t)got;
        size_t len = (size_t)got;
        int had_newline = line[len - 1] == '\n';
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        line[len] = '\0';
        if (line_no == 1 && strncmp(line, "JOB", 3) != 0) {   /* "JO" and end of file */
            fprintf(stderr, "%s: %s: not a .hp heap profile (line 1 does not start with JOB)\n",
                    tool, p->path);
            status = -1;
            break;
        }
        if (memchr(line, '\0', len) != NULL || !take_line(p, line, len, &in_sample)) {
            if (!had_newline && p->n_censuses > 0) {
                profile_set_warning(p, "line %zu: cut short", line_no);
                break;
            }
            fprintf(stderr, "%s: %s: line %zu: not .hp syntax (expected JOB, DATE, MARK, "
                            "BEGIN_SAMPLE, END_SAMPLE or \"label<TAB>bytes\" inside a sample)\n",
                    tool, p->path, line_no);
            status = -1;
            break;
        }
        if (line_no % PROGRESS_EVERY_LINES == 0)
            progress_update(&pr, done);
    }
    progress_end(&pr);
    free(line);
    if (status == 0 && ferror(f)) {
        fprintf(stderr, "%s: %s: read error: %s\n", tool, p->path, strerror(errno));
        status = -1;
    }
    if (status == 0 && p->out_of_memory) {
        fprintf(stderr, "%s: %s: out of memory (bands=%zu)\n", tool, p->path, p->n_bands);
        status = -1;
    }
    if (status == 0 && line_no == 0) {
        fprintf(stderr, "%s: %s: not a .hp heap profile (the file is empty)\n", tool,
                p->path);
        status = -1;
    }
    if (status == 0 && in_sample)
        profile_set_warning(p, "the last sample has no END_SAMPLE (profile cut short?)");
    profile_census_end(p);
    if (status == 0 && p->n_censuses == 0) {
        fprintf(stderr, "%s: %s: the heap profile has no sample\n", tool, p->path);
        status = -1;
    }
    return status;
}
