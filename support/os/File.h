/*
 * support/os/File.h -- the file calls the eventlog's file writer needs: create
 * a file for writing, write all of a buffer, cut the file back, close it.
 * Linux/POSIX (open, write, ftruncate, lseek, close), like the rest of
 * support/os/.  Every call returns 0 or an errno value; none prints.
 *
 * Preconditions: fd is a descriptor returned by os_file_create and not yet
 * closed; no other thread writes to it.
 */
#ifndef STRATA_OS_FILE_H
#define STRATA_OS_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Creates or empties path for writing (mode 0666 less the umask; closed
 * on exec) and stores its descriptor in *fd_out. */
int os_file_create(const char *path, int *fd_out);

/* Writes all n bytes at the current position, retrying short writes and
 * EINTR.  *written_out receives the bytes that reached the file, also when
 * it fails part-way (EFBIG past the file size limit with SIGXFSZ ignored,
 * ENOSPC on a full disk, EIO). */
int os_file_write_all(int fd, const void *bytes, size_t n, size_t *written_out);

/* Cuts the file to size_bytes and moves the write position there, so the
 * next write continues at the new end.  Fails (EINVAL) on what cannot be
 * truncated: pipes, terminals, character devices. */
int os_file_truncate(int fd, uint64_t size_bytes);

/* Closes fd (which is then invalid even if this fails, e.g. with EIO for
 * a delayed write error). */
int os_file_close(int fd);

#endif /* STRATA_OS_FILE_H */
