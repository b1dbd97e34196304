/*
 * testsuite/fuzz/fuzz_control.c -- libFuzzer entry point for the control
 * protocol's decoder (wire/ControlWire.c).  Each input is what a client
 * wrote into the eventlog socket, fed in pieces whose sizes the input's
 * first byte chooses.  The decoder must account for every byte (in a
 * decoded message or skipped), keep its state consistent, and decode the
 * same messages however the input is split.  Built and run by fuzz.sh;
 * replayed over testsuite/fuzz/corpus/control by make check.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ControlWire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Decodes data in pieces of at most step bytes; returns a checksum of
 * the messages and checks the byte accounting. */
static uint64_t decode(const uint8_t *data, size_t size, size_t step, uint64_t *n_messages)
{
    ControlParser p;
    control_parser_init(&p);
    uint64_t sum = 0, message_bytes = 0;
    size_t off = 0;
    while (off < size) {
        size_t piece = size - off < step ? size - off : step;
        size_t used;
        ControlCommand c;
        if (control_parser_next(&p, data + off, piece, &used, &c)) {
            if (c.ns[c.ns_len] != '\0')
                abort();
            sum = sum * 31 + c.command + c.ns_len;
            for (size_t i = 0; i < c.ns_len; i++)
                sum = sum * 131 + (uint8_t)c.ns[i];
            message_bytes += 4 + 1 + 1 + c.ns_len + 1u;
        }
        if (used == 0 || used > piece || !control_parser_check(&p))
            abort();
        off += used;
    }
    control_parser_finish(&p);
    if (message_bytes + p.skipped_bytes != size || p.messages * 7 > size)
        abort();
    *n_messages = p.messages;
    return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy so ASan sees reads past the end. */
    uint8_t *copy = malloc(size ? size : 1);
    if (copy == NULL)
        return 0;
    memcpy(copy, data, size);
    size_t step = size > 0 ? (size_t)copy[0] % 17 + 1 : 1;
    uint64_t n1, n2;
    uint64_t whole = decode(copy, size, size ? size : 1, &n1);
    uint64_t split = decode(copy, size, step, &n2);
    if (whole != split || n1 != n2)
        abort();
    free(copy);
    return 0;
}
