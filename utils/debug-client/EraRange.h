/*
 * utils/debug-client/EraRange.h -- ranges of eras, as the tools'
 * --era options give them.  The whole API of EraRange.c.
 */
#ifndef STRATA_DEBUG_ERA_RANGE_H
#define STRATA_DEBUG_ERA_RANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "DebugTypes.h"

/* Parses "LO-HI" or "N"; false on anything else. */
bool dbg_parse_era_range(const char *s, DbgEraRange *out);
/* Whether era is in r (true for every era when r is NULL or off). */
bool dbg_era_selected(const DbgEraRange *r, uint64_t era);

#endif /* STRATA_DEBUG_ERA_RANGE_H */
