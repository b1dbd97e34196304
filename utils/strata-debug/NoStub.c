/*
 * utils/strata-debug/NoStub.c -- why a running process has no debug
 * socket, for --pid: gone, a GHC program built without strata's GHC stub,
 * one whose stub was never started, or a strata program run without
 * --debug-socket.  What it is comes from its executable's own bytes
 * (docs/strata-debug-ghc.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "CmdOptions.h"
#include "NoStub.h"

/* Strings the executable holds whether or not it is stripped: GHC's
 * constructor descriptions name their package, and the GHC stub's
 * messages name the stub (STUB_WHO in ghc/GhcStub.h). */
#define GHC_MARK "ghc-prim:GHC.Types"
#define STUB_MARK "strata-ghc-debug"

typedef enum { EXE_UNKNOWN, EXE_OTHER, EXE_GHC, EXE_GHC_STUB } ExeKind;

static ExeKind exe_kind(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/exe", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
        if (fd >= 0)
            close(fd);
        return EXE_UNKNOWN;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return EXE_UNKNOWN;
    size_t n = (size_t)st.st_size;
    ExeKind k = memmem(p, n, GHC_MARK, strlen(GHC_MARK)) == NULL ? EXE_OTHER
                : memmem(p, n, STUB_MARK, strlen(STUB_MARK)) != NULL ? EXE_GHC_STUB
                                                                     : EXE_GHC;
    munmap(p, n);
    return k;
}

static void program_name(long pid, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/comm", pid);
    FILE *f = fopen(path, "r");
    buf[0] = '\0';
    if (f != NULL) {
        if (fgets(buf, (int)len, f) != NULL)
            buf[strcspn(buf, "\n")] = '\0';
        fclose(f);
    }
}

/* The path of a Unix socket process pid has open (its descriptors' inodes
 * looked up in /proc/net/unix), or "" if none. */
static void unix_socket_of(long pid, char *out, size_t len)
{
    out[0] = '\0';
    char dir[64];
    snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
    FILE *net = fopen("/proc/net/unix", "r");
    if (net == NULL)
        return;
    char line[1024];
    while (out[0] == '\0' && fgets(line, sizeof line, net) != NULL) {
        unsigned long inode;
        char path[512] = "";
        /* Num RefCount Protocol Flags Type St Inode Path */
        if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %511s", &inode, path) != 2 ||
            path[0] != '/')
            continue;
        for (int fd = 0; fd < 1024 && out[0] == '\0'; fd++) {
            char link[96], target[64];
            snprintf(link, sizeof link, "%s/%d", dir, fd);
            ssize_t n = readlink(link, target, sizeof target - 1);
            if (n <= 0)
                continue;
            target[n] = '\0';
            char want[64];
            snprintf(want, sizeof want, "socket:[%lu]", inode);
            if (strcmp(target, want) == 0)
                snprintf(out, len, "%s", path);
        }
    }
    fclose(net);
    /* The kernel shows the name the socket was bound under: the stubs bind
     * PATH.<pid>.new and link it to PATH (Note [The socket appears with
     * mode 0600] in support/os/Socket.c). */
    char suffix[48];
    int k = snprintf(suffix, sizeof suffix, ".%ld.new", pid);
    size_t n = strlen(out);
    if (k > 0 && n > (size_t)k && strcmp(out + n - (size_t)k, suffix) == 0)
        out[n - (size_t)k] = '\0';
}

int die_no_socket(long pid)
{
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
        return die("no debug socket for pid %ld: no such process", pid);
    char name[64];
    program_name(pid, name, sizeof name);
    switch (exe_kind(pid)) {
    case EXE_GHC:
        return die("process %ld (%s) is a GHC program built without strata's debug stub: "
                   "compile share/strata/ghc/strata-ghc-debug.c into it with -threaded and "
                   "start it (docs/strata-debug-ghc.md)", pid, name);
    case EXE_GHC_STUB: {
        char sock[512];
        unix_socket_of(pid, sock, sizeof sock);
        if (sock[0] != '\0')
            return die("process %ld (%s) is a GHC program with strata's debug stub listening "
                       "outside the default directories, on %s: use --socket %s", pid, name,
                       sock, sock);
        return die("process %ld (%s) is a GHC program with strata's debug stub that never "
                   "started it: call strata_ghc_debug_start, or run it with "
                   "STRATA_DEBUG_SOCKET=PATH", pid, name);
    }
    default:
        return die("no debug socket for pid %ld (%s) (is it running with +RTS "
                   "--debug-socket, or STRATA_DEBUG_SOCKET elsewhere?)", pid, name);
    }
}
