/*
 * rts/StablePtr.h -- the stable pointer table's runtime side.
 */
#ifndef STRATA_STABLEPTR_H
#define STRATA_STABLEPTR_H

#include "strata/Config.h"

/* Evacuates every live entry (a GC root set). */
void stable_ptr_evacuate_all(void);

void stable_ptr_exit(void);

#endif /* STRATA_STABLEPTR_H */
