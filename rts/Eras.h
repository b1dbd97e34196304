/*
 * rts/Eras.h -- the runtime's side of eras.
 */
#ifndef STRATA_ERAS_H
#define STRATA_ERAS_H

#include <stdbool.h>
#include <stdint.h>

/* Forgets what a previous run reported (hs_init); the storage manager
 * keeps the era itself (storage_set_era). */
void eras_reset(void);

/* A GC post-hook: the --automatic-era-increment. */
void eras_after_gc(unsigned collected_gen, bool major);

#endif /* STRATA_ERAS_H */
