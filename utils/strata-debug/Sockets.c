/*
 * utils/strata-debug/Sockets.c -- finding the debug sockets of running
 * programs in the default directories: `strata-debug list`, and --pid.
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

#include "Cmd.h"
#include "DebugAnalysis.h"
#include "DebugClient.h"
#include "Json.h"
#include "Print.h"

static int socket_dirs(char dirs[2][512])
{
    int n = 0;
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg != NULL && xdg[0] == '/')
        snprintf(dirs[n++], 512, "%s/strata/debug", xdg);
    snprintf(dirs[n++], 512, "/tmp/strata-%u/debug", (unsigned)getuid());
    return n;
}

/* Calls f for every socket in the default directories. */
static int for_each_socket(int (*f)(const char *path, long pid, const char *name, void *env),
                           void *env)
{
    char dirs[2][512];
    int nd = socket_dirs(dirs);
    for (int d = 0; d < nd; d++) {
        DIR *dir = opendir(dirs[d]);
        if (dir == NULL)
            continue;
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            char path[1024];
            struct stat st;
            if ((size_t)snprintf(path, sizeof path, "%.500s/%.500s", dirs[d], e->d_name) >=
                sizeof path)
                continue;
            if (stat(path, &st) != 0 || !S_ISSOCK(st.st_mode))
                continue;
            char *dash;
            long pid = strtol(e->d_name, &dash, 10);
            if (*dash != '-')
                continue;
            int r = f(path, pid, dash + 1, env);
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
    bool alive = kill((pid_t)pid, 0) == 0 || errno == EPERM;
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
    bool json = argc == 3 && strcmp(argv[2], "--json") == 0;
    if (argc != 2 && !json)
        return die("list takes no arguments but --json");
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
        return die("no debug socket for pid %ld (is it running with +RTS "
                   "--debug-socket, or STRATA_DEBUG_SOCKET elsewhere?)", pf.pid);
    snprintf(path, len, "%s", pf.path);
    if (kill((pid_t)pf.pid, 0) != 0 && errno == ESRCH)
        return die("process %ld is gone; %s is a stale socket (it was killed "
                   "before it could remove it)", pf.pid, path);
    return 0;
}
