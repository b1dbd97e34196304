/*
 * rts/Roots.h -- the runtime's side of local roots: the main thread, its
 * stack chunks, and what the collector and the debugger need of them.
 */
#ifndef STRATA_RTS_ROOTS_H
#define STRATA_RTS_ROOTS_H

#include <stdbool.h>

#include <stdint.h>

#include "GC.h"
#include "strata/Closures.h"

/* One thread's TSO (*tso, a slot of its owner's; NULL while it is being
 * made), its chunks and every frame's slots, for a root source (GC.h):
 * Threads.c visits every attached thread's with it. */
void roots_visit_thread(StgTSO **tso, RootEvacFn evac, void *ctx);

/* Allocates the calling thread's TSO (into *tso, a slot that stays put
 * until roots_thread_exit) and first stack chunk, for a thread that holds
 * a capability, and points its root registers at them.  id is the
 * thread's, for the TSO. */
bool roots_thread_init(StgTSO **tso, uint32_t id);

/* Forgets the calling thread's root registers and TSO (it detaches). */
void roots_thread_exit(void);

/* The chunk the root stack pointer is in (NULL before the first exists). */
StgStack *roots_current_stack(void);

/* Writes the register copy of the stack pointer back into its chunk, so
 * the chunk's frames are exactly [stack, sp). */
void roots_sync_stack(void);

/* True if one of the calling thread's frames pushed at site holds c in
 * the given slot (strata_eval: is this blackhole mine?). */
bool roots_frame_holds(const StgRootSite *site, StgWord slot, const StgClosure *c);

/* The same question of another thread's frames, read while it cannot
 * change them (it waits, registered under a lock): top is its newest chunk
 * and top_sp that chunk's stack pointer as the thread last wrote it; older
 * chunks' own stack pointers are final once a newer chunk exists. */
bool roots_frames_hold(StgStack *top, StgPtr top_sp, const StgRootSite *site, StgWord slot,
                       const StgClosure *c);

/* Frames the calling thread has pushed and not popped. */
StgWord roots_pushed_frames_mine(void);

/* Reports each local-root frame still pushed, newest first, with the
 * function, file and line that pushed it; returns how many there were.
 * hs_exit calls it: a frame left pushed is a missing STRATA_ROOTS_POP. */
StgWord roots_report_pushed_frames(void);

#endif /* STRATA_RTS_ROOTS_H */
