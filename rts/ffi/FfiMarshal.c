/*
 * rts/ffi/FfiMarshal.c -- boxes for C values (I#, W#, D#, F#, Ptr), the
 * public rts_mk* / rts_get* calls, and the boxing and unboxing of
 * foreign-call arguments and results (see FfiMarshal.h).  Relies on
 * strata_eval for the getters, on the stable pointer table for sptr, and
 * on the block descriptors to tell a byte array that never moves.
 *
 * Note [What a heap value may stand for]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A C integer may be given as I#, W#, or any constructor of no pointers
 * and at least one word (the program's own Int, say): its first word is
 * the value, narrowed to the C type as a C cast would.  Floating-point
 * values must come as D# or F#, because reading an integer's bits as a
 * double is never what was meant; one converts to the other as C does.
 * An address may come as Ptr, as a one-word constructor of the program's
 * own, or as a byte array that cannot move while C holds its address
 * (pinned, large or static: .inv.unmoving-address).  Our own boxes of the
 * wrong kind (a D# for an integer, an I# for an address) are rejected,
 * naming both kinds.
 */
#include "FfiMarshal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "MBlock.h"
#include "Messages.h"
#include "OwnerThread.h"
#include "Shutdown.h"
#include "strata/Alloc.h"
#include "strata/Api.h"
#include "strata/Block.h"
#include "strata/Ffi.h"
#include "strata/Roots.h"

STRATA_CONSTR_INFO(stg_Int_info, "I#", 0, 1);
STRATA_CONSTR_INFO(stg_Word_info, "W#", 0, 1);
STRATA_CONSTR_INFO(stg_Double_info, "D#", 0, 1);
STRATA_CONSTR_INFO(stg_Float_info, "F#", 0, 1);
STRATA_CONSTR_INFO(stg_Ptr_info, "Ptr", 0, 1);

/* ----------------------------------------------------------------------
 * Boxes
 * ---------------------------------------------------------------------- */

static StgClosure *box_word(const StgInfoTable *info, StgWord w)
{
    StgClosure *c = strata_alloc_constr(info);
    STRATA_WORD(c, 0) = w;
    return c;
}

StgClosure *rts_mkInt(int64_t i)
{
    return box_word(&stg_Int_info, (StgWord)i);
}

StgClosure *rts_mkWord(uint64_t w)
{
    return box_word(&stg_Word_info, (StgWord)w);
}

StgClosure *rts_mkDouble(double d)
{
    StgWord w;
    memcpy(&w, &d, sizeof d);
    return box_word(&stg_Double_info, w);
}

StgClosure *rts_mkFloat(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof f);
    return box_word(&stg_Float_info, (StgWord)bits);
}

StgClosure *rts_mkPtr(void *p)
{
    return box_word(&stg_Ptr_info, (StgWord)p);
}

static double double_of_box(StgClosure *c)
{
    double d;
    StgWord w = STRATA_WORD(c, 0);
    memcpy(&d, &w, sizeof d);
    return d;
}

static float float_of_box(StgClosure *c)
{
    float f;
    uint32_t bits = (uint32_t)STRATA_WORD(c, 0);
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* ----------------------------------------------------------------------
 * Unboxing (Note [What a heap value may stand for])
 * ---------------------------------------------------------------------- */

static bool is_constr_type(StgHalfWord t)
{
    return t >= CONSTR && t <= CONSTR_NOCAF;
}

/* A constructor whose first payload word is a non-pointer. */
static bool is_word_constr(const StgInfoTable *info)
{
    return is_constr_type(info->type) && info->ptrs == 0 && info->nptrs >= 1;
}

static bool is_float_box(const StgInfoTable *info)
{
    return info == &stg_Double_info || info == &stg_Float_info;
}

static bool is_integer_box(const StgInfoTable *info)
{
    return info == &stg_Int_info || info == &stg_Word_info;
}

/* A byte array whose payload keeps its address for the whole call. */
static bool is_unmoving_bytes(StgClosure *c)
{
    if (c->info != &stg_ARR_WORDS_info)
        return false;
    return !heap_alloced(c) || (Bdescr(c)->flags & (BF_PINNED | BF_LARGE)) != 0;
}

static bool reject(char *why, size_t why_bytes, const char *expected, StgClosure *c)
{
    const StgInfoTable *info = c->info;
    const char *extra = info == &stg_ARR_WORDS_info
                            ? "; an unpinned byte array may move during the call: allocate it "
                              "with strata_alloc_pinned_bytes"
                            : "";
    snprintf(why, why_bytes, "expected %s, got %s (closure type %s)%s", expected,
             info->name != NULL ? info->name : "an unnamed closure",
             strata_closure_type_name(info->type), extra);
    return false;
}

static void store_integer(SigType t, StgWord w, FfiValue *out)
{
    switch (t) {
    case SIG_I8: out->i8 = (int8_t)w; break;
    case SIG_I16: out->i16 = (int16_t)w; break;
    case SIG_I32: out->i32 = (int32_t)w; break;
    case SIG_I64: out->i64 = (int64_t)w; break;
    case SIG_U8: out->u8 = (uint8_t)w; break;
    case SIG_U16: out->u16 = (uint16_t)w; break;
    case SIG_U32: out->u32 = (uint32_t)w; break;
    case SIG_U64: out->u64 = (uint64_t)w; break;
    default: rts_panic("store_integer: %s is not an integer type", ffi_signature_type_name(t));
    }
}

bool ffi_unbox(SigType t, StgClosure *c, FfiValue *out, char *why, size_t why_bytes)
{
    const StgInfoTable *info = c->info;
    /* The common case first: the type's own box. */
    if (t == SIG_I64 && info == &stg_Int_info) {
        out->i64 = (int64_t)STRATA_WORD(c, 0);
        return true;
    }
    switch (t) {
    case SIG_I8: case SIG_I16: case SIG_I32: case SIG_I64:
    case SIG_U8: case SIG_U16: case SIG_U32: case SIG_U64:
        if (!is_word_constr(info) || is_float_box(info) || info == &stg_Ptr_info)
            return reject(why, why_bytes, "an integer (I#, W#, or a constructor of one word)",
                          c);
        store_integer(t, STRATA_WORD(c, 0), out);
        return true;
    case SIG_F32:
    case SIG_F64:
        if (!is_float_box(info))
            return reject(why, why_bytes, "a floating-point number (D# or F#)", c);
        if (t == SIG_F64)
            out->f64 = info == &stg_Double_info ? double_of_box(c) : (double)float_of_box(c);
        else
            out->f32 = info == &stg_Float_info ? float_of_box(c) : (float)double_of_box(c);
        return true;
    case SIG_PTR:
        if (is_unmoving_bytes(c)) {
            out->ptr = STRATA_BYTES_PTR(c);
            return true;
        }
        if (!is_word_constr(info) || is_float_box(info) || is_integer_box(info))
            return reject(why, why_bytes,
                          "an address (Ptr, a constructor of one word, or a pinned byte array)",
                          c);
        out->ptr = (void *)STRATA_WORD(c, 0);
        return true;
    case SIG_VOID:
    case SIG_SPTR:
        break;
    }
    rts_panic("ffi_unbox: type %s has no unboxing", ffi_signature_type_name(t));
}

/* ----------------------------------------------------------------------
 * Boxing
 * ---------------------------------------------------------------------- */

StgClosure *ffi_box(SigType t, const void *value)
{
    switch (t) {
    case SIG_I8: return rts_mkInt(*(const int8_t *)value);
    case SIG_I16: return rts_mkInt(*(const int16_t *)value);
    case SIG_I32: return rts_mkInt(*(const int32_t *)value);
    case SIG_I64: return rts_mkInt(*(const int64_t *)value);
    case SIG_U8: return rts_mkWord(*(const uint8_t *)value);
    case SIG_U16: return rts_mkWord(*(const uint16_t *)value);
    case SIG_U32: return rts_mkWord(*(const uint32_t *)value);
    case SIG_U64: return rts_mkWord(*(const uint64_t *)value);
    case SIG_F32: return rts_mkFloat(*(const float *)value);
    case SIG_F64: return rts_mkDouble(*(const double *)value);
    case SIG_PTR: return rts_mkPtr(*(void *const *)value);
    case SIG_SPTR: return deRefStablePtr(*(const StgStablePtr *)value);
    case SIG_VOID: break;
    }
    rts_panic("ffi_box: type %s has no box", ffi_signature_type_name(t));
}

/* ----------------------------------------------------------------------
 * libffi's result widening
 * ---------------------------------------------------------------------- */

void ffi_value_to_return(SigType t, FfiValue *v)
{
    switch (t) {
    case SIG_I8: v->ret_s = v->i8; break;
    case SIG_I16: v->ret_s = v->i16; break;
    case SIG_I32: v->ret_s = v->i32; break;
    case SIG_U8: v->ret_u = v->u8; break;
    case SIG_U16: v->ret_u = v->u16; break;
    case SIG_U32: v->ret_u = v->u32; break;
    default: break;   /* word-sized, floating or void: stored as they are */
    }
}

void ffi_value_from_return(SigType t, FfiValue *v)
{
    switch (t) {
    case SIG_I8: v->i8 = (int8_t)v->ret_s; break;
    case SIG_I16: v->i16 = (int16_t)v->ret_s; break;
    case SIG_I32: v->i32 = (int32_t)v->ret_s; break;
    case SIG_U8: v->u8 = (uint8_t)v->ret_u; break;
    case SIG_U16: v->u16 = (uint16_t)v->ret_u; break;
    case SIG_U32: v->u32 = (uint32_t)v->ret_u; break;
    default: break;
    }
}

/* ----------------------------------------------------------------------
 * The public getters
 * ---------------------------------------------------------------------- */

/* There is no value to return for a wrong object: stop as <<loop>> does. */
_Noreturn static void getter_misuse(const char *who, const char *why)
{
    rts_error("%s: %s", who, why);
    if (owner_thread_is_current())
        rts_shutdown_and_exit(1);
    exit(1);
}

static FfiValue get_value(const char *who, SigType t, StgClosure *c)
{
    if (c == NULL)
        getter_misuse(who, "NULL closure");
    c = strata_eval(c);
    FfiValue v;
    char why[256];
    if (!ffi_unbox(t, c, &v, why, sizeof why))
        getter_misuse(who, why);
    return v;
}

/* Each getter reads its own box at once (a callback's arguments are
 * exactly these), and takes the general path for anything else. */
int64_t rts_getInt(StgClosure *c)
{
    if (STRATA_LIKELY(c != NULL && is_integer_box(c->info)))
        return (int64_t)STRATA_WORD(c, 0);
    return get_value("rts_getInt", SIG_I64, c).i64;
}

uint64_t rts_getWord(StgClosure *c)
{
    if (STRATA_LIKELY(c != NULL && is_integer_box(c->info)))
        return (uint64_t)STRATA_WORD(c, 0);
    return get_value("rts_getWord", SIG_U64, c).u64;
}

double rts_getDouble(StgClosure *c)
{
    if (STRATA_LIKELY(c != NULL && c->info == &stg_Double_info))
        return double_of_box(c);
    return get_value("rts_getDouble", SIG_F64, c).f64;
}

float rts_getFloat(StgClosure *c)
{
    if (STRATA_LIKELY(c != NULL && c->info == &stg_Float_info))
        return float_of_box(c);
    return get_value("rts_getFloat", SIG_F32, c).f32;
}

void *rts_getPtr(StgClosure *c)
{
    if (STRATA_LIKELY(c != NULL && c->info == &stg_Ptr_info))
        return (void *)STRATA_WORD(c, 0);
    return get_value("rts_getPtr", SIG_PTR, c).ptr;
}
