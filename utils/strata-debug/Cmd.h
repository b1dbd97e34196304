/*
 * utils/strata-debug/Cmd.h -- what strata-debug's commands share: their
 * options, the error exit, and each command family's entry points
 * (CensusCmds.c, QueryCmds.c, HeapCmds.c, FileCmds.c, Sockets.c).  main.c holds the
 * table that names them (Note [The command table] in main.c).
 */
#ifndef STRATA_DEBUG_CMD_H
#define STRATA_DEBUG_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "DebugAnalysis.h"
#include "DebugClient.h"
#include "Json.h"

typedef struct {
    const char *by, *era, *constructor, *info, *type, *file;
    long limit, retainers;
    bool color, stats, full, retained, json, new_era;
    const char *target;          /* the socket or snapshot named (tui's title) */
    long timeout_ms;             /* --timeout */
} Opts;

/* Tool errors: "strata-debug: message", exit 1. */
int die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A decimal in [lo, hi] into *out. */
bool parse_long(const char *s, long lo, long hi, long *out);

/* A command on a paused program or a snapshot, after the traversal its
 * table entry asks for (r is NULL for none; q is the query of a search
 * traversal, else NULL).  Returns the exit status, after any message. */
typedef int CommandFn(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q);

/* CensusCmds.c */
CommandFn cmd_census, cmd_thunks, cmd_duplicates, cmd_dominators;
/* QueryCmds.c */
CommandFn cmd_retainers, cmd_boundary;
/* Fills q from --constructor/--info/--type (DBG_MATCH_ANY if none) and
 * --era; returns non-zero after an error message naming cmd. */
int query_from_opts(const Opts *o, const char *cmd, DbgQuery *q);
/* The query as given: {"constructor": ...} or info, type; "eras". */
void json_query(Json *j, const Opts *o);
/* HeapCmds.c */
CommandFn cmd_fragmentation, cmd_weaks, cmd_roots;
/* FileCmds.c */
CommandFn cmd_gml, cmd_snapshot;

/* Sockets.c: strata-debug list [--json]. */
int cmd_list(int argc, char **argv);
/* The socket of process pid (a decimal string) into path; non-zero after
 * an error message. */
int socket_of_pid(const char *pid, char *path, size_t len);
/* NoStub.c: why process pid has no debug socket; returns 1 after saying. */
int die_no_socket(long pid);

#endif /* STRATA_DEBUG_CMD_H */
