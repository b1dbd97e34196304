/*
 * rts/ffi/Adjustor.h -- the runtime's side of adjustors, the C function
 * pointers rts_mkFunPtr makes from closures (includes/strata/Ffi.h).
 * See docs/design/ffi.md.
 */
#ifndef STRATA_ADJUSTOR_H
#define STRATA_ADJUSTOR_H

#include "strata/Config.h"

/* hs_exit, before the stable pointer table goes: every live adjustor lets
 * its closure go and from then on refuses calls (with a message) until it
 * is freed; adjustors freed during a callback are released. */
void adjustor_exit(void);

/* Releases adjustors whose hs_free_fun_ptr came while they were running,
 * once none of them is (Note [Freeing an adjustor from its own call] in
 * Adjustor.c).  Cheap when there are none. */
void adjustor_release_pending(void);

/* For tests and statistics: function pointers made and not yet freed,
 * and freed ones whose memory is still held because they were running. */
StgWord adjustor_live_count(void);
StgWord adjustor_pending_count(void);

/* Panics (rts_panic) unless every adjustor in the table and on the pending
 * list is intact: its magic, its bucket, its closure and code address, and
 * the counts.  Walks everything: for tests and -DS. */
void adjustor_check(void);

#endif /* STRATA_ADJUSTOR_H */
