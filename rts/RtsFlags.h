/*
 * rts/RtsFlags.h -- the one structure every RTS flag is parsed into, and the
 * parser's API.  Flags are spelled as GHC spells them (docs/reference/rts-flags.md).
 */
#ifndef STRATA_RTSFLAGS_H
#define STRATA_RTSFLAGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "EventLog.h"
#include "Heap.h"
#include "ProfHeap.h"
#include "strata/Config.h"


/* --prefault: when the prefault helper runs (Note [Faulting in ahead of
 * the heap] in sm/block/Prefault.c). */
typedef enum {
    PREFAULT_AUTO = 0,   /* when a processor is left over: more available
                            than capabilities */
    PREFAULT_ALWAYS,
    PREFAULT_NEVER,
} RtsPrefault;

typedef struct {
    /* Storage manager */
    StgWord nursery_bytes;        /* -A, default 4 MiB, at least 8 KiB */
    unsigned generations;         /* -G, default 2, at least 1 */
    unsigned capabilities;        /* -N, default 1, at most CAPABILITIES_MAX */
    unsigned gc_threads;          /* -qn, 0 (default) = one per capability */
    RtsPrefault prefault;         /* --prefault=<when>, default auto */
    PromoteInPlaceMode promote_in_place;  /* --promote-in-place=<when>,
                                             default auto */
    unsigned par_gc_from_gen;     /* -qg<gen>: collections of gen and older
                                     are parallel (default 0); -qg alone:
                                     PAR_GC_NEVER */
    double oldgen_factor;         /* -F, default 2.0, > 0 */
    StgWord max_heap_bytes;       /* -M, 0 = unlimited */

    /* Statistics */
    bool stats_summary;           /* -s */
    bool stats_per_gc;            /* -S (implies the summary, as in GHC) */
    char *stats_file;             /* -s<file>/-S<file>; NULL = stderr; malloc'd */

    /* Debugging */
    unsigned debug_flags;         /* -D<letters>: DEBUG_* in Messages.h */

    /* Heap profiling */
    HeapBreakdown heap_breakdown; /* -hT -hi -he -hd -hy -hm */
    bool era_selected;            /* -he<n> or -he<lo>-<hi> was given */
    EraRange eras;                /* eras counted; ERA_RANGE_ALL unless
                                   * era_selected */
    double census_interval_secs;  /* -i<secs>, default 0.1; 0 = every major GC */
    bool census_every_tick;       /* --census-gc=every-tick: each -i tick forces a
                                   * major GC and a census, as GHC does; false
                                   * (=budget): Note [When a census runs] in
                                   * profiling/ProfHeap.c */
    bool automatic_heap_samples;  /* false with --no-automatic-heap-samples */
    bool automatic_era_increment; /* --automatic-era-increment */

    /* Eventlog */
    bool eventlog;                /* -l given */
    unsigned eventlog_classes;    /* EVENTLOG_CLASS_* bits */
    char *eventlog_file;          /* -ol<file>; NULL = <prog>.eventlog; malloc'd */
    double eventlog_flush_secs;   /* --eventlog-flush-interval, 0 = none */
    char *eventlog_socket_path;   /* --eventlog-socket=PATH; NULL = none; malloc'd */
    bool eventlog_socket_tcp;     /* --eventlog-socket-tcp=HOST:PORT given */
    char *eventlog_socket_tcp_host; /* its HOST ("" = loopback); malloc'd */
    uint16_t eventlog_socket_tcp_port; /* its PORT (0 = any, printed) */
    bool eventlog_socket_wait;    /* --eventlog-socket-wait */

    /* Heap debugger */
    bool debug_socket;            /* --debug-socket[=PATH] given */
    char *debug_socket_path;      /* its PATH; NULL = default; malloc'd */

    /* Actions that end start-up */
    bool show_usage;              /* -? */
    bool show_info;               /* --info */
} RtsFlags;


#define PAR_GC_NEVER 0xffffffffu

extern RtsFlags rts_flags;

/* Sets every field to its default. */
void rts_flags_init_defaults(RtsFlags *flags);

/* Frees the strings a parse allocated. */
void rts_flags_free(RtsFlags *flags);

/* Parses one RTS option (e.g. "-A8k", "--info") into flags.  Returns true
 * on success; on failure writes a message naming the option and the
 * problem (without the program prefix) into err (size err_len).
 * Options are independent here; what depends on all of them (a bare
 * -he<era> choosing -hT, -A clamped to -M) is settled at the end of
 * rts_flags_process_args. */
bool rts_flags_parse_one(RtsFlags *flags, const char *opt, char *err, size_t err_len);

/* Parses a TCP port, 0 to 65535, for what (a flag or variable name):
 * true and *port, or false with a message in err. */
bool rts_flags_parse_port(const char *what, const char *s, uint16_t *port, char *err,
                          size_t err_len);

/* Parses a GHCRTS-style string of whitespace-separated options. */
bool rts_flags_parse_string(RtsFlags *flags, const char *s, char *err, size_t err_len);

/* Removes +RTS ... -RTS / --RTS groups from argv (in place, updating
 * *argc, keeping argv[*argc] == NULL), parsing what they hold after the
 * GHCRTS environment variable; "--" stays and ends RTS processing.  Sets
 * the message prefix from argv[0].  Prints "<prog>: <problem>" for every
 * bad flag, then one hint to use +RTS -?, and returns false.  -? and
 * --info are not errors: they set show_usage/show_info, and the caller
 * prints and exits (1 after -?, as GHC does; 0 after --info). */
bool rts_flags_process_args(RtsFlags *flags, int *argc, char ***argv);

/* True if every field holds a value the parser could have produced
 * (sizes in range and whole blocks, generations >= 1, factor > 0, era
 * range ordered, ...).  Checks only; never prints or aborts. */
bool rts_flags_check(const RtsFlags *flags);

/* Writes the usage text (+RTS -?) and the --info block to f. */
void rts_flags_print_usage(FILE *f);
void rts_flags_print_info(FILE *f);

#endif /* STRATA_RTSFLAGS_H */
