/*
 * rts/ffi/FfiCall.h -- the runtime's side of rts_dynamic_call (the call
 * itself is public, in includes/strata/Ffi.h).
 */
#ifndef STRATA_FFICALL_H
#define STRATA_FFICALL_H

/* For tests: the signature cache slot a text maps to (Note [The signature
 * cache] in FfiCall.c), so that a test can make two texts collide. */
unsigned ffi_call_cache_slot(const char *text);

#endif /* STRATA_FFICALL_H */
