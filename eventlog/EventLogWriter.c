/*
 * eventlog/EventLogWriter.c -- the eventlog's outputs: a file, nowhere, and
 * memory (for tests).  Relies on stdio only; the file is unbuffered so that
 * a write error (disk full, a closed descriptor) shows at the write that
 * caused it, with errno set.  See Note [Eventlog write errors].
 */
#include "EventLogWriter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Messages.h"
#include "EventLog.h"

/* Note [Eventlog write errors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The eventlog is a diagnostic; losing it must not kill the program it
 * describes.  So a writer that cannot open or write its output prints one
 * line naming the file and the reason and returns false; EventLog.c then
 * turns the eventlog off for the rest of the run (no further writes, so no
 * further messages).  The "reported" flag below makes "once" hold even if
 * a caller ignored the false and wrote again. */
static bool reported;

static void writer_report_failure(const char *what, int err)
{
    if (reported)
        return;
    reported = true;
    rts_error("eventlog: cannot write %s: %s; continuing without the eventlog", what,
              strerror(err));
}

/* ----------------------------------------------------------------------
 * The file writer
 * ---------------------------------------------------------------------- */

static FILE *out_file;
static char *out_path;     /* malloc'd; for messages */

static bool file_init(void)
{
    reported = false;
    const char *name = eventlog_config.file;
    size_t len = name != NULL ? strlen(name) + 1 : strlen(rts_prog_name) + sizeof ".eventlog";
    out_path = malloc(len);
    if (out_path == NULL) {
        writer_report_failure(name != NULL ? name : "<prog>.eventlog", ENOMEM);
        return false;
    }
    if (name != NULL)
        memcpy(out_path, name, len);
    else
        snprintf(out_path, len, "%s.eventlog", rts_prog_name);
    out_file = fopen(out_path, "wb");
    if (out_file == NULL) {
        writer_report_failure(out_path, errno);
        free(out_path);
        out_path = NULL;
        return false;
    }
    setvbuf(out_file, NULL, _IONBF, 0);
    return true;
}

static bool file_write(const void *bytes, size_t n)
{
    if (out_file == NULL)
        return false;
    errno = 0;
    if (fwrite(bytes, 1, n, out_file) != n) {
        writer_report_failure(out_path, errno != 0 ? errno : EIO);
        return false;
    }
    return true;
}

static void file_flush(void)
{
    if (out_file != NULL)
        fflush(out_file);
}

static void file_stop(void)
{
    if (out_file != NULL && fclose(out_file) != 0)
        writer_report_failure(out_path, errno);
    out_file = NULL;
    free(out_path);
    out_path = NULL;
}

const EventLogWriter eventlog_file_writer = {
    .init = file_init, .write = file_write, .flush = file_flush, .stop = file_stop,
};

/* ----------------------------------------------------------------------
 * The null writer
 * ---------------------------------------------------------------------- */

static bool null_init(void)
{
    return true;
}

static bool null_write(const void *bytes, size_t n)
{
    (void)bytes;
    (void)n;
    return true;
}

static void null_nothing(void)
{
}

const EventLogWriter eventlog_null_writer = {
    .init = null_init, .write = null_write, .flush = null_nothing, .stop = null_nothing,
};

/* ----------------------------------------------------------------------
 * The memory writer
 * ---------------------------------------------------------------------- */

static uint8_t *mem_bytes;      /* malloc'd */
static size_t mem_len, mem_cap; /* bytes held / allocated */
static bool mem_failing;        /* simulate a full disk */

static bool mem_init(void)
{
    reported = false;
    mem_len = 0;
    return true;
}

static bool mem_write(const void *bytes, size_t n)
{
    if (mem_failing) {
        writer_report_failure("<memory>", ENOSPC);
        return false;
    }
    if (mem_len + n > mem_cap) {
        size_t cap = mem_cap ? mem_cap : 4096;
        while (cap < mem_len + n)
            cap *= 2;
        uint8_t *p = realloc(mem_bytes, cap);
        if (p == NULL) {
            writer_report_failure("<memory>", ENOMEM);
            return false;
        }
        mem_bytes = p;
        mem_cap = cap;
    }
    memcpy(mem_bytes + mem_len, bytes, n);
    mem_len += n;
    return true;
}

const EventLogWriter eventlog_memory_writer = {
    .init = mem_init, .write = mem_write, .flush = null_nothing, .stop = null_nothing,
};

const uint8_t *eventlog_memory_writer_bytes(size_t *n_bytes)
{
    *n_bytes = mem_len;
    return mem_bytes;
}

void eventlog_memory_writer_set_failing(bool failing)
{
    mem_failing = failing;
}

void eventlog_memory_writer_free(void)
{
    free(mem_bytes);
    mem_bytes = NULL;
    mem_len = mem_cap = 0;
    mem_failing = false;
}
