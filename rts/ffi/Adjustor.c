/*
 * rts/ffi/Adjustor.c -- adjustors: C function pointers that apply a closure
 * (rts_mkFunPtr, hs_free_fun_ptr; includes/strata/Ffi.h).  Relies on
 * libffi closures for the executable code, on FfiSignature.c and
 * FfiMarshal.c for the types, on the stable pointer table to keep the
 * closure alive, and on OwnerThread.c to refuse foreign threads.  The
 * design, with its invariants, is in docs/design/ffi.md.
 *
 * An adjustor is a malloc'd Adjustor plus a libffi closure whose code
 * address is the function pointer handed out.  libffi calls
 * adjustor_enter with the Adjustor as user data; a table from code
 * address to Adjustor lets hs_free_fun_ptr tell a live function pointer
 * from anything else.
 *
 * Note [Calls into the heap from C]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A callback runs on top of whatever C code called it, which may itself
 * have been called from strata code holding rooted values, so it is an
 * ordinary nested use of the runtime: it pushes a root frame, boxes the
 * arguments into it (each box may trigger a collection, which updates the
 * frame), reads the closure from its stable pointer only after the last
 * allocation, applies it, evaluates and unboxes the result, and pops the
 * frame.  Nothing of the heap is held in a C variable across an
 * allocation, so a GC inside the callback -- even many of them, with the
 * sanity checker on -- leaves everything correct (.inv.callback-roots).
 *
 * Note [Freeing an adjustor from its own call]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A callback may free its own function pointer (a one-shot callback
 * does).  libffi's trampoline still runs after adjustor_enter returns, so
 * the closure's memory cannot go then.  hs_free_fun_ptr on a running
 * adjustor therefore only unregisters it (a second free is reported) and
 * puts it on a pending list; the next entry into this module on the
 * owning thread, or hs_exit, releases pending adjustors none of whose
 * calls is running.  By then the trampoline has returned: only the owning
 * thread runs callbacks, and it is back in strata code.
 */
#include "Adjustor.h"

#include <ffi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "FfiMarshal.h"
#include "FfiSignature.h"
#include "Messages.h"
#include "os/Thread.h"
#include "OwnerThread.h"
#include "Shutdown.h"
#include "StablePtr.h"
#include "strata/Api.h"
#include "strata/Ffi.h"
#include "strata/Roots.h"

#define ADJUSTOR_MAGIC ((StgWord)0x41444a5553544f52u)   /* "ADJUSTOR" */

typedef struct Adjustor_ {
    StgWord magic;               /* ADJUSTOR_MAGIC from creation to release */
    ffi_closure *closure;        /* libffi's writable closure */
    uintptr_t code;              /* its executable address: the function pointer */
    StgStablePtr fun;            /* the function closure; NULL once hs_exit has
                                    freed the stable pointer table */
    const char *fun_name;        /* the function's info table name (static) */
    char *signature_text;        /* malloc'd copy, for messages */
    StgWord active_calls;        /* calls now inside adjustor_enter (nested) */
    struct Adjustor_ *next;      /* next in its hash bucket, or on the pending list */
    FfiSignature sig;            /* parsed; sig.cif points into it, so the
                                    Adjustor never moves */
} Adjustor;

/* ----------------------------------------------------------------------
 * The table of live adjustors: code address -> Adjustor
 * ---------------------------------------------------------------------- */

/* Chained hashing; the bucket count doubles when the table is fuller than
 * one adjustor per bucket.  Survives hs_exit: function pointers outlive
 * the runtime that made them until they are freed. */
static Adjustor **buckets = NULL;
static StgWord n_buckets = 0;    /* a power of two, or 0 */
static StgWord n_live = 0;       /* adjustors in the table */

static Adjustor *pending = NULL; /* freed while running: released later */
/* The table and the pending list, against callers on other capabilities.
 * Never held across an allocation (a GC's sync would wait for a thread
 * blocked on it; .inv.no-lock-across-alloc). */
static OsMutex adjustor_lock = OS_MUTEX_INIT;
static StgWord n_pending = 0;

static StgWord bucket_of(uintptr_t code, StgWord n)
{
    uint64_t h = (uint64_t)code * UINT64_C(0x9e3779b97f4a7c15);
    return (StgWord)(h >> 32) & (n - 1);
}

static bool table_grow(void)
{
    StgWord n = n_buckets ? n_buckets * 2 : 64;
    Adjustor **b = calloc(n, sizeof *b);
    if (b == NULL)
        return false;
    for (StgWord i = 0; i < n_buckets; i++) {
        Adjustor *a = buckets[i];
        while (a != NULL) {
            Adjustor *next = a->next;
            StgWord k = bucket_of(a->code, n);
            a->next = b[k];
            b[k] = a;
            a = next;
        }
    }
    free(buckets);
    buckets = b;
    n_buckets = n;
    return true;
}

static bool table_insert(Adjustor *a)
{
    if (n_live >= n_buckets && !table_grow() && n_buckets == 0)
        return false;   /* a full table still works, only slower */
    StgWord k = bucket_of(a->code, n_buckets);
    a->next = buckets[k];
    buckets[k] = a;
    n_live++;
    return true;
}

/* Unlinks and returns the live adjustor at code, or NULL. */
static Adjustor *table_remove(uintptr_t code)
{
    if (n_buckets == 0)
        return NULL;
    for (Adjustor **p = &buckets[bucket_of(code, n_buckets)]; *p != NULL; p = &(*p)->next) {
        Adjustor *a = *p;
        if (a->code == code) {
            *p = a->next;
            a->next = NULL;
            n_live--;
            return a;
        }
    }
    return NULL;
}

StgWord adjustor_live_count(void)
{
    return n_live;
}

StgWord adjustor_pending_count(void)
{
    return n_pending;
}

static void check_one(const Adjustor *a, const char *where)
{
    if (a->magic != ADJUSTOR_MAGIC || a->closure == NULL || a->code == 0 ||
        a->signature_text == NULL || a->sig.n_args > FFI_SIGNATURE_MAX_ARGS)
        rts_panic("adjustor_check: corrupt adjustor %p %s (magic=%#lx, code=%#lx, args=%u)",
                  (const void *)a, where, (unsigned long)a->magic, (unsigned long)a->code,
                  (unsigned)a->sig.n_args);
}

/* .inv.live-table: every live adjustor in the table, pending ones only on
 * the pending list, and the counts agree. */
void adjustor_check(void)
{
    StgWord live = 0, pend = 0;
    for (StgWord i = 0; i < n_buckets; i++) {
        for (const Adjustor *a = buckets[i]; a != NULL; a = a->next) {
            check_one(a, "in the table");
            if (bucket_of(a->code, n_buckets) != i)
                rts_panic("adjustor_check: adjustor for code %#lx is in bucket %lu, not %lu",
                          (unsigned long)a->code, (unsigned long)i,
                          (unsigned long)bucket_of(a->code, n_buckets));
            live++;
        }
    }
    for (const Adjustor *a = pending; a != NULL; a = a->next) {
        check_one(a, "on the pending list");
        pend++;
    }
    if (live != n_live || pend != n_pending)
        rts_panic("adjustor_check: counts disagree (table=%lu, n_live=%lu, pending=%lu, "
                  "n_pending=%lu)", (unsigned long)live, (unsigned long)n_live,
                  (unsigned long)pend, (unsigned long)n_pending);
}

/* ----------------------------------------------------------------------
 * Releasing
 * ---------------------------------------------------------------------- */

static void adjustor_release(Adjustor *a)
{
    ASSERT(a->magic == ADJUSTOR_MAGIC && a->active_calls == 0);
    if (a->fun != NULL)
        freeStablePtr(a->fun);
    ffi_closure_free(a->closure);
    free(a->signature_text);
    a->magic = 0;
    free(a);
}

/* See Note [Freeing an adjustor from its own call]. */
void adjustor_release_pending(void)
{
    os_mutex_lock(&adjustor_lock);
    Adjustor **p = &pending;
    while (*p != NULL) {
        Adjustor *a = *p;
        if (__atomic_load_n(&a->active_calls, __ATOMIC_ACQUIRE) > 0) {
            p = &a->next;
            continue;
        }
        *p = a->next;
        n_pending--;
        adjustor_release(a);
    }
    os_mutex_unlock(&adjustor_lock);
}

void adjustor_exit(void)
{
    adjustor_release_pending();
    for (StgWord i = 0; i < n_buckets; i++)
        for (Adjustor *a = buckets[i]; a != NULL; a = a->next)
            a->fun = NULL;   /* the stable pointer table goes next */
    for (Adjustor *a = pending; a != NULL; a = a->next)
        a->fun = NULL;       /* hs_exit from inside a callback */
}

/* ----------------------------------------------------------------------
 * Calls (Note [Calls into the heap from C])
 * ---------------------------------------------------------------------- */

/* A callback cannot return an error to its C caller, and returning a
 * made-up value would silently corrupt whatever the caller computes, so a
 * refused call stops the program.  Only the owning thread may shut the
 * runtime down properly (statistics, eventlog); another thread exits.
 * A call after hs_exit lands here too (.inv.outlives-runtime). */
_Noreturn static void refuse_call(const Adjustor *a)
{
    long holder = owner_thread_holder_id();
    if (holder == 0)
        rts_error("ffi: callback %s :: %s refused: the runtime is not running (called before "
                  "hs_init or after hs_exit); stopping the program",
                  a->fun_name, a->signature_text);
    else if (!owner_thread_is_current())
        rts_error("ffi: callback %s :: %s refused: called from thread %ld, which holds no "
                  "capability (callbacks run on threads that hold one: call rts_lock first, "
                  "or rts_resume after rts_suspend); stopping the program",
                  a->fun_name, a->signature_text, owner_thread_caller_id());
    else
        rts_error("ffi: callback %s :: %s refused: it was made before hs_exit stopped the "
                  "runtime, and its closure went with it; stopping the program",
                  a->fun_name, a->signature_text);
    if (owner_thread_is_current())
        rts_shutdown_and_exit(1);
    exit(1);
}

/* The closure returned a value that is not of the signature's result
 * type: a bug in the program that C cannot be told about. */
_Noreturn static void bad_result(const Adjustor *a, const char *why)
{
    rts_error("ffi: callback %s :: %s returned a bad result (%s): %s", a->fun_name,
              a->signature_text, ffi_signature_type_name(a->sig.result), why);
    rts_shutdown_and_exit(1);
}

/* C passed as an sptr argument something that is no stable pointer. */
_Noreturn static void bad_sptr_argument(const Adjustor *a, uint32_t i, StgStablePtr sp)
{
    rts_error("ffi: callback %s :: %s was called with argument %u (sptr) = %p, which is not a "
              "live stable pointer (never made, or already freed); stopping the program",
              a->fun_name, a->signature_text, (unsigned)i + 1, sp);
    rts_shutdown_and_exit(1);
}

static void store_result(const Adjustor *a, StgClosure *res, void *ret)
{
    SigType t = a->sig.result;
    if (t == SIG_VOID)
        return;
    if (res == NULL)
        bad_result(a, "NULL instead of a closure");
    res = strata_eval(res);
    if (t == SIG_SPTR) {
        StgStablePtr sp = getStablePtr(res);   /* the C side owns it now */
        memcpy(ret, &sp, sizeof sp);
        return;
    }
    FfiValue v;
    char why[256];
    if (!ffi_unbox(t, res, &v, why, sizeof why))
        bad_result(a, why);
    ffi_value_to_return(t, &v);
    memcpy(ret, &v, t == SIG_F32 ? sizeof v.f32 : sizeof v.ret_u);
}

static void adjustor_enter(ffi_cif *cif, void *ret, void **args, void *user_data)
{
    (void)cif;
    Adjustor *a = user_data;
    ASSERT(a->magic == ADJUSTOR_MAGIC);
    if (STRATA_UNLIKELY(!owner_thread_is_current() || a->fun == NULL))
        refuse_call(a);
    __atomic_fetch_add(&a->active_calls, 1, __ATOMIC_ACQ_REL);
    uint32_t n = a->sig.n_args;
    STRATA_ROOTS(r, 1 + n);   /* r[0]: the function; r[1 + i]: argument i */
    for (uint32_t i = 0; i < n; i++) {
        if (a->sig.args[i] == SIG_SPTR && !stable_ptr_is_live(*(StgStablePtr *)args[i]))
            bad_sptr_argument(a, i, *(StgStablePtr *)args[i]);
        r[1 + i] = ffi_box(a->sig.args[i], args[i]);
    }
    r[0] = deRefStablePtr(a->fun);
    /* rts_mkFunPtr checked that this is an evaluated function of arity n
     * (.inv.fun-checked), so enter it directly, as strata_apply would. */
    _Static_assert(FUN_STATIC == FUN + 6, "function types are FUN .. FUN_STATIC");
    ASSERT(r[0]->info->type >= FUN && r[0]->info->type <= FUN_STATIC &&
           r[0]->info->arity == n);
    StgClosure *res = ((StgFunEntry)r[0]->info->entry)(&r[0], &r[1]);
    store_result(a, res, ret);
    STRATA_ROOTS_POP(r);
    __atomic_fetch_sub(&a->active_calls, 1, __ATOMIC_ACQ_REL);
}

/* ----------------------------------------------------------------------
 * Making and freeing function pointers
 * ---------------------------------------------------------------------- */

static bool is_fun_type(StgHalfWord t)
{
    return t >= FUN && t <= FUN_STATIC;
}

/* The evaluated closure, if it can take the signature's arguments. */
static StgClosure *checked_function(StgClosure *fun, const char *signature,
                                    const FfiSignature *sig)
{
    static const char who[] = "rts_mkFunPtr";
    StgClosure *f = strata_eval(fun);
    const StgInfoTable *info = f->info;
    if (!is_fun_type(info->type)) {
        rts_error("%s: the closure is not a function (closure type %s, table %s), so C cannot "
                  "call it with signature \"%s\"",
                  who, strata_closure_type_name(info->type), info->name, signature);
        return NULL;
    }
    if (info->arity != sig->n_args) {
        rts_error("%s: signature \"%s\" has %u argument%s, but function %s takes %u", who,
                  signature, (unsigned)sig->n_args, sig->n_args == 1 ? "" : "s", info->name,
                  (unsigned)info->arity);
        return NULL;
    }
    return f;
}

HsFunPtr rts_mkFunPtr(StgClosure *fun, const char *signature)
{
    static const char who[] = "rts_mkFunPtr";
    if (owner_thread_check(who) != OWNER_OK)
        return NULL;
    adjustor_release_pending();
    if (fun == NULL) {
        rts_error("%s: NULL closure (signature \"%s\")", who, signature ? signature : "(null)");
        return NULL;
    }
    Adjustor *a = calloc(1, sizeof *a);
    if (a == NULL) {
        rts_error("%s: out of C heap for an adjustor (bytes=%zu)", who, sizeof *a);
        return NULL;
    }
    char why[256];
    if (!ffi_signature_parse(signature, &a->sig, why, sizeof why)) {
        rts_error("%s: bad signature \"%s\": %s", who, signature ? signature : "(null)", why);
        goto fail_check;
    }
    StgClosure *f = checked_function(fun, signature, &a->sig);
    if (f == NULL)
        goto fail_check;
    a->fun_name = f->info->name;
    a->signature_text = strdup(signature);
    if (a->signature_text == NULL) {
        rts_error("%s: out of C heap copying the signature", who);
        goto fail_check;
    }
    void *code = NULL;
    a->closure = ffi_closure_alloc(sizeof(ffi_closure), &code);
    if (a->closure == NULL) {
        rts_error("%s: libffi cannot allocate a closure (ffi_closure_alloc failed, "
                  "live function pointers=%lu)", who, (unsigned long)n_live);
        goto fail_closure_alloc;
    }
    ffi_status st = ffi_prep_closure_loc(a->closure, &a->sig.cif, adjustor_enter, a, code);
    if (st != FFI_OK) {
        rts_error("%s: libffi cannot prepare a closure for \"%s\" (status=%d)", who, signature,
                  (int)st);
        goto fail_prep;
    }
    a->code = (uintptr_t)code;
    os_mutex_lock(&adjustor_lock);
    bool inserted = table_insert(a);
    os_mutex_unlock(&adjustor_lock);
    if (!inserted) {
        rts_error("%s: out of C heap for the table of function pointers (live=%lu)", who,
                  (unsigned long)n_live);
        goto fail_prep;
    }
    a->fun = getStablePtr(f);   /* no allocation since f was evaluated */
    a->magic = ADJUSTOR_MAGIC;
    HsFunPtr fp;
    memcpy(&fp, &code, sizeof fp);
    return fp;

fail_prep:
    ffi_closure_free(a->closure);
fail_closure_alloc:
    free(a->signature_text);
fail_check:
    free(a);
    return NULL;
}

void hs_free_fun_ptr(HsFunPtr fp)
{
    static const char who[] = "hs_free_fun_ptr";
    if (fp == NULL)
        return;
    /* With the runtime stopped no callback can run and the stable pointer
     * table is gone, so any thread may free; while it runs, only its own. */
    if (owner_thread_runtime_running()) {
        if (owner_thread_check(who) != OWNER_OK)
            return;
        adjustor_release_pending();
    }
    uintptr_t code;
    memcpy(&code, &fp, sizeof code);
    os_mutex_lock(&adjustor_lock);
    Adjustor *a = table_remove(code);
    if (a == NULL) {
        os_mutex_unlock(&adjustor_lock);
        rts_error("%s: %p is not a live function pointer made by rts_mkFunPtr (never made, "
                  "or already freed); ignored", who, (void *)code);
        return;
    }
    /* Note [Freeing an adjustor from its own call] */
    if (__atomic_load_n(&a->active_calls, __ATOMIC_ACQUIRE) > 0) {
        a->next = pending;
        pending = a;
        n_pending++;
        os_mutex_unlock(&adjustor_lock);
        return;
    }
    os_mutex_unlock(&adjustor_lock);
    adjustor_release(a);
}

void freeHaskellFunctionPtr(void *ptr)
{
    HsFunPtr fp;
    memcpy(&fp, &ptr, sizeof fp);
    hs_free_fun_ptr(fp);
}
