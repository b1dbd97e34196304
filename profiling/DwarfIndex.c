/*
 * profiling/DwarfIndex.c -- builds the address index of DwarfIndex.h with
 * libdwarf (Debian's 20210528: dwarf_init_b, dwarf_next_cu_header_d,
 * dwarf_srcfiles, dwarf_srclines_b).
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
 *
 * Every libdwarf call gets an error pointer (without one libdwarf aborts
 * the process): an error stops the walk, frees the error and is reported
 * to the caller; what was indexed before it is kept (.inv.no-crash).
 */
#include "DwarfIndex.h"

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"
#include "Messages.h"
#include "SourcePath.h"
#include "os/File.h"

/* Deeper nesting than this is not C (and may be a corrupt tree). */
#define WALK_MAX_DEPTH 64

typedef struct {
    Dwarf_Debug dbg;
    DwarfIndex *ix;
    bool deep;                  /* into function bodies too (static locals) */
    bool failed;
    char *why;
    size_t why_len;
    /* The current compilation unit. */
    Dwarf_Half version;         /* of the unit: its file numbers start at 0 from DWARF 5 */
    Dwarf_Half address_size;
    const char *comp_dir;       /* in the arena, or NULL */
    const char *module;         /* in the arena */
    char **files;               /* dwarf_srcfiles of the unit */
    Dwarf_Signed n_files;
    const char **file_copies;   /* files[i] copied into the arena, on first use */
    size_t first_entry;         /* the unit's first entry in ix */
    bool needs_lines;           /* some function of the unit lacks a line */
} Walk;

/* Records a libdwarf error (once) and frees it. */
static void walk_fail(Walk *w, const char *what, Dwarf_Error err)
{
    if (!w->failed)
        snprintf(w->why, w->why_len, "%s: %s", what,
                 err != NULL ? dwarf_errmsg(err) : "error");
    w->failed = true;
    if (err != NULL)
        dwarf_dealloc_error(w->dbg, err);
}

/* ----------------------------------------------------------------------
 * Strings
 * ---------------------------------------------------------------------- */

/* A copy of the name path is shown under, in the arena: see Note [Which
 * root a source file is shown under] in SourcePath.c. */
static const char *copy_source_path(Walk *w, const char *path)
{
    char buf[SOURCE_PATH_MAX];
    return str_arena_copy(&w->ix->strings,
                          source_path_show(source_path_runtime_root(), w->comp_dir, path, buf,
                                           sizeof buf));
}

static const char *file_name(Walk *w, Dwarf_Unsigned file_no)
{
    /* DWARF 5 numbers a unit's files from 0; earlier versions from 1, with
     * 0 meaning no file.  dwarf_srcfiles lists them in the same order. */
    Dwarf_Unsigned i;
    if (w->version >= 5)
        i = file_no;
    else if (file_no == 0)
        return "";
    else
        i = file_no - 1;
    if (w->files == NULL || i >= (Dwarf_Unsigned)w->n_files || w->files[i] == NULL)
        return "";
    if (w->file_copies[i] == NULL)
        w->file_copies[i] = copy_source_path(w, w->files[i]);
    return w->file_copies[i];
}

/* ----------------------------------------------------------------------
 * Attributes
 * ---------------------------------------------------------------------- */

/* Attribute name of die into *a (to be deallocated); false if absent, or
 * on an error, which fails the walk naming what. */
static bool attr_find(Walk *w, Dwarf_Die die, Dwarf_Half name, Dwarf_Attribute *a,
                      const char *what)
{
    Dwarf_Error err = NULL;
    int res = dwarf_attr(die, name, a, &err);
    if (res == DW_DLV_ERROR)
        walk_fail(w, what, err);
    return res == DW_DLV_OK;
}

/* An attribute's unsigned value; false if absent or not a constant. */
static bool attr_udata(Walk *w, Dwarf_Die die, Dwarf_Half name, Dwarf_Unsigned *out)
{
    Dwarf_Attribute a;
    if (!attr_find(w, die, name, &a, "reading an attribute"))
        return false;
    Dwarf_Error err = NULL;
    int res = dwarf_formudata(a, out, &err);
    if (res == DW_DLV_ERROR) {
        /* DWARF 5's DW_FORM_implicit_const (gcc uses it for the lines of
         * runs of similar declarations) is signed: formudata refuses it. */
        dwarf_dealloc_error(w->dbg, err);
        err = NULL;
        Dwarf_Signed v;
        res = dwarf_formsdata(a, &v, &err);
        if (res == DW_DLV_ERROR)
            dwarf_dealloc_error(w->dbg, err);   /* a form we do not read: no value */
        else if (res == DW_DLV_OK && v >= 0)
            *out = (Dwarf_Unsigned)v;
        else
            res = DW_DLV_NO_ENTRY;
    }
    dwarf_dealloc_attribute(a);
    return res == DW_DLV_OK;
}

static bool attr_string(Walk *w, Dwarf_Die die, Dwarf_Half name, char **out)
{
    Dwarf_Attribute a;
    if (!attr_find(w, die, name, &a, "reading an attribute"))
        return false;
    Dwarf_Error err = NULL;
    int res = dwarf_formstring(a, out, &err);
    if (res == DW_DLV_ERROR)
        dwarf_dealloc_error(w->dbg, err);
    dwarf_dealloc_attribute(a);
    return res == DW_DLV_OK;
}

/* The DIE that DW_AT_specification or DW_AT_abstract_origin of die names,
 * within the same unit (a reference into another unit would use that
 * unit's file numbers); NULL if none. */
static Dwarf_Die referenced_die(Walk *w, Dwarf_Die die)
{
    static const Dwarf_Half refs[] = {DW_AT_specification, DW_AT_abstract_origin};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        Dwarf_Attribute a;
        Dwarf_Error err = NULL;
        int res = dwarf_attr(die, refs[i], &a, &err);
        if (res == DW_DLV_ERROR) {
            walk_fail(w, "reading a reference", err);
            return NULL;
        }
        if (res != DW_DLV_OK)
            continue;
        Dwarf_Half form = 0;
        Dwarf_Off off = 0;
        Dwarf_Die target = NULL;
        res = dwarf_whatform(a, &form, &err);
        if (res == DW_DLV_OK && form != DW_FORM_ref_addr)
            res = dwarf_global_formref(a, &off, &err);
        else if (res == DW_DLV_OK)
            res = DW_DLV_NO_ENTRY;
        if (res == DW_DLV_OK)
            res = dwarf_offdie_b(w->dbg, off, true, &target, &err);
        dwarf_dealloc_attribute(a);
        if (res == DW_DLV_ERROR) {
            walk_fail(w, "following a reference", err);
            return NULL;
        }
        if (res == DW_DLV_OK)
            return target;
    }
    return NULL;
}

/* Name, file number and line of die, completed from the DIE it refers to
 * (followed at most twice: definition -> declaration, concrete ->
 * abstract instance). */
static void die_decl(Walk *w, Dwarf_Die die, char **name, Dwarf_Unsigned *file_no,
                     Dwarf_Unsigned *line)
{
    *name = NULL;
    *file_no = *line = 0;
    bool have_file = false, have_line = false;
    Dwarf_Die d = die;
    for (int hop = 0; hop < 3 && d != NULL && !w->failed; hop++) {
        if (*name == NULL)
            (void)attr_string(w, d, DW_AT_name, name);
        if (!have_file)
            have_file = attr_udata(w, d, DW_AT_decl_file, file_no);
        if (!have_line)
            have_line = attr_udata(w, d, DW_AT_decl_line, line);
        Dwarf_Die next = *name != NULL && have_file && have_line ? NULL : referenced_die(w, d);
        if (d != die)
            dwarf_dealloc_die(d);
        d = next;
    }
    if (d != NULL && d != die)
        dwarf_dealloc_die(d);
}

/* ----------------------------------------------------------------------
 * Entries
 * ---------------------------------------------------------------------- */

static void add_entry(Walk *w, Dwarf_Die die, Dwarf_Addr vaddr, bool function)
{
    char *name;
    Dwarf_Unsigned file_no, line;
    die_decl(w, die, &name, &file_no, &line);
    DwarfIndex *ix = w->ix;
    if (GROW_ARRAY_RESERVE_MIN(ix->entries, ix->cap_entries, ix->n_entries + 1, 256) != 0)
        rts_panic("provenance: out of C heap (%zu DWARF entries)", ix->n_entries);
    ix->entries[ix->n_entries++] = (DwarfEntry){
        .vaddr = vaddr,
        .name = name != NULL ? str_arena_copy(&ix->strings, name) : "",
        .file = file_name(w, file_no),
        .module = w->module,
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
        walk_fail(w, "reading a variable's attributes", err);
        return;
    }
    if (artificial)
        return;
    if (!attr_find(w, die, DW_AT_location, &a, "reading a variable's location"))
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
        walk_fail(w, "reading a variable's location", err);
        return;
    }
    const unsigned char *op = expr;
    if (res != DW_DLV_OK || w->address_size > 8 || len != 1u + w->address_size ||
        op[0] != DW_OP_addr)
        return;
    Dwarf_Addr vaddr = 0;
    for (unsigned i = w->address_size; i > 0; i--)   /* little-endian: native */
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
        walk_fail(w, "reading a function's entry", err);
    else if (res == DW_DLV_OK && low_pc != 0)
        add_entry(w, die, low_pc, true);
}

/* Functions of the current unit without a declaring line take the line of
 * the line-table row at their entry. */
static void fill_lines_from_line_table(Walk *w, Dwarf_Die cu)
{
    Dwarf_Unsigned version;
    Dwarf_Small table_count;
    Dwarf_Line_Context ctx;
    Dwarf_Line *lines;
    Dwarf_Signed n_lines;
    Dwarf_Error err = NULL;
    int res = dwarf_srclines_b(cu, &version, &table_count, &ctx, &err);
    if (res == DW_DLV_ERROR)
        walk_fail(w, "reading a line table", err);
    if (res != DW_DLV_OK)
        return;
    res = dwarf_srclines_from_linecontext(ctx, &lines, &n_lines, &err);
    if (res == DW_DLV_ERROR)
        walk_fail(w, "reading a line table", err);
    for (Dwarf_Signed i = 0; res == DW_DLV_OK && i < n_lines; i++) {
        Dwarf_Addr addr;
        Dwarf_Unsigned line;
        if (dwarf_lineaddr(lines[i], &addr, &err) != DW_DLV_OK ||
            dwarf_lineno(lines[i], &line, &err) != DW_DLV_OK) {
            walk_fail(w, "reading a line-table row", err);
            break;
        }
        for (size_t e = w->first_entry; e < w->ix->n_entries; e++) {
            DwarfEntry *entry = &w->ix->entries[e];
            if (entry->line == 0 && entry->vaddr == addr && line <= UINT32_MAX)
                entry->line = (uint32_t)line;
        }
    }
    dwarf_srclines_dealloc_b(ctx);
}

/* ----------------------------------------------------------------------
 * The walk
 * ---------------------------------------------------------------------- */

static void walk_children(Walk *w, Dwarf_Die parent, int depth);

static void walk_die(Walk *w, Dwarf_Die die, int depth)
{
    Dwarf_Half tag;
    Dwarf_Error err = NULL;
    if (dwarf_tag(die, &tag, &err) != DW_DLV_OK) {
        walk_fail(w, "reading a DIE's tag", err);
        return;
    }
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
    if (depth > WALK_MAX_DEPTH || w->failed)
        return;
    Dwarf_Die child = NULL;
    Dwarf_Error err = NULL;
    int res = dwarf_child(parent, &child, &err);
    while (res == DW_DLV_OK && !w->failed) {
        walk_die(w, child, depth);
        Dwarf_Die next = NULL;
        res = dwarf_siblingof_b(w->dbg, child, true, &next, &err);
        dwarf_dealloc_die(child);
        child = next;
    }
    if (res == DW_DLV_ERROR)
        walk_fail(w, "walking the DIE tree", err);
}

static void unit_begin(Walk *w, Dwarf_Die cu)
{
    char *s;
    w->comp_dir = attr_string(w, cu, DW_AT_comp_dir, &s)
                      ? str_arena_copy(&w->ix->strings, s) : NULL;
    w->module = attr_string(w, cu, DW_AT_name, &s)
                    ? copy_source_path(w, s) : "";
    Dwarf_Error err = NULL;
    w->files = NULL;
    w->n_files = 0;
    w->file_copies = NULL;
    int res = dwarf_srcfiles(cu, &w->files, &w->n_files, &err);
    if (res == DW_DLV_ERROR)
        walk_fail(w, "reading a unit's file table", err);
    if (res != DW_DLV_OK) {
        w->files = NULL;
        w->n_files = 0;
    } else if (w->n_files > 0) {
        w->file_copies = calloc((size_t)w->n_files, sizeof *w->file_copies);
        if (w->file_copies == NULL)
            rts_panic("provenance: out of C heap (%ld files)", (long)w->n_files);
    }
    w->first_entry = w->ix->n_entries;
    w->needs_lines = false;
}

static void unit_end(Walk *w, Dwarf_Die cu)
{
    if (w->needs_lines && !w->failed)
        fill_lines_from_line_table(w, cu);
    if (w->files != NULL) {
        for (Dwarf_Signed i = 0; i < w->n_files; i++)
            dwarf_dealloc(w->dbg, w->files[i], DW_DLA_STRING);
        dwarf_dealloc(w->dbg, w->files, DW_DLA_LIST);
    }
    free(w->file_copies);
    w->files = NULL;
    w->file_copies = NULL;
}

static void walk_units(Walk *w)
{
    while (!w->failed) {
        Dwarf_Unsigned header_len, type_offset, next_offset;
        Dwarf_Half version, address_size, length_size, extension_size, unit_type;
        Dwarf_Off abbrev_offset;
        Dwarf_Sig8 signature;
        Dwarf_Error err = NULL;
        int res = dwarf_next_cu_header_d(w->dbg, true, &header_len, &version, &abbrev_offset,
                                         &address_size, &length_size, &extension_size,
                                         &signature, &type_offset, &next_offset, &unit_type,
                                         &err);
        if (res == DW_DLV_ERROR)
            walk_fail(w, "reading a unit header", err);
        if (res != DW_DLV_OK)
            return;
        Dwarf_Die cu = NULL;
        res = dwarf_siblingof_b(w->dbg, NULL, true, &cu, &err);
        if (res == DW_DLV_ERROR)
            walk_fail(w, "reading a unit's DIE", err);
        if (res != DW_DLV_OK)
            return;
        w->version = version;
        w->address_size = address_size;
        unit_begin(w, cu);
        walk_children(w, cu, 0);
        unit_end(w, cu);
        dwarf_dealloc_die(cu);
    }
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
    int fd;
    int open_err = os_file_open_read(path, &fd);
    if (open_err != 0) {
        snprintf(why, why_len, "cannot open %s: %s", path, strerror(open_err));
        return false;
    }
    Walk w = {.ix = ix, .deep = deep, .why = why, .why_len = why_len};
    ix->deep = deep;
    Dwarf_Error err = NULL;
    int res = dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &w.dbg, &err);
    if (res == DW_DLV_OK) {
        walk_units(&w);
        if (dwarf_finish(w.dbg, &err) == DW_DLV_ERROR)
            dwarf_dealloc_error(NULL, err);
    } else if (res == DW_DLV_ERROR) {
        walk_fail(&w, "opening its DWARF", err);
    }
    os_file_close(fd);
    if (ix->n_entries > 1)
        qsort(ix->entries, ix->n_entries, sizeof *ix->entries, entry_order);
    ix->bytes = ix->cap_entries * sizeof *ix->entries + ix->strings.bytes;
    return !w.failed;
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
    size_t lo = 0, hi = ix->n_entries;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->entries[mid].vaddr < vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n_entries && ix->entries[lo].vaddr == vaddr ? &ix->entries[lo] : NULL;
}
