/*
 * support/os/File.c -- files and paths (see File.h for the contract and its
 * users).  The descriptor calls are plain POSIX and unbuffered, so an
 * error shows at the write that caused it.
 */
#include "File.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
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

int os_file_open_read(const char *path, int *fd_out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    *fd_out = fd;
    return 0;
}

int os_file_read_at(int fd, uint64_t offset, void *buf, size_t n, size_t *got_out)
{
    if (offset > (uint64_t)INT64_MAX)
        return EINVAL;
    for (;;) {
        ssize_t k = pread(fd, buf, n, (off_t)offset);
        if (k >= 0) {
            *got_out = (size_t)k;
            return 0;
        }
        if (errno != EINTR)
            return errno;
    }
}

int os_pipe(int fds[2])
{
    return pipe2(fds, O_CLOEXEC) == 0 ? 0 : errno;
}

int os_path_lstat(const char *path, OsPathInfo *out)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno;
    out->kind = S_ISREG(st.st_mode)    ? OS_PATH_REGULAR
                : S_ISDIR(st.st_mode)  ? OS_PATH_DIRECTORY
                : S_ISSOCK(st.st_mode) ? OS_PATH_SOCKET
                : S_ISLNK(st.st_mode)  ? OS_PATH_SYMLINK
                                       : OS_PATH_OTHER;
    out->uid = (uint32_t)st.st_uid;
    out->mode = (uint32_t)(st.st_mode & 07777);
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    return 0;
}

int os_path_readable(const char *path)
{
    return access(path, R_OK) == 0 ? 0 : errno;
}

int os_dir_create(const char *path, uint32_t mode)
{
    return mkdir(path, (mode_t)mode) == 0 ? 0 : errno;
}

int os_path_unlink(const char *path)
{
    return unlink(path) == 0 ? 0 : errno;
}

int os_path_rename(const char *from, const char *to)
{
    return rename(from, to) == 0 ? 0 : errno;
}

int os_path_symlink(const char *target, const char *link_path)
{
    return symlink(target, link_path) == 0 ? 0 : errno;
}

int os_path_readlink(const char *path, char *buf, size_t cap)
{
    if (cap == 0)
        return ENAMETOOLONG;
    ssize_t n = readlink(path, buf, cap);
    if (n < 0)
        return errno;
    if ((size_t)n >= cap)
        return ENAMETOOLONG;
    buf[n] = '\0';
    return 0;
}

int os_cwd(char *buf, size_t cap)
{
    return getcwd(buf, cap) != NULL ? 0 : errno;
}

int os_dir_each(const char *dir, int (*fn)(const char *name, void *env), void *env)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return errno;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (fn(e->d_name, env) != 0)
            break;
    }
    closedir(d);
    return 0;
}

int os_stdio_open(const char *path, const char *mode, FILE **out)
{
    FILE *f = fopen(path, mode);
    if (f == NULL)
        return errno;
    *out = f;
    return 0;
}

int os_stdio_close(FILE *f)
{
    return fclose(f) == 0 ? 0 : errno;
}
