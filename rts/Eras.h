/*
 * rts/Eras.h -- the runtime's side of eras.
 */
#ifndef STRATA_ERAS_H
#define STRATA_ERAS_H

#include <stdbool.h>
#include <stdint.h>

/* The highest era that has ever been current (block eras never exceed it). */
uint64_t eras_max_seen(void);
void eras_reset(void);

/* A GC post-hook: the --automatic-era-increment. */
void eras_after_gc(unsigned collected_gen, bool major);

#endif /* STRATA_ERAS_H */
