/*
 * sm/heap/UpdRemSet.h -- the update remembered set of the non-moving
 * generation's concurrent mark: while a cycle marks, the write barrier
 * logs the value each write into the generation overwrites, a thunk's
 * free variables as it is blackholed and a weak pointer's value as it is
 * read, so that the mark still reaches everything the snapshot reached
 * (Note [The update remembered set] in UpdRemSet.c).  Each capability
 * logs into chunks of its own; a full chunk goes to the mark thread, the
 * rest are taken in the cycle's sync pause.
 */
#ifndef STRATA_UPDREMSET_H
#define STRATA_UPDREMSET_H

#include <stdbool.h>

#include "Capability.h"
#include "strata/Closures.h"

#define URS_CHUNK_ENTRIES 510

typedef struct UrsChunk_ {
    struct UrsChunk_ *next;
    StgWord n;                   /* entries in e[] */
    StgClosure *e[URS_CHUNK_ENTRIES];
} UrsChunk;

/* The write barrier's log, on the calling thread's capability: old, the
 * value of a field of obj about to be overwritten, if obj lies in the
 * non-moving generation and old does too.  Only while
 * barrier_logs_overwrites() (MutList.h). */
void upd_rem_set_log_overwrite(const StgClosure *obj, StgClosure *old);

/* The same for n fields of obj at once (a thunk being blackholed, an AP
 * whose arguments move to a root frame). */
void upd_rem_set_log_fields(const StgClosure *obj, StgClosure *const *fields, StgWord n);

/* Logs v, an object of the generation the program has just read out of a
 * weak pointer (Note [The update remembered set]). */
void upd_rem_set_log_value(StgClosure *v);

/* The full chunks since the last take, newest first; NULL if none. */
UrsChunk *upd_rem_set_take_full(void);

/* Every chunk, each capability's partly filled one too (world stopped). */
UrsChunk *upd_rem_set_take_all_stw(void);

/* Calls fn on every value logged and not yet taken by the mark: the full
 * chunks and each capability's own (the world stopped; -DS). */
void upd_rem_set_for_each_stw(void (*fn)(StgClosure *v, void *ctx), void *ctx);

/* Gives a chunk back once its entries are queued. */
void upd_rem_set_release(UrsChunk *c);

/* Frees every chunk (storage_exit). */
void upd_rem_set_exit(void);

#endif /* STRATA_UPDREMSET_H */
