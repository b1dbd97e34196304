/*
 * sm/GC.h -- the generational copying collector's entry point.
 */
#ifndef STRATA_GC_H
#define STRATA_GC_H

#include <stdbool.h>

#include "LiveTally.h"

/* Collects generation 0, or the oldest generation that has outgrown its
 * budget (and all younger ones), or everything when major is true. */
void gc_collect(bool major);

/* Makes the next collection a major one (a heap census is due). */
void gc_request_major(void);

/* Makes the next major collection count its survivors by info table into
 * t (blocks of t's eras only), set t->filled, and forget the request;
 * t must stay valid until then.  NULL withdraws a request. */
void gc_request_tally(LiveTally *t);

/* Hooks run after every collection (the profiler's census, the era
 * auto-increment); at most a few, registered at start-up. */
typedef void (*GCHook)(unsigned collected_gen, bool major);
void gc_add_post_hook(GCHook hook);

/* Drops the hooks and frees the collector's own C-heap state (hs_exit). */
void gc_exit(void);

#endif /* STRATA_GC_H */
