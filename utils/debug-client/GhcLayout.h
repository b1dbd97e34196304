/*
 * utils/debug-client/GhcLayout.h -- a GHC 9.10 heap's closures, as the
 * GHC stub serves them (docs/design/ghc-stub.md): size, pointer fields,
 * era and a weak pointer's fields.  Decode.c and the traversals call these
 * when dbg_heap_is_ghc.  The whole API of GhcLayout.c.
 */
#ifndef STRATA_DEBUG_GHC_LAYOUT_H
#define STRATA_DEBUG_GHC_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"

/* A closure's size in words from its first avail words w, or 0 when it is
 * unknown or does not fit. */
uint64_t ghc_closure_words(DbgClient *c, const DbgInfo *info, const uint64_t *w, uint64_t avail);
/* Calls f with the word index of each of cl's pointer fields. */
void ghc_for_each_ptr_word(DbgClient *c, const DbgClosure *cl, void (*f)(void *env, uint64_t i),
                           void *env);
/* cl's pointers (untagged, the SRT last) into out[cap]; how many it has. */
size_t ghc_closure_ptrs(DbgClient *c, const DbgClosure *cl, uint64_t *out, size_t cap);
/* An object's era, from its profiling header (0 when it has none). */
uint64_t ghc_closure_era(DbgClient *c, const uint64_t *w, uint64_t avail);
/* A GHC weak pointer's key and value (untagged), and whether a finalizer
 * is still to run. */
void ghc_weak_fields(DbgClient *c, const DbgClosure *cl, uint64_t *key, uint64_t *value,
                     bool *has_finalizer);

#endif /* STRATA_DEBUG_GHC_LAYOUT_H */
