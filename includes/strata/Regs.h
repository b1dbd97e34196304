/*
 * strata/Regs.h -- the capability's registers that inline code touches:
 * the nursery bump pointer and the local-root stack pointer.
 *
 * There is one capability (strata's mutator is single-threaded).  Only the
 * inline fast paths in Alloc.h and Roots.h read these; everything else goes
 * through functions.  See Note [The allocation limit] in sm/Storage.c.
 */
#ifndef STRATA_REGS_H
#define STRATA_REGS_H

#include "strata/Closures.h"

typedef struct {
    StgPtr hp;          /* next free word of the current nursery block */
    StgPtr hp_lim;      /* end of that block; NULL forces the next
                           allocation into the RTS (timer, debugger) */
    StgPtr sp;          /* next free word of the current root stack chunk */
    StgPtr sp_lim;      /* end of that chunk */
    StgPtr sp_base;     /* start of that chunk's frame area */
} StgRegs;

STRATA_API extern StgRegs strata_regs;

#endif /* STRATA_REGS_H */
