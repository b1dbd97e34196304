/*
 * rts/ffi/FfiMarshal.h -- moving values between C and the heap for foreign
 * calls: boxing a C value of a signature type as a heap object, and
 * unboxing an evaluated heap object as a C value.  The boxes and which
 * objects each type accepts are described in includes/strata/Ffi.h.
 */
#ifndef STRATA_FFIMARSHAL_H
#define STRATA_FFIMARSHAL_H

#include <ffi.h>
#include <stdbool.h>
#include <stddef.h>

#include "FfiSignature.h"
#include "strata/Closures.h"

/* A C value of any signature type, as libffi reads and writes it.
 * Integer results narrower than a word travel widened to ret_u/ret_s. */
typedef union {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f32;
    double f64;
    void *ptr;
    ffi_arg ret_u;
    ffi_sarg ret_s;
} FfiValue;

/* C to heap: boxes the value of type t at *value (exactly that C type).
 * For SIG_SPTR the result is the object the stable pointer holds.  May
 * allocate, so may run the collector.  t is not SIG_VOID. */
StgClosure *ffi_box(SigType t, const void *value);

/* Heap to C: reads the evaluated object c as type t into *out (the member
 * of that type).  Returns false, with a message naming what c is to why,
 * if c cannot be a t.  SIG_SPTR is not handled here (it needs a fresh
 * stable pointer, not a reading): callers call getStablePtr.  Never
 * allocates. */
bool ffi_unbox(SigType t, StgClosure *c, FfiValue *out, char *why, size_t why_bytes);

/* libffi's widening of integer results: a callback stores its result with
 * ffi_value_to_return, and a call's result is read with
 * ffi_value_from_return, both in place. */
void ffi_value_to_return(SigType t, FfiValue *v);
void ffi_value_from_return(SigType t, FfiValue *v);

#endif /* STRATA_FFIMARSHAL_H */
