/*
 * strata/Regs.h -- the registers that inline code touches: the bump
 * pointer of the capability the thread holds, and the thread's local-root
 * stack pointer.
 *
 * Each OS thread has its own (thread-local, initial-exec: one %fs-relative
 * load).  hp and hp_lim belong to the capability the thread holds (both
 * NULL when it holds none, so the first allocation reaches the slow path,
 * which says so); sp, sp_lim and sp_base to the thread's own root stack.
 * Other threads clear hp_lim to interrupt the holder, so hp_lim is read and
 * written with relaxed atomics (a plain move on every target strata runs
 * on).  Only the inline fast paths in Alloc.h and Roots.h read these;
 * everything else goes through functions.  See Note [The allocation limit]
 * in sm/alloc/Storage.c and Note [Stopping the world] in sm/heap/Capability.c.
 */
#ifndef STRATA_REGS_H
#define STRATA_REGS_H

#include "strata/Closures.h"

typedef struct {
    StgPtr hp;          /* next free word of the current nursery block */
    StgPtr hp_lim;      /* end of that block; NULL forces the next
                           allocation into the RTS (timer, debugger) */
    StgPtr sp;          /* next free word of the current root stack chunk */
    StgPtr sp_lim;      /* end of that chunk */
    StgPtr sp_base;     /* start of that chunk's frame area */
} StgRegs;

/* A program linked statically against libstrata.a may define
 * STRATA_LINKED_STATICALLY: its inline fast paths then address the
 * registers at a constant offset from %fs (local-exec), which saves a
 * register in every function that allocates (measured in
 * docs/design/capabilities.md).  Linked against libstrata.so it must not. */
#if defined(__GNUC__) && defined(STRATA_LINKED_STATICALLY)
#define STRATA_TLS_MODEL __attribute__((tls_model("local-exec")))
#elif defined(__GNUC__)
#define STRATA_TLS_MODEL __attribute__((tls_model("initial-exec")))
#else
#define STRATA_TLS_MODEL
#endif

STRATA_API extern _Thread_local StgRegs strata_regs STRATA_TLS_MODEL;

/* The owner's read of hp_lim.  A relaxed atomic load is a plain move on
 * x86-64 and AArch64, but GCC computes a thread-local's address before an
 * __atomic builtin (two instructions, a register), so outside
 * ThreadSanitizer builds the read is a volatile load: the same machine
 * code as the atomic, one %fs-relative move. */
#if defined(__SANITIZE_THREAD__)
#define STRATA_HP_LIM() __atomic_load_n(&strata_regs.hp_lim, __ATOMIC_RELAXED)
#else
#define STRATA_HP_LIM() (*(StgPtr volatile *)&strata_regs.hp_lim)
#endif
#define STRATA_SET_HP_LIM(v) __atomic_store_n(&strata_regs.hp_lim, (v), __ATOMIC_RELAXED)

#endif /* STRATA_REGS_H */
