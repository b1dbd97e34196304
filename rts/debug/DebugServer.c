/*
 * rts/debug/DebugServer.c -- the debug stub: a thread serving one client at a
 * time on a Unix socket, and the pause handshake with the mutator.
 * Relies on the storage manager's attention request (Note [The allocation
 * limit] in sm/Storage.c) to stop the mutator at a safe point, on
 * DebugRequest.c to decode requests and on DebugHeap.c to answer the ones
 * that read the heap.  See docs/design/debugger.md and
 * docs/debug-protocol.md.
 */
#include "DebugServer.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "DebugHeap.h"
#include "DebugRequest.h"
#include "DebugWire.h"
#include "MBlock.h"
#include "Messages.h"
#include "Roots.h"
#include "RtsFlags.h"
#include "Storage.h"
#include "strata/Debug.h"

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
 * PAUSED nothing in the heap moves or changes; the mutex hand-over makes
 * the mutator's writes visible to the stub.  RESUME, a disconnect, or
 * hs_exit sets RUNNING and wakes the mutator.  A PAUSE that the mutator
 * does not reach in time (it does not allocate) is cancelled under the
 * same lock and answered TIMEOUT, so the two threads never disagree. */

typedef enum { RUNNING, PAUSE_REQUESTED, PAUSED } PauseState;

static pthread_mutex_t pause_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pause_changed = PTHREAD_COND_INITIALIZER;
static PauseState pause_state = RUNNING;        /* under pause_lock */
static atomic_bool xpause_wanted;               /* pause_state != RUNNING */
static uint64_t pause_requested_ns, paused_ns;  /* under pause_lock */

static bool running;              /* thread started; mutator-owned */
static pthread_t server_thread;
static int listen_fd = -1;
static int wake_fds[2] = {-1, -1};   /* hs_exit writes a byte to stop the thread */
static char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static dev_t socket_dev;             /* identity of the socket file we made, */
static ino_t socket_ino;             /* so we never remove another's */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ----------------------------------------------------------------------
 * The mutator's side
 * ---------------------------------------------------------------------- */

void debug_server_serve_attention(void)
{
    if (!atomic_load_explicit(&xpause_wanted, memory_order_acquire))
        return;
    pthread_mutex_lock(&pause_lock);
    if (pause_state == PAUSE_REQUESTED) {
        storage_sync_nursery();
        roots_sync_stack();
        pause_state = PAUSED;
        paused_ns = now_ns();
        pthread_cond_broadcast(&pause_changed);
        while (pause_state == PAUSED)
            pthread_cond_wait(&pause_changed, &pause_lock);
    }
    pthread_mutex_unlock(&pause_lock);
}

/* Back to RUNNING (resume, cancel, disconnect, stop).  Under pause_lock. */
static void resume_locked(void)
{
    pause_state = RUNNING;
    atomic_store(&xpause_wanted, false);
    debug_heap_forget();
    pthread_cond_broadcast(&pause_changed);
}

/* ----------------------------------------------------------------------
 * Frames
 * ---------------------------------------------------------------------- */

/* Waits until fd is readable; false if the stub is stopping or fd broke. */
static bool wait_readable(int fd)
{
    struct pollfd p[2] = {{fd, POLLIN, 0}, {wake_fds[0], POLLIN, 0}};
    for (;;) {
        int n = poll(p, 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (p[1].revents & POLLIN))
            return false;
        if (p[0].revents)
            return true;
    }
}

static bool read_full(int fd, void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        if (!wait_readable(fd))
            return false;
        ssize_t r = recv(fd, (char *)buf + done, n - done, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        done += (size_t)r;
    }
    return true;
}

static bool write_full(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = send(fd, (const char *)buf + done, n - done, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        done += (size_t)w;
    }
    return true;
}

static bool send_frame(int fd, int status, uint16_t cmd, const void *payload, size_t len)
{
    uint8_t h[DEBUG_FRAME_HEADER_BYTES];
    uint64_t total = (uint64_t)len + 4;
    if (total > UINT32_MAX)
        return false;
    for (int i = 0; i < 4; i++)
        h[i] = (uint8_t)(total >> (8 * i));
    h[4] = (uint8_t)status;
    h[5] = (uint8_t)(status >> 8);
    h[6] = (uint8_t)cmd;
    h[7] = (uint8_t)(cmd >> 8);
    return write_full(fd, h, sizeof h) && write_full(fd, payload, len);
}

static bool send_error(int fd, int status, uint16_t cmd, const char *msg)
{
    return send_frame(fd, status, cmd, msg, strlen(msg));
}

/* A response buffer: its payload, or RESOURCE if building it ran out of
 * memory, or if it is too big for one frame. */
static bool send_buf(void *env, int status, uint16_t cmd, const DebugBuf *b)
{
    int fd = *(int *)env;
    if (b->oom || b->len > (size_t)UINT32_MAX - 4)
        return send_error(fd, DEBUG_STATUS_RESOURCE, cmd,
                          "out of memory (or over 4 GiB) building the response");
    return send_frame(fd, status, cmd, b->data, b->len);
}

/* ----------------------------------------------------------------------
 * Commands
 * ---------------------------------------------------------------------- */

static bool is_paused(void)
{
    pthread_mutex_lock(&pause_lock);
    bool p = pause_state == PAUSED;
    pthread_mutex_unlock(&pause_lock);
    return p;
}

static void handle_version(DebugBuf *out)
{
    bool paused = is_paused();
    debug_buf_put_u32(out, DEBUG_PROTOCOL_VERSION);
    debug_buf_put_u32(out, (uint32_t)WORD_SIZE);
    debug_buf_put_u32(out, (uint32_t)BLOCK_SIZE);
    debug_buf_put_u32(out, (uint32_t)MBLOCK_SIZE);
    debug_buf_put_u32(out, (uint32_t)getpid());
    debug_buf_put_u32(out, paused ? 1 : 0);
    /* Mutator state: meaningful (and race-free) only while paused. */
    debug_buf_put_u64(out, paused ? storage_current_era : 0);
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
    pthread_mutex_lock(&pause_lock);
    if (pause_state == PAUSED) {
        pthread_mutex_unlock(&pause_lock);
        debug_buf_put_u64(out, 0);
        return DEBUG_STATUS_OK;
    }
    pause_state = PAUSE_REQUESTED;
    pause_requested_ns = now_ns();
    atomic_store(&xpause_wanted, true);
    storage_request_attention();
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    while (pause_state == PAUSE_REQUESTED)
        if (pthread_cond_timedwait(&pause_changed, &pause_lock, &deadline) == ETIMEDOUT)
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
    pthread_mutex_unlock(&pause_lock);
    return status;
}

static int handle_resume(char *err, size_t err_len)
{
    pthread_mutex_lock(&pause_lock);
    bool was = pause_state == PAUSED;
    if (was)
        resume_locked();
    pthread_mutex_unlock(&pause_lock);
    if (!was) {
        snprintf(err, err_len, "resume: the program is not paused");
        return DEBUG_STATUS_NOT_PAUSED;
    }
    return DEBUG_STATUS_OK;
}

/* Reads one request from fd and answers it.  Returns false when the
 * connection should close (gone, or a frame that cannot be skipped). */
static bool serve_request(int fd, DebugBuf *frame, DebugBuf *out)
{
    uint8_t lenb[4];
    if (!read_full(fd, lenb, 4))
        return false;
    uint32_t len = debug_load_u32(lenb);
    if (len < 4 || len > DEBUG_REQUEST_MAX_BYTES) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "request length is %u bytes, expected 4 to %u; closing the connection",
                 len, DEBUG_REQUEST_MAX_BYTES);
        send_error(fd, DEBUG_STATUS_BAD_LENGTH, 0, msg);
        return false;
    }
    debug_buf_reset(frame);
    uint8_t *p = debug_buf_reserve(frame, len);
    if (p == NULL) {
        send_error(fd, DEBUG_STATUS_RESOURCE, 0, "out of memory reading the request");
        return false;
    }
    if (!read_full(fd, p, len))
        return false;

    DebugRequest req;
    char err[512];
    debug_buf_reset(out);
    int st = debug_request_decode(p, len, &req, err, sizeof err);
    if (st == DEBUG_STATUS_OK) {
        switch (req.cmd) {
        case DEBUG_CMD_VERSION:
            handle_version(out);
            break;
        case DEBUG_CMD_PAUSE:
            st = handle_pause(req.timeout_ms, out, err, sizeof err);
            break;
        case DEBUG_CMD_RESUME:
            st = handle_resume(err, sizeof err);
            break;
        default:
            if (!is_paused()) {
                snprintf(err, sizeof err, "%s: the program is not paused (send pause first)",
                         debug_command_name(req.cmd));
                st = DEBUG_STATUS_NOT_PAUSED;
            } else if (req.cmd == DEBUG_CMD_SNAPSHOT) {
                return debug_heap_snapshot(send_buf, &fd);
            } else {
                st = debug_heap_handle(&req, out, err, sizeof err);
            }
        }
    }
    uint16_t cmd = req.cmd;
    if (st != DEBUG_STATUS_OK)
        return send_error(fd, st, cmd, err);
    return send_buf(&fd, DEBUG_STATUS_OK, cmd, out);
}

/* ----------------------------------------------------------------------
 * Connections
 * ---------------------------------------------------------------------- */

/* The peer must be our own user (SO_PEERCRED). */
static bool peer_allowed(int fd, char *why, size_t why_len)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        snprintf(why, why_len, "cannot read the peer's credentials (errno=%d)", errno);
        return false;
    }
    if (cred.uid != getuid()) {
        snprintf(why, why_len, "refused: uid %u may not debug a program of uid %u",
                 (unsigned)cred.uid, (unsigned)getuid());
        return false;
    }
    return true;
}

static int accept_client(void)
{
    int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return -1;
    char why[128];
    if (!peer_allowed(fd, why, sizeof why)) {
        send_error(fd, DEBUG_STATUS_REFUSED, 0, why);
        close(fd);
        return -1;
    }
    return fd;
}

/* Serves one client until it disconnects or the stub stops; the program
 * runs on if the client left it paused. */
static void serve_client(int fd)
{
    DebugBuf frame = {0}, out = {0};
    for (;;) {
        struct pollfd p[3] = {{fd, POLLIN, 0}, {wake_fds[0], POLLIN, 0}, {listen_fd, POLLIN, 0}};
        int n = poll(p, 3, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (p[1].revents & POLLIN))
            break;
        if (p[2].revents & POLLIN) {   /* a second client: one at a time */
            int other = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC);
            if (other >= 0) {
                char why[128];
                if (peer_allowed(other, why, sizeof why))
                    send_error(other, DEBUG_STATUS_BUSY, 0,
                               "busy: another client is connected (one at a time)");
                else
                    send_error(other, DEBUG_STATUS_REFUSED, 0, why);
                close(other);
            }
        }
        if (p[0].revents && !serve_request(fd, &frame, &out))
            break;
    }
    close(fd);
    debug_buf_free(&frame);
    debug_buf_free(&out);
    pthread_mutex_lock(&pause_lock);
    if (pause_state != RUNNING)
        resume_locked();
    pthread_mutex_unlock(&pause_lock);
}

static void *server_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd p[2] = {{listen_fd, POLLIN, 0}, {wake_fds[0], POLLIN, 0}};
        int n = poll(p, 2, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 || (p[1].revents & POLLIN))
            break;
        if (p[0].revents & POLLIN) {
            int fd = accept_client();
            if (fd >= 0)
                serve_client(fd);
        }
    }
    return NULL;
}

/* ----------------------------------------------------------------------
 * The socket's path
 * ---------------------------------------------------------------------- */

/* Creates dir (mode 0700) if missing; an existing one must be ours and
 * closed to others. */
static bool private_dir(const char *dir)
{
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        rts_error("debug: cannot create the socket directory %s (errno=%d: %s)", dir, errno,
                  strerror(errno));
        return false;
    }
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rts_error("debug: %s is not a directory", dir);
        return false;
    }
    if (st.st_uid != getuid() || (st.st_mode & 077) != 0) {
        rts_error("debug: the socket directory %s must belong to uid %u with mode 0700 "
                  "(it has uid %u, mode %03o)", dir, (unsigned)getuid(), (unsigned)st.st_uid,
                  (unsigned)(st.st_mode & 0777));
        return false;
    }
    return true;
}

/* The default path: $XDG_RUNTIME_DIR/strata/debug/<pid>-<program>, else
 * /tmp/strata-<uid>/debug/<pid>-<program>; creates the directories. */
static bool default_path(char *out, size_t cap)
{
    char dir[sizeof socket_path];
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int n;
    if (xdg != NULL && xdg[0] == '/') {
        n = snprintf(dir, sizeof dir, "%s/strata", xdg);
    } else {
        n = snprintf(dir, sizeof dir, "/tmp/strata-%u", (unsigned)getuid());
    }
    if (n < 0 || (size_t)n >= sizeof dir || !private_dir(dir))
        goto too_long_or_bad;
    size_t len = strlen(dir);
    n = snprintf(dir + len, sizeof dir - len, "/debug");
    if (n < 0 || (size_t)n >= sizeof dir - len || !private_dir(dir))
        goto too_long_or_bad;
    const char *prog = rts_prog_name != NULL ? rts_prog_name : "program";
    n = snprintf(out, cap, "%s/%d-%s", dir, (int)getpid(), prog);
    if (n < 0 || (size_t)n >= cap) {
        rts_error("debug: the socket path %s/%d-%s is longer than %zu bytes", dir,
                  (int)getpid(), prog, cap - 1);
        return false;
    }
    return true;
too_long_or_bad:
    if (n < 0 || (size_t)n >= sizeof dir)
        rts_error("debug: the socket directory path is longer than %zu bytes", sizeof dir - 1);
    return false;
}

static bool choose_path(void)
{
    /* The command line's explicit path first, then the environment's. */
    const char *env = getenv("STRATA_DEBUG_SOCKET");
    const char *given = rts_flags.debug_socket_path != NULL ? rts_flags.debug_socket_path
                        : env != NULL && env[0] != '\0' ? env : NULL;
    if (given == NULL)
        return default_path(socket_path, sizeof socket_path);
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
    struct stat st;
    if (socket_path[0] != '\0' && lstat(socket_path, &st) == 0 && st.st_dev == socket_dev &&
        st.st_ino == socket_ino)
        unlink(socket_path);
}

static void unlink_at_exit(void)
{
    remove_socket_file();
}

/* Note [The socket appears with mode 0600]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * bind() creates the socket file with the process's umask, and a chmod
 * after it leaves a moment in which the socket has a wider mode (a test saw
 * it).  So the socket is bound under a temporary name next to the final
 * one, made 0600 and listening, then renamed into place: rename is atomic,
 * so whoever sees the path sees the finished socket.  If the temporary name
 * does not fit in sun_path, bind runs under umask 0177 instead (umask is
 * process-wide, so this is the fallback, not the rule). */
static int listen_on_path(void)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        rts_error("debug: socket() failed (errno=%d: %s)", errno, strerror(errno));
        return -1;
    }
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    char tmp_path[sizeof addr.sun_path];
    int n = snprintf(tmp_path, sizeof tmp_path, "%s.%ld.new", socket_path, (long)getpid());
    bool via_rename = n > 0 && (size_t)n < sizeof tmp_path;
    const char *bind_path = via_rename ? tmp_path : socket_path;
    strcpy(addr.sun_path, bind_path);
    struct stat st;
    if (lstat(socket_path, &st) == 0 && S_ISSOCK(st.st_mode) && !via_rename)
        unlink(socket_path);   /* a stale socket of a dead run (our pid now) */
    if (via_rename && lstat(tmp_path, &st) == 0 && S_ISSOCK(st.st_mode))
        unlink(tmp_path);
    mode_t old_mask = 0;
    if (!via_rename)
        old_mask = umask(0177);
    int bound_ok = bind(fd, (struct sockaddr *)&addr, sizeof addr);
    int bind_errno = errno;
    if (!via_rename)
        umask(old_mask);
    if (bound_ok != 0) {
        rts_error("debug: cannot bind the socket %s (errno=%d: %s)", bind_path, bind_errno,
                  strerror(bind_errno));
        goto fail_bind;
    }
    struct stat bound;
    if (chmod(bind_path, 0600) != 0 || listen(fd, 4) != 0 ||
        (via_rename && rename(tmp_path, socket_path) != 0) || lstat(socket_path, &bound) != 0) {
        rts_error("debug: cannot set up the socket %s (errno=%d: %s)", socket_path, errno,
                  strerror(errno));
        goto fail_listen;
    }
    socket_dev = bound.st_dev;
    socket_ino = bound.st_ino;
    return fd;
fail_listen:
    unlink(bind_path);
fail_bind:
    close(fd);
    return -1;
}

int rts_debug_start(void)
{
    static bool atexit_registered;
    if (running)
        return 0;
    if (storage_nursery.current == NULL) {
        rts_error("rts_debug_start: the runtime is not running (call it after hs_init)");
        return -1;
    }
    if (!choose_path())
        return -1;
    listen_fd = listen_on_path();
    if (listen_fd < 0)
        goto fail_listen;
    if (pipe2(wake_fds, O_CLOEXEC) != 0) {
        rts_error("debug: pipe() failed (errno=%d)", errno);
        goto fail_pipe;
    }
    int err = pthread_create(&server_thread, NULL, server_main, NULL);
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
    close(wake_fds[0]);
    close(wake_fds[1]);
    wake_fds[0] = wake_fds[1] = -1;
fail_pipe:
    close(listen_fd);
    listen_fd = -1;
    unlink(socket_path);
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
        ssize_t w = write(wake_fds[1], "x", 1);
        (void)w;
        pthread_mutex_lock(&pause_lock);
        if (pause_state != RUNNING)
            resume_locked();
        pthread_mutex_unlock(&pause_lock);
        pthread_join(server_thread, NULL);
        close(listen_fd);
        close(wake_fds[0]);
        close(wake_fds[1]);
        listen_fd = wake_fds[0] = wake_fds[1] = -1;
        remove_socket_file();
        socket_path[0] = '\0';
        running = false;
    }
    debug_saved_exit();
}
