/*
 * utils/strata-debug/Print.c -- printing closures, roots and retainer
 * paths as text (Print.h); the formats are described in
 * docs/strata-debug.md.
 */
#include "Print.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "TextOut.h"
#include "strata/Debug.h"

void print_text(const char *s)
{
    text_write_cstr(stdout, s, TEXT_TERMINAL);
}

/* A stable background per era, with black text (256-colour palette). */
void era_color_on(const Style *s, uint64_t era)
{
    static const int palette[] = {153, 187, 223, 181, 151, 189, 229, 195};
    if (s->color)
        printf("\033[48;5;%dm\033[38;5;16m", era == 0 ? 252 : palette[era % 8]);
}

void era_color_off(const Style *s)
{
    if (s->color)
        printf("\033[0m");
}

void print_provenance(const DbgInfo *in)
{
    if (in->prov_source == DEBUG_PROV_NONE)
        return;
    printf("  [");
    print_text(in->label);
    printf("%s", in->label[0] ? " in " : "");
    print_text(in->module[0] ? in->module : "<unknown>");
    char site[600];
    print_text(dbg_info_site(in, site, sizeof site));
    printf("]");
}

void print_closure_line(DbgClient *c, const Style *s, uint64_t addr, const char *prefix)
{
    DbgClosure cl;
    if (dbg_closure(c, addr, &cl) != 0) {
        printf("%s0x%" PRIx64 "  <%s>\n", prefix, addr, dbg_error(c));
        return;
    }
    const DbgInfo *in = cl.info;
    era_color_on(s, cl.era);
    printf("%s0x%" PRIx64 "  ", prefix, addr);
    print_text(dbg_type_label(in));
    printf("  %s  ", dbg_closure_type_name(in->type));
    if (cl.block != NULL)
        printf("era %" PRIu64 "  %s gen %u", cl.era, dbg_block_kind_name(cl.block->kind),
               cl.block->gen);
    else {
        char name[1024];
        dbg_static_name(c, addr, name, sizeof name);
        printf("static%s", name[0] ? " " : "");
        print_text(name);
    }
    print_provenance(in);
    era_color_off(s);
    printf("\n");
    print_alloc_site(c, addr, prefix);
}

/* Note [Allocation sites in the heap debugger]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A program run with +RTS --alloc-sample knows, for each sampled object
 * alive, the call stack that allocated it; the stub sends them all at
 * once (ALLOC_SITES, docs/debug-protocol.md) and a snapshot keeps them.
 * Every closure line of retainers, boundary and diff that names a
 * sampled object is followed by one line, indented under it, saying
 * where it was allocated.  Most objects are not sampled (one in 512 KiB
 * of allocation, by default): a run of closures says how many of its
 * objects were, and where the first of them came from, so that a path
 * through 400,000 cache entries still names the code that made them. */

/* The indent that lines a site up under the closure line printed with
 * prefix ("    <- " and "    -> " as "    "). */
static int site_indent(const char *prefix)
{
    int n = 0;
    while (prefix[n] == ' ')
        n++;
    return n + 4;
}

void print_alloc_site(DbgClient *c, uint64_t addr, const char *prefix)
{
    const DbgAllocSite *site = dbg_alloc_site(c, addr);
    if (site == NULL)
        return;
    char text[1024];
    dbg_alloc_site_text(site, 6, text, sizeof text);
    printf("%*sallocated at ", site_indent(prefix), "");
    print_text(text);
    printf(" (sample %" PRIu64 ", era %" PRIu64 ")\n", site->sample, site->era);
}

void print_root(DbgClient *c, const DbgRoot *r)
{
    char text[2048];
    dbg_root_describe(c, r, text, sizeof text);
    printf("    root: ");
    print_text(text);
    printf("\n");
}

/* 439812 as "439,812". */
const char *grouped(uint64_t v, char buf[32])
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v), o = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* A change: -1234 as "-1,234", 1234 as "+1,234", 0 as "0". */
const char *grouped_signed(int64_t v, char buf[32])
{
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    buf[0] = v < 0 ? '-' : '+';
    grouped(mag, buf + (v != 0));
    return buf;
}

/* "era 3" or "eras 3–21" (likewise gen). */
void print_range(const char *one, const char *many, uint64_t lo, uint64_t hi)
{
    if (lo == hi)
        printf("%s %" PRIu64, one, lo);
    else
        printf("%s %" PRIu64 "\u2013%" PRIu64, many, lo, hi);
}

/* A run of closures with one info table on one line:
 * "<- 439,812 × SessionEntry (CONSTR, eras 3–21, gen 0–1)  [prov]  0x… … 0x…". */
void print_run_line(const Style *s, const DbgPathRun *run)
{
    char n[32];
    era_color_on(s, run->era_lo);
    printf("    <- %s \u00d7 ", grouped(run->n, n));
    print_text(dbg_type_label(run->info));
    printf(" (%s, ", dbg_closure_type_name(run->info->type));
    print_range("era", "eras", run->era_lo, run->era_hi);
    printf(", ");
    print_range("gen", "gen", run->gen_lo, run->gen_hi);
    printf(")");
    print_provenance(run->info);
    printf("  0x%" PRIx64 " \u2026 0x%" PRIx64, run->first_addr, run->last_addr);
    era_color_off(s);
    printf("\n");
}

/* Of a run's objects, how many are sampled objects, and the first one's
 * site (Note [Allocation sites in the heap debugger]). */
static void print_run_sites(DbgClient *c, const DbgPath *p, size_t from, size_t to)
{
    const DbgAllocSite *first = NULL;
    size_t n = 0;
    for (size_t i = from; i < to; i++) {
        const DbgAllocSite *site = dbg_alloc_site(c, p->addrs[i]);
        if (site == NULL)
            continue;
        first = first != NULL ? first : site;
        n++;
    }
    if (first == NULL)
        return;
    char text[1024];
    dbg_alloc_site_text(first, 6, text, sizeof text);
    printf("        %zu of them sampled; 0x%" PRIx64 " allocated at ", n, first->addr);
    print_text(text);
    printf(" (sample %" PRIu64 ", era %" PRIu64 ")\n", first->sample, first->era);
}

/* A retainer path: the match, then what holds it up to the root; runs of
 * one info table on one line each unless s->full. */
int print_path_of(DbgClient *c, const Style *s, const DbgPath *p)
{
    print_closure_line(c, s, p->addrs[0], "    ");
    DbgPathRun *runs = NULL;
    size_t n_runs = 0;
    if (!s->full && dbg_path_runs(c, p, 1, &runs, &n_runs) != 0)
        return -1;
    if (s->full)
        for (size_t i = 1; i < p->n; i++)
            print_closure_line(c, s, p->addrs[i], "    <- ");
    for (size_t i = 0; i < n_runs; i++) {
        if (runs[i].n == 1) {
            print_closure_line(c, s, runs[i].first_addr, "    <- ");
        } else {
            print_run_line(s, &runs[i]);
            print_run_sites(c, p, runs[i].first, runs[i].first + runs[i].n);
        }
    }
    free(runs);
    const DbgRoot *roots;
    size_t nr;
    dbg_roots(c, &roots, &nr);
    print_root(c, &roots[p->root]);
    return 0;
}

int print_path(DbgClient *c, const DbgReach *r, const Style *s, uint64_t addr)
{
    DbgPath p;
    if (dbg_retainer_path(c, r, addr, &p) != 0)
        return -1;
    int st = print_path_of(c, s, &p);
    dbg_path_free(&p);
    return st;
}

/* Sites of the sampled objects of info (NULL: any) of eras lo to hi,
 * grouped by their text, most objects first (at most cap groups). */
size_t sites_in_eras(DbgClient *c, const DbgInfo *info, uint64_t lo, uint64_t hi,
                     SiteGroup *out, size_t cap, size_t *sampled)
{
    const DbgAllocSite *sites;
    size_t n_sites, n = 0;
    *sampled = 0;
    if (dbg_alloc_sites(c, &sites, &n_sites) != 0)
        return 0;
    for (size_t i = 0; i < n_sites; i++) {
        DbgClosure cl;
        if (sites[i].era < lo || sites[i].era > hi ||
            (info != NULL && (dbg_closure(c, sites[i].addr, &cl) != 0 || cl.info != info)))
            continue;
        (*sampled)++;
        char text[sizeof out->text];
        dbg_alloc_site_text(&sites[i], 6, text, sizeof text);
        size_t g = 0;
        while (g < n && strcmp(out[g].text, text) != 0)
            g++;
        if (g == n) {
            if (n == cap)
                continue;   /* a group beyond the cap: counted in sampled only */
            snprintf(out[n].text, sizeof out[n].text, "%s", text);
            out[n].site = &sites[i];
            out[n++].n = 0;
        }
        out[g].n++;
    }
    for (size_t a = 1; a < n; a++)   /* insertion sort: a handful of groups */
        for (size_t b = a; b > 0 && out[b].n > out[b - 1].n; b--) {
            SiteGroup t = out[b];
            out[b] = out[b - 1];
            out[b - 1] = t;
        }
    return n;
}

void print_sites_in_eras(DbgClient *c, const DbgInfo *info, uint64_t lo, uint64_t hi,
                         const char *what)
{
    SiteGroup groups[16];
    size_t sampled;
    size_t n = sites_in_eras(c, info, lo, hi, groups, 16, &sampled);
    if (sampled == 0)
        return;
    printf("    %zu %s sampled, allocated at:\n", sampled, what);
    for (size_t g = 0; g < n && g < 3; g++) {
        printf("      %zu  ", groups[g].n);
        print_text(groups[g].text);
        putchar('\n');
    }
}
