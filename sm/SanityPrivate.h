/*
 * sm/SanityPrivate.h -- what the sanity checker's files share: its
 * failure report and the checks of one object and one pointer (Sanity.c),
 * and the checks of the non-moving generation (SanityNonMoving.c).
 */
#ifndef STRATA_SANITYPRIVATE_H
#define STRATA_SANITYPRIVATE_H

#include <stdbool.h>

#include "Heap.h"
#include "strata/Closures.h"

/* Prints "<prog>: sanity check failed (<when>): <message>" and aborts. */
_Noreturn __attribute__((format(printf, 1, 2))) void sanity_fail(const char *fmt, ...);

/* Whether info is an info table strata could have made (Note [The
 * checker reads only what it has proved readable] in Sanity.c). */
bool sanity_info_is_valid(const StgInfoTable *info);

/* Checks the object at c, in block bd, that must end by end: its info
 * table, size and every pointer field.  Returns its size in words. */
StgWord sanity_check_object(const StgClosure *c, const BlockDesc *bd, StgPtr end);

/* Checks field `field` of c (in block owner, NULL for a root or a static
 * closure), which holds p. */
void sanity_check_pointer(const StgClosure *c, const BlockDesc *owner, StgWord field,
                          const StgClosure *p);

/* The words of c that hold pointers: [*first, *first + *n) (a static
 * closure's, a stack's frames excepted: those are roots). */
void sanity_pointer_fields(const StgClosure *c, StgWord *first, StgWord *n);

/* SanitySnapshot.c: while a cycle of the non-moving generation marks
 * beside the program, every object of it the program can reach is marked
 * or reachable from the mark's queue and the barrier's log (Note
 * [Checking the snapshot invariant]); nothing in other phases. */
void sanity_check_snapshot(void);

/* SanityNonMoving.c: p, in a segment, must be an allocated object that
 * the running cycle has not found dead. */
void sanity_check_segment_pointer(const StgClosure *c, StgWord field, const StgClosure *p);

/* SanityNonMoving.c: the segment whose head is bd -- header, marks, era
 * runs, zeroed free slots -- and every object in it. */
void sanity_check_segment_objects(BlockDesc *bd);

/* SanityNonMoving.c: whether bd, a large or pinned group, is one the
 * running cycle found dead and has not swept yet (not checked: garbage). */
bool sanity_skips_group(const BlockDesc *bd);

/* SanityNonMoving.c: every segment on exactly one list, as its occupancy
 * says; the generation's large groups belong to it.  After pass 1 (heads
 * on the generation's list are BF_KNOWN). */
void sanity_check_nonmoving_lists(void);

#endif /* STRATA_SANITYPRIVATE_H */
