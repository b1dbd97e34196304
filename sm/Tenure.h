/*
 * sm/Tenure.h -- adaptive aging: whether nursery survivors spend one GC in
 * generation 0's aging blocks or go straight to generation 1.
 *
 * Note [Adaptive aging]
 * ~~~~~~~~~~~~~~~~~~~~~
 * GHC copies every nursery survivor twice: into generation 0's aging
 * blocks, then at the next GC into generation 1.  Aging pays when many
 * objects live at one GC are dead by the next; when most aged objects
 * survive anyway it only doubles the copying (bench/RESULTS.md: binary
 * trees and long lists copy each survivor twice for nothing).  So strata
 * measures it: at each minor GC the share of aged words that survived
 * into generation 1.  While that share is at least half, nursery
 * survivors are promoted directly; every TENURE_PROBE_INTERVAL GCs one GC
 * ages again, so the next one can measure again and aging comes back as
 * soon as it pays.  With one generation there is nothing to decide.
 *
 * The copying collector starts aging; under --nonmoving-gc the first GCs
 * promote directly, and the first probe comes TENURE_PROBE_INTERVAL GCs
 * in.  Starting by aging cost that mode its longest minor pause: the
 * second GC of a program whose data lives (msgbuf) copied the first GC's
 * aged survivors into the generation and its own survivors beside them,
 * twice a nursery's worth (+RTS -S: 6.5 MB against 3.3 MB at every other
 * GC at -A4m), a one-off pause twice the others'.  There an object promoted too
 * early costs the concurrent mark and sweep a little, not a pause.
 *
 * Under --nonmoving-gc a probe ages a sample of the nursery, not the whole
 * of it, and the GC after it measures the sample by what it copies out of
 * the aging blocks (Note [A probe that ages a sample] in Tenure.c): a
 * whole probe made two GCs in every 17 copy two nurseries' survivors into
 * segments.
 */
#ifndef STRATA_TENURE_H
#define STRATA_TENURE_H

#include <stdbool.h>

#include "strata/Config.h"

/* Before a GC collecting generations 0..N: picks the nursery's destination
 * and notes what the measurement needs. */
void tenure_before_gc(unsigned N);

/* After that GC: measures the aged survival and decides for the next.
 * aged_promoted_words: what it copied out of the aging blocks into the
 * non-moving generation (read under --nonmoving-gc only). */
void tenure_after_gc(unsigned N, StgWord aged_promoted_words);

/* Whether nursery survivors currently go to the aging blocks (tests). */
bool tenure_aging_enabled(void);

void tenure_reset(void);

#endif /* STRATA_TENURE_H */
