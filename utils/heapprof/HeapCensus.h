/*
 * utils/heapprof/HeapCensus.h -- the latest heap census of an eventlog, kept
 * as the events go by, for the tools that hand one census on (strata-events
 * pprof, strata-live): the whole API of the heapprof module's census part.
 *
 * Feed it every event (heap_census_add); it keeps the IPE entries, the
 * profile's breakdown and the last *complete* census (a census still being
 * read, or cut short by the end of the stream, is never shown).  Memory is
 * the IPE table (one entry per info table the program has) plus at most two
 * censuses, whatever the length of the log: see Note [Only the latest
 * census] in HeapCensus.c.
 */
#ifndef STRATA_HEAPCENSUS_H
#define STRATA_HEAPCENSUS_H

#include <stddef.h>
#include <stdint.h>

#include "EventLogReader.h"
#include "IpeTable.h"
#include "LabelIndex.h"

/* One census: band i has label evr_label(&labels, i) and bytes[i]. */
typedef struct HcCensus {
    EvrLabelIndex labels;   /* the bands' labels, first seen first */
    uint64_t *bytes;        /* [labels.n]: residency in bytes */
    size_t bytes_cap;
    uint64_t number;        /* 1 for the log's first census, 2, ... */
    uint64_t counter;       /* SAMPLE_BEGIN's census counter field */
    uint64_t time_ns;       /* the census's time since the program started */
    uint64_t total_bytes;   /* sum of bytes[] */
} HcCensus;

typedef struct HeapCensus {
    int have_profile;       /* a HEAP_PROF_BEGIN was read */
    uint32_t breakdown;     /* HEAP_PROF_BREAKDOWN_*, once have_profile */
    EvrIpeTable ipes;       /* every IPE event, by address */
    int have_wall_clock;    /* WALL_CLOCK_TIME read: the Unix time of... */
    uint64_t wall_ns;       /* ...its event, wall_ns, was at... */
    uint64_t wall_event_ns; /* ...the program's time wall_event_ns */
    int open;               /* a census is being read into `next` */
    HcCensus next;          /* the census being read */
    int have_last;          /* `last` holds a complete census */
    HcCensus last;          /* the latest complete census */
    uint64_t n_censuses;    /* censuses begun */
    int out_of_memory;      /* sticky; the figures are then incomplete */
} HeapCensus;

/* What a band is, for display: the strings point into the census's label or
 * the IPE table and live as long as they do. */
typedef struct HcBandInfo {
    EvrStr label;           /* the band's label in the log */
    EvrStr name;            /* -hi: the info table's name; else the label */
    EvrStr module, fn;      /* -hi: the IPE's module and label (may be empty) */
    EvrStr type;            /* -hi: the IPE's type description */
    EvrStr srcloc;          /* -hi: the IPE's source location, as written */
    EvrStr file;            /* the file part of srcloc ("" if none) */
    int64_t line;           /* the line of srcloc (0 if none) */
    const char *closure_type;  /* "CONSTR_1_0"..., or NULL if unknown */
    int have_era;           /* -he: the band is era `era` */
    uint64_t era;
    uint64_t info;          /* -hi: the info table's address (0 if none) */
} HcBandInfo;

void heap_census_init(HeapCensus *hc);
void heap_census_free(HeapCensus *hc);

/* Takes in one event.  Returns 1 when ev completed a census (now in
 * hc->last), else 0. */
int heap_census_add(HeapCensus *hc, const EvrEvent *ev);

/* Describes band i of census c (a census of hc). */
void heap_census_band_info(const HeapCensus *hc, const HcCensus *c, size_t i,
                           HcBandInfo *out);

/* The census's Unix time in ns, or 0 when the log gave no wall clock. */
uint64_t heap_census_unix_ns(const HeapCensus *hc, const HcCensus *c);

/* The bands of c ordered by bytes, largest first (ties by label), into
 * order[0 .. c->labels.n); order must have room for them. */
void heap_census_rank(const HcCensus *c, size_t *order);

/* A short name for a breakdown, as a metric label value: "closure_type",
 * "info_table", "era", ...; "unknown" for codes GHC does not define. */
const char *heap_census_breakdown_name(uint32_t breakdown);

/* The name of GHC's closure type number n ("CONSTR", "THUNK_1_0"), or NULL. */
const char *heap_census_closure_type_name(uint64_t n);

/* Splits a source location "file:line[:col...]" (GHC's and strata's IPE
 * srcloc) at the first ':' that a line number follows. */
void heap_census_split_srcloc(EvrStr srcloc, EvrStr *file, int64_t *line);

#endif /* STRATA_HEAPCENSUS_H */
