/*
 * testsuite/unit/test_text_out.c -- the one way every tool writes a
 * string (wire/TextOut.c, Note [One way to write a string]), in each
 * style: UTF-8 passed through, control characters and invalid bytes
 * escaped as the style's format asks, quotes escaped, and the longest
 * escape of one character (a four-byte character shown as ASCII) within
 * TEXT_CHAR_MAX and TEXT_ESCAPED_MAX; text_escape's truncation keeps
 * whole characters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "TextOut.h"

static void expect(const char *in, size_t len, TextStyle style, const char *want)
{
    char buf[256];
    size_t n = text_escape(buf, sizeof buf, in, len, style);
    assert_true(n <= TEXT_ESCAPED_MAX(len));
    assert_int_equal(n, strlen(want));
    assert_string_equal(buf, want);
}

#define CAFE "Caf\xc3\xa9\xe2\x86\x92\xce\xbb"   /* Café→λ */

static void test_text_out_utf8_passes_through(void **state)
{
    (void)state;
    for (TextStyle s = TEXT_TERMINAL; s <= TEXT_HTML; s++)
        if (s != TEXT_ASCII)
            expect(CAFE, 10, s, CAFE);
    expect("\xf0\x9d\x84\x9e", 4, TEXT_JSON, "\xf0\x9d\x84\x9e");   /* U+1D11E */
    expect(CAFE, 10, TEXT_ASCII, "Caf\\xc3\\xa9\\xe2\\x86\\x92\\xce\\xbb");
}

static void test_text_out_invalid_bytes_read_as_xnn(void **state)
{
    (void)state;
    const char bad[] = "a\xff" "b\xe2\x82" "c\xc0\xaf" "d\xed\xa0\x80";
    size_t len = sizeof bad - 1;
    expect(bad, len, TEXT_TERMINAL, "a\\xffb\\xe2\\x82c\\xc0\\xafd\\xed\\xa0\\x80");
    expect(bad, len, TEXT_QUOTED, "a\\xffb\\xe2\\x82c\\xc0\\xafd\\xed\\xa0\\x80");
    expect(bad, len, TEXT_HTML, "a\\xffb\\xe2\\x82c\\xc0\\xafd\\xed\\xa0\\x80");
    expect(bad, len, TEXT_JSON, "a\\\\xffb\\\\xe2\\\\x82c\\\\xc0\\\\xafd\\\\xed\\\\xa0\\\\x80");
    expect(bad, len, TEXT_PROMETHEUS,
           "a\\\\xffb\\\\xe2\\\\x82c\\\\xc0\\\\xafd\\\\xed\\\\xa0\\\\x80");
}

static void test_text_out_control_characters(void **state)
{
    (void)state;
    /* NUL, tab, line feed, ESC, DEL and U+009B (a C1 control, two bytes). */
    const char ctl[] = "\0\t\n\x1b\x7f\xc2\x9b";
    size_t len = sizeof ctl - 1;
    expect(ctl, len, TEXT_TERMINAL, "\\x00\\x09\\x0a\\x1b\\x7f\\xc2\\x9b");
    expect(ctl, len, TEXT_JSON, "\\u0000\\u0009\\u000a\\u001b\\u007f\\u009b");
    expect(ctl, len, TEXT_PROMETHEUS, "\\\\x00\\\\x09\\n\\\\x1b\\\\x7f\\\\xc2\\\\x9b");
    expect(ctl, len, TEXT_HTML, "\\x00\\x09\\x0a\\x1b\\x7f\\xc2\\x9b");
}

static void test_text_out_quotes(void **state)
{
    (void)state;
    const char q[] = "\"\\<>&";
    expect(q, 5, TEXT_TERMINAL, "\"\\<>&");
    expect(q, 5, TEXT_QUOTED, "\\\"\\\\<>&");
    expect(q, 5, TEXT_JSON, "\\\"\\\\<>&");
    expect(q, 5, TEXT_JSON_SCRIPT, "\\\"\\\\\\u003c\\u003e\\u0026");
    expect(q, 5, TEXT_PROMETHEUS, "\\\"\\\\<>&");
    expect(q, 5, TEXT_HTML, "&quot;\\&lt;&gt;&amp;");
}

/* The longest forms fit the bounds the callers size their buffers by. */
static void test_text_out_bounds(void **state)
{
    (void)state;
    char one[TEXT_CHAR_MAX];
    size_t i = 0;
    assert_true(16 <= TEXT_CHAR_MAX);
    assert_int_equal(text_escape_char("\xf0\x9d\x84\x9e", 4, &i, TEXT_ASCII, one), 16);
    assert_int_equal(i, 4);
    i = 0;
    assert_int_equal(text_escape_char("\xc2\x9b", 2, &i, TEXT_PROMETHEUS, one), 10);
    assert_true(10 <= TEXT_ESCAPED_MAX(2));
    assert_int_equal(text_escape(NULL, 0, "\x1f", 1, TEXT_JSON), 6);
    assert_int_equal(TEXT_ESCAPED_MAX(1), 6);
}

/* A short buffer gets whole characters and a NUL; the length returned is
 * the whole escaped form's. */
static void test_text_out_truncates_whole_characters(void **state)
{
    (void)state;
    char buf[6];
    assert_int_equal(text_escape(buf, sizeof buf, "ab\xff", 3, TEXT_TERMINAL), 6);
    assert_string_equal(buf, "ab");
    assert_int_equal(text_escape(buf, sizeof buf, CAFE, 10, TEXT_TERMINAL), 10);
    assert_string_equal(buf, "Caf\xc3\xa9");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_out_utf8_passes_through),
        cmocka_unit_test(test_text_out_invalid_bytes_read_as_xnn),
        cmocka_unit_test(test_text_out_control_characters),
        cmocka_unit_test(test_text_out_quotes),
        cmocka_unit_test(test_text_out_bounds),
        cmocka_unit_test(test_text_out_truncates_whole_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
