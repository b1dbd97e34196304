/*
 * wire/ControlWire.c -- the control protocol's decoder and encoder (see
 * ControlWire.h).  Relies on nothing but the C library: it runs on the
 * eventlog socket thread, in the fuzz target and in the unit tests alike.
 */
#include "ControlWire.h"

#include <string.h>

/* Note [Resynchronising on the magic]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A client may write anything: garbage, a message cut short by a
 * disconnect, a megabyte of zeros.  The decoder never fails and never
 * waits for more than one message's bytes: it is a state machine over
 * the message's fields (magic 0-3, version, length, namespace, command),
 * and a byte that breaks the magic restarts it -- at state 1 if that byte
 * is itself the first magic byte, so a message right after garbage is
 * still found.  A wrong version drops what was read so far, the same way.
 * Every byte that ends up in no whole message is counted in
 * skipped_bytes, and each message dropped after a whole magic in
 * bad_messages; the runtime reports both in +RTS -s.  The namespace
 * length byte is not checked against anything: a 255-byte namespace is
 * valid, and an unknown one is the dispatcher's business. */

enum {
    ST_MAGIC0, ST_MAGIC1, ST_MAGIC2, ST_MAGIC3, ST_VERSION, ST_LENGTH, ST_NS, ST_COMMAND,
};

static const uint8_t magic[4] = {CONTROL_MAGIC_0, CONTROL_MAGIC_1, CONTROL_MAGIC_2,
                                 CONTROL_MAGIC_3};

void control_parser_init(ControlParser *p)
{
    memset(p, 0, sizeof *p);
}

/* Forgets the partial message, counting its bytes as skipped; the byte
 * that broke it starts a new one if it can. */
static void restart(ControlParser *p, uint8_t byte)
{
    p->skipped_bytes += p->pending_bytes;
    if (byte == CONTROL_MAGIC_0) {
        p->state = ST_MAGIC1;
        p->pending_bytes = 1;
    } else {
        p->state = ST_MAGIC0;
        p->pending_bytes = 0;
        p->skipped_bytes++;
    }
}

bool control_parser_next(ControlParser *p, const uint8_t *bytes, size_t n, size_t *consumed,
                         ControlCommand *cmd)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t b = bytes[i];
        switch (p->state) {
        case ST_MAGIC0: case ST_MAGIC1: case ST_MAGIC2: case ST_MAGIC3:
            if (b != magic[p->state]) {
                restart(p, b);
                continue;
            }
            p->state++;
            p->pending_bytes++;
            continue;
        case ST_VERSION:
            if (b != CONTROL_VERSION) {
                p->bad_messages++;
                restart(p, b);
                continue;
            }
            p->state = ST_LENGTH;
            p->pending_bytes++;
            continue;
        case ST_LENGTH:
            p->cur.ns_len = b;
            p->ns_got = 0;
            p->state = b == 0 ? ST_COMMAND : ST_NS;
            p->pending_bytes++;
            continue;
        case ST_NS:
            p->cur.ns[p->ns_got++] = (char)b;
            p->pending_bytes++;
            if (p->ns_got == p->cur.ns_len)
                p->state = ST_COMMAND;
            continue;
        default:   /* ST_COMMAND */
            p->cur.ns[p->cur.ns_len] = '\0';
            p->cur.command = b;
            *cmd = p->cur;
            p->messages++;
            p->state = ST_MAGIC0;
            p->pending_bytes = 0;
            *consumed = i + 1;
            return true;
        }
    }
    *consumed = n;
    return false;
}

void control_parser_finish(ControlParser *p)
{
    if (p->state >= ST_VERSION)
        p->bad_messages++;
    p->skipped_bytes += p->pending_bytes;
    p->state = ST_MAGIC0;
    p->pending_bytes = 0;
}

bool control_parser_check(const ControlParser *p)
{
    if (p->state > ST_COMMAND || p->pending_bytes > CONTROL_MESSAGE_MAX)
        return false;
    /* Bytes held: the magic and version read, then the length, then the
     * namespace bytes read. */
    size_t expect = p->state <= ST_LENGTH ? p->state
                    : (size_t)ST_NS + (p->state == ST_NS ? p->ns_got : p->cur.ns_len);
    return p->pending_bytes == expect && (p->state != ST_NS || p->ns_got < p->cur.ns_len);
}

size_t control_encode(uint8_t *out, size_t cap, const char *ns, uint8_t command)
{
    size_t ns_len = strlen(ns);
    size_t len = 4 + 1 + 1 + ns_len + 1;
    if (ns_len > 255 || cap < len)
        return 0;
    memcpy(out, magic, 4);
    out[4] = CONTROL_VERSION;
    out[5] = (uint8_t)ns_len;
    memcpy(out + 6, ns, ns_len);
    out[6 + ns_len] = command;
    return len;
}
