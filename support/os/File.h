/*
 * support/os/File.h -- files and paths: the eventlog's file writer creates,
 * writes, cuts back and closes a file; the ELF and DWARF readers open a
 * file read-only and read it; the debug stub creates its socket directory,
 * inspects, renames and removes paths; the .hp and +RTS -s outputs open
 * and close stdio streams.  Linux/POSIX (open, read, write, ftruncate,
 * lseek, lstat, mkdir, rename, unlink, pipe2, fopen), like the rest of
 * support/os/.  Every call returns 0 or an errno value; none prints.
 *
 * Preconditions: fd is a descriptor returned by a call here (or by
 * os_socket_* in Socket.h) and not yet closed; no other thread writes to
 * it; paths are NUL-terminated.
 */
#ifndef STRATA_OS_FILE_H
#define STRATA_OS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ----------------------------------------------------------------------
 * Descriptors
 * ---------------------------------------------------------------------- */

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

/* Opens path read-only (closed on exec) and stores its descriptor in
 * *fd_out. */
int os_file_open_read(const char *path, int *fd_out);

/* Reads up to n bytes at byte offset (not moving the file position),
 * retrying EINTR; *got_out receives the count, 0 at the end of the file. */
int os_file_read_at(int fd, uint64_t offset, void *buf, size_t n, size_t *got_out);

/* Creates a pipe (both ends closed on exec): fds[0] reads, fds[1] writes. */
int os_pipe(int fds[2]);

/* ----------------------------------------------------------------------
 * Paths
 * ---------------------------------------------------------------------- */

typedef enum {
    OS_PATH_REGULAR,
    OS_PATH_DIRECTORY,
    OS_PATH_SOCKET,
    OS_PATH_SYMLINK,
    OS_PATH_OTHER,
} OsPathKind;

/* What lstat says of a path (a symbolic link is described, not followed). */
typedef struct {
    OsPathKind kind;
    uint32_t uid;       /* owner */
    uint32_t mode;      /* permission bits (07777) */
    uint64_t dev, ino;  /* identity: equal pairs name the same file */
} OsPathInfo;

int os_path_lstat(const char *path, OsPathInfo *out);

/* 0 if the calling process may read path (access R_OK), else the errno
 * (ENOENT for a missing file). */
int os_path_readable(const char *path);

/* Creates directory path with mode (less the umask); EEXIST if anything
 * already has that name. */
int os_dir_create(const char *path, uint32_t mode);

int os_path_unlink(const char *path);

/* Renames from to to, atomically replacing what to named. */
int os_path_rename(const char *from, const char *to);

/* Makes link_path a symbolic link to target (EEXIST if something has that
 * name). */
int os_path_symlink(const char *target, const char *link_path);

/* The target of the symbolic link path, NUL-terminated, into buf[cap];
 * ENAMETOOLONG if it does not fit. */
int os_path_readlink(const char *path, char *buf, size_t cap);

/* The working directory, NUL-terminated, into buf[cap]. */
int os_cwd(char *buf, size_t cap);

/* Calls fn with the name of every entry of directory dir but "." and
 * "..", until fn returns non-zero.  Returns opendir's errno, or 0. */
int os_dir_each(const char *dir, int (*fn)(const char *name, void *env), void *env);

/* ----------------------------------------------------------------------
 * Stdio streams
 * ---------------------------------------------------------------------- */

/* fopen(path, mode); stores the stream in *out.  Writing to it with
 * fprintf and friends is the caller's. */
int os_stdio_open(const char *path, const char *mode, FILE **out);

/* fclose(f): flushes and closes it (f is invalid afterwards even if this
 * fails, e.g. with ENOSPC for a buffered write that did not fit). */
int os_stdio_close(FILE *f);

#endif /* STRATA_OS_FILE_H */
