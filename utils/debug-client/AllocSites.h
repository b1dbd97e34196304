/*
 * utils/debug-client/AllocSites.h -- where each sampled object alive was
 * allocated (+RTS --alloc-sample): the stub's ALLOC_SITES reply, fetched
 * once per pause, or a snapshot's.  The whole API of AllocSites.c.
 */
#ifndef STRATA_DEBUG_ALLOC_SITES_H
#define STRATA_DEBUG_ALLOC_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "DebugTypes.h"

/* Every sampled object alive at this pause; none when the program does
 * not sample or its stub predates the command.  0, or -1 (dbg_error). */
int dbg_alloc_sites(DbgClient *c, const DbgAllocSite **sites, size_t *n);

/* The allocation site of the object at addr, or NULL when it is not a
 * sampled object (or the sites cannot be had). */
const DbgAllocSite *dbg_alloc_site(DbgClient *c, uint64_t addr);

/* "f (file:line) <- g (file:line) <- ...": at most max_frames frames
 * (then " <- ..."), into buf. */
void dbg_alloc_site_text(const DbgAllocSite *s, size_t max_frames, char *buf, size_t len);

/* Narrows q to the sampled objects of c's pause; -1 if their sites could
 * not be had. */
int dbg_query_sampled_only(DbgClient *c, DbgQuery *q);

#endif /* STRATA_DEBUG_ALLOC_SITES_H */
