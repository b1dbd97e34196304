/*
 * sm/Sanity.h -- the heap sanity checker (+RTS -DS).
 */
#ifndef STRATA_SANITY_H
#define STRATA_SANITY_H

/* Checks the whole heap and the block allocator; on a violation prints
 * "<prog>: sanity check failed (<when>): <check> (object=..., block=...,
 * ...)" and aborts.  when says where it ran, e.g. "before GC". */
void sanity_check_heap(const char *when);

#endif /* STRATA_SANITY_H */
