/*
 * wire/ControlWire.h -- the control protocol of eventlog-socket, version 0,
 * which clients write into the eventlog socket: the magic bytes F0 9E 97 8C,
 * a version byte (0), a namespace (a length byte and that many bytes) and a
 * command byte.  A pure decoder (bytes in, commands out; no I/O, no
 * allocation) that the runtime's socket thread feeds and the fuzz target
 * drives, and an encoder for clients and tests.  See
 * docs/design/eventlog.md, "The socket writer".
 */
#ifndef STRATA_CONTROLWIRE_H
#define STRATA_CONTROLWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONTROL_MAGIC_0 0xF0
#define CONTROL_MAGIC_1 0x9E
#define CONTROL_MAGIC_2 0x97
#define CONTROL_MAGIC_3 0x8C
#define CONTROL_VERSION 0
/* The longest message: magic, version, length, 255 bytes, command. */
#define CONTROL_MESSAGE_MAX (4 + 1 + 1 + 255 + 1)

/* eventlog-socket's own namespace and commands. */
#define CONTROL_NS_EVENTLOG_SOCKET "eventlog-socket"
#define CONTROL_CMD_START_HEAP_PROFILING 3
#define CONTROL_CMD_STOP_HEAP_PROFILING 4
#define CONTROL_CMD_REQUEST_HEAP_CENSUS 5

/* strata's namespace and commands. */
#define CONTROL_NS_STRATA "strata"
#define CONTROL_CMD_INCREMENT_ERA 1
#define CONTROL_CMD_MAJOR_GC 2
#define CONTROL_CMD_FLUSH_EVENTLOG 3
#define CONTROL_CMD_REPOST_SAMPLES 4   /* the sampled objects alive, again */

/* One decoded message. */
typedef struct {
    uint8_t ns_len;     /* bytes of ns, 0..255 */
    char ns[256];       /* the namespace, NUL-terminated (may hold NULs) */
    uint8_t command;    /* the command byte */
} ControlCommand;

/* The decoder's state between calls (one per connection). */
typedef struct {
    uint8_t state;          /* which byte of a message comes next */
    uint8_t ns_got;         /* namespace bytes read so far */
    uint16_t pending_bytes; /* bytes of the current partial message */
    ControlCommand cur;     /* the message being read */
    uint64_t messages;      /* whole messages decoded */
    uint64_t skipped_bytes; /* bytes that were part of no whole message */
    uint64_t bad_messages;  /* messages dropped: bad version or cut short */
} ControlParser;

void control_parser_init(ControlParser *p);

/* Reads bytes[0..n) up to the end of the first whole message.  Returns
 * true and fills *cmd if a message ended there, false if the bytes ran
 * out first (a partial message is kept for the next call).  *consumed
 * receives the bytes read (<= n; n when false is returned).  Bytes that
 * cannot begin or continue a message are skipped and counted: the decoder
 * resynchronises on the next magic. */
bool control_parser_next(ControlParser *p, const uint8_t *bytes, size_t n, size_t *consumed,
                         ControlCommand *cmd);

/* The connection ended: a partial message is counted as skipped. */
void control_parser_finish(ControlParser *p);

/* True if the parser's fields are consistent. */
bool control_parser_check(const ControlParser *p);

/* Writes the message for (ns, command) into out (cap bytes).  Returns its
 * length, or 0 if ns is longer than 255 bytes or out is too small. */
size_t control_encode(uint8_t *out, size_t cap, const char *ns, uint8_t command);

#endif /* STRATA_CONTROLWIRE_H */
