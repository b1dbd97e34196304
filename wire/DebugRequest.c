/*
 * wire/DebugRequest.c -- the request decoder of the debug stubs (see
 * DebugRequest.h).  Every command has an exact payload size (or an exact
 * size given its count), so a frame of any other length is refused here,
 * before a handler runs.
 */
#include "DebugRequest.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "DebugWire.h"
#include "strata/DebugProtocol.h"

static const char *const command_names[] = {
    [DEBUG_CMD_VERSION] = "version",   [DEBUG_CMD_PAUSE] = "pause",
    [DEBUG_CMD_RESUME] = "resume",     [DEBUG_CMD_ROOTS] = "roots",
    [DEBUG_CMD_SAVED] = "saved",       [DEBUG_CMD_CLOSURES] = "closures",
    [DEBUG_CMD_INFO] = "info",         [DEBUG_CMD_BLOCKS] = "blocks",
    [DEBUG_CMD_BLOCK_CONTENTS] = "block-contents",
    [DEBUG_CMD_SNAPSHOT] = "snapshot", [DEBUG_CMD_NEW_ERA] = "new-era",
    [DEBUG_CMD_ALLOC_SITES] = "alloc-sites",
};

const char *debug_command_name(uint16_t cmd)
{
    if (cmd >= sizeof command_names / sizeof command_names[0])
        return NULL;
    return command_names[cmd];
}

uint64_t debug_request_addr(const DebugRequest *r, uint32_t i)
{
    return debug_load_u64(r->addrs + (size_t)i * 8);
}

static int fail(char *err, size_t err_len, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t err_len, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return status;
}

static int expect_payload(const char *name, size_t have, size_t want, char *err,
                          size_t err_len)
{
    if (have == want)
        return DEBUG_STATUS_OK;
    return fail(err, err_len, DEBUG_STATUS_BAD_LENGTH,
                "%s: payload has %zu bytes, expected %zu", name, have, want);
}

/* CLOSURES and INFO: u32 count, then count addresses. */
static int decode_addresses(const char *name, DebugCursor *c, DebugRequest *req, char *err,
                            size_t err_len)
{
    if (c->left < 4)
        return fail(err, err_len, DEBUG_STATUS_BAD_LENGTH,
                    "%s: payload has %zu bytes, expected at least 4 (the count)", name,
                    c->left);
    uint32_t n = debug_get_u32(c);
    if (n == 0 || n > DEBUG_MAX_BATCH)
        return fail(err, err_len, DEBUG_STATUS_BAD_ARGUMENT,
                    "%s: count is %u, expected 1 to %u", name, n, DEBUG_MAX_BATCH);
    if (c->left != (size_t)n * 8)
        return fail(err, err_len, DEBUG_STATUS_BAD_LENGTH,
                    "%s: %zu bytes of addresses for count %u, expected %zu", name, c->left, n,
                    (size_t)n * 8);
    req->n_addrs = n;
    req->addrs = c->p;
    return DEBUG_STATUS_OK;
}

int debug_request_decode(const uint8_t *frame, size_t len, DebugRequest *req, char *err,
                         size_t err_len)
{
    memset(req, 0, sizeof *req);
    if (err_len > 0)
        err[0] = '\0';
    if (len < 4 || len > DEBUG_REQUEST_MAX_BYTES)
        return fail(err, err_len, DEBUG_STATUS_BAD_LENGTH,
                    "request length is %zu bytes, expected 4 to %u", len,
                    DEBUG_REQUEST_MAX_BYTES);
    DebugCursor c = {frame, len, false};
    req->cmd = debug_get_u16(&c);
    uint16_t flags = debug_get_u16(&c);
    const char *name = debug_command_name(req->cmd);
    if (name == NULL)
        return fail(err, err_len, DEBUG_STATUS_UNKNOWN_COMMAND, "unknown command %u",
                    (unsigned)req->cmd);
    if (flags != 0)
        return fail(err, err_len, DEBUG_STATUS_BAD_ARGUMENT,
                    "%s: flags are 0x%x, expected 0", name, (unsigned)flags);
    switch (req->cmd) {
    case DEBUG_CMD_VERSION:
    case DEBUG_CMD_RESUME:
    case DEBUG_CMD_ROOTS:
    case DEBUG_CMD_SAVED:
    case DEBUG_CMD_BLOCKS:
    case DEBUG_CMD_SNAPSHOT:
    case DEBUG_CMD_NEW_ERA:
    case DEBUG_CMD_ALLOC_SITES:
        return expect_payload(name, c.left, 0, err, err_len);
    case DEBUG_CMD_PAUSE: {
        int st = expect_payload(name, c.left, 4, err, err_len);
        if (st != DEBUG_STATUS_OK)
            return st;
        req->timeout_ms = debug_get_u32(&c);
        if (req->timeout_ms > 3600u * 1000u)
            return fail(err, err_len, DEBUG_STATUS_BAD_ARGUMENT,
                        "pause: timeout is %u ms, expected at most 3600000", req->timeout_ms);
        return DEBUG_STATUS_OK;
    }
    case DEBUG_CMD_CLOSURES:
    case DEBUG_CMD_INFO:
        return decode_addresses(name, &c, req, err, err_len);
    case DEBUG_CMD_BLOCK_CONTENTS: {
        int st = expect_payload(name, c.left, 8, err, err_len);
        if (st != DEBUG_STATUS_OK)
            return st;
        req->addr = debug_get_u64(&c);
        return DEBUG_STATUS_OK;
    }
    default:
        return fail(err, err_len, DEBUG_STATUS_UNKNOWN_COMMAND, "unknown command %u",
                    (unsigned)req->cmd);
    }
}
