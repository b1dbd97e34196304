/*
 * reader/EventDecode.h -- the fields of the event types the tools need,
 * decoded from a payload the reader has framed (Note [Decoding known
 * events] in EventDecode.c), and the check that their strings are UTF-8.
 * The whole API of EventDecode.c; big-endian loads for both it and the
 * reader's framing.
 */
#ifndef STRATA_EVENT_DECODE_H
#define STRATA_EVENT_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "EvrEvent.h"

static inline uint16_t evr_be16(const uint8_t *p)
{
    return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static inline uint32_t evr_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t evr_be64(const uint8_t *p)
{
    return (uint64_t)evr_be32(p) << 32 | evr_be32(p + 4);
}

/* 1 if the reader decodes fields of this event type. */
int evr_decodes_type(uint16_t id);

/* Decodes ev->payload (ev->payload_bytes of it; variable: the type's size
 * is variable) into ev->u, and sets ev->decoded, or ev->malformed with
 * what was wrong.  For the reader (evr_next). */
void evr_decode(EvrEvent *ev, int variable);

/* Frame number k (0 = innermost) of an ALLOC_STACK event;
 * k < ev->u.alloc_stack.depth. */
uint32_t evr_alloc_stack_frame(const EvrEvent *ev, size_t k);

/* Cost centre id k (0 = innermost) of a HEAP_PROF_SAMPLE_COST_CENTRE
 * event's stack; k < ev->u.sample_cc.depth. */
uint32_t evr_ccs_id(const EvrEvent *ev, size_t k);

/* 1 if a string field of ev is not valid UTF-8 (overlong forms, surrogates
 * and code points above U+10FFFF count as invalid, as for ghc-events,
 * which rejects the whole log at such an event); *bad then describes the
 * first one.  0 if all are valid, or ev has no decoded fields.  See Note
 * [Strings are UTF-8] in EventDecode.c. */
int evr_find_invalid_utf8(const EvrEvent *ev, EvrBadUtf8 *bad);

#endif /* STRATA_EVENT_DECODE_H */
