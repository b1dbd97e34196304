/*
 * wire/DebugServe.c -- the debug stubs' shared half of serving a client
 * (DebugServe.h): frames, one request read and decoded, the reply, the
 * SNAPSHOT stream and the records that two replies and snapshots share.
 */
#include "DebugServe.h"

#include <stdio.h>
#include <string.h>

#include "strata/DebugProtocol.h"

bool debug_send_frame(const DebugConn *c, int status, uint16_t cmd, const void *payload,
                      size_t len)
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
    return c->write(c->env, h, sizeof h) && c->write(c->env, payload, len);
}

bool debug_send_error(const DebugConn *c, int status, uint16_t cmd, const char *msg)
{
    return debug_send_frame(c, status, cmd, msg, strlen(msg));
}

bool debug_serve_request(const DebugConn *c, DebugBuf *frame, DebugBuf *out,
                         DebugHandler handle)
{
    DebugRequest req;
    char err[512];
    int st;
    if (!debug_read_request(c, frame, &req, &st, err, sizeof err))
        return false;
    debug_buf_reset(out);
    if (st == DEBUG_STATUS_OK)
        st = handle(c, &req, out, err, sizeof err);
    if (st == DEBUG_REPLIED || st == DEBUG_REPLY_FAILED)
        return st == DEBUG_REPLIED;
    return debug_reply(c, st, req.cmd, err, out);
}

int debug_answer_info(const DebugRequest *req, DebugBuf *out, char *err, size_t err_len,
                      DebugInfoPut put)
{
    debug_buf_put_u32(out, req->n_addrs);
    for (uint32_t i = 0; i < req->n_addrs; i++) {
        uint64_t addr = debug_request_addr(req, i);
        if (!put(addr, out)) {
            snprintf(err, err_len, "info table address 0x%llx is not a readable info table",
                     (unsigned long long)addr);
            return DEBUG_STATUS_BAD_ADDRESS;
        }
    }
    return DEBUG_STATUS_OK;
}

int debug_not_paused(uint16_t cmd, char *err, size_t err_len)
{
    if (cmd == DEBUG_CMD_RESUME)
        snprintf(err, err_len, "resume: the program is not paused");
    else
        snprintf(err, err_len, "%s: the program is not paused (send pause first)",
                 debug_command_name(cmd));
    return DEBUG_STATUS_NOT_PAUSED;
}

bool debug_admit(const DebugConn *c, const char *refused, bool busy)
{
    if (refused[0] == '\0' && !busy)
        return true;
    if (refused[0] != '\0')
        debug_send_error(c, DEBUG_STATUS_REFUSED, 0, refused);
    else
        debug_send_error(c, DEBUG_STATUS_BUSY, 0,
                         "busy: another client is connected (one at a time)");
    c->close(c->env);
    return false;
}

bool debug_send_buf(const DebugConn *c, int status, uint16_t cmd, const DebugBuf *b)
{
    if (b->oom || b->len > (size_t)UINT32_MAX - 4)
        return debug_send_error(c, DEBUG_STATUS_RESOURCE, cmd,
                                "out of memory (or over 4 GiB) building the response");
    return debug_send_frame(c, status, cmd, b->data, b->len);
}

int debug_read_request(const DebugConn *c, DebugBuf *frame, DebugRequest *req, int *status,
                       char *err, size_t err_len)
{
    uint8_t lenb[4];
    if (!c->read(c->env, lenb, 4))
        return 0;
    uint32_t len = debug_load_u32(lenb);
    if (len < 4 || len > DEBUG_REQUEST_MAX_BYTES) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 "request length is %u bytes, expected 4 to %u; closing the connection", len,
                 DEBUG_REQUEST_MAX_BYTES);
        debug_send_error(c, DEBUG_STATUS_BAD_LENGTH, 0, msg);
        return 0;
    }
    debug_buf_reset(frame);
    uint8_t *p = debug_buf_reserve(frame, len);
    if (p == NULL) {
        debug_send_error(c, DEBUG_STATUS_RESOURCE, 0, "out of memory reading the request");
        return 0;
    }
    if (!c->read(c->env, p, len))
        return 0;
    *status = debug_request_decode(p, len, req, err, err_len);
    return 1;
}

bool debug_reply(const DebugConn *c, int status, uint16_t cmd, const char *err,
                 const DebugBuf *out)
{
    if (status != DEBUG_STATUS_OK)
        return debug_send_error(c, status, cmd, err);
    return debug_send_buf(c, DEBUG_STATUS_OK, cmd, out);
}

void debug_put_block_contents(DebugBuf *out, uint64_t start, uint64_t used, const void *bytes)
{
    debug_buf_put_u64(out, start);
    debug_buf_put_u64(out, used);
    debug_buf_put_bytes(out, bytes, used);
}

/* A snapshot frame is sent once it holds this much. */
#define SNAPSHOT_FRAME_BYTES ((size_t)1 << 20)

/* The stream item of one reply (BLOCKS, ROOTS). */
static bool send_item(const DebugConn *c, DebugBuf *b, uint8_t item,
                      void (*put)(void *env, DebugBuf *out), void *env)
{
    debug_buf_reset(b);
    debug_buf_put_u8(b, item);
    put(env, b);
    return debug_send_buf(c, DEBUG_STATUS_MORE, DEBUG_CMD_SNAPSHOT, b);
}

bool debug_send_snapshot(const DebugConn *c, const DebugSnapshotSource *s)
{
    DebugBuf b = {0};
    bool ok = send_item(c, &b, DEBUG_ITEM_BLOCKS, s->put_blocks, s->env);
    /* Several blocks per frame, up to about a megabyte: a frame per 4 KiB
     * block would cost two system calls a block on each side. */
    debug_buf_reset(&b);
    for (size_t i = 0; ok && i < s->n_blocks; i++) {
        uint64_t start, used;
        const void *bytes;
        s->block(s->env, i, &start, &used, &bytes);
        if (used == 0)
            continue;
        if (b.len == 0)
            debug_buf_put_u8(&b, DEBUG_ITEM_BLOCK_CONTENTS);
        debug_put_block_contents(&b, start, used, bytes);
        if (b.len >= SNAPSHOT_FRAME_BYTES) {
            ok = debug_send_buf(c, DEBUG_STATUS_MORE, DEBUG_CMD_SNAPSHOT, &b);
            debug_buf_reset(&b);
        }
    }
    if (ok && b.len > 0)
        ok = debug_send_buf(c, DEBUG_STATUS_MORE, DEBUG_CMD_SNAPSHOT, &b);
    if (ok)
        ok = send_item(c, &b, DEBUG_ITEM_ROOTS, s->put_roots, s->env);
    if (ok) {
        debug_buf_reset(&b);
        ok = debug_send_buf(c, DEBUG_STATUS_OK, DEBUG_CMD_SNAPSHOT, &b);
    }
    debug_buf_free(&b);
    return ok;
}

void debug_put_closure_header(DebugBuf *out, uint64_t addr, uint32_t n_words, bool in_heap)
{
    debug_buf_put_u64(out, addr);
    debug_buf_put_u32(out, n_words);
    debug_buf_put_u8(out, in_heap ? 1 : 2);
    debug_buf_put_u8(out, 0);
    debug_buf_put_u16(out, 0);
}

static void put_str(DebugBuf *out, const char *s)
{
    debug_buf_put_str(out, s, s != NULL ? strlen(s) : 0);
}

void debug_put_info_record(DebugBuf *out, const DebugInfoRecord *r)
{
    debug_buf_put_u64(out, r->addr);
    debug_buf_put_u32(out, r->type);
    debug_buf_put_u16(out, r->ptrs);
    debug_buf_put_u16(out, r->nptrs);
    debug_buf_put_u32(out, r->arity);
    debug_buf_put_u8(out, r->source);
    put_str(out, r->name);
    put_str(out, r->table_name);
    put_str(out, r->closure_desc);
    put_str(out, r->ty_desc);
    put_str(out, r->label);
    put_str(out, r->module);
    put_str(out, r->src_file);
    put_str(out, r->src_span);
}
