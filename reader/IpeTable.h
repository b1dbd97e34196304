/*
 * reader/IpeTable.h -- the IPE events of an eventlog, kept by info table
 * address, for the readers that name -hi bands (strata-events summary,
 * strata-html).
 *
 * An info-table profile labels each band with its table's address
 * ("0x55ba5cbf07e0"); the log describes each table in an IPE event, which
 * comes before the censuses that use it (strata posts one just before the
 * first census where the table appears; GHC as tables are registered, even
 * before HEAP_PROF_BEGIN).  So every IPE event is kept; when an address is
 * described twice the first event wins.  As in eventlog2html, a label names
 * the IPE whose address it spells: exactly "0x" and 1-16 hex digits of
 * either case ("0x00409f78" names 0x409f78); anything else names nothing.
 */
#ifndef STRATA_IPETABLE_H
#define STRATA_IPETABLE_H

#include <stddef.h>
#include <stdint.h>

#include "EventLogReader.h"
#include "WordMap.h"

typedef struct EvrIpe {
    uint64_t info;   /* the info table's address: the key */
    char *text;      /* owned: the six strings below, each NUL-terminated */
    EvrStr table_name, closure_desc, ty_desc, label, module, srcloc;   /* into text */
} EvrIpe;

typedef struct EvrIpeTable {
    EvrIpe *ipes;       /* in the order first seen */
    size_t n_ipes, ipes_cap;
    WordMap by_info;    /* info -> index into ipes */
} EvrIpeTable;

/* Keeps the IPE event ev (ev->type == EVENT_IPE) unless its address is
 * known.  Returns 0 when out of memory, and t is unchanged. */
int evr_ipe_table_add(EvrIpeTable *t, const EvrEvent *ev);

/* The IPE described for address info, or NULL. */
const EvrIpe *evr_ipe_table_find(const EvrIpeTable *t, uint64_t info);

/* The IPE a -hi band label names (see above), or NULL. */
const EvrIpe *evr_ipe_table_find_label(const EvrIpeTable *t, const char *label, size_t len);

/* Frees what t holds and empties it (a zeroed table is empty). */
void evr_ipe_table_free(EvrIpeTable *t);

#endif /* STRATA_IPETABLE_H */
