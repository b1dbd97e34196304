/*
 * ghc/StubServer.c -- the GHC stub's socket: starting it (a foreign call
 * to strata_ghc_debug_start, or STRATA_DEBUG_SOCKET set when the program
 * starts), the socket's path and checks, one client at a time, frames and
 * the dispatch of requests.  The protocol and the socket's rules are
 * strata's own stub's (docs/debug-protocol.md); the sockets are made by
 * support/os/Socket.c and requests decoded by wire/DebugRequest.c, both
 * shared with it.  See docs/design/ghc-stub.md.
 */
#include "GhcStub.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "DebugRegistry.h"
#include "DebugSocketDir.h"
#include "Messages.h"
#include "SocketConn.h"
#include "SocketPath.h"
#include "os/Process.h"
#include "os/Socket.h"

#ifndef STRATA_VERSION
#define STRATA_VERSION "unknown"
#endif

/* The API a Haskell program calls (foreign import ccall). */
int strata_ghc_debug_start(const char *path);
const char *strata_ghc_debug_socket_path(void);

static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static bool running;                           /* under start_lock */
static int listen_fd = -1;
static char socket_path[OS_SOCKET_PATH_MAX + 1];
static char socket_dir[OS_SOCKET_PATH_MAX + 1];   /* wire/DebugSocketDir.h's, and */
static size_t socket_dir_parent;                   /* its parent's length (0: none) */
static dev_t socket_dev;                       /* the socket file we made, */
static ino_t socket_ino;                       /* so we never remove another's */

void stub_say(const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    rts_error("%s: %s", STUB_WHO, msg);
}

/* ----------------------------------------------------------------------
 * The connection
 * ---------------------------------------------------------------------- */

/* The connection c, for wire/DebugServe.c's frames. */
static DebugConn conn_of(SocketConn *c)
{
    return (DebugConn){socket_conn_read, socket_conn_write, socket_conn_close, c};
}

/* ----------------------------------------------------------------------
 * Requests
 * ---------------------------------------------------------------------- */

static void put_cstr(DebugBuf *out, const char *s)
{
    debug_buf_put_str(out, s, strlen(s));
}

/* VERSION, protocol version 2: version 1's fields, then the heap. */
static void handle_version(DebugBuf *out)
{
    bool paused = stub_is_paused();
    debug_buf_put_u32(out, DEBUG_PROTOCOL_VERSION_HEAP);
    debug_buf_put_u32(out, (uint32_t)sizeof(StgWord));
    debug_buf_put_u32(out, (uint32_t)BLOCK_SIZE);
    debug_buf_put_u32(out, (uint32_t)MBLOCK_SIZE);
    debug_buf_put_u32(out, (uint32_t)getpid());
    debug_buf_put_u32(out, paused ? 1 : 0);
    debug_buf_put_u64(out, paused ? stub_era_now() : 0);
    debug_buf_put_u64(out, paused ? (uint64_t)mblocks_allocated : 0);
    put_cstr(out, program_invocation_short_name);
    put_cstr(out, STRATA_VERSION);
    put_cstr(out, STUB_HEAP_NAME);
    debug_buf_put_u32(out, (uint32_t)STUB_HEADER_WORDS);
    debug_buf_put_u32(out, stub_eras_in_headers() ? DEBUG_HEAP_ERAS_IN_HEADERS : 0);
}

/* The requests that read the paused heap. */
static int handle_paused(const DebugRequest *req, DebugBuf *out, char *err, size_t err_len)
{
    if (stub_view.unsupported != NULL) {
        snprintf(err, err_len, "%s: %s", debug_command_name(req->cmd), stub_view.unsupported);
        return DEBUG_STATUS_UNSUPPORTED;
    }
    if (stub_view.oom) {
        snprintf(err, err_len, "%s: out of C heap listing the heap's blocks and roots",
                 debug_command_name(req->cmd));
        return DEBUG_STATUS_RESOURCE;
    }
    switch (req->cmd) {
    case DEBUG_CMD_NEW_ERA:
        if (!stub_eras_in_headers()) {
            snprintf(err, err_len, "new-era: this program has no eras (build it with -prof "
                                   "and run it with +RTS -he)");
            return DEBUG_STATUS_UNSUPPORTED;
        }
        debug_buf_put_u64(out, stub_new_era());
        return DEBUG_STATUS_OK;
    case DEBUG_CMD_ROOTS:
        stub_put_roots(out);
        return DEBUG_STATUS_OK;
    case DEBUG_CMD_SAVED:
        debug_buf_put_u32(out, 0);   /* a GHC program saves no objects */
        return DEBUG_STATUS_OK;
    case DEBUG_CMD_CLOSURES:
        return stub_closures(req, out, err, err_len);
    case DEBUG_CMD_INFO:
        return stub_info(req, out, err, err_len);
    case DEBUG_CMD_BLOCKS:
        stub_put_blocks(out);
        return DEBUG_STATUS_OK;
    case DEBUG_CMD_BLOCK_CONTENTS:
        return stub_block_contents(req->addr, out, err, err_len);
    default:
        snprintf(err, err_len, "command %u is not a heap request", (unsigned)req->cmd);
        return DEBUG_STATUS_UNKNOWN_COMMAND;
    }
}

/* Answers one request (a DebugHandler, wire/DebugServe.h). */
static int handle_request(const DebugConn *c, const DebugRequest *req, DebugBuf *out, char *err,
                          size_t err_len)
{
    if (req->cmd == DEBUG_CMD_VERSION) {
        handle_version(out);
        return DEBUG_STATUS_OK;
    }
    if (req->cmd == DEBUG_CMD_PAUSE) {
        uint64_t latency;
        int st = stub_pause(req->timeout_ms, &latency, err, err_len);
        if (st == DEBUG_STATUS_OK)
            debug_buf_put_u64(out, latency);
        return st;
    }
    if (req->cmd == DEBUG_CMD_RESUME)
        return stub_resume() ? DEBUG_STATUS_OK : debug_not_paused(req->cmd, err, err_len);
    if (!stub_is_paused())
        return debug_not_paused(req->cmd, err, err_len);
    if (req->cmd == DEBUG_CMD_SNAPSHOT && stub_view.unsupported == NULL && !stub_view.oom)
        return stub_snapshot(c) ? DEBUG_REPLIED : DEBUG_REPLY_FAILED;
    return handle_paused(req, out, err, err_len);
}

/* ----------------------------------------------------------------------
 * Connections
 * ---------------------------------------------------------------------- */

/* Accepts a client into *client: whether it is to be served (not when
 * busy or refused, debug_admit, nor when none could be accepted). */
static bool accept_client(SocketConn *client, bool busy)
{
    DebugConn conn = conn_of(client);
    if (socket_conn_accept(listen_fd, -1, client) != 0) {
        usleep(10000);   /* out of descriptors, say: try again soon */
        return false;
    }
    return debug_admit(&conn, client->refused, busy);
}

/* Serves one client until it disconnects; a pause it left is undone. */
static void serve_client(SocketConn *client)
{
    DebugBuf frame = {0}, out = {0};
    for (;;) {
        OsPollFd p[2] = {{client->fd, 0}, {listen_fd, 0}};
        if (os_poll(p, 2) != 0)
            break;
        /* The client first: a second client's connection that arrives with
         * the first one's end waits in the backlog, not refused as busy. */
        DebugConn conn = conn_of(client);
        if (p[0].ready && !debug_serve_request(&conn, &frame, &out, handle_request))
            break;
        SocketConn other;
        if (p[1].ready & OS_POLL_READABLE)
            (void)accept_client(&other, true);
    }
    socket_conn_close(client);
    debug_buf_free(&frame);
    debug_buf_free(&out);
    stub_resume();
}

static void *server_main(void *arg)
{
    (void)arg;
    for (;;) {
        SocketConn client;
        if (accept_client(&client, false))
            serve_client(&client);
    }
    return NULL;
}

/* ----------------------------------------------------------------------
 * The socket's path
 * ---------------------------------------------------------------------- */

/* At exit: the socket we made (not another's at its path since), and the
 * registry's link to it. */
static void remove_socket_file(void)
{
    struct stat st;
    if (socket_path[0] != '\0' && lstat(socket_path, &st) == 0 && st.st_dev == socket_dev &&
        st.st_ino == socket_ino)
        unlink(socket_path);
    debug_registry_remove();
}

static bool listen_on(const char *path)
{
    if (!socket_path_usable(STUB_WHO, path))
        return false;
    OsListener l;
    int err = os_socket_listen_unix(path, 4, &l);
    if (err != 0) {
        stub_say("cannot listen on %s (%s at %s)", path, strerror(err),
            l.failed_step == OS_LISTEN_SOCKET ? "socket()"
            : l.failed_step == OS_LISTEN_BIND ? "bind()" : "setting it up");
        return false;
    }
    listen_fd = l.fd;
    socket_dev = (dev_t)l.dev;
    socket_ino = (ino_t)l.ino;
    return true;
}

/* ----------------------------------------------------------------------
 * Starting
 * ---------------------------------------------------------------------- */

static int start_locked(const char *path)
{
    if (running)
        return 0;
    rts_set_prog_name(program_invocation_name);   /* the messages' prefix */
    if (!rts_isThreaded()) {
        stub_say("the program is not linked with -threaded: GHC lets a debugger pause a program "
            "only in its threaded runtime");
        return -1;
    }
    const char *env = getenv("STRATA_DEBUG_SOCKET");
    const char *given = path != NULL && path[0] != '\0' ? path
                        : env != NULL && env[0] != '\0' ? env : NULL;
    if (given != NULL && strlen(given) >= sizeof socket_path) {
        stub_say("the socket path %s is longer than %zu bytes", given, sizeof socket_path - 1);
        return -1;
    }
    socket_dir_parent = debug_socket_dir_first(getenv("XDG_RUNTIME_DIR"), os_process_uid(),
                                               socket_dir, sizeof socket_dir);
    if (given != NULL)
        strcpy(socket_path, given);
    else if (!debug_registry_entry_path(STUB_WHO, socket_dir, socket_dir_parent, socket_path,
                                         sizeof socket_path))
        return -1;
    if (!listen_on(socket_path)) {
        socket_path[0] = '\0';
        return -1;
    }
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int err = stub_pause_init();
    if (err == 0)
        err = pthread_create(&t, &attr, server_main, NULL);
    pthread_attr_destroy(&attr);
    if (err != 0) {
        stub_say("cannot start the stub's threads (%s)", strerror(err));
        os_socket_close(listen_fd);
        remove_socket_file();
        socket_path[0] = '\0';
        return -1;
    }
    if (given != NULL)
        debug_registry_add(STUB_WHO, socket_dir, socket_dir_parent, socket_path);
    atexit(remove_socket_file);
    running = true;
    return 0;
}

int strata_ghc_debug_start(const char *path)
{
    pthread_mutex_lock(&start_lock);
    int r = start_locked(path);
    pthread_mutex_unlock(&start_lock);
    return r;
}

const char *strata_ghc_debug_socket_path(void)
{
    pthread_mutex_lock(&start_lock);
    const char *p = running ? socket_path : NULL;
    pthread_mutex_unlock(&start_lock);
    return p;
}

/* STRATA_DEBUG_SOCKET set when the program starts: the stub starts before
 * main (a pause waits for the runtime to be up, see StubPause.c), and a
 * socket that cannot be made stops the program, as strata's own stub
 * does. */
__attribute__((constructor)) static void start_from_environment(void)
{
    const char *env = getenv("STRATA_DEBUG_SOCKET");
    if (env != NULL && env[0] != '\0' && strata_ghc_debug_start(env) != 0)
        exit(1);
}
