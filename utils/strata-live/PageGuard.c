/*
 * utils/strata-live/PageGuard.c -- the live page's request checks: its
 * own Host and Origin, and its token.  Note [Who may press the page's
 * buttons].
 */
#include "PageGuard.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

/* Note [Who may press the page's buttons]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The buttons make the program do things (a new era, a major GC), so a
 * command must come from the page itself, not from any other page the
 * person has open, which can make the browser send requests to
 * 127.0.0.1 too:
 *   - A command is a POST (/live/control); no GET changes anything.
 *   - It carries the page's token (X-Strata-Token), 128 random bits made
 *     at start-up and written only into the page.  Another origin cannot
 *     read the page, so cannot know the token; a custom header also makes
 *     a cross-origin fetch ask first (CORS preflight), which is refused.
 *   - Its Origin must be the page's own (http://HOST), and Sec-Fetch-Site,
 *     where the browser sends it, same-origin.
 *   - Its Host must name the server as it was asked to listen (or the
 *     loopback names): a site whose DNS name is made to resolve to
 *     127.0.0.1 ("DNS rebinding") is same-origin with itself, not with
 *     the page, and would otherwise read the page and its token.  So the
 *     page and its data are refused to a foreign Host too.  /metrics and
 *     /debug/pprof/heap are not guarded: they change nothing and are read
 *     by Prometheus under whatever name it was given.
 * The server listens on loopback unless --listen says otherwise.
 */

static void add_host(PageGuard *g, const char *host, unsigned port)
{
    if (g->n_hosts == PAGE_GUARD_MAX_HOSTS || host[0] == '\0')
        return;
    int v6 = strchr(host, ':') != NULL;
    snprintf(g->hosts[g->n_hosts++], PAGE_GUARD_HOST_MAX, "%s%s%s:%u", v6 ? "[" : "", host,
             v6 ? "]" : "", port);
}

void page_guard_init(PageGuard *g, const char *listen_host, unsigned port, const char *token)
{
    memset(g, 0, sizeof *g);
    snprintf(g->token, sizeof g->token, "%s", token);
    add_host(g, "127.0.0.1", port);
    add_host(g, "localhost", port);
    add_host(g, "::1", port);
    int wildcard = listen_host[0] == '\0' || strcmp(listen_host, "0.0.0.0") == 0 ||
                   strcmp(listen_host, "::") == 0;
    if (!wildcard && strcmp(listen_host, "127.0.0.1") != 0 &&
        strcasecmp(listen_host, "localhost") != 0 && strcmp(listen_host, "::1") != 0)
        add_host(g, listen_host, port);
    char name[256];
    if (wildcard && gethostname(name, sizeof name) == 0) {
        name[sizeof name - 1] = '\0';
        add_host(g, name, port);
    }
}

int page_guard_new_token(char *token, char *why, size_t why_len)
{
    unsigned char bits[PAGE_GUARD_TOKEN_HEX / 2];
    size_t got = 0;
    while (got < sizeof bits) {
        ssize_t n = getrandom(bits + got, sizeof bits - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            snprintf(why, why_len, "cannot make the page's token: getrandom: %s",
                     n < 0 ? strerror(errno) : "no bytes");
            return 0;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof bits; i++)
        snprintf(token + 2 * i, 3, "%02x", bits[i]);
    return 1;
}

const char *page_guard_check_host(const PageGuard *g, const char *host)
{
    if (host == NULL || host[0] == '\0')
        return "refused: the request has no Host header";
    for (size_t i = 0; i < g->n_hosts; i++)
        if (strcasecmp(host, g->hosts[i]) == 0)
            return NULL;
    return "refused: the Host header does not name this server (the page is served to its "
           "own address only)";
}

/* Compares in time that does not depend on where a and b differ. */
static int same_token(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char diff = la != lb;
    for (size_t i = 0; i < la && i < lb; i++)
        diff |= (unsigned char)(a[i] ^ b[i]);
    return diff == 0;
}

const char *page_guard_check_command(const PageGuard *g, const char *method, const char *host,
                                     const char *origin, const char *sec_fetch_site,
                                     const char *token)
{
    if (strcmp(method, "POST") != 0)
        return "refused: a command is a POST";
    const char *why = page_guard_check_host(g, host);
    if (why != NULL)
        return why;
    if (origin == NULL)
        return "refused: a command must carry the page's Origin";
    if (strncmp(origin, "http://", 7) != 0 || strcasecmp(origin + 7, host) != 0)
        return "refused: the request's Origin is not the page's own (cross-origin)";
    if (sec_fetch_site != NULL && strcmp(sec_fetch_site, "same-origin") != 0)
        return "refused: the request did not come from the page (Sec-Fetch-Site)";
    if (token == NULL || !same_token(token, g->token))
        return "refused: the request does not carry the page's token";
    return NULL;
}
