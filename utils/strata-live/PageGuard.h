/*
 * utils/strata-live/PageGuard.h -- who may use the live page: the checks
 * on a request's Host, Origin and token (Note [Who may press the page's
 * buttons] in PageGuard.c).  Pure functions of the request's headers, so
 * that the unit test can try every refusal.  The whole API of the module.
 */
#ifndef STRATA_LIVE_PAGE_GUARD_H
#define STRATA_LIVE_PAGE_GUARD_H

#include <stddef.h>

#define PAGE_GUARD_TOKEN_HEX 32        /* 128 random bits, in hex */
#define PAGE_GUARD_MAX_HOSTS 6
#define PAGE_GUARD_HOST_MAX 300

typedef struct PageGuard {
    char token[PAGE_GUARD_TOKEN_HEX + 1];
    /* The page's own authorities ("host:port"), any of which a request's
     * Host may name. */
    char hosts[PAGE_GUARD_MAX_HOSTS][PAGE_GUARD_HOST_MAX];
    size_t n_hosts;
} PageGuard;

/* The page's authorities for a server listening on listen_host:port (the
 * --listen host as given; "" or a wildcard address adds the machine's
 * name), with token as the page's token (PAGE_GUARD_TOKEN_HEX hex
 * digits). */
void page_guard_init(PageGuard *g, const char *listen_host, unsigned port, const char *token);

/* Fills token (PAGE_GUARD_TOKEN_HEX + 1 bytes) with random hex digits
 * from the kernel.  Returns 0 with why filled when there is no
 * randomness to be had. */
int page_guard_new_token(char *token, char *why, size_t why_len);

/* NULL if a request with this Host header (may be NULL) may read the page
 * and its data; else why it is refused. */
const char *page_guard_check_host(const PageGuard *g, const char *host);

/* NULL if a control command may run: a POST, Host the page's own, Origin
 * present and the page's own origin (http://HOST), Sec-Fetch-Site (when
 * the browser sends it) same-origin, and token the page's token.  Else
 * why it is refused.  Any argument but g and method may be NULL. */
const char *page_guard_check_command(const PageGuard *g, const char *method, const char *host,
                                     const char *origin, const char *sec_fetch_site,
                                     const char *token);

#endif /* STRATA_LIVE_PAGE_GUARD_H */
