/*
 * utils/strata-debug/Sockets.c -- finding the debug sockets of running
 * programs in the debug socket directories (wire/DebugSocketDir.h): the
 * sockets made there, and the links that programs with sockets elsewhere
 * register there (Note [The socket registry] in
 * support/DebugRegistry.c): `strata-debug list`, and --pid.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "CmdOptions.h"
#include "Sockets.h"
#include "DebugAnalysis.h"
#include "DebugSocketDir.h"
#include "DebugClient.h"
#include "Json.h"
#include "NoStub.h"
#include "Print.h"

/* Whether process pid is there (ours or another user's). */
static bool process_alive(long pid)
{
    return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* The socket that directory entry path (named <pid>-...) stands for, into
 * sock[cap]: the entry itself, or where a registry link points.  False
 * for anything else, and for a link to no socket whose process lives (a
 * program whose socket someone removed): nothing to connect to, nothing
 * stale to report. */
static bool entry_socket(const char *path, long pid, char *sock, size_t cap)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return false;
    if (S_ISSOCK(st.st_mode)) {
        snprintf(sock, cap, "%s", path);
        return true;
    }
    if (!S_ISLNK(st.st_mode))
        return false;
    ssize_t n = readlink(path, sock, cap - 1);
    if (n <= 0 || (size_t)n >= cap - 1)
        return false;
    sock[n] = '\0';
    return (stat(sock, &st) == 0 && S_ISSOCK(st.st_mode)) || !process_alive(pid);
}

/* Calls f for every socket in the debug socket directories. */
static int for_each_socket(int (*f)(const char *path, long pid, const char *name, void *env),
                           void *env)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    for (int d = 0; d < DEBUG_SOCKET_DIRS; d++) {
        char dirname[512];
        if (debug_socket_dir(d, xdg, (unsigned)getuid(), dirname, sizeof dirname) == 0)
            continue;
        DIR *dir = opendir(dirname);
        if (dir == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            char path[1024], sock[1024];
            if ((size_t)snprintf(path, sizeof path, "%.500s/%.500s", dirname, e->d_name) >=
                sizeof path)
                continue;
            char *dash;
            long pid = strtol(e->d_name, &dash, 10);
            if (*dash != '-' || dash == e->d_name || !entry_socket(path, pid, sock, sizeof sock))
                continue;
            int r = f(sock, pid, dash + 1, env);
            if (r != 0) {
                closedir(dir);
                return r;
            }
        }
        closedir(dir);
    }
    return 0;
}

typedef struct {
    int count;
    Json *json;                  /* NULL: text */
} ListOut;

static int list_one(const char *path, long pid, const char *name, void *env)
{
    ListOut *l = env;
    bool alive = process_alive(pid);
    if (l->json != NULL) {
        json_open(l->json, NULL, '{');
        json_u64(l->json, "pid", (uint64_t)pid);
        json_str(l->json, "program", name);
        json_str(l->json, "path", path);
        json_bool(l->json, "stale", !alive);
        json_close(l->json, '}');
    } else {
        printf("%-8ld %-20s %s%s\n", pid, name, path, alive ? "" : "  (stale: process gone)");
    }
    l->count++;
    return 0;
}

typedef struct {
    long pid;
    char path[1024];
} PidFind;

static int find_pid(const char *path, long pid, const char *name, void *env)
{
    (void)name;
    PidFind *p = env;
    if (pid != p->pid)
        return 0;
    snprintf(p->path, sizeof p->path, "%s", path);
    return 1;
}

int cmd_list(int argc, char **argv)
{
    Opts o = {0};
    CmdSource src = {0};
    int st = cmd_options_parse(argc, argv, "list", &o, &src, NULL);
    if (st >= 0)
        return st;
    bool json = o.json;
    Json j;
    ListOut l = {0, json ? &j : NULL};
    if (json) {
        json_begin(&j, stdout, NULL, "list");
        json_open(&j, "sockets", '[');
    }
    for_each_socket(list_one, &l);
    if (json) {
        json_close(&j, ']');
        json_end(&j);
    } else if (l.count == 0) {
        printf("no debug sockets found\n");
    }
    return 0;
}

int socket_of_pid(const char *pid, char *path, size_t len)
{
    PidFind pf = {0};
    if (!parse_long(pid, 1, 1L << 30, &pf.pid))
        return die("--pid expects a process id, got '%s'", pid);
    if (for_each_socket(find_pid, &pf) == 0)
        return die_no_socket(pf.pid);
    snprintf(path, len, "%s", pf.path);
    if (kill((pid_t)pf.pid, 0) != 0 && errno == ESRCH)
        return die("process %ld is gone; %s is a stale socket (it was killed "
                   "before it could remove it)", pf.pid, path);
    return 0;
}
