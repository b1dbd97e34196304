/*
 * wire/DebugRequest.h -- decoding and validating one debug request frame
 * (docs/debug-protocol.md).  Pure: no runtime state, no I/O, so it is the
 * fuzz target (testsuite/fuzz/fuzz_debug_request.c).  Whether an address
 * names a closure is checked later, against the heap, by DebugHeap.c.
 */
#ifndef STRATA_DEBUGREQUEST_H
#define STRATA_DEBUGREQUEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint16_t cmd;               /* DEBUG_CMD_* */
    uint32_t timeout_ms;        /* PAUSE: how long to wait; 0 = 10 s */
    uint32_t n_addrs;           /* CLOSURES, INFO: addresses in addrs */
    const uint8_t *addrs;       /* n_addrs little-endian u64, in the frame */
    uint64_t addr;              /* BLOCK_CONTENTS: the block's start */
} DebugRequest;

/* The i-th address of a CLOSURES or INFO request. */
uint64_t debug_request_addr(const DebugRequest *r, uint32_t i);

/* Decodes the bytes of a request frame after its length field (len bytes:
 * command, flags, payload).  Returns DEBUG_STATUS_OK, or an error status
 * with a message naming what was wrong in err. */
int debug_request_decode(const uint8_t *frame, size_t len, DebugRequest *req, char *err,
                         size_t err_len);

/* The name of a command (for messages), or NULL if unknown. */
const char *debug_command_name(uint16_t cmd);

#endif /* STRATA_DEBUGREQUEST_H */
