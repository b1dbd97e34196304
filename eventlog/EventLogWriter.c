/*
 * eventlog/EventLogWriter.c -- the eventlog's outputs: a file, nowhere, and
 * memory (for tests).  The file writer relies on support/os/File (unbuffered
 * POSIX calls), so a write error (disk full, the file size limit, a closed
 * descriptor) shows at the write that caused it, with its errno.  See
 * Note [Eventlog write errors].
 */
#include "EventLogWriter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"
#include "Messages.h"
#include "EventLog.h"
#include "os/File.h"

/* Note [Eventlog write errors]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The eventlog is a diagnostic; losing it must not kill the program it
 * describes.  So a writer that cannot open or write its output prints one
 * line naming the file and the reason and returns false; EventBuffers.c
 * then stops writing for the rest of the run (Note [After a write error]
 * in EventBuffers.c).  The "reported" flag below makes "once" hold for the
 * later writes that EventBuffers.c still tries (the data end marker).
 *
 * A write that fails part-way (EFBIG at the file size limit, ENOSPC on a
 * full disk) has put part of a block in the file, which no reader could
 * frame.  The file writer therefore cuts the file back to where the failed
 * write began, the end of the last write that succeeded (each write is one
 * whole block, or the header, or the end marker), so the file is a
 * well-formed log prefix that the end marker can close.  If the file
 * cannot be cut back (a pipe, a device), the writer closes it and fails
 * every later write, so nothing is appended to the partial block. */
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

static int out_fd = -1;
static char *out_path;     /* malloc'd; for messages */
static uint64_t out_size;  /* bytes of the writes that succeeded */

static bool file_init(void)
{
    reported = false;
    out_size = 0;
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
    int err = os_file_create(out_path, &out_fd);
    if (err != 0) {
        writer_report_failure(out_path, err);
        free(out_path);
        out_path = NULL;
        out_fd = -1;
        return false;
    }
    return true;
}

/* See Note [Eventlog write errors] for the cut back. */
static bool file_write(const void *bytes, size_t n)
{
    if (out_fd < 0)
        return false;
    size_t written;
    int err = os_file_write_all(out_fd, bytes, n, &written);
    if (err == 0) {
        out_size += n;
        return true;
    }
    writer_report_failure(out_path, err);
    if (written > 0 && os_file_truncate(out_fd, out_size) != 0) {
        (void)os_file_close(out_fd);   /* already failing; the error above said why */
        out_fd = -1;
    }
    return false;
}

static void file_flush(void)
{
    /* Unbuffered: every write has already reached the kernel. */
}

static void file_stop(void)
{
    if (out_fd >= 0) {
        int err = os_file_close(out_fd);
        if (err != 0)
            writer_report_failure(out_path, err);
    }
    out_fd = -1;
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
static size_t mem_limit = SIZE_MAX;   /* simulated disk size, bytes */

static bool mem_init(void)
{
    reported = false;
    mem_len = 0;
    return true;
}

static bool mem_write(const void *bytes, size_t n)
{
    if (mem_failing || n > mem_limit - mem_len) {
        /* Nothing of a write that does not fit is kept, as the file
         * writer's cut back leaves it. */
        writer_report_failure("<memory>", ENOSPC);
        return false;
    }
    if (GROW_ARRAY_RESERVE_MIN(mem_bytes, mem_cap, mem_len + n, 4096) != 0) {
        writer_report_failure("<memory>", ENOMEM);
        return false;
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

void eventlog_memory_writer_set_limit(size_t max_bytes)
{
    mem_limit = max_bytes;
}

void eventlog_memory_writer_free(void)
{
    free(mem_bytes);
    mem_bytes = NULL;
    mem_len = mem_cap = 0;
    mem_failing = false;
    mem_limit = SIZE_MAX;
}
