/*
 * profiling/Ipe.c -- IPE events for the info tables that appear in -hi
 * samples.  The wire layout is GHC's (shared/reference §2.5): the table's
 * address, then table name, closure description, type, label, module and
 * "file:span", where the closure description is the closure type number in
 * decimal (ghc-events parses it as a number).  Explicit provenance in the
 * table fills the fields; a table without it gets its name and closure
 * type (DWARF-derived provenance is a later issue).
 */
#include "Ipe.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "EventLog.h"
#include "Messages.h"

/* The tables already posted: a set of info pointers. */
static const StgInfoTable **posted = NULL;
static size_t posted_cap = 0, posted_count = 0;

static size_t ptr_hash(const void *p, size_t mask)
{
    return (size_t)(((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull) >> 29) & mask;
}

/* Inserts info; returns false if it was there already. */
static bool posted_insert(const StgInfoTable *info)
{
    if (2 * (posted_count + 1) > posted_cap) {
        size_t cap = posted_cap ? 2 * posted_cap : 256;
        const StgInfoTable **n = calloc(cap, sizeof *n);
        if (n == NULL)
            rts_panic("ipe: out of C heap (tables=%zu)", posted_count);
        for (size_t i = 0; i < posted_cap; i++) {
            if (posted[i] == NULL)
                continue;
            size_t j = ptr_hash(posted[i], cap - 1);
            while (n[j] != NULL)
                j = (j + 1) & (cap - 1);
            n[j] = posted[i];
        }
        free(posted);
        posted = n;
        posted_cap = cap;
    }
    size_t i = ptr_hash(info, posted_cap - 1);
    while (posted[i] != NULL) {
        if (posted[i] == info)
            return false;
        i = (i + 1) & (posted_cap - 1);
    }
    posted[i] = info;
    posted_count++;
    return true;
}

void ipe_post_once(const StgInfoTable *info)
{
    if (!eventlog_enabled() || !posted_insert(info))
        return;
    const StgInfoProv *p = info->prov;
    char closure_desc[16];
    snprintf(closure_desc, sizeof closure_desc, "%u", (unsigned)info->type);
    char srcloc[512] = "";
    if (p != NULL && p->src_file != NULL)
        snprintf(srcloc, sizeof srcloc, "%s%s%s", p->src_file,
                 p->src_span != NULL ? ":" : "", p->src_span != NULL ? p->src_span : "");
    const char *table_name = p != NULL && p->table_name != NULL ? p->table_name : info->name;
    eventlog_post_ipe((uint64_t)(uintptr_t)info, table_name, closure_desc,
                      p != NULL ? p->ty_desc : NULL, p != NULL ? p->label : NULL,
                      p != NULL ? p->module : NULL, srcloc);
}

void ipe_exit(void)
{
    free(posted);
    posted = NULL;
    posted_cap = posted_count = 0;
}
