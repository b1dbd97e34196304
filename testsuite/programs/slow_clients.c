/*
 * testsuite/programs/slow_clients.c -- a slow-client attack on an HTTP
 * server, for strata-live's tests (testsuite/scripts/strata-live-clients.sh):
 * opens CLIENTS connections to 127.0.0.1:PORT from ADDRESSES loopback
 * source addresses (127.0.1.1, 127.0.1.2, ..., in turn), sends each the
 * start of a request that it never finishes, then, while holding them,
 * asks for /metrics from 127.0.0.1 as Prometheus would and counts the
 * connections the server still holds.  With WAIT_S above 0 it then sends
 * one more byte on each held connection every 2 s (so that a timeout that
 * counts only silence never fires) until the server has dropped them all
 * or WAIT_S seconds have passed.
 *
 *     slow_clients PORT CLIENTS ADDRESSES WAIT_S
 *
 * Prints, one per line:
 *     slow_clients: connected=N failed=F
 *     slow_clients: metrics status=S bytes=B     (S 0: no HTTP answer, and why)
 *     slow_clients: held=K
 *     slow_clients: dropped all after T s        (or: still held=K after WAIT_S s)
 * Every wait is bounded (connects and /metrics by 10 s each), so a server
 * that hangs makes this report, not hang.  Exits 0 after reporting, 2 on
 * bad usage, 3 when the open-file limit cannot hold CLIENTS connections.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 20000
#define STEP_TIMEOUT_MS 10000
#define TRICKLE_EVERY_MS 2000

static const char partial_request[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A non-blocking socket bound to source (NULL: any) and connected to
 * 127.0.0.1:port within STEP_TIMEOUT_MS; -1 on failure. */
static int connect_from(const char *source, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET};
    if (source != NULL) {
        inet_pton(AF_INET, source, &a.sin_addr);
        if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0)
            goto fail;
    }
    a.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS)
        goto fail;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int err = 0;
    socklen_t len = sizeof err;
    if (poll(&p, 1, STEP_TIMEOUT_MS) != 1 ||
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
        goto fail;
    return fd;
fail:
    close(fd);
    return -1;
}

/* Whether the server has closed fd (EOF or an error pending). */
static int dropped(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 0) != 1)
        return 0;
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n <= 0 && !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
}

/* The connections in fds[0..n) not yet dropped; a dropped one's fd is
 * closed and set to -1. */
static int count_held(int *fds, int n)
{
    int held = 0;
    for (int i = 0; i < n; i++) {
        if (fds[i] >= 0 && dropped(fds[i])) {
            close(fds[i]);
            fds[i] = -1;
        }
        held += fds[i] >= 0;
    }
    return held;
}

/* GET /metrics from 127.0.0.1 (HTTP/1.0: the server closes after the
 * answer); prints the status line's code and the bytes read. */
static void fetch_metrics(int port)
{
    int fd = connect_from("127.0.0.1", port);
    const char req[] = "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (fd < 0 || send(fd, req, sizeof req - 1, MSG_NOSIGNAL) != (ssize_t)(sizeof req - 1)) {
        printf("slow_clients: metrics status=0 bytes=0 (cannot connect or send: %s)\n",
               strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    static char buf[1 << 20];
    size_t got = 0;
    long end = now_ms() + STEP_TIMEOUT_MS;
    const char *why = "closed";
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        long left = end - now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) != 1) {
            why = "no answer within 10 s";
            break;
        }
        ssize_t n = recv(fd, buf + got, sizeof buf - 1 - got, 0);
        if (n < 0 && errno == EAGAIN)
            continue;
        if (n <= 0) {
            why = n < 0 ? strerror(errno) : "closed";
            break;
        }
        got += (size_t)n;
        if (got == sizeof buf - 1)
            break;
    }
    close(fd);
    buf[got] = '\0';
    int status = 0;
    if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
        status = 0;
    printf("slow_clients: metrics status=%d bytes=%zu%s%s%s\n", status, got,
           status == 0 ? " (" : "", status == 0 ? why : "", status == 0 ? ")" : "");
}

/* Raises the soft open-file limit to hold n connections and some more. */
static int have_descriptors(int n)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)n + 64;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 0;
    if (rl.rlim_cur >= want)
        return 1;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want) {
        fprintf(stderr, "slow_clients: the open-file limit (hard %lu) cannot hold %d "
                        "connections\n", (unsigned long)rl.rlim_max, n);
        return 0;
    }
    rl.rlim_cur = want;
    return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

/* Every descriptor closed and the array freed, so that the sanitizer build's
 * leak check has nothing to report at exit. */
static int close_all(int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(fds);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    int port = argc == 5 ? atoi(argv[1]) : 0, n = argc == 5 ? atoi(argv[2]) : 0;
    int n_addr = argc == 5 ? atoi(argv[3]) : 0, wait_s = argc == 5 ? atoi(argv[4]) : -1;
    if (port <= 0 || port > 65535 || n < 1 || n > MAX_CLIENTS || n_addr < 1 || n_addr > 250 ||
        wait_s < 0) {
        fprintf(stderr, "usage: slow_clients PORT CLIENTS(1-%d) ADDRESSES(1-250) WAIT_S\n",
                MAX_CLIENTS);
        return 2;
    }
    if (!have_descriptors(n))
        return 3;
    int *fds = malloc((size_t)n * sizeof *fds);
    if (!fds) {
        fprintf(stderr, "slow_clients: out of memory for %d descriptors\n", n);
        return 3;
    }
    int failed = 0;
    for (int i = 0; i < n; i++) {
        char source[32];
        snprintf(source, sizeof source, "127.0.1.%d", 1 + i % n_addr);
        fds[i] = connect_from(source, port);
        if (fds[i] >= 0 && send(fds[i], partial_request, sizeof partial_request - 1,
                                MSG_NOSIGNAL) != (ssize_t)(sizeof partial_request - 1)) {
            close(fds[i]);
            fds[i] = -1;
        }
        failed += fds[i] < 0;
    }
    printf("slow_clients: connected=%d failed=%d\n", n - failed, failed);
    fflush(stdout);
    fetch_metrics(port);
    /* The server may still be turning away the last connections it took:
     * count until the count holds still for a second (at most 10 s). */
    int held = count_held(fds, n), stable_ms = 0;
    for (long end = now_ms() + STEP_TIMEOUT_MS; stable_ms < 1000 && now_ms() < end;) {
        usleep(100000);
        int again = count_held(fds, n);
        stable_ms = again == held ? stable_ms + 100 : 0;
        held = again;
    }
    printf("slow_clients: held=%d\n", held);
    fflush(stdout);
    if (wait_s == 0)
        return close_all(fds, n);
    long start = now_ms(), next_trickle = start;
    while (held > 0 && now_ms() - start < (long)wait_s * 1000) {
        if (now_ms() >= next_trickle) {
            for (int i = 0; i < n; i++)
                if (fds[i] >= 0)
                    send(fds[i], "x", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
            next_trickle += TRICKLE_EVERY_MS;
        }
        usleep(100000);
        held = count_held(fds, n);
    }
    if (held == 0)
        printf("slow_clients: dropped all after %ld s\n", (now_ms() - start + 999) / 1000);
    else
        printf("slow_clients: still held=%d after %d s\n", held, wait_s);
    return close_all(fds, n);
}
