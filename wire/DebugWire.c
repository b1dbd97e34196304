/*
 * wire/DebugWire.c -- the debug protocol's byte encoding (see DebugWire.h
 * and docs/debug-protocol.md).  Explicit little-endian shifts, never a
 * memcpy of a struct, so the wire format does not depend on the host.
 */
#include "DebugWire.h"

#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"

/* ----------------------------------------------------------------------
 * Output buffer
 * ---------------------------------------------------------------------- */

void debug_buf_reset(DebugBuf *b)
{
    b->len = 0;
    b->oom = false;
}

void debug_buf_free(DebugBuf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

uint8_t *debug_buf_reserve(DebugBuf *b, size_t n)
{
    if (b->oom)
        return NULL;
    if (n > SIZE_MAX / 2 - b->len) {
        b->oom = true;
        return NULL;
    }
    if (GROW_ARRAY_RESERVE_MIN(b->data, b->cap, b->len + n, 256) != 0) {
        b->oom = true;
        return NULL;
    }
    uint8_t *p = b->data + b->len;
    b->len += n;
    return p;
}

static void put_le(DebugBuf *b, uint64_t v, unsigned n)
{
    uint8_t *p = debug_buf_reserve(b, n);
    if (p == NULL)
        return;
    for (unsigned i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void debug_buf_put_u8(DebugBuf *b, uint8_t v) { put_le(b, v, 1); }
void debug_buf_put_u16(DebugBuf *b, uint16_t v) { put_le(b, v, 2); }
void debug_buf_put_u32(DebugBuf *b, uint32_t v) { put_le(b, v, 4); }
void debug_buf_put_u64(DebugBuf *b, uint64_t v) { put_le(b, v, 8); }

void debug_buf_put_bytes(DebugBuf *b, const void *src, size_t n)
{
    uint8_t *p = debug_buf_reserve(b, n);
    if (p != NULL && n > 0)
        memcpy(p, src, n);
}

void debug_buf_put_str(DebugBuf *b, const char *s, size_t len)
{
    if (s == NULL)
        len = 0;
    if (len > UINT16_MAX)
        len = UINT16_MAX;
    debug_buf_put_u16(b, (uint16_t)len);
    debug_buf_put_bytes(b, s, len);
}

void debug_buf_set_u32(DebugBuf *b, size_t at, uint32_t v)
{
    if (b->oom || at + 4 > b->len)
        return;
    for (unsigned i = 0; i < 4; i++)
        b->data[at + i] = (uint8_t)(v >> (8 * i));
}

/* ----------------------------------------------------------------------
 * Input cursor
 * ---------------------------------------------------------------------- */

const uint8_t *debug_get_bytes(DebugCursor *c, size_t n)
{
    if (c->bad || c->left < n) {
        c->bad = true;
        return NULL;
    }
    const uint8_t *p = c->p;
    c->p += n;
    c->left -= n;
    return p;
}

static uint64_t get_le(DebugCursor *c, unsigned n)
{
    const uint8_t *p = debug_get_bytes(c, n);
    uint64_t v = 0;
    if (p == NULL)
        return 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint8_t debug_get_u8(DebugCursor *c) { return (uint8_t)get_le(c, 1); }
uint16_t debug_get_u16(DebugCursor *c) { return (uint16_t)get_le(c, 2); }
uint32_t debug_get_u32(DebugCursor *c) { return (uint32_t)get_le(c, 4); }
uint64_t debug_get_u64(DebugCursor *c) { return get_le(c, 8); }

char *debug_get_str(DebugCursor *c)
{
    uint16_t n = debug_get_u16(c);
    const uint8_t *p = debug_get_bytes(c, n);
    if (p == NULL)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (s == NULL) {
        c->bad = true;
        return NULL;
    }
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}
