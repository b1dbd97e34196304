/*
 * utils/strata-debug/CmdOptions.h -- what every command of strata-debug
 * takes: its options (one table, read by the tools' parser, utils/cli/
 * Cli.h), where the heap is, the error exit, and the shape of a command.
 * The whole API of CmdOptions.c.
 */
#ifndef STRATA_DEBUG_CMD_OPTIONS_H
#define STRATA_DEBUG_CMD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "DebugAnalysis.h"
#include "DebugClient.h"

#define TOOL_NAME "strata-debug"

typedef struct {
    const char *by, *era, *constructor, *info, *type, *file;
    long limit, retainers;
    bool color, stats, full, retained, json, new_era;
    bool sampled;                /* --sampled: only sampled objects (+RTS --alloc-sample) */
    const char *target;          /* the socket or snapshot named (tui's title) */
    long timeout_ms;             /* --timeout */
} Opts;

/* Where the heap is: exactly one of these (diff: B's socket). */
typedef struct {
    const char *socket, *snapshot, *pid;
} CmdSource;

/* Parses argv[2 ..] for command cmd (argv[1]) into o, src and, for diff,
 * the heaps A and B (operands[0 .. 2)): -1 to go on, else the exit
 * status (--help done, or a usage error said, with status 2). */
int cmd_options_parse(int argc, char **argv, const char *cmd, Opts *o, CmdSource *src,
                      const char *operands[2]);

/* strata-debug --help. */
void cmd_options_usage(FILE *out);

/* A usage error of cmd ("strata-debug: CMD: message", the hint to run
 * --help): returns CLI_EXIT_USAGE (2). */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Tool errors: "strata-debug: message", exit 1. */
int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A decimal in [lo, hi] into *out. */
bool parse_long(const char *s, long lo, long hi, long *out);

/* A command on a paused program or a snapshot, after the traversal its
 * table entry asks for (r is NULL for none; q is the query of a search
 * traversal, else NULL).  Returns the exit status, after any message. */
typedef int CommandFn(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q);

#endif /* STRATA_DEBUG_CMD_OPTIONS_H */
