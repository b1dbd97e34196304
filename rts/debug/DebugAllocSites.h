/*
 * rts/debug/DebugAllocSites.h -- the debug stub's ALLOC_SITES reply: every
 * sampled object alive (+RTS --alloc-sample) with its sample number, era,
 * size and call stack, named (docs/debug-protocol.md).  With the program
 * paused.
 */
#ifndef STRATA_DEBUGALLOCSITES_H
#define STRATA_DEBUGALLOCSITES_H

#include "DebugWire.h"

/* Appends the ALLOC_SITES reply to out: u32 count, then per object u64
 * address, u64 sample, u64 era, u64 size_bytes, u16 n_frames and the
 * frames innermost first (str function, str file, u32 line).  Count 0
 * when the program does not sample. */
void debug_alloc_sites_put(DebugBuf *out);

#endif /* STRATA_DEBUGALLOCSITES_H */
