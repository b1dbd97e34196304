/*
 * utils/strata-debug/CmdOptions.c -- strata-debug's options, one table
 * for every command (CmdOptions.h), read by the tools' one parser
 * (utils/cli/Cli.c), and the checks of what goes with what.  Usage:
 * docs/strata-debug.md.
 */
#include "CmdOptions.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "Cli.h"

/* The commands that read a heap, and what else takes an option. */
#define HEAP_CMDS "census retainers boundary dominators fragmentation thunks weaks " \
                  "duplicates roots gml snapshot mark tui"

enum { OPT_HELP = 'h', OPT_SOCKET = 256, OPT_PID, OPT_SNAPSHOT, OPT_BY, OPT_ERA,
       OPT_CONSTRUCTOR, OPT_INFO, OPT_TYPE, OPT_LIMIT, OPT_RETAINERS, OPT_TIMEOUT, OPT_COLOR,
       OPT_STATS, OPT_FULL, OPT_RETAINED, OPT_JSON, OPT_NEW_ERA, OPT_SAMPLED };

static const CliOption options[] = {
    {"socket", 0, "PATH", OPT_SOCKET, HEAP_CMDS " diff", "the program's debug socket"},
    {"pid", 0, "PID", OPT_PID, HEAP_CMDS, "the program of this process id"},
    {"snapshot", 0, "FILE", OPT_SNAPSHOT, HEAP_CMDS, "a snapshot written by `snapshot`"},
    {"by", 0, "KIND", OPT_BY, HEAP_CMDS " diff", "census, diff: type, info, era or module"},
    {"era", 0, "LO-HI", OPT_ERA, HEAP_CMDS, "only objects of these eras (N: one era)"},
    {"constructor", 0, "NAME", OPT_CONSTRUCTOR, HEAP_CMDS, "retainers, boundary: what to look for"},
    {"info", 0, "ADDR", OPT_INFO, HEAP_CMDS, "retainers, boundary: objects of this info table"},
    {"type", 0, "CLOSURE_TYPE", OPT_TYPE, HEAP_CMDS,
     "retainers, boundary: objects of this closure type"},
    {"limit", 0, "N", OPT_LIMIT, HEAP_CMDS " diff", "how many to show (default 10)"},
    {"retainers", 0, "K", OPT_RETAINERS, HEAP_CMDS,
     "fragmentation: a retainer path for the K emptiest"},
    {"timeout", 0, "MS", OPT_TIMEOUT, HEAP_CMDS " diff", "pause timeout (default 10000)"},
    {"color", 0, NULL, OPT_COLOR, HEAP_CMDS " diff", "colour rows by era"},
    {"stats", 0, NULL, OPT_STATS, HEAP_CMDS, "timings on stderr"},
    {"full", 0, NULL, OPT_FULL, HEAP_CMDS, "every closure of a path, not runs"},
    {"retained", 0, NULL, OPT_RETAINED, HEAP_CMDS, "census: retained sizes too"},
    {"sampled", 0, NULL, OPT_SAMPLED, HEAP_CMDS,
     "retainers: only sampled objects (+RTS --alloc-sample)"},
    {"json", 0, NULL, OPT_JSON, HEAP_CMDS " diff list",
     "one JSON document on stdout (docs/strata-debug.md)"},
    {"new-era", 0, NULL, OPT_NEW_ERA, "snapshot", "snapshot: a new era as the program resumes"},
    {"help", 'h', NULL, OPT_HELP, NULL, "this text"},
    CLI_END,
};

void cmd_options_usage(FILE *out)
{
    cli_help(out,
             TOOL_NAME " list [--json]\n"
             TOOL_NAME " COMMAND (--socket PATH | --pid PID | --snapshot FILE) [OPTION...]\n"
             TOOL_NAME " diff A.snap (B.snap | --socket PATH) [--by KIND] [--limit N]",
             "Attaches to a running program's heap (pausing it) or opens a snapshot, and\n"
             "runs one analysis.  COMMAND is one of:\n"
             "  census [--by KIND] [--era LO-HI] [--retained]\n"
             "  retainers (--constructor NAME | --info ADDR | --type CLOSURE_TYPE)\n"
             "            [--era LO-HI] [--limit N] [--color] [--full] [--sampled]\n"
             "  boundary --era LO-HI [--constructor NAME | --info ADDR | --type CLOSURE_TYPE]\n"
             "  dominators | fragmentation [--retainers K] | thunks | weaks | duplicates\n"
             "  roots | gml FILE | snapshot FILE [--new-era] | mark\n"
             "  tui                  (interactive; docs/strata-debug-tui.md)",
             options, "See docs/strata-debug.md.");
}

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    Cli c = {.tool = TOOL_NAME, .command = cmd};
    return cli_usage_error(&c, "%s", message);
}

int die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", TOOL_NAME);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (s[0] == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* An operand: gml's and snapshot's FILE, diff's A and B; nothing else
 * takes one. */
static int take_operand(const Cli *c, const char *cmd, Opts *o, const char *operands[2],
                        const char *arg)
{
    bool diff = strcmp(cmd, "diff") == 0;
    if ((strcmp(cmd, "gml") == 0 || strcmp(cmd, "snapshot") == 0) && o->file == NULL)
        o->file = arg;
    else if (diff && operands[0] == NULL)
        operands[0] = arg;
    else if (diff && operands[1] == NULL)
        operands[1] = arg;
    else
        return cli_usage_error(c, diff ? "takes two heaps, A and B; '%s' is a third"
                                       : "unexpected argument '%s'", arg);
    return -1;
}

/* One option into o and src; -1 to go on, else the exit status. */
static int take_option(const Cli *c, int id, Opts *o, CmdSource *src)
{
    switch (id) {
    case OPT_HELP: cmd_options_usage(stdout); return 0;
    case OPT_SOCKET: src->socket = c->arg; break;
    case OPT_PID: src->pid = c->arg; break;
    case OPT_SNAPSHOT: src->snapshot = c->arg; break;
    case OPT_BY: o->by = c->arg; break;
    case OPT_ERA: o->era = c->arg; break;
    case OPT_CONSTRUCTOR: o->constructor = c->arg; break;
    case OPT_INFO: o->info = c->arg; break;
    case OPT_TYPE: o->type = c->arg; break;
    case OPT_COLOR: o->color = true; break;
    case OPT_STATS: o->stats = true; break;
    case OPT_FULL: o->full = true; break;
    case OPT_RETAINED: o->retained = true; break;
    case OPT_JSON: o->json = true; break;
    case OPT_NEW_ERA: o->new_era = true; break;
    case OPT_SAMPLED: o->sampled = true; break;
    case OPT_LIMIT:
    case OPT_RETAINERS:
    case OPT_TIMEOUT: {
        long *dst = id == OPT_LIMIT ? &o->limit : id == OPT_RETAINERS ? &o->retainers
                                                                      : &o->timeout_ms;
        if (!parse_long(c->arg, 1, 100000000, dst))
            return cli_usage_error(c, "%s expects a positive number, got '%s'", c->opt, c->arg);
        break;
    }
    }
    return -1;
}

int cmd_options_parse(int argc, char **argv, const char *cmd, Opts *o, CmdSource *src,
                      const char *operands[2])
{
    Cli c;
    int id, st = -1;
    cli_start(&c, TOOL_NAME, cmd, options, argc, argv, 2);
    while (st < 0 && (id = cli_next(&c)) != CLI_DONE) {
        if (id == CLI_ERROR)
            return CLI_EXIT_USAGE;
        st = id == CLI_OPERAND ? take_operand(&c, cmd, o, operands, c.arg)
                               : take_option(&c, id, o, src);
    }
    if (st < 0 && (strcmp(cmd, "gml") == 0 || strcmp(cmd, "snapshot") == 0) && o->file == NULL)
        return cli_usage_error(&c, "%s expects an output FILE", cmd);
    return st;
}
