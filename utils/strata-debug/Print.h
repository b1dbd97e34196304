/*
 * utils/strata-debug/Print.h -- printing closures, roots and retainer
 * paths as text, shared by the commands (the *Cmds.c files, DiffCmd.c).
 */
#ifndef STRATA_DEBUG_PRINT_H
#define STRATA_DEBUG_PRINT_H

#include <stdbool.h>
#include <stdint.h>

#include "DebugAnalysis.h"
#include "DebugClient.h"

typedef struct {
    bool color;
    bool full;                   /* every closure of a path, no runs */
} Style;

/* A string of the program's (a label, a module, a file) as text on
 * stdout: UTF-8 as it is, control characters and invalid bytes as \xNN
 * (Note [One way to write a string] in wire/TextOut.c). */
void print_text(const char *s);
/* A stable background per era (--color), and back to normal. */
void era_color_on(const Style *s, uint64_t era);
void era_color_off(const Style *s);
/* "  [label in module, file:span]", or nothing without provenance. */
void print_provenance(const DbgInfo *in);
/* One closure: address, label, type, era and block (or static name),
 * provenance; after prefix. */
void print_closure_line(DbgClient *c, const Style *s, uint64_t addr, const char *prefix);
/* "allocated at f (file:line) <- ..." under a closure line (printed with
 * prefix), when the closure is a sampled object (+RTS --alloc-sample);
 * nothing otherwise.  print_closure_line calls it. */
void print_alloc_site(DbgClient *c, uint64_t addr, const char *prefix);

/* The sampled objects of info (NULL: any) of eras lo to hi grouped by
 * allocation site, most first. */
typedef struct {
    char text[1024];             /* the site as dbg_alloc_site_text gives it */
    const DbgAllocSite *site;    /* one of them */
    size_t n;                    /* sampled objects allocated there */
} SiteGroup;
size_t sites_in_eras(DbgClient *c, const DbgInfo *info, uint64_t lo, uint64_t hi,
                     SiteGroup *out, size_t cap, size_t *sampled);
/* "    N <what> sampled, allocated at:" and the three commonest sites;
 * nothing when none is sampled (diff's new objects, boundary's old). */
void print_sites_in_eras(DbgClient *c, const DbgInfo *info, uint64_t lo, uint64_t hi,
                         const char *what);
/* "    root: ..." */
void print_root(DbgClient *c, const DbgRoot *r);
/* 439812 as "439,812"; a change with its sign: "+1,234", "-1,234", "0". */
const char *grouped(uint64_t v, char buf[32]);
const char *grouped_signed(int64_t v, char buf[32]);
/* "era 3" or "eras 3–21" (likewise gen). */
void print_range(const char *one, const char *many, uint64_t lo, uint64_t hi);
/* A run of closures with one info table on one line. */
void print_run_line(const Style *s, const DbgPathRun *run);
/* A retainer path: the object, what holds it (in runs unless s->full), the
 * root.  p is a path as dbg_retainer_path gives it. */
int print_path_of(DbgClient *c, const Style *s, const DbgPath *p);
/* The retainer path of addr in r; -1 (dbg_error) on failure. */
int print_path(DbgClient *c, const DbgReach *r, const Style *s, uint64_t addr);

#endif /* STRATA_DEBUG_PRINT_H */
