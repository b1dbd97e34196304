/*
 * strata/Ffi.h -- foreign calls in both directions, through libffi.
 *
 * C calling strata: rts_mkFunPtr(fun, "i32(ptr,ptr)") turns a function
 * closure into a plain C function pointer (an *adjustor*, as GHC calls
 * it) that any C code may call -- a qsort comparator, a callback
 * registered with a C library.  Each call boxes the C arguments as heap
 * values, applies the closure, evaluates the result and unboxes it.  The
 * closure stays alive until hs_free_fun_ptr.
 *
 * strata calling C: rts_dynamic_call(fn, "f64(f64,i32)", args, &result)
 * calls any C function with arguments taken from heap values and boxes
 * its result: what an interpreter running on strata uses for foreign calls.
 *
 * A signature is "result(arg,arg,...)" with the types
 *
 *     void                  result only: nothing returned
 *     i8 i16 i32 i64        signed integers, boxed as I# (rts_mkInt)
 *     u8 u16 u32 u64        unsigned integers, boxed as W# (rts_mkWord)
 *     f32 f64               float and double, boxed as F# and D#
 *     ptr                   an address, boxed as Ptr (rts_mkPtr)
 *     sptr                  a stable pointer: see below
 *
 * and the C names int (i32), uint (u32), long (i64), ulong (u64),
 * size_t (u64), float (f32) and double (f64).  "i32()" and "i32(void)"
 * take no arguments.  Spaces are allowed between tokens.
 *
 * A stable pointer (sptr) crosses as the object behind it: C code passes
 * a StgStablePtr and strata code sees the object; strata code gives an
 * object and C code receives a fresh stable pointer to it, which C code
 * then owns (freeStablePtr).
 *
 * Only the thread that called hs_init may use the runtime.  A call from
 * any other thread is refused with a message naming both threads: the
 * functions below return an error; a callback, which cannot, stops the
 * program with exit status 1.  docs/api-guide.md has a walk-through and
 * docs/design/ffi.md the design.
 */
#ifndef STRATA_FFI_H
#define STRATA_FFI_H

#include <stdint.h>

#include "strata/Closures.h"

/* A C function pointer of any type (GHC's HsFunPtr); cast it to the type
 * the signature describes before calling it. */
typedef void (*HsFunPtr)(void);

/* ----------------------------------------------------------------------
 * Callbacks: C function pointers made from closures
 * ---------------------------------------------------------------------- */

/* A C function pointer that applies fun to its arguments.  fun (it is
 * evaluated first) must be a function closure whose arity is the number
 * of arguments in signature.  Returns NULL, after a message naming the
 * problem, for a bad signature, an arity mismatch, a closure that is not a
 * function, a call from a thread that does not hold the runtime, or when
 * libffi cannot make a closure.  With a void result, what fun returns is
 * ignored (not evaluated). */
STRATA_API HsFunPtr rts_mkFunPtr(StgClosure *fun, const char *signature);

/* Frees a function pointer made by rts_mkFunPtr and lets its closure go.
 * NULL is ignored; a pointer that is not live (never made, or already
 * freed) is reported and ignored.  May be called from inside the callback
 * itself: the memory is then released once the call has returned. */
STRATA_API void hs_free_fun_ptr(HsFunPtr fp);

/* The same, under the name Haskell's Foreign.Ptr uses. */
STRATA_API void freeHaskellFunctionPtr(void *ptr);

/* ----------------------------------------------------------------------
 * Dynamic calls: calling C from heap values
 * ---------------------------------------------------------------------- */

/* What rts_dynamic_call returns. */
typedef enum {
    STRATA_FFI_OK = 0,
    STRATA_FFI_BAD_SIGNATURE = 1,  /* the signature does not parse */
    STRATA_FFI_BAD_ARGUMENT = 2,   /* NULL function, or an argument of the wrong kind */
    STRATA_FFI_WRONG_THREAD = 3,   /* the caller does not hold the runtime */
    STRATA_FFI_NOT_RUNNING = 4,    /* before hs_init or after hs_exit */
    STRATA_FFI_BAD_RESULT = 5,     /* an sptr result that is no live stable pointer */
} StrataFfiStatus;

/* Calls fn as signature describes, with args[0 .. n-1] (rooted slots, as
 * for strata_apply; each is evaluated first) as its arguments, and stores
 * the boxed result in *result (a rooted slot; not written for a void
 * result, when result may be NULL).  An integer argument may be I#, W# or
 * any constructor of no pointers and at least one word (its first word is
 * used); f32/f64 need F# or D#; ptr takes a Ptr, a one-word constructor,
 * or a byte array that never moves (pinned, large or static: its payload
 * is passed); sptr takes any object.  fn may call back into strata
 * through function pointers made by rts_mkFunPtr, and the collector may
 * run during the call.  Returns STRATA_FFI_OK, or an error after a message
 * naming the problem (nothing is called then, except for
 * STRATA_FFI_BAD_RESULT: the call was made, but returned as sptr something
 * that is not a live stable pointer, and *result is not written). */
STRATA_API StrataFfiStatus rts_dynamic_call(HsFunPtr fn, const char *signature,
                                            StgClosure **args, StgClosure **result);

/* ----------------------------------------------------------------------
 * Boxes: heap values for C numbers and addresses (GHC's RtsAPI names)
 * ---------------------------------------------------------------------- */

/* Each allocates (so it may run the collector). */
STRATA_API StgClosure *rts_mkInt(int64_t i);      /* I# */
STRATA_API StgClosure *rts_mkWord(uint64_t w);    /* W# */
STRATA_API StgClosure *rts_mkDouble(double d);    /* D# */
STRATA_API StgClosure *rts_mkFloat(float f);      /* F# */
STRATA_API StgClosure *rts_mkPtr(void *p);        /* Ptr */

/* Each evaluates c and reads it back.  rts_getInt/rts_getWord take I#, W#
 * or any constructor of no pointers and at least one word; rts_getDouble
 * and rts_getFloat take D# or F#; rts_getPtr takes Ptr or a one-word
 * constructor.  Anything else is reported, naming what c is, and the
 * program stops with exit status 1 (there is no value to return). */
STRATA_API int64_t rts_getInt(StgClosure *c);
STRATA_API uint64_t rts_getWord(StgClosure *c);
STRATA_API double rts_getDouble(StgClosure *c);
STRATA_API float rts_getFloat(StgClosure *c);
STRATA_API void *rts_getPtr(StgClosure *c);

/* The boxes' info tables (CONSTR_0_1: one non-pointer word). */
STRATA_API extern const StgInfoTable stg_Int_info;     /* "I#": int64_t */
STRATA_API extern const StgInfoTable stg_Word_info;    /* "W#": uint64_t */
STRATA_API extern const StgInfoTable stg_Double_info;  /* "D#": double's bits */
STRATA_API extern const StgInfoTable stg_Float_info;   /* "F#": float's bits, low half */
STRATA_API extern const StgInfoTable stg_Ptr_info;     /* "Ptr": an address */

#endif /* STRATA_FFI_H */
