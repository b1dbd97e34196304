/*
 * profiling/DwarfIndex.c -- builds the address index of DwarfIndex.h with
 * libdwarf, over the unit walk of DwarfUnit.h.
 *
 * One pass over the compilation units.  In each, the walk visits the
 * unit's top-level DIEs and, in a deep walk, the bodies of functions and
 * lexical blocks (where static local variables live), never types.  The
 * bodies are most of the DIEs (parameters, locals, inlined calls, call
 * sites) and tables are rarely static locals, so the resolver walks deep
 * only when a shallow index misses (Provenance.c).  A variable is
 * indexed when its location is a single DW_OP_addr; a function when it
 * has a low PC.  Name, declaring file and line come from the DIE itself
 * or, for a definition that refers back to its declaration or abstract
 * instance, from the DIE it refers to.  A function without a declaring
 * line takes the line of the line-table row at its entry.
 * An error stops the walk and is reported to the caller; what was indexed
 * before it is kept (.inv.no-crash, DwarfUnit.h).
 */
#include "DwarfIndex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "DwarfUnit.h"
#include "GrowArray.h"
#include "Messages.h"
#include "SortedSearch.h"

typedef struct {
    DwarfUnitWalk *u;           /* the unit walk (dbg, the unit's files) */
    DwarfIndex *ix;
    bool deep;                  /* into function bodies too (static locals) */
    size_t first_entry;         /* the unit's first entry in ix */
    bool needs_lines;           /* some function of the unit lacks a line */
} Walk;

/* ----------------------------------------------------------------------
 * Entries
 * ---------------------------------------------------------------------- */

static void add_entry(Walk *w, Dwarf_Die die, Dwarf_Addr vaddr, bool function)
{
    char *name;
    Dwarf_Unsigned file_no, line;
    dwarf_unit_decl(w->u, die, &name, &file_no, &line);
    DwarfIndex *ix = w->ix;
    if (GROW_ARRAY_RESERVE_MIN(ix->entries, ix->cap_entries, ix->n_entries + 1, 256) != 0)
        rts_panic("provenance: out of C heap (%zu DWARF entries)", ix->n_entries);
    ix->entries[ix->n_entries++] = (DwarfEntry){
        .vaddr = vaddr,
        .name = name != NULL ? str_arena_copy(&ix->strings, name) : "",
        .file = dwarf_unit_file(w->u, file_no),
        .module = w->u->module,
        .line = line <= UINT32_MAX ? (uint32_t)line : 0,
    };
    if (line == 0 && function)
        w->needs_lines = true;
}

/* A variable whose location is one DW_OP_addr: a static address.  The
 * compiler's own (__func__ and the like: DW_AT_artificial) are skipped. */
static void index_variable(Walk *w, Dwarf_Die die)
{
    Dwarf_Attribute a;
    Dwarf_Error err = NULL;
    Dwarf_Bool artificial = false;
    int res = dwarf_hasattr(die, DW_AT_artificial, &artificial, &err);
    if (res == DW_DLV_ERROR) {
        dwarf_unit_fail(w->u, "reading a variable's attributes", err);
        return;
    }
    if (artificial)
        return;
    if (!dwarf_unit_attr(w->u, die, DW_AT_location, &a, "reading a variable's location"))
        return;
    Dwarf_Half form = 0;
    Dwarf_Unsigned len = 0;
    Dwarf_Ptr expr = NULL;
    res = dwarf_whatform(a, &form, &err);
    if (res == DW_DLV_OK && form == DW_FORM_exprloc)
        res = dwarf_formexprloc(a, &len, &expr, &err);
    else if (res == DW_DLV_OK)
        res = DW_DLV_NO_ENTRY;   /* a location list: not a static variable */
    dwarf_dealloc_attribute(a);
    if (res == DW_DLV_ERROR) {
        dwarf_unit_fail(w->u, "reading a variable's location", err);
        return;
    }
    const unsigned char *op = expr;
    if (res != DW_DLV_OK || w->u->address_size > 8 || len != 1u + w->u->address_size ||
        op[0] != DW_OP_addr)
        return;
    Dwarf_Addr vaddr = 0;
    for (unsigned i = w->u->address_size; i > 0; i--)   /* little-endian: native */
        vaddr = vaddr << 8 | op[i];
    if (vaddr != 0)
        add_entry(w, die, vaddr, false);
}

static void index_function(Walk *w, Dwarf_Die die)
{
    Dwarf_Addr low_pc;
    Dwarf_Error err = NULL;
    int res = dwarf_lowpc(die, &low_pc, &err);
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w->u, "reading a function's entry", err);
    else if (res == DW_DLV_OK && low_pc != 0)
        add_entry(w, die, low_pc, true);
}

/* A function of the current unit without a declaring line takes the line
 * of a line-table row at its entry. */
static void fill_line_from_row(const DwarfLineRow *row, void *ctx)
{
    Walk *w = ctx;
    for (size_t e = w->first_entry; e < w->ix->n_entries; e++) {
        DwarfEntry *entry = &w->ix->entries[e];
        if (entry->line == 0 && entry->vaddr == row->addr && row->line <= UINT32_MAX)
            entry->line = (uint32_t)row->line;
    }
}

/* ----------------------------------------------------------------------
 * The walk
 * ---------------------------------------------------------------------- */

static void walk_children(Walk *w, Dwarf_Die parent, int depth);

static void walk_die(Dwarf_Die die, Dwarf_Half tag, int depth, void *ctx)
{
    Walk *w = ctx;
    switch (tag) {
    case DW_TAG_variable:
        index_variable(w, die);
        break;
    case DW_TAG_subprogram:
        index_function(w, die);
        if (w->deep)
            walk_children(w, die, depth + 1);
        break;
    case DW_TAG_lexical_block:
        walk_children(w, die, depth + 1);
        break;
    default:
        break;
    }
}

static void walk_children(Walk *w, Dwarf_Die parent, int depth)
{
    dwarf_unit_children(w->u, parent, depth, walk_die, w);
}

/* One unit: its top-level DIEs (and, deep, the bodies), then the lines
 * of functions that declare none. */
static void index_unit(DwarfUnitWalk *u, Dwarf_Die cu, void *ctx)
{
    Walk *w = ctx;
    w->first_entry = w->ix->n_entries;
    w->needs_lines = false;
    walk_children(w, cu, 0);
    if (w->needs_lines && !u->failed)
        dwarf_unit_lines(w->u, cu, fill_line_from_row, w);
}

/* ----------------------------------------------------------------------
 * The index
 * ---------------------------------------------------------------------- */

static int entry_order(const void *a, const void *b)
{
    const DwarfEntry *x = a, *y = b;
    if (x->vaddr != y->vaddr)
        return x->vaddr < y->vaddr ? -1 : 1;
    return (y->line != 0) - (x->line != 0);   /* an entry with a line first */
}

bool dwarf_index_build(const char *path, bool deep, DwarfIndex *ix, char *why, size_t why_len)
{
    DwarfUnitWalk u = {.strings = &ix->strings, .why = why, .why_len = why_len};
    Walk w = {.u = &u, .ix = ix, .deep = deep};
    ix->deep = deep;
    bool ok = dwarf_unit_walk(&u, path, index_unit, &w);
    if (ix->n_entries > 1)
        qsort(ix->entries, ix->n_entries, sizeof *ix->entries, entry_order);
    ix->bytes = ix->cap_entries * sizeof *ix->entries + ix->strings.bytes;
    return ok;
}

void dwarf_index_free(DwarfIndex *ix)
{
    free(ix->entries);
    str_arena_free(&ix->strings);
    memset(ix, 0, sizeof *ix);
}

void dwarf_index_check(const DwarfIndex *ix)
{
    if (ix->n_entries > ix->cap_entries)
        rts_panic("provenance: %zu DWARF entries in room for %zu", ix->n_entries,
                  ix->cap_entries);
    for (size_t i = 0; i < ix->n_entries; i++) {
        const DwarfEntry *e = &ix->entries[i];
        if (e->name == NULL || e->file == NULL || e->module == NULL)
            rts_panic("provenance: DWARF entry %zu (vaddr=0x%llx) lacks a string", i,
                      (unsigned long long)e->vaddr);
        if (i > 0 && ix->entries[i - 1].vaddr > e->vaddr)
            rts_panic("provenance: DWARF entries %zu and %zu out of order", i - 1, i);
    }
}

const DwarfEntry *dwarf_index_find(const DwarfIndex *ix, uint64_t vaddr)
{
    size_t lo = SORTED_COUNT_BELOW(ix->entries, ix->n_entries, DwarfEntry, vaddr, vaddr);
    return lo < ix->n_entries && ix->entries[lo].vaddr == vaddr ? &ix->entries[lo] : NULL;
}
