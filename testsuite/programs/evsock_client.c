/*
 * testsuite/programs/evsock_client.c -- a minimal eventlog socket client for
 * the tests (testsuite/scripts/eventlog-socket.sh): connects, sends control
 * messages, and saves what it reads until the program closes the stream.
 *
 *   evsock_client (--unix PATH | --tcp HOST:PORT) [-o FILE] [--ready FILE]
 *                 [--send NS:CMD]... [--send-hex HEX]... [--send-zeros N]
 *                 [--stall] [--read-after FILE] [--close-after BYTES]
 *
 * Connecting is retried for 20 s (the program may not listen yet).  The
 * messages are sent in the order given, after --ready FILE is created.
 * --stall never reads (the test kills it); --read-after starts reading
 * only once FILE exists; --close-after disconnects after reading that many
 * bytes.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ControlWire.h"

static int connect_once(const char *unix_path, const char *tcp)
{
    if (unix_path != NULL) {
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        snprintf(a.sun_path, sizeof a.sun_path, "%s", unix_path);
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
            return fd;
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char host[256];
    snprintf(host, sizeof host, "%s", tcp);
    char *colon = strrchr(host, ':');
    if (colon == NULL)
        return -1;
    *colon = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0)
        return -1;
    int fd = socket(res->ai_family, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    return fd;
}

static void send_all(int fd, const void *p, size_t n)
{
    const char *b = p;
    while (n > 0) {
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w <= 0) {
            perror("evsock_client: send");
            exit(1);
        }
        b += w;
        n -= (size_t)w;
    }
}

int main(int argc, char **argv)
{
    const char *unix_path = NULL, *tcp = NULL, *out_path = NULL, *ready = NULL;
    const char *read_after = NULL;
    int stall = 0;
    long long close_after = -1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--unix") == 0 && i + 1 < argc)
            unix_path = argv[++i];
        else if (strcmp(argv[i], "--tcp") == 0 && i + 1 < argc)
            tcp = argv[++i];
        else if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            out_path = argv[++i];
        else if (strcmp(argv[i], "--ready") == 0 && i + 1 < argc)
            ready = argv[++i];
        else if (strcmp(argv[i], "--read-after") == 0 && i + 1 < argc)
            read_after = argv[++i];
        else if (strcmp(argv[i], "--stall") == 0)
            stall = 1;
        else if (strcmp(argv[i], "--close-after") == 0 && i + 1 < argc)
            close_after = atoll(argv[++i]);
        else if ((strcmp(argv[i], "--send") == 0 || strcmp(argv[i], "--send-hex") == 0 ||
                  strcmp(argv[i], "--send-zeros") == 0) && i + 1 < argc)
            i++;   /* sent after connecting */
        else {
            fprintf(stderr, "evsock_client: bad argument '%s'\n", argv[i]);
            return 2;
        }
    }
    int fd = -1;
    for (int tries = 0; fd < 0 && tries < 400; tries++) {
        fd = connect_once(unix_path, tcp);
        if (fd < 0)
            usleep(50000);
    }
    if (fd < 0) {
        fprintf(stderr, "evsock_client: cannot connect to %s (errno=%d: %s)\n",
                unix_path ? unix_path : tcp, errno, strerror(errno));
        return 1;
    }
    if (ready != NULL) {
        FILE *r = fopen(ready, "w");
        if (r != NULL)
            fclose(r);
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--send") == 0) {
            char ns[300];
            snprintf(ns, sizeof ns, "%s", argv[++i]);
            char *colon = strrchr(ns, ':');
            if (colon == NULL)
                return 2;
            *colon = '\0';
            uint8_t msg[CONTROL_MESSAGE_MAX];
            size_t n = control_encode(msg, sizeof msg, ns, (uint8_t)atoi(colon + 1));
            send_all(fd, msg, n);
        } else if (strcmp(argv[i], "--send-hex") == 0) {
            const char *h = argv[++i];
            for (; h[0] != '\0' && h[1] != '\0'; h += 2) {
                unsigned v;
                sscanf(h, "%2x", &v);
                uint8_t b = (uint8_t)v;
                send_all(fd, &b, 1);
            }
        } else if (strcmp(argv[i], "--send-zeros") == 0) {
            size_t n = (size_t)atol(argv[++i]);
            char *z = calloc(1, n);
            send_all(fd, z, n);
            free(z);
        } else if (strcmp(argv[i], "--unix") == 0 || strcmp(argv[i], "--tcp") == 0 ||
                   strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--ready") == 0 ||
                   strcmp(argv[i], "--close-after") == 0 ||
                   strcmp(argv[i], "--read-after") == 0) {
            i++;
        }
    }
    if (stall)
        for (;;)
            pause();
    while (read_after != NULL && access(read_after, F_OK) != 0)
        usleep(50000);
    FILE *out = out_path != NULL ? fopen(out_path, "wb") : NULL;
    char buf[65536];
    long long total = 0;
    for (;;) {
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        /* Flushed at once: a test watches the file grow as bytes arrive. */
        if (out != NULL && (fwrite(buf, 1, (size_t)r, out) != (size_t)r || fflush(out) != 0)) {
            fprintf(stderr, "evsock_client: cannot write %s\n", out_path);
            return 1;
        }
        total += r;
        if (close_after >= 0 && total >= close_after)
            break;
    }
    if (out != NULL)
        fclose(out);
    close(fd);
    fprintf(stderr, "evsock_client: read %lld bytes\n", total);
    return 0;
}
