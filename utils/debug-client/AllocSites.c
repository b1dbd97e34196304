/*
 * utils/debug-client/AllocSites.c -- the allocation sites of sampled
 * objects (AllocSites.h): fetched with ALLOC_SITES once per pause (decoded
 * by Payloads.c), or a snapshot's, and looked up by address.
 * docs/debug-protocol.md, command 12.
 */
#include "AllocSites.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "Client.h"
#include "ClientState.h"
#include "Payloads.h"
#include "strata/Debug.h"

int dbg_alloc_sites(DbgClient *c, const DbgAllocSite **sites, size_t *n)
{
    if (!c->have_sites && !c->snapshot) {
        DebugCursor reply;
        int st = dbg_request_status(c, DEBUG_CMD_ALLOC_SITES, &reply);
        if (st == DEBUG_STATUS_UNKNOWN_COMMAND)
            c->have_sites = true;   /* an older stub: nothing sampled, as far as we know */
        else if (st != DEBUG_STATUS_OK || dbg_parse_alloc_sites(c, &reply) != 0)
            return -1;
    }
    *sites = c->sites;
    *n = c->n_sites;
    return 0;
}

const DbgAllocSite *dbg_alloc_site(DbgClient *c, uint64_t addr)
{
    const DbgAllocSite *all;
    size_t n;
    if (dbg_alloc_sites(c, &all, &n) != 0)
        return NULL;
    const uint64_t *i = word_map_get(&c->site_of, addr);
    return i != NULL ? &c->sites[*i - 1] : NULL;
}

void dbg_alloc_site_text(const DbgAllocSite *s, size_t max_frames, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < s->n_frames && o + 1 < len; k++) {
        const DbgFrame *f = &s->frames[k];
        int w;
        if (k == max_frames)
            w = snprintf(buf + o, len - o, " <- ...");
        else if (f->file[0] == '\0')
            w = snprintf(buf + o, len - o, "%s%s", k ? " <- " : "", f->function[0] ? f->function : "?");
        else if (f->line == 0)
            w = snprintf(buf + o, len - o, "%s%s (%s)", k ? " <- " : "",
                         f->function[0] ? f->function : "?", f->file);
        else
            w = snprintf(buf + o, len - o, "%s%s (%s:%" PRIu32 ")", k ? " <- " : "",
                         f->function[0] ? f->function : "?", f->file, f->line);
        if (w < 0)
            break;
        o += (size_t)w < len - o ? (size_t)w : len - o - 1;
        if (k == max_frames)
            break;
    }
}

int dbg_query_sampled_only(DbgClient *c, DbgQuery *q)
{
    const DbgAllocSite *sites;
    size_t n;
    if (dbg_alloc_sites(c, &sites, &n) != 0)
        return -1;
    q->sampled = &c->site_of;
    return 0;
}
