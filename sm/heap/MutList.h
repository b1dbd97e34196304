/*
 * sm/heap/MutList.h -- remembered sets.
 *
 * .inv.remembered: after every GC and at every allocation, each object in
 * generation g > 0 that may point into a generation younger than g is on
 * g's mutable list, and each static closure that may point into the heap
 * is on the static root list.  The write barrier (strata_mut_var_write,
 * strata_mut_array_write, thunk update) and the collector (objects that
 * "failed to evacuate" into their own generation) keep it.  A minor GC
 * therefore scans these lists instead of the old generations.
 * Generation 0's list holds the mutable objects the barrier dirtied while
 * young (Note [Dirty young objects] in MutList.c): promotion in place
 * moves them to the old generation's list, a copying GC frees it unread.
 */
#ifndef STRATA_MUTLIST_H
#define STRATA_MUTLIST_H

#include "Heap.h"
#include "strata/Barrier.h"

/* Whether the non-moving generation's mark runs beside the program
 * (strata_nonmoving_marking): every barriered write then takes the slow
 * path, which logs the value it overwrites (Note [The update remembered
 * set] in UpdRemSet.c).  Set and cleared with the world stopped. */
static inline bool barrier_logs_overwrites(void)
{
    return __atomic_load_n(&strata_nonmoving_marking, __ATOMIC_RELAXED) != 0;
}
void barrier_set_logging(bool on);

/* Appends p to a chain of remembered-set blocks (newest first); when the
 * first block is full, new_block gives a fresh one (it never returns
 * NULL).  The one append the write barrier, the collector's threads and
 * mut_list_record share. */
static inline void mut_chain_append(BlockDesc **chain, StgClosure *p, BlockDesc *(*new_block)(void))
{
    BlockDesc *bd = *chain;
    if (bd == NULL || bd->free >= bd->start + BLOCK_SIZE_W) {
        BlockDesc *nb = new_block();
        nb->link = bd;
        *chain = bd = nb;
    }
    *bd->free++ = (StgWord)p;
}

/* A fresh block for a chain of remembered objects, from any thread: a
 * block of pointers, outside the young-group map (Note [The young-group
 * map]).  It never returns NULL: the heap's overflow ends the program. */
BlockDesc *mut_list_new_block(void);

/* Appends p to g's mutable list (the world stopped). */
void mut_list_record(Generation *g, StgClosure *p);

/* Moves what every capability's write barrier remembered onto the
 * generations' lists; the world must be stopped (start of a GC, the
 * sanity checker, the heap debugger). */
void mut_list_gather(void);

/* Calls f on every entry of a mutable list (a chain of blocks). */
#define MUT_LIST_FOR_EACH(list, var, body)                                    \
    for (BlockDesc *mlbd_ = (list); mlbd_ != NULL; mlbd_ = mlbd_->link)      \
        for (StgPtr mlp_ = mlbd_->start; mlp_ < mlbd_->free; mlp_++) {        \
            StgClosure *var = (StgClosure *)*mlp_;                            \
            body                                                              \
        }

/* Frees the blocks of a mutable list. */
void mut_list_free(BlockDesc *list);

/* Records a static closure that now points into the heap, once: a closure
 * already on the list is not added again.  Static roots stay on the list
 * for the rest of the run. */
void static_roots_add(StgClosure *p);
extern StgClosure **static_roots;
extern StgWord static_roots_count;

void mut_list_exit(void);

/* The write barrier for objects other than through the public API (thunk
 * updates): records p if it lives in an old generation or is static. */
void mut_list_remember(StgClosure *p);

#endif /* STRATA_MUTLIST_H */
