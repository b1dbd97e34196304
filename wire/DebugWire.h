/*
 * wire/DebugWire.h -- little-endian encoding for the debug protocol: a
 * growable output buffer and bounds-checked readers.  Used by the stub and,
 * compiled into it, by the client library (utils/debug-client).  Pure C, no
 * runtime state, so the request decoder built on it can be fuzzed alone.
 */
#ifndef STRATA_DEBUGWIRE_H
#define STRATA_DEBUGWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer.  A failed allocation sets oom and makes every
 * later put a no-op, so callers check once at the end. */
typedef struct {
    uint8_t *data;
    size_t len;
    size_t cap;
    bool oom;
} DebugBuf;

void debug_buf_reset(DebugBuf *b);          /* len = 0, keeps the memory */
void debug_buf_free(DebugBuf *b);
uint8_t *debug_buf_reserve(DebugBuf *b, size_t n);   /* n bytes at the end */
void debug_buf_put_u8(DebugBuf *b, uint8_t v);
void debug_buf_put_u16(DebugBuf *b, uint16_t v);
void debug_buf_put_u32(DebugBuf *b, uint32_t v);
void debug_buf_put_u64(DebugBuf *b, uint64_t v);
void debug_buf_put_bytes(DebugBuf *b, const void *p, size_t n);
/* A string: u16 length, then the bytes (cut at 65535). */
void debug_buf_put_str(DebugBuf *b, const char *s, size_t len);
void debug_buf_set_u32(DebugBuf *b, size_t at, uint32_t v);

/* A cursor over received bytes.  Reading past the end sets bad and yields
 * zeroes, so callers check once at the end. */
typedef struct {
    const uint8_t *p;
    size_t left;
    bool bad;
} DebugCursor;

uint8_t debug_get_u8(DebugCursor *c);
uint16_t debug_get_u16(DebugCursor *c);
uint32_t debug_get_u32(DebugCursor *c);
uint64_t debug_get_u64(DebugCursor *c);
/* n bytes in place (NULL and bad if fewer are left). */
const uint8_t *debug_get_bytes(DebugCursor *c, size_t n);
/* A u16-length string copied into a fresh NUL-terminated malloc'd string
 * (NULL and bad on a short buffer or no memory). */
char *debug_get_str(DebugCursor *c);

static inline uint32_t debug_load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t debug_load_u64(const uint8_t *p)
{
    return (uint64_t)debug_load_u32(p) | (uint64_t)debug_load_u32(p + 4) << 32;
}

#endif /* STRATA_DEBUGWIRE_H */
