/*
 * rts/RtsStartup.c -- hs_init and hs_exit: the runtime's phases from flag
 * parsing to the final statistics.  Calls into every other module; none
 * calls back except through rts_shutdown_and_exit.
 */
#include "RtsStartup.h"

#include <stdio.h>
#include <stdlib.h>

#include "Eras.h"
#include "GC.h"
#include "MBlock.h"
#include "Messages.h"
#include "Roots.h"
#include "RtsFlags.h"
#include "StablePtr.h"
#include "Stats.h"
#include "Storage.h"
#include "strata/Api.h"

/* hs_init may be called more than once; hs_exit undoes the last call only
 * (GHC's rule). */
static int init_count = 0;

bool rts_is_running(void)
{
    return init_count > 0;
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

void hs_init(int *argc, char ***argv)
{
    if (init_count++ > 0)
        return;
    parse_flags_or_exit(argc, argv);
    stats_init(rts_flags.generations);
    if (!stats_open_output())
        exit(EXIT_FAILURE);
    if (!storage_init())
        exit(EXIT_FAILURE);
    eras_reset();
    if (!roots_init())
        exit(EXIT_FAILURE);
    gc_add_post_hook(eras_after_gc);
    stats_end_init();
}

/* Counts what was allocated since the last GC, ends the EXIT phase and
 * writes the summary if +RTS -s/-S asked for it. */
static void report_statistics(void)
{
    fflush(stdout);   /* the program's output comes before the summary */
    stats_add_allocated_bytes(storage_nursery_allocated_bytes() + storage_large_alloc_bytes);
    storage_large_alloc_bytes = 0;
    stats_note_mem_in_use(mblock_n_hw() * MBLOCK_SIZE);
    stats_end_exit();
    if (rts_flags.stats_summary || rts_flags.stats_per_gc)
        stats_print_summary(NULL);
    stats_close_output();
}

void hs_exit(void)
{
    if (init_count == 0) {
        rts_error("hs_exit: the runtime is not running (hs_exit without hs_init)");
        return;
    }
    if (--init_count > 0)
        return;
    stats_start_exit();
    report_statistics();
    stats_exit();
    gc_exit();
    roots_exit();
    stable_ptr_exit();
    storage_exit();
    rts_flags_free(&rts_flags);
}

void rts_shutdown_and_exit(int status)
{
    stats_start_exit();
    report_statistics();
    exit(status);
}
