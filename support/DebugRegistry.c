/*
 * support/DebugRegistry.c -- the debug sockets' directory and the
 * registry of sockets made elsewhere (DebugRegistry.h).  Every OS call
 * through support/os/.
 */
#include "DebugRegistry.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Messages.h"
#include "os/File.h"
#include "os/Process.h"
#include "os/Socket.h"

/* Note [The socket registry]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * `strata-debug list` (and `--pid`) read the debug socket directories
 * (wire/DebugSocketDir.h), where a program given a bare --debug-socket
 * (or a Haskell program whose GHC stub was given no path) makes its socket
 * <pid>-<program>.  A program given a path of its own
 * (--debug-socket=PATH, STRATA_DEBUG_SOCKET, rts_debug_start) would not
 * be found there, so it registers: a symbolic link <pid>-<program> in
 * that directory to the socket's absolute path.  list follows the link
 * and reads the pid from the name, as for a socket there.  The link goes
 * when the socket does (hs_exit, exit); a killed program leaves it behind,
 * and list marks it stale as it does a killed program's socket (its pid
 * is gone), until the next program that uses the directory removes the
 * links of processes that are gone (only links: a socket left behind
 * stays, for the user to see).  A link or socket at one's own
 * <pid>-<program> can only be a dead process's, and is replaced.
 * The directory is this user's, mode 0700, so nobody else can plant a
 * link there.  Registering is best effort: the socket works without it. */

static char entry_path[OS_SOCKET_PATH_MAX + 1];    /* our link, when registered */
static char entry_target[4096];                     /* where it points */

/* Creates dir (mode 0700) if missing; an existing one must be ours and
 * closed to others. */
static bool private_dir(const char *who, const char *dir)
{
    int err = os_dir_create(dir, 0700);
    if (err != 0 && err != EEXIST) {
        rts_error("%s: cannot create the socket directory %s (errno=%d: %s)", who, dir, err,
                  strerror(err));
        return false;
    }
    OsPathInfo st;
    if (os_path_lstat(dir, &st) != 0 || st.kind != OS_PATH_DIRECTORY) {
        rts_error("%s: %s is not a directory", who, dir);
        return false;
    }
    if (st.uid != os_process_uid() || (st.mode & 077) != 0) {
        rts_error("%s: the socket directory %s must belong to uid %u with mode 0700 "
                  "(it has uid %u, mode %03o)", who, dir, (unsigned)os_process_uid(),
                  (unsigned)st.uid, (unsigned)(st.mode & 0777));
        return false;
    }
    return true;
}

/* Removes the links of processes that are gone from directory env (Note
 * [The socket registry]); the sockets they point at are left alone. */
static int sweep_dead_link(const char *name, void *env)
{
    const char *dir = env;
    char *dash;
    long pid = strtol(name, &dash, 10);
    char path[OS_SOCKET_PATH_MAX + 256];
    OsPathInfo st;
    if (dash == name || *dash != '-' || pid <= 0 || pid > 0x7fffffffL ||
        os_process_exists((int)pid) ||
        (size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path ||
        os_path_lstat(path, &st) != 0 || st.kind != OS_PATH_SYMLINK)
        return 0;
    os_path_unlink(path);
    return 0;
}

/* A dead process's entry at our own name (Note [The socket registry]):
 * a link, or a socket nobody listens on. */
static void remove_stale_entry(const char *path)
{
    OsPathInfo st;
    if (os_path_lstat(path, &st) != 0)
        return;
    if (st.kind == OS_PATH_SYMLINK ||
        (st.kind == OS_PATH_SOCKET && os_socket_probe_unix(path) == ECONNREFUSED))
        os_path_unlink(path);
}

bool debug_registry_entry_path(const char *who, const char *dir, size_t parent, char *out,
                               size_t cap)
{
    char d[OS_SOCKET_PATH_MAX + 1];
    if (parent == 0 || strlen(dir) >= sizeof d) {
        rts_error("%s: the socket directory path is longer than %zu bytes", who, sizeof d - 1);
        return false;
    }
    strcpy(d, dir);
    d[parent] = '\0';                 /* the parent first, then the directory */
    if (!private_dir(who, d))
        return false;
    d[parent] = '/';
    if (!private_dir(who, d))
        return false;
    os_dir_each(d, sweep_dead_link, d);
    const char *prog = rts_prog_name != NULL ? rts_prog_name : "program";
    int n = snprintf(out, cap, "%s/%d-%s", d, os_process_id(), prog);
    if (n < 0 || (size_t)n >= cap) {
        rts_error("%s: the socket path %s/%d-%s is longer than %zu bytes", who, d,
                  os_process_id(), prog, cap - 1);
        return false;
    }
    remove_stale_entry(out);
    return true;
}

void debug_registry_add(const char *who, const char *dir, size_t parent,
                        const char *socket_path)
{
    char link[sizeof entry_path];
    if (!debug_registry_entry_path(who, dir, parent, link, sizeof link)) {
        rts_error("%s: the socket %s works, but strata-debug list will not find it", who,
                  socket_path);
        return;
    }
    char target[sizeof entry_target];
    int n;
    if (socket_path[0] == '/') {
        n = snprintf(target, sizeof target, "%s", socket_path);
    } else {
        char cwd[sizeof entry_target];
        int err = os_cwd(cwd, sizeof cwd);
        n = err != 0 ? -1 : snprintf(target, sizeof target, "%s/%s", cwd, socket_path);
    }
    int err = n < 0 || (size_t)n >= sizeof target ? ENAMETOOLONG
                                                   : os_path_symlink(target, link);
    if (err != 0) {
        rts_error("%s: cannot register the socket %s as %s (errno=%d: %s): it works, but "
                  "strata-debug list will not find it", who, socket_path, link, err,
                  strerror(err));
        return;
    }
    strcpy(entry_path, link);
    strcpy(entry_target, target);
}

void debug_registry_remove(void)
{
    char now[sizeof entry_target];
    if (entry_path[0] != '\0' && os_path_readlink(entry_path, now, sizeof now) == 0 &&
        strcmp(now, entry_target) == 0)
        os_path_unlink(entry_path);
    entry_path[0] = '\0';
}
