/*
 * wire/DebugServe.h -- what the debug stubs (strata's, rts/debug/, and the
 * GHC stub, ghc/) share in answering a client, free of runtime state and of
 * I/O: a connection is a pair of callbacks.  Frames, reading and decoding
 * one request, the reply, the SNAPSHOT stream, and the records of INFO,
 * CLOSURES and BLOCK_CONTENTS (docs/debug-protocol.md).  The client's
 * snapshot writer uses the INFO record too.
 */
#ifndef STRATA_DEBUGSERVE_H
#define STRATA_DEBUGSERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugRequest.h"
#include "DebugWire.h"

typedef struct {
    /* Reads exactly n bytes; false when the peer is gone or the stub stops. */
    bool (*read)(void *env, void *buf, size_t n);
    /* Writes all n bytes; false when the peer is gone. */
    bool (*write)(void *env, const void *buf, size_t n);
    /* Closes the connection. */
    void (*close)(void *env);
    void *env;
} DebugConn;

/* A response frame: status, the command it answers, the payload. */
bool debug_send_frame(const DebugConn *c, int status, uint16_t cmd, const void *payload,
                      size_t len);
/* An error frame, the message its payload. */
bool debug_send_error(const DebugConn *c, int status, uint16_t cmd, const char *msg);
/* The answer to cmd when the program is not paused: NOT_PAUSED, and
 * err[err_len] says so (RESUME has nothing to resume; any other command
 * must wait for a PAUSE). */
int debug_not_paused(uint16_t cmd, char *err, size_t err_len);

/* Whether a client just accepted is to be served: not when refused says
 * why its peer may not connect ("" when it may), nor when busy (another
 * client is served: one at a time); then it is told why (REFUSED, BUSY)
 * and closed. */
bool debug_admit(const DebugConn *c, const char *refused, bool busy);

/* A reply of b, or RESOURCE if building b ran out of memory or it exceeds
 * a frame. */
bool debug_send_buf(const DebugConn *c, int status, uint16_t cmd, const DebugBuf *b);

/* Reads one request into frame and decodes it into *req.  Returns 1 when
 * a request came, *status DEBUG_STATUS_OK or an error with its message in
 * err (the caller answers it and the connection stays usable); 0 when the
 * connection must close (the peer is gone, or a length that cannot be
 * skipped, already answered). */
int debug_read_request(const DebugConn *c, DebugBuf *frame, DebugRequest *req, int *status,
                       char *err, size_t err_len);
/* Answers a request: err if status is not OK, else out. */
bool debug_reply(const DebugConn *c, int status, uint16_t cmd, const char *err,
                 const DebugBuf *out);

/* Writes the INFO record of the info table at addr (debug_put_info_record
 * below, and what the stub's protocol version adds); false, writing
 * nothing, if addr is not a readable info table. */
typedef bool (*DebugInfoPut)(uint64_t addr, DebugBuf *out);

/* INFO's answer into out: the count, then put's record of each requested
 * address; BAD_ADDRESS, err naming the first address put cannot read. */
int debug_answer_info(const DebugRequest *req, DebugBuf *out, char *err, size_t err_len,
                      DebugInfoPut put);

/* A stub's answer to one decoded request: it fills out and returns a
 * status (err[err_len] saying what went wrong), or DEBUG_REPLIED /
 * DEBUG_REPLY_FAILED when it sent the reply itself (the SNAPSHOT stream). */
#define DEBUG_REPLIED (-1)
#define DEBUG_REPLY_FAILED (-2)
typedef int (*DebugHandler)(const DebugConn *c, const DebugRequest *req, DebugBuf *out,
                            char *err, size_t err_len);

/* Reads one request from c (frame: its buffer), answers it by handle and
 * sends the reply (out: its buffer).  False when the connection must
 * close: the peer is gone, a frame cannot be skipped, a reply failed. */
bool debug_serve_request(const DebugConn *c, DebugBuf *frame, DebugBuf *out,
                         DebugHandler handle);

/* What SNAPSHOT streams, from a paused heap. */
typedef struct {
    void (*put_blocks)(void *env, DebugBuf *out);   /* the BLOCKS reply */
    void (*put_roots)(void *env, DebugBuf *out);    /* the ROOTS reply */
    size_t n_blocks;
    /* Block i (of n_blocks, in BLOCKS order): its start, used bytes and
     * contents. */
    void (*block)(void *env, size_t i, uint64_t *start, uint64_t *used, const void **bytes);
    void *env;
} DebugSnapshotSource;

/* SNAPSHOT: the blocks, the contents of every block with any (several to
 * a frame, about 1 MiB each), the roots, then OK.  False when the peer is
 * gone. */
bool debug_send_snapshot(const DebugConn *c, const DebugSnapshotSource *s);

/* One block's BLOCK_CONTENTS record. */
void debug_put_block_contents(DebugBuf *out, uint64_t start, uint64_t used, const void *bytes);
/* A CLOSURES record's header; the n_words words follow. */
void debug_put_closure_header(DebugBuf *out, uint64_t addr, uint32_t n_words, bool in_heap);

/* An INFO record (version 1's fields; a version 2 stub appends its own). */
typedef struct {
    uint64_t addr;
    uint32_t type;
    uint16_t ptrs, nptrs;
    uint32_t arity;
    uint8_t source;              /* DEBUG_PROV_* */
    const char *name, *table_name, *closure_desc, *ty_desc, *label, *module, *src_file,
        *src_span;               /* NULL as "" */
} DebugInfoRecord;

void debug_put_info_record(DebugBuf *out, const DebugInfoRecord *r);

#endif /* STRATA_DEBUGSERVE_H */
