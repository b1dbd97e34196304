/*
 * testsuite/fuzz/fuzz_debug_request.c -- libFuzzer entry point for the
 * debug stub's request decoder (wire/DebugRequest.c).  Each input is one
 * request frame (after the length field).  The decoder must classify it
 * without reading outside it: a decoded CLOSURES/INFO request's addresses
 * lie inside the input, an error carries a non-empty message, and the
 * status is one the protocol defines.  Built and run by fuzz.sh;
 * replayed over testsuite/fuzz/corpus/debug-request by make check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "DebugRequest.h"
#include "strata/Debug.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy so ASan sees reads past the end of the frame. */
    uint8_t *frame = malloc(size ? size : 1);
    if (frame == NULL)
        return 0;
    memcpy(frame, data, size);
    DebugRequest req;
    char err[256];
    int st = debug_request_decode(frame, size, &req, err, sizeof err);
    if (st == DEBUG_STATUS_OK) {
        if (debug_command_name(req.cmd) == NULL)
            abort();
        if (req.cmd == DEBUG_CMD_CLOSURES || req.cmd == DEBUG_CMD_INFO) {
            if (req.n_addrs == 0 || req.n_addrs > DEBUG_MAX_BATCH)
                abort();
            if (req.addrs < frame || req.addrs + (size_t)req.n_addrs * 8 != frame + size)
                abort();
            uint64_t sum = 0;
            for (uint32_t i = 0; i < req.n_addrs; i++)
                sum += debug_request_addr(&req, i);
            if (sum == 1)   /* keep the loop */
                err[0] = 0;
        }
    } else {
        if (st != DEBUG_STATUS_BAD_LENGTH && st != DEBUG_STATUS_UNKNOWN_COMMAND &&
            st != DEBUG_STATUS_BAD_ARGUMENT)
            abort();
        if (err[0] == '\0' || memchr(err, '\0', sizeof err) == NULL)
            abort();
    }
    free(frame);
    return 0;
}
