/*
 * eventlog/SocketPreamble.h -- what the socket writer sends first to a
 * client that connects late: the log's header and the events that
 * describe the program, kept as the blocks pass (Note [What a client is
 * sent] in SocketPreamble.c).  The whole API of SocketPreamble.c.
 *
 * Every function is called under the socket writer's lock
 * (EventLogSocket.c); the module has no lock of its own.
 */
#ifndef STRATA_SOCKET_PREAMBLE_H
#define STRATA_SOCKET_PREAMBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ready to keep a new log's preamble (the previous one forgotten). */
void preamble_open(void);

/* Frees what is kept. */
void preamble_reset(void);

/* Takes one write of the log: the header if it is the first, else a
 * block whose preamble events are kept.  True if it was a block. */
bool preamble_take(const uint8_t *bytes, size_t n);

/* The header's bytes (0 before the first write), and a copy at p;
 * returns the byte after it. */
size_t preamble_header_bytes(void);
uint8_t *preamble_put_header(uint8_t *p);

/* The preamble events kept so far (records), and the bytes that records
 * [from, to) take regrouped as blocks, one per run of a capability. */
size_t preamble_n_records(void);
size_t preamble_records_bytes(size_t from, size_t to);

/* Writes records [from, to) at p as those blocks; returns the byte after. */
uint8_t *preamble_put_records(uint8_t *p, size_t from, size_t to);

#endif /* STRATA_SOCKET_PREAMBLE_H */
