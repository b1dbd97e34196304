/*
 * rts/ffi/FfiCall.c -- rts_dynamic_call: calling a C function with arguments
 * taken from heap values, through libffi's ffi_call
 * (includes/strata/Ffi.h).  Relies on FfiSignature.c and FfiMarshal.c for
 * the types and on OwnerThread.c to refuse foreign threads.
 *
 * The call goes in three phases so that no heap pointer is held in a C
 * variable across an allocation: evaluate every argument into a root
 * frame (evaluation runs thunks, which allocate); unbox them all, which
 * allocates nothing and may still fail with a message, so that nothing
 * has been called or handed out when an argument is rejected; only then
 * make the stable pointers for sptr arguments and call.  The callee may
 * call back into strata and collect; the values it was given are plain C
 * values by then, except addresses of byte arrays, which is why those
 * must be arrays that never move (.inv.dyncall-phases, .inv.unmoving-address
 * in docs/design/ffi.md).
 *
 * Note [The signature cache]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An interpreter calls the same few foreign functions with the same
 * signature strings over and over, and parsing plus ffi_prep_cif was most
 * of the cost of a call (bench/ffi).  So parsed signatures are kept in a
 * small direct-mapped cache keyed by the text (short texts only; longer
 * ones are parsed every time).  A call may call back into strata, which
 * may make another dynamic call whose text maps to the same slot while the
 * outer call still uses the slot's call interface; a slot with a call in
 * progress is therefore never replaced -- the inner call parses into its
 * own frame instead (.inv.busy-slot).  Only the owning thread gets here,
 * so no locking.
 */
#include <ffi.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "Adjustor.h"
#include "FfiCall.h"
#include "FfiMarshal.h"
#include "FfiSignature.h"
#include "Messages.h"
#include "OwnerThread.h"
#include "StablePtr.h"
#include "strata/Api.h"
#include "strata/Ffi.h"
#include "strata/Roots.h"

static const char who[] = "rts_dynamic_call";

/* ----------------------------------------------------------------------
 * The signature cache (Note [The signature cache])
 * ---------------------------------------------------------------------- */

#define SIG_CACHE_SLOTS 64          /* a power of two */
#define SIG_CACHE_TEXT_BYTES 64     /* longer signatures are not cached */

typedef struct {
    char text[SIG_CACHE_TEXT_BYTES]; /* the signature; "" while the slot is empty */
    StgWord calls_running;           /* dynamic calls using sig right now */
    FfiSignature sig;                /* parsed from text; never moves */
} SigCacheSlot;

static SigCacheSlot sig_cache[SIG_CACHE_SLOTS];

/* FNV-1a of text; *len gets its length. */
static uint64_t text_hash(const char *text, size_t *len)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    size_t n = 0;
    for (; text[n] != '\0'; n++)
        h = (h ^ (unsigned char)text[n]) * UINT64_C(0x100000001b3);
    *len = n;
    return h;
}

unsigned ffi_call_cache_slot(const char *text)
{
    size_t len;
    return (unsigned)(text_hash(text, &len) & (SIG_CACHE_SLOTS - 1));
}

/* The parsed signature: a cache slot's (returned in *slot, to be marked
 * running by the caller), or *local when the text is long or its slot is
 * busy.  NULL, with a message in why, if the text does not parse. */
static FfiSignature *signature_lookup(const char *text, FfiSignature *local, SigCacheSlot **slot,
                                      char *why, size_t why_bytes)
{
    *slot = NULL;
    if (text == NULL)
        return ffi_signature_parse(text, local, why, why_bytes) ? local : NULL;
    size_t len;
    SigCacheSlot *s = &sig_cache[text_hash(text, &len) & (SIG_CACHE_SLOTS - 1)];
    if (len < SIG_CACHE_TEXT_BYTES && memcmp(s->text, text, len + 1) == 0) {
        *slot = s;
        return &s->sig;
    }
    if (len >= SIG_CACHE_TEXT_BYTES || s->calls_running > 0)
        return ffi_signature_parse(text, local, why, why_bytes) ? local : NULL;
    s->text[0] = '\0';
    if (!ffi_signature_parse(text, &s->sig, why, why_bytes))
        return NULL;
    memcpy(s->text, text, len + 1);
    *slot = s;
    return &s->sig;
}

static StrataFfiStatus status_of(OwnerCheck c)
{
    return c == OWNER_NOT_RUNNING ? STRATA_FFI_NOT_RUNNING : STRATA_FFI_WRONG_THREAD;
}

/* Checks what can be checked before touching the heap. */
static StrataFfiStatus check_call(HsFunPtr fn, const char *signature, const FfiSignature *sig,
                                  StgClosure **args, StgClosure **result)
{
    if (fn == NULL) {
        rts_error("%s: NULL function pointer (signature \"%s\")", who, signature);
        return STRATA_FFI_BAD_ARGUMENT;
    }
    if (sig->n_args > 0 && args == NULL) {
        rts_error("%s: signature \"%s\" takes %u arguments, but args is NULL", who, signature,
                  (unsigned)sig->n_args);
        return STRATA_FFI_BAD_ARGUMENT;
    }
    for (uint32_t i = 0; i < sig->n_args; i++) {
        if (args[i] == NULL) {
            rts_error("%s: argument %u (%s) of \"%s\" is NULL", who, (unsigned)i + 1,
                      ffi_signature_type_name(sig->args[i]), signature);
            return STRATA_FFI_BAD_ARGUMENT;
        }
    }
    if (sig->result != SIG_VOID && result == NULL) {
        rts_error("%s: signature \"%s\" returns %s, but result is NULL", who, signature,
                  ffi_signature_type_name(sig->result));
        return STRATA_FFI_BAD_ARGUMENT;
    }
    return STRATA_FFI_OK;
}

/* Unboxes the evaluated arguments r[0 .. n-1] into vals (sptr ones are
 * left for later).  Allocates nothing. */
static StrataFfiStatus unbox_args(const char *signature, const FfiSignature *sig,
                                  StgClosure **r, FfiValue *vals)
{
    char why[256];
    for (uint32_t i = 0; i < sig->n_args; i++) {
        if (sig->args[i] == SIG_SPTR)
            continue;
        if (!ffi_unbox(sig->args[i], r[i], &vals[i], why, sizeof why)) {
            rts_error("%s: argument %u (%s) of \"%s\": %s", who, (unsigned)i + 1,
                      ffi_signature_type_name(sig->args[i]), signature, why);
            return STRATA_FFI_BAD_ARGUMENT;
        }
    }
    return STRATA_FFI_OK;
}

/* The call proper, with sig held (see rts_dynamic_call). */
static StrataFfiStatus call_with(HsFunPtr fn, const char *signature, const FfiSignature *sig,
                                 StgClosure **args, StgClosure **result)
{
    StrataFfiStatus st = check_call(fn, signature, sig, args, result);
    if (st != STRATA_FFI_OK)
        return st;
    uint32_t n = sig->n_args;
    STRATA_ROOTS(r, n > 0 ? n : 1);
    for (uint32_t i = 0; i < n; i++)
        r[i] = strata_eval(args[i]);   /* args[i] re-read: it is a root */
    FfiValue vals[FFI_SIGNATURE_MAX_ARGS];
    void *arg_ptrs[FFI_SIGNATURE_MAX_ARGS];
    st = unbox_args(signature, sig, r, vals);
    if (st != STRATA_FFI_OK) {
        STRATA_ROOTS_POP(r);
        return st;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (sig->args[i] == SIG_SPTR)
            vals[i].ptr = getStablePtr(r[i]);   /* the callee owns it */
        arg_ptrs[i] = &vals[i];
    }
    FfiValue ret;
    memset(&ret, 0, sizeof ret);
    ffi_call((ffi_cif *)&sig->cif, fn, &ret, arg_ptrs);
    STRATA_ROOTS_POP(r);
    if (sig->result == SIG_VOID)
        return STRATA_FFI_OK;
    ffi_value_from_return(sig->result, &ret);
    if (sig->result == SIG_SPTR && !stable_ptr_is_live(ret.ptr)) {
        rts_error("%s: the function returned %p as its sptr result (\"%s\"), which is not a "
                  "live stable pointer (never made, or already freed)",
                  who, ret.ptr, signature);
        return STRATA_FFI_BAD_RESULT;
    }
    *result = ffi_box(sig->result, &ret);
    return STRATA_FFI_OK;
}

StrataFfiStatus rts_dynamic_call(HsFunPtr fn, const char *signature, StgClosure **args,
                                 StgClosure **result)
{
    OwnerCheck owner = owner_thread_check(who);
    if (owner != OWNER_OK)
        return status_of(owner);
    adjustor_release_pending();
    FfiSignature local;
    SigCacheSlot *slot;
    char why[256];
    const FfiSignature *sig = signature_lookup(signature, &local, &slot, why, sizeof why);
    if (sig == NULL) {
        rts_error("%s: bad signature \"%s\": %s", who, signature ? signature : "(null)", why);
        return STRATA_FFI_BAD_SIGNATURE;
    }
    /* Evaluating the arguments and the call itself may run nested dynamic
     * calls: the slot must not be replaced under us. */
    if (slot != NULL)
        slot->calls_running++;
    StrataFfiStatus st = call_with(fn, signature, sig, args, result);
    if (slot != NULL)
        slot->calls_running--;
    return st;
}
