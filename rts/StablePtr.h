/*
 * rts/StablePtr.h -- the stable pointer table's runtime side.
 */
#ifndef STRATA_STABLEPTR_H
#define STRATA_STABLEPTR_H

#include <stdbool.h>

#include "GC.h"
#include "strata/Closures.h"
#include "strata/Roots.h"

/* A root source (GC.h): every live entry is a root. */
void stable_ptr_visit_roots(RootEvacFn evac, void *ctx);

void stable_ptr_exit(void);

/* True iff sp was made by getStablePtr and not freed since: lets a caller
 * with its own way to report misuse (the FFI) check before deRefStablePtr,
 * which aborts. */
bool stable_ptr_is_live(StgStablePtr sp);
/* Calls f on every live entry (index from 1, as the handle), for the heap
 * debugger; read-only. */
void stable_ptr_for_each(void (*f)(StgWord handle, StgClosure *p, void *env), void *env);

#endif /* STRATA_STABLEPTR_H */
