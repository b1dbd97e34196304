/*
 * utils/debug-client/PrivateFile.c -- creating the files that hold heap
 * contents (snapshots, GML graphs) so that only their owner can read them
 * and so that writing one never goes through a symbolic link or over
 * another user's file (PrivateFile.h).  See Note [Files with heap
 * contents] and docs/strata-debug.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "PrivateFile.h"

/* Note [Files with heap contents]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A snapshot is the program's whole live heap: passwords, tokens, user
 * data.  The debug socket that serves it is 0600, so the file must be
 * too, whatever the umask: it is created 0600 and chmod-ed to 0600 (the
 * umask could take bits from 0600 too, and an older file of ours may be
 * 0644).  People write snapshots into shared directories such as /tmp,
 * where someone else may have planted a symbolic link at the name we are
 * about to use, or a file of their own we could be tricked into filling:
 *   - O_NOFOLLOW refuses a link as the last component;
 *   - O_TRUNC is not used: the file is emptied only after fstat on the
 *     open descriptor has shown it is a regular file and ours, so a file
 *     of another user (which root could open) is never touched;
 *   - O_NONBLOCK keeps a FIFO planted there from blocking the open.
 * The checks are on the descriptor, not on a name looked up earlier, so
 * there is no window between checking and writing.  A snapshot is
 * written to PATH.tmp this way and renamed over PATH; rename replaces a
 * link rather than following it, but a PATH that is a link or another
 * user's file is refused up front all the same (dbg_check_private_path),
 * so the two rules hold for every name we write. */

static uid_t our_uid(void)
{
    return geteuid();
}

/* The refusal for a file that exists: NULL if we may write it. */
static const char *refusal(const struct stat *st, char *why, size_t len)
{
    if (S_ISLNK(st->st_mode))
        return "is a symbolic link; refusing to write heap contents through it";
    if (!S_ISREG(st->st_mode))
        return "is not a regular file; refusing to write heap contents to it";
    if (st->st_uid != our_uid()) {
        snprintf(why, len, "belongs to another user (uid=%u, ours=%u); refusing to overwrite it",
                 (unsigned)st->st_uid, (unsigned)our_uid());
        return why;
    }
    return NULL;
}

int dbg_check_private_path(const char *path, char *err, size_t err_len)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, err_len, "%s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    char why[128];
    const char *no = refusal(&st, why, sizeof why);
    if (no != NULL) {
        snprintf(err, err_len, "%s: %s", path, no);
        return -1;
    }
    return 0;
}

int dbg_create_private(const char *path, char *err, size_t err_len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        struct stat st;
        if (e == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
            return dbg_check_private_path(path, err, err_len);
        snprintf(err, err_len, "%s: cannot create: %s", path, strerror(e));
        return -1;
    }
    struct stat st;
    char why[128];
    const char *no = NULL;
    if (fstat(fd, &st) != 0)
        no = strerror(errno);
    else
        no = refusal(&st, why, sizeof why);
    if (no == NULL && (fchmod(fd, 0600) != 0 || ftruncate(fd, 0) != 0 ||
                       fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0))
        no = strerror(errno);
    if (no != NULL) {
        snprintf(err, err_len, "%s: %s", path, no);
        close(fd);
        return -1;
    }
    return fd;
}
