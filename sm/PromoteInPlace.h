/*
 * sm/PromoteInPlace.h -- a minor GC that moves nothing: the nursery's
 * blocks join the old generation as they are.
 *
 * Note [Promoting the nursery in place]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * While a program builds a structure larger than the nursery (a deep
 * binary tree, a long list), nearly everything a minor GC finds in the
 * nursery is alive, and the GC copies all of it into generation 1: on
 * binary-trees 21, a fifth of the minor GCs found more than 3/4 of the
 * nursery alive, and copied gigabytes between them (bench/optimisations.md,
 * row f3b72c6).  Such a GC can instead
 * give generation 0's blocks to generation 1 whole, without tracing:
 *  - every nursery block that holds objects is retagged (gen, gen_no
 *    through block_set_gen_no, dest_no, flags) and linked onto generation
 *    1's list, and a fresh block takes its place in the nursery;
 *  - generation 0's large objects and retired pinned blocks go to
 *    generation 1's large-object list, and its weak pointers to
 *    generation 1's weak list;
 *  - the objects the barrier made DIRTY while young (generation 0's
 *    remembered list, Note [Dirty young objects] in sm/heap/MutList.c)
 *    go on generation 1's remembered list.
 * Nothing moves, so no pointer changes: roots, remembered sets of older
 * generations, stable names and eras (kept in the blocks' descriptors and
 * era runs) all stay right, and after it no object is younger than
 * generation 1, so nothing older can point at a young object that is not
 * already remembered.  The cost is the dead objects promoted with the
 * live ones: they stay until generation 1 is next collected, and make
 * that collection come sooner.  A block-level walk (the sanity checker,
 * the heap debugger's index) sees them between major GCs, as it sees the
 * dead objects of a nursery; a census is taken after a major GC, when
 * they are gone.
 *
 * It is done only where copying would not pay: generation 0 alone is
 * collected, the nursery's survivors would go straight to generation 1
 * (adaptive aging is promoting directly: Note [Adaptive aging] in
 * Tenure.h), generation 0 holds no aged blocks, and the last copying
 * minor GC found at least PIP_SURVIVAL_PERCENT of what was allocated
 * alive.  After PIP_RUN such GCs in a row a copying GC measures the
 * survival again, so a program whose nursery starts dying young goes
 * back to copying within PIP_RUN GCs, having promoted at most that many
 * nurseries of garbage.  (Runs of 32 beat runs of 8, and runs that start
 * at 8 and double while the measurements agree came between:
 * bench/optimisations.md, row f3b72c6.)  Copying a live word costs about
 * what a dead word promoted costs later (generation 1 is collected
 * every time it grows by -F times its live data, so each promoted word
 * brings its next major GC nearer), so the break-even survival is near
 * half; the threshold sits above it because the last GC's survival only
 * predicts the next one's.
 *
 * --promote-in-place=never turns it off; =always does it at every minor
 * GC it can (generation 0 alone, no aged blocks), whatever the survival:
 * the tests run the heap that way under the sanity checker.
 */
#ifndef STRATA_PROMOTE_IN_PLACE_H
#define STRATA_PROMOTE_IN_PLACE_H

#include <stdbool.h>

#include "Heap.h"

/* The percentage of a minor GC's allocation found alive at or above which
 * the next minor GCs promote in place, and how many in a row do before a
 * copying GC measures again. */
#define PIP_SURVIVAL_PERCENT 75
#define PIP_RUN 32

/* Before a GC collecting generations 0..N (the world stopped, the
 * remembered sets gathered): whether it should promote in place, as
 * storage_config.promote_in_place and the last measurement say. */
bool promote_in_place_wanted(unsigned N);

/* Promotes generation 0 into its promotion target as described above and
 * sets *words to the words promoted (nursery, large and pinned); false if
 * fresh nursery blocks could not be had (then nothing has changed and the
 * caller copies instead). */
bool promote_in_place(StgWord *words);

/* After a copying GC of generations 0..N: what it allocated since the
 * previous GC and copied, for the next decision.  direct: the nursery's
 * survivors went straight to the promotion target. */
void promote_in_place_measure(unsigned N, bool direct, StgWord allocated_bytes,
                              StgWord copied_bytes);

/* GCs done in place since start-up (for +RTS -s and tests). */
StgWord promote_in_place_count(void);

void promote_in_place_reset(void);

#endif /* STRATA_PROMOTE_IN_PLACE_H */
