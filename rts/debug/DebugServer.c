/*
 * rts/debug/DebugServer.c -- the debug stub: a thread serving one client at a
 * time on a Unix socket, and the pause handshake with the mutator.
 * Relies on the storage manager's attention request (Note [The allocation
 * limit] in sm/alloc/Storage.c) to stop the mutator at a safe point, on
 * DebugRequest.c to decode requests and on DebugHeap.c to answer the ones
 * that read the heap, and on support/os/ (Socket, Thread, File, Process) for
 * every OS call.  See docs/design/debugger.md and
 * docs/debug-protocol.md.
 */
#include "DebugServer.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "DebugHeap.h"
#include "DebugRegistry.h"
#include "DebugRequest.h"
#include "DebugServe.h"
#include "DebugSocketDir.h"
#include "DebugWire.h"
#include "MBlock.h"
#include "Messages.h"
#include "MutList.h"
#include "Roots.h"
#include "RtsFlags.h"
#include "SocketConn.h"
#include "SocketPath.h"
#include "Storage.h"
#include "os/Clock.h"
#include "os/File.h"
#include "os/Process.h"
#include "os/Socket.h"
#include "os/Thread.h"
#include "strata/Api.h"
#include "strata/Debug.h"
#include "strata/Trace.h"

/* Note [Pausing at a safe point]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The stub's thread never touches the heap while the mutator runs.  A
 * PAUSE sets pause_state = PAUSE_REQUESTED and asks for attention the way
 * the profiling timer does (storage_request_attention: a flag plus
 * strata_regs.hp_lim = NULL), so the mutator's next allocation enters the
 * slow path and calls debug_server_serve_attention.  There, under
 * pause_lock, the mutator writes back its bump pointer and root stack
 * pointer (so every block's free field and every stack chunk's sp are
 * exact), sets PAUSED, wakes the stub and waits until the state changes.
 * Every object is initialised at an allocation (Alloc.h), no GC is in
 * progress, and the mutator is the only thread that collects, so while
 * PAUSED nothing in the heap moves or changes (.inv.paused-heap); the
 * mutex hand-over makes the mutator's writes visible to the stub.  RESUME,
 * a disconnect, or hs_exit sets RUNNING and wakes the mutator.  A PAUSE
 * that the mutator does not reach in time (it does not allocate) is
 * cancelled under the same lock and answered TIMEOUT, so the two threads
 * never disagree. */

typedef enum { RUNNING, PAUSE_REQUESTED, PAUSED } PauseState;

static OsMutex pause_lock = OS_MUTEX_INIT;
static OsCond pause_changed = OS_COND_INIT;
static PauseState pause_state = RUNNING;        /* under pause_lock */
static atomic_bool xpause_wanted;               /* pause_state != RUNNING */
static uint64_t pause_requested_ns, paused_ns;  /* under pause_lock */
static uint64_t new_eras_wanted;                /* NEW_ERA; under pause_lock */

static bool running;              /* thread started; mutator-owned */
static OsThread server_thread;
static int listen_fd = -1;
static int wake_fds[2] = {-1, -1};   /* hs_exit writes a byte to stop the thread */
static char socket_path[OS_SOCKET_PATH_MAX + 1];
static char socket_dir[OS_SOCKET_PATH_MAX + 1];   /* wire/DebugSocketDir.h's, and */
static size_t socket_dir_parent;                   /* its parent's length (0: none) */
static uint64_t socket_dev;          /* identity of the socket file we made, */
static uint64_t socket_ino;          /* so we never remove another's */

/* ----------------------------------------------------------------------
 * The mutator's side
 * ---------------------------------------------------------------------- */

/* Note [A new era on resume]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * NEW_ERA (strata-debug snapshot --new-era, strata-debug mark) cannot
 * change the era from the stub's thread: the allocation blocks of every
 * capability change era with the world stopped, which only a thread
 * holding a capability may ask (rts/Eras.c).  So the stub counts the
 * request, answers with the era the program will be in, and the mutator
 * advances the era itself as it leaves the pause, before it allocates
 * again: every object allocated after the pause is of a later era than
 * the era the snapshot recorded.  A marker "strata-debug: era N" goes to
 * the eventlog, so a profile shows the moment too. */
static void advance_eras(uint64_t n)
{
    if (n == 0)
        return;
    uint64_t era = incrementUserEra(n);
    char marker[64];
    snprintf(marker, sizeof marker, "strata-debug: era %llu", (unsigned long long)era);
    traceMarker(marker);
}

void debug_server_serve_attention(void)
{
    if (!atomic_load_explicit(&xpause_wanted, memory_order_acquire))
        return;
    /* Every capability stops first, so the pause latency the client sees
     * is the slowest one's; a sync that got there first is waited out and
     * the request served at the next safe point. */
    if (!capability_stop_world()) {
        storage_request_attention();   /* come back at the next safe point */
        return;
    }
    os_mutex_lock(&pause_lock);
    if (pause_state == PAUSE_REQUESTED) {
        storage_sync_nursery();
        storage_finish_sweep();
        mut_list_gather();
        roots_sync_stack();
        pause_state = PAUSED;
        paused_ns = clock_elapsed_ns();
        os_cond_broadcast(&pause_changed);
        while (pause_state == PAUSED)
            os_cond_wait(&pause_changed, &pause_lock);
    }
    uint64_t new_eras = new_eras_wanted;
    new_eras_wanted = 0;
    os_mutex_unlock(&pause_lock);
    capability_resume_world();
    advance_eras(new_eras);
}

/* Back to RUNNING (resume, cancel, disconnect, stop).  Under pause_lock. */
static void resume_locked(void)
{
    if (pause_state != PAUSED)
        new_eras_wanted = 0;    /* nobody waits in the pause to apply them */
    pause_state = RUNNING;
    atomic_store(&xpause_wanted, false);
    debug_heap_forget();
    os_cond_broadcast(&pause_changed);
}

/* ----------------------------------------------------------------------
 * Frames
 * ---------------------------------------------------------------------- */

/* Waits until fd is readable; false if the stub is stopping or fd broke. */
/* The connection c, for wire/DebugServe.c's frames. */
static DebugConn conn_of(SocketConn *c)
{
    return (DebugConn){socket_conn_read, socket_conn_write, socket_conn_close, c};
}

/* ----------------------------------------------------------------------
 * Commands
 * ---------------------------------------------------------------------- */

static bool is_paused(void)
{
    os_mutex_lock(&pause_lock);
    bool p = pause_state == PAUSED;
    os_mutex_unlock(&pause_lock);
    return p;
}

static void handle_version(DebugBuf *out)
{
    bool paused = is_paused();
    debug_buf_put_u32(out, DEBUG_PROTOCOL_VERSION);
    debug_buf_put_u32(out, (uint32_t)WORD_SIZE);
    debug_buf_put_u32(out, (uint32_t)BLOCK_SIZE);
    debug_buf_put_u32(out, (uint32_t)MBLOCK_SIZE);
    debug_buf_put_u32(out, (uint32_t)os_process_id());
    debug_buf_put_u32(out, paused ? 1 : 0);
    /* Mutator state: meaningful (and race-free) only while paused. */
    debug_buf_put_u64(out, paused ? storage_era_now() : 0);
    debug_buf_put_u64(out, paused ? mblock_n_in_use() : 0);
    debug_buf_put_str(out, rts_prog_name, rts_prog_name ? strlen(rts_prog_name) : 0);
    debug_buf_put_str(out, STRATA_VERSION, strlen(STRATA_VERSION));
}

/* Default for PAUSE's timeout 0. */
#define PAUSE_DEFAULT_TIMEOUT_MS 10000u

static int handle_pause(uint32_t timeout_ms, DebugBuf *out, char *err, size_t err_len)
{
    if (timeout_ms == 0)
        timeout_ms = PAUSE_DEFAULT_TIMEOUT_MS;
    os_mutex_lock(&pause_lock);
    if (pause_state == PAUSED) {
        os_mutex_unlock(&pause_lock);
        debug_buf_put_u64(out, 0);
        return DEBUG_STATUS_OK;
    }
    pause_state = PAUSE_REQUESTED;
    pause_requested_ns = clock_elapsed_ns();
    atomic_store(&xpause_wanted, true);
    storage_request_attention();
    OsDeadline deadline = os_deadline_after_ms(timeout_ms);
    while (pause_state == PAUSE_REQUESTED)
        if (os_cond_wait_until(&pause_changed, &pause_lock, &deadline) == ETIMEDOUT)
            break;
    int status = DEBUG_STATUS_OK;
    if (pause_state == PAUSED) {
        debug_buf_put_u64(out, paused_ns - pause_requested_ns);
    } else {
        if (pause_state == PAUSE_REQUESTED)
            resume_locked();
        snprintf(err, err_len,
                 "pause: the program did not reach a safe point within %u ms (it is not "
                 "allocating, or it is exiting)", timeout_ms);
        status = DEBUG_STATUS_TIMEOUT;
    }
    os_mutex_unlock(&pause_lock);
    return status;
}

/* NEW_ERA: see Note [A new era on resume].  Only while paused (checked by
 * the caller); the reply is the era the program resumes in. */
static void handle_new_era(DebugBuf *out)
{
    os_mutex_lock(&pause_lock);
    new_eras_wanted++;
    uint64_t era = storage_era_now() + new_eras_wanted;
    os_mutex_unlock(&pause_lock);
    debug_buf_put_u64(out, era);
}

static int handle_resume(char *err, size_t err_len)
{
    os_mutex_lock(&pause_lock);
    bool was = pause_state == PAUSED;
    if (was)
        resume_locked();
    os_mutex_unlock(&pause_lock);
    return was ? DEBUG_STATUS_OK : debug_not_paused(DEBUG_CMD_RESUME, err, err_len);
}

/* Answers one request (a DebugHandler, wire/DebugServe.h). */
static int handle_request(const DebugConn *c, const DebugRequest *req, DebugBuf *out, char *err,
                          size_t err_len)
{
    switch (req->cmd) {
    case DEBUG_CMD_VERSION:
        handle_version(out);
        return DEBUG_STATUS_OK;
    case DEBUG_CMD_PAUSE:
        return handle_pause(req->timeout_ms, out, err, err_len);
    case DEBUG_CMD_RESUME:
        return handle_resume(err, err_len);
    default:
        if (!is_paused())
            return debug_not_paused(req->cmd, err, err_len);
        if (req->cmd == DEBUG_CMD_NEW_ERA) {
            handle_new_era(out);
            return DEBUG_STATUS_OK;
        }
        if (req->cmd == DEBUG_CMD_SNAPSHOT)
            return debug_heap_snapshot(c) ? DEBUG_REPLIED : DEBUG_REPLY_FAILED;
        return debug_heap_handle(req, out, err, err_len);
    }
}

/* ----------------------------------------------------------------------
 * Connections
 * ---------------------------------------------------------------------- */

/* Accepts a client into *client: whether it is to be served (not when
 * busy or refused, debug_admit). */
static bool accept_client(SocketConn *client, bool busy)
{
    DebugConn conn = conn_of(client);
    return socket_conn_accept(listen_fd, wake_fds[0], client) == 0 &&
           debug_admit(&conn, client->refused, busy);
}

/* Serves one client until it disconnects or the stub stops; the program
 * runs on if the client left it paused. */
static void serve_client(SocketConn *client)
{
    DebugBuf frame = {0}, out = {0};
    for (;;) {
        OsPollFd p[3] = {{client->fd, 0}, {wake_fds[0], 0}, {listen_fd, 0}};
        if (os_poll(p, 3) != 0 || (p[1].ready & OS_POLL_READABLE))
            break;
        /* The client first: when one command follows another, the first
         * client's end and the second's connection arrive together, and
         * the second must wait in the backlog for server_main, not be
         * refused as busy. */
        DebugConn conn = conn_of(client);
        if (p[0].ready && !debug_serve_request(&conn, &frame, &out, handle_request))
            break;
        SocketConn other;
        if (p[2].ready & OS_POLL_READABLE)   /* a second client: one at a time */
            (void)accept_client(&other, true);
    }
    socket_conn_close(client);
    debug_buf_free(&frame);
    debug_buf_free(&out);
    os_mutex_lock(&pause_lock);
    if (pause_state != RUNNING)
        resume_locked();
    os_mutex_unlock(&pause_lock);
}

static void *server_main(void *arg)
{
    (void)arg;
    for (;;) {
        OsPollFd p[2] = {{listen_fd, 0}, {wake_fds[0], 0}};
        if (os_poll(p, 2) != 0 || (p[1].ready & OS_POLL_READABLE))
            break;
        SocketConn client;
        if ((p[0].ready & OS_POLL_READABLE) && accept_client(&client, false))
            serve_client(&client);
    }
    return NULL;
}

/* ----------------------------------------------------------------------
 * The socket's path
 * ---------------------------------------------------------------------- */

/* The socket's path into socket_path: the command line's explicit path
 * first, then the environment's, else the default; *chosen says whether
 * it was one of the first two (then registered: Note [The socket
 * registry] in support/DebugRegistry.c). */
static bool choose_path(bool *chosen)
{
    socket_dir_parent = debug_socket_dir_first(getenv("XDG_RUNTIME_DIR"), os_process_uid(),
                                               socket_dir, sizeof socket_dir);
    const char *env = getenv("STRATA_DEBUG_SOCKET");
    const char *given = rts_flags.debug_socket_path != NULL ? rts_flags.debug_socket_path
                        : env != NULL && env[0] != '\0' ? env : NULL;
    *chosen = given != NULL;
    if (given == NULL)
        return debug_registry_entry_path("debug", socket_dir, socket_dir_parent, socket_path,
                                         sizeof socket_path);
    if (strlen(given) >= sizeof socket_path) {
        rts_error("debug: the socket path %s is longer than %zu bytes", given,
                  sizeof socket_path - 1);
        return false;
    }
    strcpy(socket_path, given);
    return true;
}

/* ----------------------------------------------------------------------
 * Start and stop
 * ---------------------------------------------------------------------- */

/* Removes the socket file if it is still the one we bound (another
 * program may have replaced a path we no longer use). */
static void remove_socket_file(void)
{
    debug_registry_remove();
    OsPathInfo st;
    if (socket_path[0] != '\0' && os_path_lstat(socket_path, &st) == 0 &&
        st.dev == socket_dev && st.ino == socket_ino)
        os_path_unlink(socket_path);
}

static void unlink_at_exit(void)
{
    remove_socket_file();
}

/* The listening socket at socket_path, mode 0600 from the moment it
 * appears (see Note [The socket appears with mode 0600] in
 * support/os/Socket.c); -1 after saying why it could not be made, or
 * why the path is refused: only a stale socket is ever replaced. */
static int listen_on_path(void)
{
    if (!socket_path_usable("debug", socket_path))
        return -1;
    OsListener l;
    int err = os_socket_listen_unix(socket_path, 4, &l);
    if (err == 0) {
        socket_dev = l.dev;
        socket_ino = l.ino;
        return l.fd;
    }
    switch (l.failed_step) {
    case OS_LISTEN_SOCKET:
        rts_error("debug: socket() failed (errno=%d: %s)", err, strerror(err));
        break;
    case OS_LISTEN_BIND:
        rts_error("debug: cannot bind the socket %s (errno=%d: %s)", l.bind_path, err,
                  strerror(err));
        break;
    case OS_LISTEN_SETUP:
        rts_error("debug: cannot set up the socket %s (errno=%d: %s)", socket_path, err,
                  strerror(err));
        break;
    }
    return -1;
}

int rts_debug_start(void)
{
    static bool atexit_registered;
    if (running)
        return 0;
    if (capabilities_n == 0) {
        rts_error("rts_debug_start: the runtime is not running (call it after hs_init)");
        return -1;
    }
    bool chosen;
    if (!choose_path(&chosen))
        return -1;
    listen_fd = listen_on_path();
    if (listen_fd < 0)
        goto fail_listen;
    if (chosen)
        debug_registry_add("debug", socket_dir, socket_dir_parent, socket_path);
    int err = os_pipe(wake_fds);
    if (err != 0) {
        rts_error("debug: pipe() failed (errno=%d)", err);
        goto fail_pipe;
    }
    err = os_thread_start(&server_thread, server_main, NULL);
    if (err != 0) {
        rts_error("debug: cannot start the stub's thread (errno=%d)", err);
        goto fail_thread;
    }
    if (!atexit_registered) {
        atexit(unlink_at_exit);   /* exits that bypass hs_exit */
        atexit_registered = true;
    }
    running = true;
    return 0;
fail_thread:
    os_file_close(wake_fds[0]);
    os_file_close(wake_fds[1]);
    wake_fds[0] = wake_fds[1] = -1;
fail_pipe:
    os_socket_close(listen_fd);
    listen_fd = -1;
    debug_registry_remove();
    os_path_unlink(socket_path);
fail_listen:
    socket_path[0] = '\0';
    return -1;
}

const char *rts_debug_socket_path(void)
{
    return running ? socket_path : NULL;
}

void rts_debug_save(StgClosure *c)
{
    if (c == NULL) {
        rts_error("rts_debug_save: NULL closure (nothing saved)");
        return;
    }
    debug_saved_add(c);
}

bool debug_server_start_from_flags(void)
{
    const char *env = getenv("STRATA_DEBUG_SOCKET");
    if (!rts_flags.debug_socket && (env == NULL || env[0] == '\0'))
        return true;
    return rts_debug_start() == 0;
}

void debug_server_stop(void)
{
    if (running) {
        size_t written;
        (void)os_file_write_all(wake_fds[1], "x", 1, &written);
        os_mutex_lock(&pause_lock);
        if (pause_state != RUNNING)
            resume_locked();
        os_mutex_unlock(&pause_lock);
        os_thread_join(server_thread);
        os_socket_close(listen_fd);
        os_file_close(wake_fds[0]);
        os_file_close(wake_fds[1]);
        listen_fd = wake_fds[0] = wake_fds[1] = -1;
        remove_socket_file();
        socket_path[0] = '\0';
        running = false;
    }
    debug_saved_exit();
}
