/*
 * support/os/File.c -- file creation, writing and truncation for the eventlog
 * writer (eventlog/EventLogWriter.c).  See File.h for the contract; the
 * calls are plain POSIX and unbuffered, so an error shows at the write
 * that caused it.
 */
#include "File.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

int os_file_create(const char *path, int *fd_out)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return errno;
    *fd_out = fd;
    return 0;
}

int os_file_write_all(int fd, const void *bytes, size_t n, size_t *written_out)
{
    const char *p = bytes;
    size_t done = 0;
    int err = 0;
    while (done < n) {
        ssize_t k = write(fd, p + done, n - done);
        if (k > 0) {
            done += (size_t)k;
        } else if (k < 0 && errno == EINTR) {
            continue;
        } else {
            err = k < 0 ? errno : EIO;   /* write 0 of n > 0 bytes: no progress */
            break;
        }
    }
    *written_out = done;
    return err;
}

int os_file_truncate(int fd, uint64_t size_bytes)
{
    if (size_bytes > (uint64_t)INT64_MAX)
        return EINVAL;
    if (ftruncate(fd, (off_t)size_bytes) != 0)
        return errno;
    if (lseek(fd, (off_t)size_bytes, SEEK_SET) == (off_t)-1)
        return errno;
    return 0;
}

int os_file_close(int fd)
{
    return close(fd) == 0 ? 0 : errno;
}
