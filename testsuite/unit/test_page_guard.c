/*
 * testsuite/unit/test_page_guard.c -- who may use strata-live's page
 * (utils/strata-live/PageGuard.c, Note [Who may press the page's
 * buttons]): the page's own Host names, and a command's method, Host,
 * Origin, Sec-Fetch-Site and token, each refused alone while the others
 * are right; the tokens made are 32 hex digits and differ.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "PageGuard.h"

#define TOKEN "0123456789abcdef0123456789abcdef"

static void test_page_guard_hosts(void **st)
{
    (void)st;
    PageGuard g;
    page_guard_init(&g, "127.0.0.1", 9465, TOKEN);
    assert_null(page_guard_check_host(&g, "127.0.0.1:9465"));
    assert_null(page_guard_check_host(&g, "localhost:9465"));
    assert_null(page_guard_check_host(&g, "LocalHost:9465"));
    assert_null(page_guard_check_host(&g, "[::1]:9465"));
    assert_non_null(page_guard_check_host(&g, NULL));
    assert_non_null(page_guard_check_host(&g, ""));
    assert_non_null(page_guard_check_host(&g, "127.0.0.1"));          /* no port */
    assert_non_null(page_guard_check_host(&g, "127.0.0.1:9466"));     /* another port */
    assert_non_null(page_guard_check_host(&g, "rebound.example:9465"));
    assert_non_null(page_guard_check_host(&g, "127.0.0.1:9465.evil"));
    /* A named --listen host is the page's too; a wildcard adds the
     * machine's name, not every name. */
    page_guard_init(&g, "10.1.2.3", 80, TOKEN);
    assert_null(page_guard_check_host(&g, "10.1.2.3:80"));
    assert_non_null(page_guard_check_host(&g, "10.1.2.4:80"));
    page_guard_init(&g, "::", 80, TOKEN);
    assert_null(page_guard_check_host(&g, "[::1]:80"));
    assert_non_null(page_guard_check_host(&g, "[::]:80"));
    assert_non_null(page_guard_check_host(&g, "evil.example:80"));
}

static void test_page_guard_commands(void **st)
{
    (void)st;
    PageGuard g;
    page_guard_init(&g, "127.0.0.1", 9465, TOKEN);
    const char *host = "127.0.0.1:9465", *origin = "http://127.0.0.1:9465";
    assert_null(page_guard_check_command(&g, "POST", host, origin, NULL, TOKEN));
    assert_null(page_guard_check_command(&g, "POST", host, origin, "same-origin", TOKEN));
    assert_null(page_guard_check_command(&g, "POST", "localhost:9465", "http://localhost:9465",
                                         "same-origin", TOKEN));
    /* Each refused alone. */
    assert_non_null(page_guard_check_command(&g, "GET", host, origin, NULL, TOKEN));
    assert_non_null(page_guard_check_command(&g, "PUT", host, origin, NULL, TOKEN));
    assert_non_null(page_guard_check_command(&g, "POST", "evil.example:9465",
                                             "http://evil.example:9465", NULL, TOKEN));
    assert_non_null(page_guard_check_command(&g, "POST", NULL, origin, NULL, TOKEN));
    assert_non_null(page_guard_check_command(&g, "POST", host, NULL, NULL, TOKEN));
    assert_non_null(page_guard_check_command(&g, "POST", host, "null", NULL, TOKEN));
    assert_non_null(page_guard_check_command(&g, "POST", host, "http://evil.example", NULL,
                                             TOKEN));
    assert_non_null(page_guard_check_command(&g, "POST", host, "https://127.0.0.1:9465",
                                             NULL, TOKEN));
    /* Origin must be the Host the request names, not another of ours. */
    assert_non_null(page_guard_check_command(&g, "POST", host, "http://localhost:9465", NULL,
                                             TOKEN));
    assert_non_null(page_guard_check_command(&g, "POST", host, origin, "cross-site", TOKEN));
    assert_non_null(page_guard_check_command(&g, "POST", host, origin, "same-site", TOKEN));
    assert_non_null(page_guard_check_command(&g, "POST", host, origin, NULL, NULL));
    assert_non_null(page_guard_check_command(&g, "POST", host, origin, NULL, ""));
    assert_non_null(page_guard_check_command(&g, "POST", host, origin, NULL,
                                             "0123456789abcdef0123456789abcdee"));
    assert_non_null(page_guard_check_command(&g, "POST", host, origin, NULL,
                                             "0123456789abcdef0123456789abcdef0"));
    assert_non_null(page_guard_check_command(&g, "POST", host, origin, NULL,
                                             "0123456789abcdef"));
    const char *why = page_guard_check_command(&g, "POST", host, "http://evil.example", NULL,
                                               TOKEN);
    assert_non_null(strstr(why, "cross-origin"));
}

static void test_page_guard_tokens(void **st)
{
    (void)st;
    char a[PAGE_GUARD_TOKEN_HEX + 1], b[PAGE_GUARD_TOKEN_HEX + 1], why[128];
    assert_int_equal(page_guard_new_token(a, why, sizeof why), 1);
    assert_int_equal(page_guard_new_token(b, why, sizeof why), 1);
    assert_int_equal(strlen(a), PAGE_GUARD_TOKEN_HEX);
    assert_int_equal(strspn(a, "0123456789abcdef"), PAGE_GUARD_TOKEN_HEX);
    assert_string_not_equal(a, b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_guard_hosts),
        cmocka_unit_test(test_page_guard_commands),
        cmocka_unit_test(test_page_guard_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
