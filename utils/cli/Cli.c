/*
 * utils/cli/Cli.c -- the tools' one command-line parser (Cli.h).  See
 * Note [One way to read a command line].
 */
#include "Cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Note [One way to read a command line]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Each tool once parsed its own way (getopt_long in one, a loop of strcmp
 * in two, options told apart by their third character in the fourth), so
 * a mistyped option got four different answers.  Now each tool lists its
 * options in a table, and this module reads them the GNU way: "--name
 * VALUE" or "--name=VALUE", "-x VALUE" or "-xVALUE", options and operands
 * in any order, "--" ends the options and "-" is an operand (standard
 * input).  A bad option gets one message everywhere, naming it and, when
 * a known one is near (at most two letters away, or the start of one), the
 * option meant:
 *     strata-html: unknown option: --jsn (did you mean --json?)
 *     Try 'strata-html --help'.
 * An option of a tool's other command is unknown to this one.  --help is
 * laid out from the same table, so it lists what the parser takes. */

void cli_start(Cli *c, const char *tool, const char *command, const CliOption *options,
               int argc, char **argv, int first)
{
    *c = (Cli){.tool = tool, .command = command, .options = options, .argc = argc,
               .argv = argv, .next = first};
}

int cli_usage_error(const Cli *c, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", c->tool);
    if (c->command != NULL)
        fprintf(stderr, "%s: ", c->command);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '%s --help'.\n", c->tool);
    return CLI_EXIT_USAGE;
}

/* Whether option o is one of c's command's. */
static bool for_command(const Cli *c, const CliOption *o)
{
    if (o->commands == NULL || c->command == NULL)
        return true;
    size_t n = strlen(c->command);
    for (const char *p = o->commands; (p = strstr(p, c->command)) != NULL; p += n)
        if ((p == o->commands || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return true;
    return false;
}

/* Edits (insertions, deletions, substitutions) from a to b, up to 3. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 32 || lb > 32)
        return 3;
    size_t d[33][33];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            size_t del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
        }
    return d[la][lb] < 3 ? d[la][lb] : 3;
}

/* The known long option nearest to name (without "--"), or NULL. */
static const char *nearest(const Cli *c, const char *name, size_t len)
{
    char given[33];
    if (len == 0 || len >= sizeof given)
        return NULL;
    memcpy(given, name, len);
    given[len] = '\0';
    const char *best = NULL;
    size_t best_d = 3;
    for (const CliOption *o = c->options; o->name != NULL || o->letter != 0; o++) {
        if (o->name == NULL || !for_command(c, o))
            continue;
        size_t d = strncmp(o->name, given, len) == 0 ? 1 : distance(o->name, given);
        if (d < best_d) {
            best = o->name;
            best_d = d;
        }
    }
    return best;
}

static int unknown(Cli *c, const char *written, const char *name, size_t len)
{
    const char *near = name != NULL ? nearest(c, name, len) : NULL;
    if (near != NULL)
        return cli_usage_error(c, "unknown option: %s (did you mean --%s?)", written, near),
               CLI_ERROR;
    return cli_usage_error(c, "unknown option: %s", written), CLI_ERROR;
}

/* The option's value: after '=' or glued (inline, may be NULL), or the
 * next argument. */
static int take_value(Cli *c, const CliOption *o, const char *inline_value)
{
    if (o->arg == NULL) {
        if (inline_value != NULL)
            return cli_usage_error(c, "%s takes no value (got %s)", c->opt,
                                   c->argv[c->next - 1]), CLI_ERROR;
        c->arg = NULL;
        return o->id;
    }
    if (inline_value != NULL) {
        c->arg = inline_value;
        return o->id;
    }
    if (c->next >= c->argc)
        return cli_usage_error(c, "%s needs a value (%s)", c->opt, o->arg), CLI_ERROR;
    c->arg = c->argv[c->next++];
    return o->id;
}

static int long_option(Cli *c, const char *a)
{
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
    snprintf(c->written, sizeof c->written, "--%.*s", (int)len, name);
    c->opt = c->written;
    for (const CliOption *o = c->options; o->name != NULL || o->letter != 0; o++)
        if (o->name != NULL && strlen(o->name) == len && strncmp(o->name, name, len) == 0 &&
            for_command(c, o))
            return take_value(c, o, eq != NULL ? eq + 1 : NULL);
    return unknown(c, a, name, len);
}

static int short_option(Cli *c, const char *a)
{
    snprintf(c->written, sizeof c->written, "-%c", a[1]);
    c->opt = c->written;
    for (const CliOption *o = c->options; o->name != NULL || o->letter != 0; o++)
        if (o->letter == a[1] && for_command(c, o))
            return take_value(c, o, a[2] != '\0' ? a + 2 : NULL);
    return unknown(c, a, NULL, 0);
}

int cli_next(Cli *c)
{
    if (c->next >= c->argc)
        return CLI_DONE;
    const char *a = c->argv[c->next++];
    c->arg = a;
    c->opt = NULL;
    if (c->operands_only || a[0] != '-' || a[1] == '\0')
        return CLI_OPERAND;
    if (strcmp(a, "--") == 0) {
        c->operands_only = true;
        return cli_next(c);
    }
    return a[1] == '-' ? long_option(c, a) : short_option(c, a);
}

/* "  -o, --output FILE" and its help, the help at column 26 (or on the
 * next line when the option is longer). */
static void help_entry(FILE *out, const CliOption *o)
{
    char head[96];
    int n = snprintf(head, sizeof head, "  ");
    if (o->letter)
        n += snprintf(head + n, sizeof head - (size_t)n, "-%c%s", o->letter, o->name ? ", " : "");
    if (o->name)
        n += snprintf(head + n, sizeof head - (size_t)n, "--%s", o->name);
    if (o->arg)
        n += snprintf(head + n, sizeof head - (size_t)n, " %s", o->arg);
    fputs(head, out);
    if (n >= 26)
        fputs("\n                          ", out);
    else
        fprintf(out, "%*s", 26 - n, "");
    for (const char *h = o->help; *h != '\0'; h++) {
        fputc(*h, out);
        if (*h == '\n')
            fputs("                          ", out);
    }
    fputc('\n', out);
}

void cli_help(FILE *out, const char *synopsis, const char *about, const CliOption *options,
              const char *footer)
{
    fprintf(out, "usage: ");
    for (const char *s = synopsis; *s != '\0'; s++) {
        fputc(*s, out);
        if (*s == '\n')
            fputs("       ", out);
    }
    fprintf(out, "\n%s\noptions:\n", about);
    for (const CliOption *o = options; o->name != NULL || o->letter != 0; o++)
        if (o->help != NULL)
            help_entry(out, o);
    if (footer != NULL)
        fprintf(out, "%s\n", footer);
}
