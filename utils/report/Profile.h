/*
 * utils/report/Profile.h -- one input's heap profile as the report draws
 * it: the censuses of the tools' heap-profile model
 * (utils/heapprof/HeapModel.h) folded into bands, their statistics and
 * chart bins, with the run's heap sizes and markers.  The whole API of
 * Profile.c; the readers that fill one are ProfileEventlog.h and
 * ProfileHp.h.  See docs/design/html.md for the memory bound
 * (.inv.bounded-memory: per band a label, some numbers and one BandBins).
 */
#ifndef STRATA_REPORT_PROFILE_H
#define STRATA_REPORT_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "AllocModel.h"
#include "HeapModel.h"
#include "Series.h"

/* Markers kept per input; later ones are counted, not kept. */
#define PROFILE_MAX_MARKERS 5000

/* A band's chart bins (Note [Peaks survive folding] in Profile.c): per bin
 * of Profile.census_series, the largest and the smallest bytes among the
 * censuses in the bin that hold the band, and how many do; a band absent
 * from some census of the bin has 0 as its least value there. */
typedef struct BandBins {
    double max[SERIES_BINS];        /* bytes; 0 where the band is in no census of the bin */
    double min[SERIES_BINS];        /* bytes, over the censuses holding the band */
    uint32_t present[SERIES_BINS];  /* censuses of the bin holding the band */
} BandBins;

/* One band of the heap profile: a census label and its statistics over
 * every census (Note [Band statistics] in Profile.c).  Band i is the
 * model's band i. */
typedef struct Band {
    const char *label;      /* the model's copy (Profile.model.labels) */
    double area_byte_ns;    /* integrated size so far */
    double sum_y, sum_y2, sum_ty;   /* bytes, bytes^2, seconds*bytes */
    uint64_t peak_bytes;
    uint64_t cur_bytes;     /* in the census being read */
    uint64_t cur_census;    /* census number that cur_bytes belongs to (1-based) */
    BandBins *bins;         /* owned: the chart bins */
} Band;

typedef struct Marker {
    uint64_t time_ns;
    char *text;             /* owned */
    int is_marker;          /* 1: traceMarker, 0: traceEvent message */
} Marker;

/* Marker filters: -i/-x substrings (an include match wins). */
typedef struct Filters {
    const char **include;
    size_t n_include;
    const char **exclude;
    size_t n_exclude;
    int no_traces;
    int messages;           /* --include-trace-events: traceEvent messages too */
} Filters;

enum { HEAP_SERIES_SIZE, HEAP_SERIES_BLOCKS, HEAP_SERIES_LIVE, HEAP_SERIES_COUNT };

typedef struct Profile {
    const char *path;               /* input as named on the command line */
    const Filters *filters;
    /* Meta */
    char *program;                  /* owned: argv[0], or the .hp JOB */
    char **args;                    /* owned: argv[1..] */
    size_t n_args;
    char *rts_id;                   /* owned or NULL */
    char *date;                     /* owned or NULL: ISO 8601 UTC, or the .hp DATE */
    int from_hp;
    /* The censuses, the breakdown (eventlogs only), the IPE entries (-hi)
     * and the cost centres (-hc): the model, whose censuses are folded in
     * here one by one (profile_census_begin ... _end, or _take_event) */
    HeapModel model;
    AllocModel samples;             /* sampled allocations (--alloc-sample) */
    uint64_t n_censuses;            /* folded in so far */
    uint64_t census_time_ns;        /* time of the census being folded in */
    uint64_t prev_census_time_ns;   /* time of the census before it */
    size_t census_bin;              /* its bin in census_series */
    size_t *touched;                /* bands present in the last census */
    size_t n_touched, touched_cap;
    double sum_t, sum_t2;           /* over censuses, seconds */
    Series census_series;
    double census_total_max[SERIES_BINS];   /* largest census total (bytes) per bin */
    Band *bands;
    size_t n_bands, bands_cap;
    int hp_cost_centres;            /* a .hp file of -hc (its JOB says so) */
    /* Heap */
    Series heap_series[HEAP_SERIES_COUNT];
    double heap_max[HEAP_SERIES_COUNT][SERIES_BINS];
    uint64_t heap_peak[HEAP_SERIES_COUNT];
    int have_heap[HEAP_SERIES_COUNT];
    /* Markers */
    Marker *markers;
    size_t n_markers, markers_cap;
    uint64_t markers_dropped;       /* past PROFILE_MAX_MARKERS */
    /* The run */
    uint64_t end_time_ns;
    uint64_t n_events;
    char *warning;                  /* owned or NULL: what was wrong with the input */
    int out_of_memory;
} Profile;

/* Building a profile, whatever the input.  The census steps go
 * to the model (heap_model_census_*), which hands each census, once read,
 * back to be folded in; _end is also the end of the input (it ends a
 * census cut short: Note [One rule per case] in HeapModel.c) and returns
 * 1 when it ended one. */
void profile_init(Profile *p, const char *path, const Filters *filters);
void profile_free(Profile *p);
void profile_census_begin(Profile *p, uint64_t time_ns);
void profile_census_sample(Profile *p, const char *label, size_t len, uint64_t bytes);
int profile_census_end(Profile *p);
/* Folds in the model's latest census (after heap_model_add said one ended). */
void profile_take_census(Profile *p);
void profile_heap(Profile *p, int which, uint64_t time_ns, uint64_t bytes);
void profile_marker(Profile *p, uint64_t time_ns, const char *text, size_t len, int is_marker);
void profile_time(Profile *p, uint64_t time_ns);
char *profile_strdup(Profile *p, const char *s, size_t len);
void profile_set_warning(Profile *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* 1 if the bands are cost-centre stacks (-hc, eventlog or .hp). */
int profile_is_cost_centre(const Profile *p);
/* The IPE describing band b of a -hi profile, or NULL. */
const EvrIpe *profile_band_ipe(const Profile *p, const Band *b);
/* The least bytes of b in bin i of the census series (0 if some census
 * of the bin lacks b). */
double profile_band_bin_min(const Profile *p, const Band *b, size_t i);
/* Band statistics at the end (Note [Band statistics]). */
typedef struct BandStats {
    double integrated_byte_s, mean, stddev, slope, intercept, r2;
    int have_fit;
    uint64_t last_bytes;    /* in the last census */
} BandStats;
void profile_band_stats(const Profile *p, const Band *b, BandStats *out);

#endif /* STRATA_REPORT_PROFILE_H */
