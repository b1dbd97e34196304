/*
 * testsuite/unit/test_cli.c -- the tools' one command-line parser
 * (utils/cli/Cli.c, Note [One way to read a command line]): values after
 * '=' or glued or in the next argument, operands anywhere, "--" and "-",
 * options of another command refused, and the one message for an
 * unknown, misspelt or incomplete option (stderr is read back from a
 * temporary file).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "Cli.h"

enum { OPT_OUT = 'o', OPT_HELP = 'h', OPT_JSON = 256, OPT_TOP };

static const CliOption options[] = {
    {"json", 0, NULL, OPT_JSON, "summary pauses", "one JSON document"},
    {"top", 0, "N", OPT_TOP, "summary", "the top N"},
    {"output", 'o', "FILE", OPT_OUT, NULL, "write here"},
    {"help", 'h', NULL, OPT_HELP, NULL, NULL},
    CLI_END,
};

/* Everything written to stderr while reading argv (NULL-terminated) as
 * command cmd: the ids and values in seen[], the message in said[]. */
typedef struct {
    char seen[512];
    char said[512];
} Read;

static void read_all(const char *cmd, char **argv, Read *r)
{
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    fflush(stderr);
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    Cli c;
    cli_start(&c, "tool", cmd, options, argc, argv, 1);
    size_t n = 0;
    int id;
    r->seen[0] = '\0';
    while ((id = cli_next(&c)) != CLI_DONE && id != CLI_ERROR)
        n += (size_t)snprintf(r->seen + n, sizeof r->seen - n, "%d=%s;", id,
                              c.arg != NULL ? c.arg : "");
    if (id == CLI_ERROR)
        snprintf(r->seen + n, sizeof r->seen - n, "error");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t got = fread(r->said, 1, sizeof r->said - 1, tmp);
    r->said[got] = '\0';
    fclose(tmp);
}

#define ARGV(...) ((char *[]){"tool", __VA_ARGS__, NULL})

static void test_cli_values_and_operands(void **state)
{
    (void)state;
    Read r;
    read_all("summary", ARGV("--top", "3", "a.log", "--top=4", "-ofile", "-o", "x", "--json"),
             &r);
    assert_string_equal(r.seen, "257=3;-1=a.log;257=4;111=file;111=x;256=;");
    assert_string_equal(r.said, "");
    read_all("summary", ARGV("-", "--", "--json", "-o"), &r);
    assert_string_equal(r.seen, "-1=-;-1=--json;-1=-o;");
    read_all("summary", ARGV("--output=", "--top="), &r);   /* empty values are values */
    assert_string_equal(r.seen, "111=;257=;");
}

static void test_cli_unknown_and_misspelt(void **state)
{
    (void)state;
    Read r;
    read_all("summary", ARGV("--jsn", "a.log"), &r);
    assert_string_equal(r.seen, "error");
    assert_string_equal(r.said, "tool: summary: unknown option: --jsn (did you mean --json?)\n"
                                "Try 'tool --help'.\n");
    read_all("summary", ARGV("--outp=x"), &r);   /* the start of one */
    assert_string_equal(r.said, "tool: summary: unknown option: --outp=x (did you mean "
                                "--output?)\nTry 'tool --help'.\n");
    read_all("summary", ARGV("--frobnicate"), &r);
    assert_string_equal(r.said, "tool: summary: unknown option: --frobnicate\n"
                                "Try 'tool --help'.\n");
    read_all(NULL, ARGV("-q"), &r);
    assert_string_equal(r.said, "tool: unknown option: -q\nTry 'tool --help'.\n");
}

static void test_cli_other_commands_options(void **state)
{
    (void)state;
    Read r;
    read_all("pauses", ARGV("--top", "3"), &r);
    assert_string_equal(r.seen, "error");
    assert_string_equal(r.said, "tool: pauses: unknown option: --top\nTry 'tool --help'.\n");
    /* "sum" is not "summary": commands match whole words. */
    read_all("sum", ARGV("--json"), &r);
    assert_string_equal(r.seen, "error");
    read_all("pauses", ARGV("--json"), &r);
    assert_string_equal(r.seen, "256=;");
}

static void test_cli_values_missing_or_unwanted(void **state)
{
    (void)state;
    Read r;
    read_all("summary", ARGV("a.log", "--top"), &r);
    assert_string_equal(r.seen, "-1=a.log;error");
    assert_string_equal(r.said, "tool: summary: --top needs a value (N)\nTry 'tool --help'.\n");
    read_all("summary", ARGV("-o"), &r);
    assert_string_equal(r.said, "tool: summary: -o needs a value (FILE)\nTry 'tool --help'.\n");
    read_all("summary", ARGV("--json=yes"), &r);
    assert_string_equal(r.said, "tool: summary: --json takes no value (got --json=yes)\n"
                                "Try 'tool --help'.\n");
    read_all("summary", ARGV("-hx"), &r);
    assert_string_equal(r.said, "tool: summary: -h takes no value (got -hx)\n"
                                "Try 'tool --help'.\n");
}

static void test_cli_help_layout(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    cli_help(out, "tool summary FILE\ntool pauses FILE", "Does things.", options, "The end.");
    fclose(out);
    assert_string_equal(text, "usage: tool summary FILE\n"
                              "       tool pauses FILE\n"
                              "Does things.\n"
                              "options:\n"
                              "  --json                  one JSON document\n"
                              "  --top N                 the top N\n"
                              "  -o, --output FILE       write here\n"
                              "The end.\n");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_values_and_operands),
        cmocka_unit_test(test_cli_unknown_and_misspelt),
        cmocka_unit_test(test_cli_other_commands_options),
        cmocka_unit_test(test_cli_values_missing_or_unwanted),
        cmocka_unit_test(test_cli_help_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
