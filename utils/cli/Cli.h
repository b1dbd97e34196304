/*
 * utils/cli/Cli.h -- the tools' one command-line parser: options from a
 * table, read one at a time; the one message for an unknown, misspelt or
 * incomplete option; and --help in one layout.  strata-events,
 * strata-html, strata-live and strata-debug all parse with it (Note [One
 * way to read a command line] in Cli.c).  The whole API of Cli.c.
 */
#ifndef STRATA_CLI_H
#define STRATA_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit status of a usage error (every tool's). */
#define CLI_EXIT_USAGE 2

/* One option.  A table ends with a row whose name is NULL. */
typedef struct {
    const char *name;       /* long name without "--" ("output"), or NULL for a
                             * letter only */
    char letter;            /* short name ('o'), or 0 */
    const char *arg;        /* the value's name in --help ("FILE"), or NULL when
                             * the option takes none */
    int id;                 /* what cli_next returns for it (positive) */
    const char *commands;   /* the commands that take it, space-separated
                             * ("summary pauses"), or NULL for every one */
    const char *help;       /* its text in --help (lines after the first begin
                             * with "\n"), or NULL to leave it out */
} CliOption;

#define CLI_END {NULL, 0, NULL, 0, NULL, NULL}

/* What cli_next returns besides an option's id. */
enum {
    CLI_DONE = 0,           /* no argument left */
    CLI_OPERAND = -1,       /* c->arg is an operand (anything not an option,
                             * "-" included, and everything after "--") */
    CLI_ERROR = -2,         /* a bad option; the message is said */
};

typedef struct {
    const char *tool;       /* the program ("strata-html") */
    const char *command;    /* its command ("pprof") for a tool of commands, or NULL */
    const CliOption *options;
    int argc;
    char **argv;
    int next;               /* argv index of the next argument */
    bool operands_only;     /* "--" was read */
    const char *arg;        /* the value of the option cli_next returned, or
                             * the operand */
    const char *opt;        /* the option as it was written ("--top", "-o") */
    char written[64];       /* opt's text */
} Cli;

/* Starts reading argv[first ..] (argv[0] is the program, argv[1] a
 * command's name, say). */
void cli_start(Cli *c, const char *tool, const char *command, const CliOption *options,
               int argc, char **argv, int first);

/* The next option's id, with its value in c->arg; CLI_OPERAND; CLI_DONE;
 * or CLI_ERROR after the one message for an option that is unknown
 * (naming the nearest known one: "did you mean --json?"), takes a value
 * it was not given, or was given one it does not take. */
int cli_next(Cli *c);

/* "TOOL: [COMMAND: ]MESSAGE" and "Try 'TOOL --help'." on stderr; returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const Cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* --help: "usage: " and the synopsis (lines after the first begin with
 * "\n"), what the tool does, "options:" and one entry per option with
 * help ("  -o, --output FILE  ..."), then the footer. */
void cli_help(FILE *out, const char *synopsis, const char *about, const CliOption *options,
              const char *footer);

#endif /* STRATA_CLI_H */
