/*
 * utils/strata-html/profile.h -- the internal API of strata-html: the heap
 * profile it builds from one input (profile.c) out of the censuses of the
 * tools' heap-profile model (utils/heapprof/HeapModel.h), the two readers
 * that feed it (from_eventlog.c, from_hp.c), the JSON writer (json.c,
 * json_text.c) and the page writer (page.c).  See docs/design/html.md for the memory
 * bound (.inv.bounded-memory: per band a label, some numbers and one
 * BandBins).
 */
#ifndef STRATA_HTML_PROFILE_H
#define STRATA_HTML_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "HeapModel.h"

#define TOOL_NAME "strata-html"
#define TOOL_EXIT_OK 0
#define TOOL_EXIT_FAIL 1
#define TOOL_EXIT_USAGE 2

/* Chart points per band: a census series is folded into at most this many
 * time bins (Note [Bounded series] in series.c).  Must be even. */
#define SERIES_BINS 400

/* Markers kept per input; later ones are counted, not kept. */
#define PROFILE_MAX_MARKERS 5000

/* A time series folded into SERIES_BINS bins of equal width, the width
 * doubling (and pairs of bins merging) whenever a time falls past the
 * last bin.  The values live with the owner, one array per column. */
typedef struct Series {
    double width_ns;                 /* bin width; 0 before the first time */
    double t_sum_ns[SERIES_BINS];    /* sum of the times that fell in each bin */
    uint32_t count[SERIES_BINS];     /* how many times fell in each bin */
} Series;



/* A band's chart bins (Note [Peaks survive folding] in profile.c): per bin
 * of Profile.census_series, the largest and the smallest bytes among the
 * censuses in the bin that hold the band, and how many do; a band absent
 * from some census of the bin has 0 as its least value there. */
typedef struct BandBins {
    double max[SERIES_BINS];        /* bytes; 0 where the band is in no census of the bin */
    double min[SERIES_BINS];        /* bytes, over the censuses holding the band */
    uint32_t present[SERIES_BINS];  /* censuses of the bin holding the band */
} BandBins;

/* One band of the heap profile: a census label and its statistics over
 * every census (Note [Band statistics] in profile.c).  Band i is the
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

/* series.c */
void series_init(Series *s);
/* The bin for time t, after folding as needed; fold(ctx, fold_kind) is
 * called to merge the owner's value arrays whenever the width doubles. */
size_t series_bin(Series *s, uint64_t t_ns, void (*fold)(void *ctx), void *ctx);
/* Merges pairs of bins of values[] (in place) the way the series did,
 * keeping the larger value of each pair. */
void series_fold_max(double *values);
void series_fold_self(Series *s);

/* profile.c: building a profile, whatever the input.  The census steps go
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

/* Progress line (progress.c): at most one update a second on stderr, only
 * once the input has taken a second. */
typedef struct Progress {
    const char *path;
    uint64_t total_bytes;   /* 0 if unknown (a pipe) */
    double start_s, last_s;
    int shown;
} Progress;
void progress_start(Progress *pr, const char *path, FILE *f);
void progress_update(Progress *pr, uint64_t done_bytes);
void progress_end(Progress *pr);

/* from_eventlog.c / from_hp.c: fill p from the file; 0 on success (maybe
 * with p->warning), -1 after printing an error naming the file. */
int profile_read_eventlog(Profile *p, FILE *f);
int profile_read_hp(Profile *p, FILE *f);
/* One event of a stream that someone else reads (strata-live's page),
 * taken in as profile_read_eventlog takes each of its events. */
struct EvrEvent;
void profile_take_event(Profile *p, const struct EvrEvent *ev);

/* The options that shape the output. */
typedef enum SortKey { SORT_SIZE, SORT_STDDEV, SORT_NAME, SORT_NUMBER, SORT_GRADIENT } SortKey;
typedef struct Options {
    long bands;             /* 0 = all */
    SortKey sort;
    int sort_given;
    int reverse;
    double y_axis;          /* 0 = automatic */
    int json;
    int normalise_time;     /* --diff on a 0-100 % time axis per run */
} Options;

/* json_text.c: a JSON string (NULL as null; Note [JSON strings are code
 * points]) and a JSON number (non-finite as null). */
void json_string(FILE *out, const char *s);
void json_number(FILE *out, double v);

/* json.c: the report's data, one JSON object (docs/strata-html.md). */
void json_write_report(FILE *out, const Options *o, Profile *const *profiles, size_t n);

/* page.c: the whole HTML page with the data and the inlined libraries. */
void page_write(FILE *out, const Options *o, Profile *const *profiles, size_t n);
/* The same page for another tool (strata-live): generator names the tool,
 * extra_html goes first in <body>, the data is written by write_data, and
 * extra_js (may be NULL) runs after the report's own script. */
void page_write_parts(FILE *out, const char *generator, const char *title,
                      const char *extra_html, void (*write_data)(FILE *out, void *ctx),
                      void *ctx, const char *extra_js);

/* assets.c (generated by embed.js at build time). */
extern const char html_asset_echarts_js[];
extern const char html_asset_tabulator_js[];
extern const char html_asset_tabulator_css[];
extern const char html_asset_report_js[];
extern const char html_asset_report_css[];
extern const char html_asset_versions[];
extern const char html_asset_live_js[];    /* strata-live's page (utils/strata-live/live.js) */

#endif /* STRATA_HTML_PROFILE_H */
