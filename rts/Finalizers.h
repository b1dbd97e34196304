/*
 * rts/Finalizers.h -- the runtime's side of weak pointers: making them
 * (strata_mk_weak, Weak.h in the public API) and running the finalizers
 * the collector queued (sm/Weak.h), at the mutator's safe points after a
 * collection.  See Note [When finalizers run] in Finalizers.c.
 */
#ifndef STRATA_FINALIZERS_H
#define STRATA_FINALIZERS_H

#include <stdbool.h>

/* Post-GC hook (gc_add_post_hook): if the collection queued finalizers,
 * asks the mutator for attention so that they run at its next allocation. */
void finalizers_after_gc(unsigned collected_gen, bool major);

/* Runs every queued finalizer, and those queued meanwhile (a finalizer may
 * allocate and collect).  A call from inside a finalizer returns at once:
 * the outer call runs what was queued. */
void finalizers_run_due(void);

/* hs_exit: runs the queued finalizers, then those of every weak still
 * alive (GHC runs C finalizers at exit), until none is left. */
void finalizers_exit(void);

#endif /* STRATA_FINALIZERS_H */
