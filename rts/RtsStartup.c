/*
 * rts/RtsStartup.c -- hs_init and hs_exit: the runtime's phases from flag
 * parsing to the final statistics.  Calls into every other module; none
 * calls back except through the shutdown it hands Shutdown.c (Note [The
 * way out] in Shutdown.c) and the attention handler (Note [The ticker] in
 * support/os/Ticker.c).  Its API is hs_init and hs_exit (strata/Api.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Adjustor.h"
#include "Blackholes.h"
#include "Control.h"
#include "DebugServer.h"
#include "Finalizers.h"
#include "FlagValues.h"
#include "EventLog.h"
#include "EventLogSocket.h"
#include "GC.h"
#include "GcReport.h"
#include "MBlock.h"
#include "Messages.h"
#include "OwnerThread.h"
#include "Roots.h"
#include "Shutdown.h"
#include "RtsFlags.h"
#include "SampledObjects.h"
#include "StableName.h"
#include "StablePtr.h"
#include "Stats.h"
#include "Storage.h"
#include "Threads.h"
#include "ProfHeap.h"
#include "os/Crash.h"
#include "os/Thread.h"
#include "os/Ticker.h"
#include "strata/Api.h"

static void shutdown_without_census(void);

/* How long hs_exit waits for a thread it gave up on to stop. */
#define HS_EXIT_STOP_MS 1000u

/* hs_init may be called more than once; hs_exit undoes the last call only
 * (GHC's rule). */
static int init_count = 0;

/* A copy of argv as the program received it, +RTS options included: the
 * eventlog's PROGRAM_ARGS shows the full command line, as GHC's does. */
static int original_argc;
static char **original_argv;   /* malloc'd array of malloc'd strings */

static void original_args_free(void)
{
    for (int i = 0; i < original_argc; i++)
        free(original_argv[i]);
    free(original_argv);
    original_argv = NULL;
    original_argc = 0;
}

static void original_args_save(const int *argc, char **const *argv)
{
    if (argc == NULL || argv == NULL || *argv == NULL || *argc <= 0)
        return;
    original_argv = calloc((size_t)*argc + 1, sizeof(char *));
    if (original_argv == NULL)
        return;
    for (int i = 0; i < *argc && (*argv)[i] != NULL; i++) {
        original_argv[i] = strdup((*argv)[i]);
        if (original_argv[i] == NULL)
            break;
        original_argc = i + 1;
    }
}

/* Runs when the mutator answers an attention request (Note [The
 * allocation limit] in sm/alloc/Storage.c). */
static void serve_attention(void)
{
    debug_server_serve_attention();
    control_serve_pending();
    ticker_run_due_actions();
    finalizers_run_due();
}

/* Whether hs_init chose the socket writer (hs_exit puts the default
 * back). */
static bool socket_writer_chosen;

/* The socket from the environment variables eventlog-socket reads
 * (GHC_EVENTLOG_SOCKET, or GHC_EVENTLOG_TCP_HOST with
 * GHC_EVENTLOG_TCP_PORT).  False after a message if they are unusable;
 * *found says whether they name a socket. */
static bool socket_from_env(EventLogSocketConfig *sc, bool *found)
{
    static uint16_t env_port;
    const char *path = getenv("GHC_EVENTLOG_SOCKET");
    const char *host = getenv("GHC_EVENTLOG_TCP_HOST");
    const char *port = getenv("GHC_EVENTLOG_TCP_PORT");
    *found = true;
    if (path != NULL && path[0] != '\0') {
        sc->unix_path = path;
        return true;
    }
    bool has_host = host != NULL && host[0] != '\0', has_port = port != NULL && port[0] != '\0';
    if (!has_host && !has_port) {
        *found = false;
        return true;
    }
    if (!has_port) {
        rts_error("eventlog-socket: GHC_EVENTLOG_TCP_HOST is set (%s) but "
                  "GHC_EVENTLOG_TCP_PORT is not", host);
        return false;
    }
    char err[200];
    if (!flag_parse_port("GHC_EVENTLOG_TCP_PORT", port, &env_port, err, sizeof err)) {
        rts_error("eventlog-socket: %s", err);
        return false;
    }
    sc->tcp_host = has_host ? host : "";
    sc->tcp_port = env_port;
    return true;
}

/* Opens the eventlog socket the flags name, else the one the environment
 * names (only with the eventlog on: a variable set for every program
 * turns nothing on by itself); the flag wins.  With -ol<file> too, the
 * writer writes both. */
static void start_eventlog_socket_or_exit(void)
{
    EventLogSocketConfig sc = {
        .tcp_host = "",
        .wait_for_client = rts_flags.eventlog_socket_wait,
        .tee_file = rts_flags.eventlog_file != NULL,
    };
    bool found = true;
    if (rts_flags.eventlog_socket_path != NULL && rts_flags.eventlog_socket_tcp) {
        rts_error("eventlog-socket: --eventlog-socket and --eventlog-socket-tcp were both "
                  "given (path=%s); give one", rts_flags.eventlog_socket_path);
        exit(EXIT_FAILURE);
    } else if (rts_flags.eventlog_socket_path != NULL) {
        sc.unix_path = rts_flags.eventlog_socket_path;
    } else if (rts_flags.eventlog_socket_tcp) {
        sc.tcp_host = rts_flags.eventlog_socket_tcp_host;
        sc.tcp_port = rts_flags.eventlog_socket_tcp_port;
    } else if (!rts_flags.eventlog) {
        found = false;
    } else if (!socket_from_env(&sc, &found)) {
        exit(EXIT_FAILURE);
    }
    if (!found) {
        if (rts_flags.eventlog_socket_wait) {
            rts_error("--eventlog-socket-wait: no socket to wait on (give "
                      "--eventlog-socket=PATH or --eventlog-socket-tcp=HOST:PORT, or set "
                      "GHC_EVENTLOG_SOCKET with -l)");
            exit(EXIT_FAILURE);
        }
        return;
    }
    if (!eventlog_socket_open(&sc, control_submit))
        exit(EXIT_FAILURE);
    eventlog_set_writer(&eventlog_socket_writer);
    socket_writer_chosen = true;
}

/* Opens the eventlog (+RTS -l) and arms its periodic flush. */
static void start_eventlog_or_exit(void)
{
    EventLogConfig config = {
        .enabled = rts_flags.eventlog,
        .classes = rts_flags.eventlog_classes,
        .file = rts_flags.eventlog_file,
        .generations = rts_flags.generations,
        .max_heap_bytes = rts_flags.max_heap_bytes,
        .nursery_bytes = rts_flags.nursery_bytes,
        .capabilities = rts_flags.capabilities,
    };
    if (!eventlog_start(&config, original_argc, original_argv))
        exit(EXIT_FAILURE);
    if (eventlog_enabled() && rts_flags.eventlog_flush_secs > 0) {
        int err = ticker_add_action(rts_flags.eventlog_flush_secs, eventlog_flush);
        if (err != 0)
            rts_error("eventlog: cannot start the flush ticker (interval=%gs, errno=%d); "
                      "events are flushed at exit only",
                      rts_flags.eventlog_flush_secs, err);
    }
}

/* Starts heap profiling (-hT, -hi, -he, ...); the .hp JOB line is the
 * command line as the program received it. */
static void start_heap_profile_or_exit(void)
{
    size_t len = 1;
    for (int i = 0; i < original_argc; i++)
        len += strlen(original_argv[i]) + 1;
    char *job = malloc(len);
    if (job == NULL)
        exit(EXIT_FAILURE);
    job[0] = '\0';
    for (int i = 0; i < original_argc; i++) {
        if (i > 0)
            strcat(job, " ");
        strcat(job, original_argv[i]);
    }
    static const ProfReporter to_stats = {stats_note_census, stats_note_censuses_asked};
    prof_heap_set_reporter(&to_stats);
    ProfConfig config = {
        .breakdown = rts_flags.heap_breakdown,
        .eras = rts_flags.eras,
        .interval_secs = rts_flags.census_interval_secs,
        .every_tick = rts_flags.census_every_tick,
        .automatic_samples = rts_flags.automatic_heap_samples,
    };
    bool ok = prof_heap_init(&config, original_argc > 0 ? job : rts_prog_name);
    free(job);
    if (!ok)
        exit(EXIT_FAILURE);
}

static void parse_flags_or_exit(int *argc, char ***argv)
{
    rts_flags_init_defaults(&rts_flags);
    int dummy_argc = 0;
    char *dummy_argv[] = {NULL};
    char **dummy = dummy_argv;
    if (argc == NULL || argv == NULL || *argv == NULL) {
        argc = &dummy_argc;
        argv = &dummy;
    } else if (*argc > 0) {
        rts_set_prog_name((*argv)[0]);
    }
    if (!rts_flags_process_args(&rts_flags, argc, argv))
        exit(EXIT_FAILURE);
    if (rts_flags.show_usage) {
        rts_flags_print_usage(stderr);
        exit(EXIT_FAILURE);
    }
    if (rts_flags.show_info) {
        rts_flags_print_info(stdout);
        exit(EXIT_SUCCESS);
    }
    rts_debug_flags = rts_flags.debug_flags;
}

/* A heap overflow has been reported (sm/alloc/Storage.c): shut down as GHC
 * does, with exit status 251. */
_Noreturn static void exit_on_heap_overflow(void)
{
    rts_shutdown_and_exit(251);
}

void hs_init(int *argc, char ***argv)
{
    if (init_count++ > 0)
        return;
    owner_thread_claim();   /* the FFI refuses calls from other threads */
    original_args_save(argc, argv);
    parse_flags_or_exit(argc, argv);
    stats_init(rts_flags.generations);
    if (!stats_open_output())
        exit(EXIT_FAILURE);
    StorageConfig storage = {
        .generations = rts_flags.generations,
        .nursery_bytes = rts_flags.nursery_bytes,
        .max_heap_bytes = rts_flags.max_heap_bytes,
        .oldgen_factor = rts_flags.oldgen_factor,
        .capabilities = rts_flags.capabilities,
        .gc_threads = rts_flags.gc_threads,
        .par_gc_from_gen = rts_flags.par_gc_from_gen,
        .automatic_era_increment = rts_flags.automatic_era_increment,
        .prefault = rts_flags.prefault == PREFAULT_ALWAYS ||
                    (rts_flags.prefault == PREFAULT_AUTO &&
                     os_cpus_available() > rts_flags.capabilities),
        .promote_in_place = rts_flags.promote_in_place,
        .nonmoving = rts_flags.nonmoving,
    };
    if (!storage_init(&storage))
        exit(EXIT_FAILURE);
    capability_before_park_hook = threads_before_park;
    Capability *cap = capability_acquire();   /* held until hs_exit */
    storage_heap_overflow_handler = exit_on_heap_overflow;
    rts_shutdown_set(shutdown_without_census);
    storage_attention_handler = serve_attention;
    gc_set_observer(&gc_report_observer);
    control_reset();
    start_eventlog_socket_or_exit();
    start_eventlog_or_exit();   /* before anything can overflow the heap */
    /* Before the first thread attaches: its allocations may collect. */
    gc_add_root_source(threads_visit_roots);
    gc_add_root_source(stable_ptr_visit_roots);
    threads_attach(cap);   /* thread 1: its TSO and root stack */
    gc_add_weak_root_source(stable_name_visit_weak_roots, stable_name_count);
    /* The census sees a GC's heap before the era advances (GHC's order):
     * the automatic increment runs after the post-GC hooks
     * (storage_era_after_gc). */
    gc_add_post_hook(prof_heap_after_gc);
    gc_add_post_hook(finalizers_after_gc);
    start_heap_profile_or_exit();
    if (rts_flags.alloc_sample_bytes != 0)
        sampled_objects_start(rts_flags.alloc_sample_bytes);
    if (!debug_server_start_from_flags())
        exit(EXIT_FAILURE);
    int e = os_crash_handler_install(&rts_prog_name, &gc_collecting);
    if (e != 0)
        rts_error("hs_init: cannot install the fatal-signal handler: %s (crashes will not "
                  "suggest +RTS -DS)", strerror(e));
    stats_end_init();
}

/* Counts what was allocated since the last GC, ends the EXIT phase and
 * writes the summary if +RTS -s/-S asked for it. */
static void report_statistics(void)
{
    fflush(stdout);   /* the program's output comes before the summary */
    for (unsigned i = 0; i < capabilities_n; i++) {
        /* The nursery since the last GC, as the GC itself counts it. */
        StgWord bytes = storage_nursery_allocated_bytes_of(&capabilities[i]);
        capabilities[i].allocated_words_total += bytes / WORD_SIZE;
    }
    stats_add_allocated_bytes(storage_nursery_allocated_bytes() + storage_large_alloc_bytes);
    storage_large_alloc_bytes = 0;
    stats_note_mem_in_use(mblock_n_hw() * MBLOCK_SIZE);
    stats_end_exit();
    if (rts_flags.stats_summary || rts_flags.stats_per_gc)
        stats_print_summary(NULL);
    stats_close_output();
}

/* +RTS --exit-wait, in milliseconds (at most UINT32_MAX: 49 days). */
static uint32_t exit_wait_ms(void)
{
    double ms = rts_flags.exit_wait_secs * 1000.0;
    return ms >= (double)UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
}

void hs_exit(void)
{
    if (init_count == 0) {
        rts_error("hs_exit: the runtime is not running (hs_exit without hs_init)");
        return;
    }
    if (--init_count > 0)
        return;
    if (threads_mine() == NULL || threads_mine()->id != 1) {
        rts_error("hs_exit: refused: called from thread %ld, not the thread that called hs_init",
                  owner_thread_caller_id());
        init_count++;
        return;
    }
    storage_stop_background_gc();   /* nothing beside the shutdown */
    finalizers_exit();   /* first: finalizers may allocate */
    (void)roots_report_pushed_frames();
    /* Others still attached would find the heap gone: wait for them, and
     * if they do not come, stop them where they are. */
    bool others_gone = threads_wait_for_others(exit_wait_ms(), blackholes_describe_wait);
    if (!others_gone && !capability_stop_world_within(HS_EXIT_STOP_MS)) {
        /* A thread holds a capability and never reaches a safe point (it
         * ended, or waits in C): no final census, as after a heap
         * overflow; statistics and the eventlog are still written. */
        rts_error("hs_exit: a thread holding a capability did not stop within %u ms; "
                  "shutting down without the final census", (unsigned)HS_EXIT_STOP_MS);
        shutdown_without_census();
        return;
    }
    debug_server_stop();   /* no client sees the heap being torn down */
    stats_start_exit();
    sampled_objects_stop();   /* the samples alive at exit */
    prof_heap_exit();   /* the final census, before the eventlog closes */
    ticker_exit();
    report_statistics();
    eventlog_stop();
    eventlog_socket_close();   /* if the eventlog never started */
    if (socket_writer_chosen) {
        eventlog_set_writer(NULL);
        socket_writer_chosen = false;
    }
    original_args_free();
    stats_exit();
    if (!others_gone) {
        /* The stopped threads still point into the heap: keep it. */
        rts_flags_free(&rts_flags);
        owner_thread_release();
        return;
    }
    os_crash_handler_remove();
    gc_exit();
    threads_detach();
    threads_exit();
    adjustor_exit();   /* function pointers let their closures go */
    stable_ptr_exit();
    stable_name_exit();
    sampled_objects_exit();
    storage_attention_handler = NULL;
    rts_shutdown_set(NULL);
    capability_release();
    storage_exit();
    rts_flags_free(&rts_flags);
    owner_thread_release();
}

/* Statistics and a well-formed eventlog, with no census and no teardown
 * of the heap (which may be in any state, or in use by a thread that
 * would not stop). */
static void shutdown_without_census(void)
{
    debug_server_stop();
    stats_start_exit();
    prof_heap_abandon();   /* no census: the heap may be in any state */
    ticker_exit();
    report_statistics();
    eventlog_stop();   /* a heap overflow still leaves a well-formed eventlog */
}

