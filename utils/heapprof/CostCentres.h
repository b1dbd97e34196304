/*
 * utils/heapprof/CostCentres.h -- the cost centres of a -hc heap profile
 * (HEAP_PROF_COST_CENTRE events), by id, and the names hp2ps gives each
 * and each stack: the part of the heap-profile model (HeapModel.h) that
 * names -hc bands.
 */
#ifndef STRATA_HEAPPROF_COSTCENTRES_H
#define STRATA_HEAPPROF_COSTCENTRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "EventLogReader.h"

/* Ids at or above this are refused as corrupt (GHC numbers its cost
 * centres from 1 up, one per cost centre in the program). */
#define HP_MAX_CC_ID (1u << 24)

typedef struct HpCostCentre {
    char *label;            /* owned, NULL where the id was never defined */
    char *module;           /* owned */
    char *srcloc;           /* owned */
} HpCostCentre;

typedef struct HpCostCentres {
    HpCostCentre *cc;       /* by id, n slots (every slot up to the largest id) */
    size_t n;
} HpCostCentres;

/* Defines cost centre id; a repeat keeps the first definition, an id of
 * HP_MAX_CC_ID or more is ignored.  0, or -1 when out of memory (the id
 * stays undefined). */
int hp_cost_centre_define(HpCostCentres *t, uint32_t id, EvrStr label, EvrStr module,
                          EvrStr srcloc);
/* Cost centre id, or NULL if it was never defined. */
const HpCostCentre *hp_cost_centre(const HpCostCentres *t, uint64_t id);
/* Whether hp2ps names cc "Module.CAF" rather than by its label: it is its
 * module's CAF cost centre (every module has one called "CAF"). */
bool hp_cost_centre_is_caf(const HpCostCentre *cc);
void hp_cost_centres_free(HpCostCentres *t);

/* The name of a -hc band, whose label is its stack's ids innermost first
 * ("254,253,12", or "MAIN" for the empty stack: Note [One rule per case]
 * in HeapModel.c), as hp2ps names it: each cost centre's label ("Module.CAF"
 * for a CAF), innermost first, joined by '/'; an id never defined is
 * "cc<id>".  malloc'd; NULL when out of memory. */
char *hp_stack_name(const HpCostCentres *t, const char *key, size_t len);

#endif /* STRATA_HEAPPROF_COSTCENTRES_H */
