/*
 * profiling/Ipe.c -- IPE events for the info tables that appear in -hi
 * samples.  The wire layout is GHC's (docs/reference/eventlog-format.md, IPE entries): the table's
 * address, then table name, closure description, type, label, module and
 * "file:span", where the closure description is the closure type number in
 * decimal (ghc-events parses it as a number).  The other fields are the
 * table's resolved provenance (Provenance.h: explicit, else from the
 * program's symbols and DWARF); a table with neither is named by its own
 * name field.
 */
#include "Ipe.h"

#include <stdbool.h>
#include <stdio.h>

#include "EventLog.h"
#include "Provenance.h"
#include "WordMapOrPanic.h"

/* The tables already posted (a set: the values are unused). */
static WordMap posted;

void ipe_post_once(const StgInfoTable *info)
{
    if (!eventlog_enabled())
        return;
    bool already;
    (void)word_map_slot_or_panic(&posted, (uint64_t)(uintptr_t)info, &already);
    if (already)
        return;
    const IpeInfo *p = ipe_resolve(info);
    char closure_desc[16];
    snprintf(closure_desc, sizeof closure_desc, "%u", (unsigned)info->type);
    char srcloc[512] = "";
    if (p->src_file[0] != '\0')
        snprintf(srcloc, sizeof srcloc, "%s%s%s", p->src_file, p->src_span[0] != '\0' ? ":" : "",
                 p->src_span);
    const char *table_name = p->table_name[0] != '\0' ? p->table_name : info->name;
    eventlog_post_ipe((uint64_t)(uintptr_t)info, table_name, closure_desc, p->ty_desc, p->label,
                      p->module, srcloc);
}

void ipe_exit(void)
{
    word_map_free(&posted);
    provenance_exit();
}
