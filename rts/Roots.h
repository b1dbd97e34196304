/*
 * rts/Roots.h -- the runtime's side of local roots: the main thread, its
 * stack chunks, and what the collector and the debugger need of them.
 */
#ifndef STRATA_RTS_ROOTS_H
#define STRATA_RTS_ROOTS_H

#include <stdbool.h>

#include "GC.h"
#include "strata/Closures.h"

/* The main thread: its stack chunks hold the local-root frames. */
extern StgTSO *roots_main_tso;

/* A root source (GC.h): the main thread, its chunks and every frame's
 * slots.  Registered by hs_init. */
void roots_visit(RootEvacFn evac, void *ctx);

/* Allocates the main TSO and its first stack chunk.  After storage_init. */
bool roots_init(void);
void roots_exit(void);

/* The chunk the root stack pointer is in (NULL before the first exists). */
StgStack *roots_current_stack(void);

/* Writes the register copy of the stack pointer back into its chunk, so
 * the chunk's frames are exactly [stack, sp). */
void roots_sync_stack(void);

/* Reports each local-root frame still pushed, newest first, with the
 * function, file and line that pushed it; returns how many there were.
 * hs_exit calls it: a frame left pushed is a missing STRATA_ROOTS_POP. */
StgWord roots_report_pushed_frames(void);

#endif /* STRATA_RTS_ROOTS_H */
