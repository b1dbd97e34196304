/*
 * utils/strata-debug/main.c -- strata-debug: the heap debugger's command
 * line.  Attaches to a running program's debug socket (pausing it for the
 * duration of the command) or opens a snapshot, and runs one analysis of
 * the client library (utils/debug-client).  The commands are a table
 * (Note [The command table]); each family is a file of its own
 * (CensusCmds.c, QueryCmds.c, HeapCmds.c, FileCmds.c, Sockets.c,
 * Moments.c, DiffCmd.c).  See docs/strata-debug.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "CensusCmds.h"
#include "CmdOptions.h"
#include "DebugAnalysis.h"
#include "DebugClient.h"
#include "DiffCmd.h"
#include "FileCmds.h"
#include "HeapCmds.h"
#include "Moments.h"
#include "QueryCmds.h"
#include "Sockets.h"
#include "strata/Debug.h"
#include "tui/Tui.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ----------------------------------------------------------------------
 * Commands
 * ---------------------------------------------------------------------- */

static int cmd_tui(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    (void)r;
    (void)q;
    if (o->json)
        return die("tui is interactive: it has no --json output");
    return tui_run(c, o->target, (uint32_t)o->timeout_ms, o->stats);
}

static int cmd_mark_new_era(DbgClient *c, DbgReach *r, const Opts *o, const DbgQuery *q)
{
    (void)r;
    (void)q;
    return cmd_mark(c, o->json);
}

/* Note [The command table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A command is a name, the traversal it starts from and a function
 * (CmdOptions.h's CommandFn) in its family's file.  run_command makes the
 * traversal, times it for --stats and frees it, so a command only reads
 * it.  A census, the dominator tree and the boundary need only the marks
 * and the ranks (Note [Marks only] in Marks.c), retainers the paths and
 * its matches but not the order (Note [Paths without the order] in
 * Reach.c), the listings the breadth-first order, and fragmentation the
 * paths too when it is asked for retainers.  Commands of no traversal
 * (roots makes its own) print no traversal time.  `list` and `diff`
 * attach to nothing or to two heaps, and are not in the table. */
typedef enum {
    TRAVERSE_NONE,
    TRAVERSE_MARKS,              /* dbg_reach_marks */
    TRAVERSE_SEARCH,             /* dbg_reach_search for the options' query */
    TRAVERSE_ORDER,              /* dbg_reach_opts, no paths */
    TRAVERSE_ORDER_PATHS,        /* dbg_reach_opts, paths when --retainers */
} Traversal;

typedef struct {
    const char *name;
    Traversal traversal;
    CommandFn *run;
} Command;

static const Command commands[] = {
    {"census", TRAVERSE_MARKS, cmd_census},
    {"retainers", TRAVERSE_SEARCH, cmd_retainers},
    {"boundary", TRAVERSE_MARKS, cmd_boundary},
    {"dominators", TRAVERSE_MARKS, cmd_dominators},
    {"fragmentation", TRAVERSE_ORDER_PATHS, cmd_fragmentation},
    {"thunks", TRAVERSE_ORDER, cmd_thunks},
    {"weaks", TRAVERSE_ORDER, cmd_weaks},
    {"duplicates", TRAVERSE_ORDER, cmd_duplicates},
    {"gml", TRAVERSE_ORDER, cmd_gml},
    {"snapshot", TRAVERSE_ORDER, cmd_snapshot},
    {"roots", TRAVERSE_NONE, cmd_roots},
    {"tui", TRAVERSE_NONE, cmd_tui},
    {"mark", TRAVERSE_NONE, cmd_mark_new_era},
};

static const Command *command_named(const char *s)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, s) == 0)
            return &commands[i];
    return NULL;
}

/* --sampled: q narrowed to the sampled objects, or a message saying why
 * there are none. */
static int sampled_only(DbgClient *c, const char *name, DbgQuery *q)
{
    const DbgAllocSite *sites;
    size_t n;
    if (dbg_alloc_sites(c, &sites, &n) != 0)
        return die("%s: the allocation sites: %s", name, dbg_error(c));
    if (n == 0)
        return die("%s --sampled: no sampled object is alive (run the program with "
                   "+RTS --alloc-sample)", name);
    return dbg_query_sampled_only(c, q) != 0 ? die("%s: %s", name, dbg_error(c)) : 0;
}

static int run_command(DbgClient *c, const Command *cmd, const Opts *o)
{
    if (cmd->traversal == TRAVERSE_NONE)
        return cmd->run(c, NULL, o, NULL);
    double t0 = now_s();
    DbgQuery q;
    if (cmd->traversal == TRAVERSE_SEARCH && query_from_opts(o, cmd->name, &q) != 0)
        return 1;
    if (cmd->traversal == TRAVERSE_SEARCH && o->sampled && sampled_only(c, cmd->name, &q) != 0)
        return 1;
    DbgReach *r = cmd->traversal == TRAVERSE_MARKS ? dbg_reach_marks(c)
                  : cmd->traversal == TRAVERSE_SEARCH
                      ? dbg_reach_search(c, &q, (size_t)o->limit)
                      : dbg_reach_opts(c, cmd->traversal == TRAVERSE_ORDER_PATHS &&
                                              o->retainers > 0);
    if (r == NULL)
        return die("%s: %s", cmd->name, dbg_error(c));
    double t1 = now_s();
    int st = cmd->run(c, r, o, cmd->traversal == TRAVERSE_SEARCH ? &q : NULL);
    if (o->stats)
        fprintf(stderr, "%s: traversal %.3f s (%zu objects), %s %.3f s\n", TOOL_NAME, t1 - t0,
                dbg_reach_count(r), cmd->name, now_s() - t1);
    dbg_reach_free(r);
    return st;
}

/* The combinations of options a command refuses; -1 if fine, else the
 * exit status after the usage error. */
static int check_options(const char *cmd, const Opts *o, const CmdSource *src)
{
    if ((src->socket != NULL) + (src->snapshot != NULL) + (src->pid != NULL) != 1)
        return cmd_usage_error(cmd, "needs exactly one of --socket PATH, --pid PID or "
                               "--snapshot FILE");
    if (strcmp(cmd, "retainers") == 0 &&
        (o->constructor != NULL) + (o->info != NULL) + (o->type != NULL) != 1)
        return cmd_usage_error(cmd, "needs exactly one of --constructor NAME, --info ADDR or "
                               "--type CLOSURE_TYPE");
    if (o->sampled && strcmp(cmd, "retainers") != 0)
        return cmd_usage_error(cmd, "--sampled applies to retainers only");
    if (strcmp(cmd, "boundary") == 0 && o->era == NULL)
        return cmd_usage_error(cmd, "needs --era LO-HI: the old eras whose holders it looks "
                               "for");
    if (strcmp(cmd, "boundary") == 0 &&
        (o->constructor != NULL) + (o->info != NULL) + (o->type != NULL) > 1)
        return cmd_usage_error(cmd, "takes at most one of --constructor NAME, --info ADDR or "
                               "--type CLOSURE_TYPE");
    if (o->type != NULL && dbg_closure_type_by_name(o->type) < 0)
        return cmd_usage_error(cmd, "unknown closure type '%s' (e.g. CONSTR_2_0, THUNK, "
                               "ARR_WORDS)", o->type);
    DbgEraRange er;
    if (o->era != NULL && !dbg_parse_era_range(o->era, &er))
        return cmd_usage_error(cmd, "--era expects LO-HI or N (eras, LO <= HI), got '%s'",
                               o->era);
    if (o->by != NULL && strcmp(o->by, "type") != 0 && strcmp(o->by, "info") != 0 &&
        strcmp(o->by, "era") != 0 && strcmp(o->by, "module") != 0)
        return cmd_usage_error(cmd, "--by expects type, info, era or module, got '%s'", o->by);
    return -1;
}

/* What an analysis needs of the heap that a GHC program's may not have:
 * eras (docs/strata-debug-ghc.md).  Non-zero after an error message
 * saying why the command cannot apply. */
static int check_heap(const char *cmd, DbgClient *c, const Opts *o)
{
    const char *why;
    if (dbg_heap_has_eras(c, &why))
        return 0;
    if (strcmp(cmd, "boundary") == 0)
        return die("boundary: the era boundary needs eras, and this heap has none: %s", why);
    if (strcmp(cmd, "mark") == 0 || o->new_era)
        return die("%s: a new era needs eras, and this heap has none: %s",
                   o->new_era ? "snapshot --new-era" : "mark", why);
    if (o->era != NULL)
        return die("%s --era: this heap has no eras: %s", cmd, why);
    if (o->by != NULL && strcmp(o->by, "era") == 0)
        return die("%s --by era: this heap has no eras: %s", cmd, why);
    return 0;
}

/* Opens the snapshot, or connects to the socket (of the process); NULL
 * after an error message. */
static DbgClient *open_source(CmdSource *src, char path[1024])
{
    char err[1024];
    DbgClient *c;
    if (src->snapshot != NULL) {
        c = dbg_open_snapshot(src->snapshot, err, sizeof err);
    } else {
        if (src->pid != NULL) {
            if (socket_of_pid(src->pid, path, 1024) != 0)
                return NULL;
            src->socket = path;
        }
        c = dbg_connect(src->socket, err, sizeof err);
    }
    if (c == NULL)
        die("%s", err);
    return c;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        cmd_options_usage(stdout);
        return 0;
    }
    if (argc < 2)
        return cmd_usage_error(NULL, "missing command (census, retainers, ..., list, diff, tui)");
    const char *name = argv[1];
    if (strcmp(name, "list") == 0)
        return cmd_list(argc, argv);
    if (strcmp(name, "diff") == 0)
        return diff_main(argc, argv);
    const Command *cmd = command_named(name);
    if (cmd == NULL)
        return cmd_usage_error(NULL, "unknown command '%s'", name);
    Opts o = {.limit = 10, .timeout_ms = 10000};
    CmdSource src = {0};
    int st = cmd_options_parse(argc, argv, name, &o, &src, NULL);
    if (st < 0)
        st = check_options(name, &o, &src);
    if (st >= 0)
        return st;
    char path[1024];
    DbgClient *c = open_source(&src, path);
    if (c == NULL)
        return 1;
    o.target = src.snapshot ? src.snapshot : src.socket;
    if (check_heap(name, c, &o) != 0) {
        dbg_close(c);
        return 1;
    }
    uint64_t latency = 0;
    double t0 = now_s();
    if (dbg_pause(c, (uint32_t)o.timeout_ms, &latency) != 0) {
        st = die("pause: %s", dbg_error(c));
        dbg_close(c);
        return st;
    }
    if (o.stats && !dbg_is_snapshot(c))
        fprintf(stderr, "%s: paused in %.3f ms (request to safe point %.3f ms)\n", TOOL_NAME,
                (now_s() - t0) * 1e3, latency / 1e6);
    st = run_command(c, cmd, &o);
    dbg_close(c);
    return st;
}
