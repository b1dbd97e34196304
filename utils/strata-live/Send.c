/*
 * utils/strata-live/Send.c -- writing control commands into the program's
 * eventlog socket, for --send (main.c) and for the page's buttons
 * (PageHttp.c).  Note [Sending a control command].
 */
#include "Send.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ControlWire.h"

/* Note [Sending a control command]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A control command is written into a connection of its own: the program
 * takes any client's bytes as commands, and treats this one as any other
 * client (it is sent the log's header and preamble, which are never read).
 * The messages go out in one write, then the write side is shut down and
 * the connection closed.  The program reads what a client wrote before it
 * sees the end of the connection, so closing at once loses nothing; the
 * commands then run at the program's next safe point, after the sender
 * has gone.  There is no reply in eventlog-socket's protocol, so success
 * means "delivered to the socket", and the effect is seen in the stream
 * (an era band, a census) or the program's +RTS -s.  The connection is
 * not the stream strata-live reads, so the page's HTTP thread may send
 * while the reading thread reads: source_connect only reads the Source's
 * fixed fields (kind, where, host, port). */
int send_control(Source *src, const uint8_t *buf, size_t n, char *why, size_t why_len)
{
    int fd = source_connect(src, why, why_len);
    if (fd < 0)
        return 0;
    size_t done = 0;
    while (done < n) {
        ssize_t w = send(fd, buf + done, n - done, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(why, why_len, "writing to %s failed: %s", src->where,
                     w < 0 ? strerror(errno) : "nothing written");
            close(fd);
            return 0;
        }
        done += (size_t)w;
    }
    shutdown(fd, SHUT_WR);
    close(fd);
    return 1;
}

int send_control_one(Source *src, const char *ns, uint8_t command, char *why,
                     size_t why_len)
{
    uint8_t buf[CONTROL_MESSAGE_MAX];
    size_t n = control_encode(buf, sizeof buf, ns, command);
    if (n == 0) {
        snprintf(why, why_len, "cannot encode %s:%u", ns, (unsigned)command);
        return 0;
    }
    return send_control(src, buf, n, why, why_len);
}
