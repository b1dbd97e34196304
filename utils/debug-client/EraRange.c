/*
 * utils/debug-client/EraRange.c -- ranges of eras: "LO-HI" or "N" as the
 * tools' --era options give them, and whether an era is in one.
 */
#include <stdlib.h>

#include "DebugTypes.h"
#include "EraRange.h"

bool dbg_parse_era_range(const char *s, DbgEraRange *out)
{
    char *end;
    if (s == NULL || *s < '0' || *s > '9')
        return false;
    unsigned long long lo = strtoull(s, &end, 10), hi = lo;
    if (*end == '-') {
        const char *h = end + 1;
        if (*h < '0' || *h > '9')
            return false;
        hi = strtoull(h, &end, 10);
    }
    if (*end != '\0' || hi < lo)
        return false;
    *out = (DbgEraRange){true, lo, hi};
    return true;
}

bool dbg_era_selected(const DbgEraRange *r, uint64_t era)
{
    return r == NULL || !r->on || (era >= r->lo && era <= r->hi);
}
