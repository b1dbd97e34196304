/*
 * rts/StableName.h -- the stable name table's runtime side: the objects
 * named so far, updated after every collection through a weak root source
 * (sm/GC.h), so the table never keeps an object alive.
 */
#ifndef STRATA_STABLENAME_H
#define STRATA_STABLENAME_H

#include "GC.h"
#include "strata/Closures.h"

/* A weak root source (gc_add_weak_root_source): updates each named
 * object's address after a GC and frees the names of the dead ones. */
void stable_name_visit_weak_roots(RootEvacFn evac, void *ctx);

/* Names in use, and the table's length (the highest name in use): the
 * table shrinks when the objects with the highest names die. */
StgWord stable_name_count(void);
StgWord stable_name_table_size(void);

void stable_name_exit(void);

#endif /* STRATA_STABLENAME_H */
