/*
 * utils/heapprof/HeapModel.h -- the tools' one heap-profile model: the
 * censuses of a heap profile, assembled from an eventlog's events (or a
 * .hp file's lines), with the profile's breakdown, its IPE entries and
 * cost centres, and what each band is.  strata-html (whose Profile folds
 * each census into its statistics and chart), strata-events summary and
 * pprof, and strata-live (/metrics, /debug/pprof/heap and, through
 * strata-html, the live page) read censuses from here and nowhere else.
 *
 * The censuses go by one at a time: heap_model_add (or _census_end)
 * returns 1 when one is complete, and it is then m->last until the next.
 * Memory is the band labels, the IPE table, the cost centres and two
 * censuses, whatever the number of censuses.  The rules for the odd cases
 * of a log (a census never ended, one with no samples, a label repeated,
 * samples outside a census, -hc stacks) are Note [One rule per case] in
 * HeapModel.c; docs/design/heapprof.md says who reads what.
 */
#ifndef STRATA_HEAPMODEL_H
#define STRATA_HEAPMODEL_H

#include <stddef.h>
#include <stdint.h>

#include "CostCentres.h"
#include "EventLogReader.h"
#include "IpeTable.h"
#include "LabelIndex.h"

/* One band of a census: its number among the model's bands, its bytes. */
typedef struct HmEntry {
    size_t band;
    uint64_t bytes;
} HmEntry;

/* One census: its bands in the order it first sampled them. */
typedef struct HmCensus {
    uint64_t number;        /* 1 for the profile's first census, 2, ... */
    uint64_t counter;       /* SAMPLE_BEGIN's census counter field (0 for .hp) */
    uint64_t time_ns;       /* the census's time since the program started */
    uint64_t total_bytes;   /* sum of the entries' bytes */
    size_t n;               /* bands present */
    HmEntry *e;             /* [n] */
    size_t cap;
} HmCensus;

/* The model's own record of band i. */
typedef struct HmBand {
    uint64_t census;        /* the number of the census that last sampled it */
    size_t slot;            /* its entry in that census */
    int is_stack;           /* a -hc cost-centre stack (label: its ids) */
    char *stack_name;       /* owned: the stack as hp2ps names it, or NULL */
    uint64_t named_at;      /* ccs_defined when stack_name was made */
} HmBand;

typedef struct HeapModel {
    /* The profile: HEAP_PROF_BEGIN (the first), WALL_CLOCK_TIME (the first) */
    int have_profile;
    uint32_t breakdown;     /* HEAP_PROF_BREAKDOWN_*, once have_profile */
    uint64_t interval_ns;
    uint64_t begin_ns;      /* the time of HEAP_PROF_BEGIN */
    int have_wall_clock;    /* the Unix time of the WALL_CLOCK_TIME... */
    uint64_t wall_ns;       /* ...event, wall_ns, was at... */
    uint64_t wall_event_ns; /* ...the program's time wall_event_ns */
    EvrIpeTable ipes;       /* every IPE event, by address */
    HpCostCentres ccs;      /* -hc: every cost centre, by id */
    uint64_t ccs_defined;   /* cost centres defined so far */
    int have_stacks;        /* a -hc sample was read */
    /* Bands: band i has label evr_label(&labels, i) */
    EvrLabelIndex labels;
    HmBand *bands;
    size_t bands_cap;
    /* Censuses */
    int open;               /* a census is being read into `next` */
    HmCensus next;
    int have_last;          /* `last` holds a census */
    HmCensus last;          /* the latest census read whole */
    uint64_t n_censuses;    /* censuses begun (each is counted) */
    int latest_only;        /* set by the owner: forget the bands `last` lacks */
    int out_of_memory;      /* sticky; the figures are then incomplete */
} HeapModel;

/* What a band is, for display: the strings point into the model (its
 * labels, stack names or IPE table) and live as long as it does. */
typedef struct HmBandInfo {
    EvrStr label;           /* the band's label in the log (-hc: its ids) */
    EvrStr name;            /* -hi: the info table's name; -hc: the stack; else the label */
    EvrStr module, fn;      /* -hi: the IPE's module and label (may be empty) */
    EvrStr type;            /* -hi: the IPE's type description */
    EvrStr srcloc;          /* -hi: the IPE's source location, as written */
    EvrStr file;            /* the file part of srcloc ("" if none) */
    int64_t line;           /* the line of srcloc (0 if none) */
    const char *closure_type;  /* "CONSTR_1_0"..., or NULL if unknown */
    int have_era;           /* -he: the band is era `era` */
    uint64_t era;
    uint64_t info;          /* -hi: the info table's address (0 if none) */
    int is_stack;           /* -hc: name is the cost-centre stack */
} HmBandInfo;

void heap_model_init(HeapModel *m);
void heap_model_free(HeapModel *m);

/* Takes in one event.  Returns 1 when ev completed a census (now
 * m->last), else 0.  A SAMPLE_BEGIN completes the census still open.
 * Inline: most of a log is not the heap profile, and is let by here. */
int heap_model_take(HeapModel *m, const EvrEvent *ev);
static inline int heap_model_add(HeapModel *m, const EvrEvent *ev)
{
    if (!ev->decoded || ((ev->type < EVENT_HEAP_PROF_BEGIN || ev->type > EVENT_IPE) &&
                         ev->type != EVENT_WALL_CLOCK_TIME))
        return 0;
    return heap_model_take(m, ev);
}

/* The census steps, for a reader of another format (.hp); heap_model_add
 * calls them for the events.  _begin returns 1 when it completed the
 * census still open.  _end is also the end of the log: it completes the
 * open census, if any (returns 1), however it was cut short. */
int heap_model_census_begin(HeapModel *m, uint64_t counter, uint64_t time_ns);
void heap_model_census_sample(HeapModel *m, const char *label, size_t len, uint64_t bytes);
int heap_model_census_end(HeapModel *m);

/* Band b's label, and its name: a -hc stack as hp2ps names it (from the
 * cost centres defined by the end of the census that last held it), any
 * other band its label. */
EvrStr heap_model_label(const HeapModel *m, size_t b);
EvrStr heap_model_band_name(const HeapModel *m, size_t b);

/* Describes entry i of census c (a census of m). */
void heap_model_band_info(const HeapModel *m, const HmCensus *c, size_t i, HmBandInfo *out);

/* The census's Unix time in ns, or 0 when the log gave no wall clock. */
uint64_t heap_model_unix_ns(const HeapModel *m, const HmCensus *c);

/* The entries of c ordered by bytes, largest first (ties by label), into
 * order[0 .. c->n); order must have room for them. */
void heap_model_rank(const HeapModel *m, const HmCensus *c, size_t *order);

/* A short name for a breakdown, as a metric label value: "closure_type",
 * "info_table", "era", ...; "unknown" for codes GHC does not define. */
const char *heap_model_breakdown_name(uint32_t breakdown);

/* The name of GHC's closure type number n ("CONSTR", "THUNK_1_0"), or NULL. */
const char *heap_model_closure_type_name(uint64_t n);

/* Splits a source location "file:line[:col...]" (GHC's and strata's IPE
 * srcloc) at the first ':' that a line number follows. */
void heap_model_split_srcloc(EvrStr srcloc, EvrStr *file, int64_t *line);

#endif /* STRATA_HEAPMODEL_H */
