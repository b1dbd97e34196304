/*
 * profiling/DwarfUnit.c -- the walk over a file's compilation units and
 * the DIE attributes every DWARF index reads (DwarfUnit.h), with libdwarf
 * (Debian's 20210528: dwarf_init_b, dwarf_next_cu_header_d,
 * dwarf_srcfiles).
 */
#include "DwarfUnit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Messages.h"
#include "SourcePath.h"
#include "os/File.h"

void dwarf_unit_fail(DwarfUnitWalk *w, const char *what, Dwarf_Error err)
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

const char *dwarf_unit_source_path(DwarfUnitWalk *w, const char *path)
{
    char buf[SOURCE_PATH_MAX];
    return str_arena_copy(w->strings,
                          source_path_show(source_path_runtime_root(), w->comp_dir, path, buf,
                                           sizeof buf));
}

const char *dwarf_unit_file(DwarfUnitWalk *w, Dwarf_Unsigned file_no)
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
        w->file_copies[i] = dwarf_unit_source_path(w, w->files[i]);
    return w->file_copies[i];
}

/* ----------------------------------------------------------------------
 * Attributes
 * ---------------------------------------------------------------------- */

bool dwarf_unit_attr(DwarfUnitWalk *w, Dwarf_Die die, Dwarf_Half name, Dwarf_Attribute *a,
                      const char *what)
{
    Dwarf_Error err = NULL;
    int res = dwarf_attr(die, name, a, &err);
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w, what, err);
    return res == DW_DLV_OK;
}

bool dwarf_unit_udata(DwarfUnitWalk *w, Dwarf_Die die, Dwarf_Half name, Dwarf_Unsigned *out)
{
    Dwarf_Attribute a;
    if (!dwarf_unit_attr(w, die, name, &a, "reading an attribute"))
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

bool dwarf_unit_string(DwarfUnitWalk *w, Dwarf_Die die, Dwarf_Half name, char **out)
{
    Dwarf_Attribute a;
    if (!dwarf_unit_attr(w, die, name, &a, "reading an attribute"))
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
static Dwarf_Die referenced_die(DwarfUnitWalk *w, Dwarf_Die die)
{
    static const Dwarf_Half refs[] = {DW_AT_specification, DW_AT_abstract_origin};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        Dwarf_Attribute a;
        Dwarf_Error err = NULL;
        int res = dwarf_attr(die, refs[i], &a, &err);
        if (res == DW_DLV_ERROR) {
            dwarf_unit_fail(w, "reading a reference", err);
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
            dwarf_unit_fail(w, "following a reference", err);
            return NULL;
        }
        if (res == DW_DLV_OK)
            return target;
    }
    return NULL;
}

void dwarf_unit_decl(DwarfUnitWalk *w, Dwarf_Die die, char **name, Dwarf_Unsigned *file_no,
                     Dwarf_Unsigned *line)
{
    *name = NULL;
    *file_no = *line = 0;
    bool have_file = false, have_line = false;
    Dwarf_Die d = die;
    for (int hop = 0; hop < 3 && d != NULL && !w->failed; hop++) {
        if (*name == NULL)
            (void)dwarf_unit_string(w, d, DW_AT_name, name);
        if (!have_file)
            have_file = dwarf_unit_udata(w, d, DW_AT_decl_file, file_no);
        if (!have_line)
            have_line = dwarf_unit_udata(w, d, DW_AT_decl_line, line);
        Dwarf_Die next = *name != NULL && have_file && have_line ? NULL : referenced_die(w, d);
        if (d != die)
            dwarf_dealloc_die(d);
        d = next;
    }
    if (d != NULL && d != die)
        dwarf_dealloc_die(d);
}

void dwarf_unit_children(DwarfUnitWalk *w, Dwarf_Die parent, int depth, DwarfDieFn fn,
                         void *ctx)
{
    if (depth > DWARF_UNIT_MAX_DEPTH || w->failed)
        return;
    Dwarf_Die child = NULL;
    Dwarf_Error err = NULL;
    int res = dwarf_child(parent, &child, &err);
    while (res == DW_DLV_OK && !w->failed) {
        Dwarf_Half tag;
        if (dwarf_tag(child, &tag, &err) == DW_DLV_OK)
            fn(child, tag, depth, ctx);
        else
            dwarf_unit_fail(w, "reading a DIE's tag", err);
        Dwarf_Die next = NULL;
        res = dwarf_siblingof_b(w->dbg, child, true, &next, &err);
        dwarf_dealloc_die(child);
        child = next;
    }
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w, "walking the DIE tree", err);
}

/* ----------------------------------------------------------------------
 * Line tables
 * ---------------------------------------------------------------------- */

/* Row i of lines into *row; DW_DLV_OK, or the first failing call's. */
static int read_line_row(Dwarf_Line *lines, Dwarf_Signed i, DwarfLineRow *row, Dwarf_Error *err)
{
    Dwarf_Bool end;
    int res;
    if ((res = dwarf_lineaddr(lines[i], &row->addr, err)) != DW_DLV_OK ||
        (res = dwarf_lineno(lines[i], &row->line, err)) != DW_DLV_OK ||
        (res = dwarf_lineendsequence(lines[i], &end, err)) != DW_DLV_OK ||
        (res = dwarf_line_srcfileno(lines[i], &row->file_no, err)) != DW_DLV_OK)
        return res;
    row->end = end;
    return DW_DLV_OK;
}

void dwarf_unit_lines(DwarfUnitWalk *w, Dwarf_Die cu, DwarfLineFn fn, void *ctx)
{
    Dwarf_Unsigned version;
    Dwarf_Small table_count;
    Dwarf_Line_Context lc;
    Dwarf_Line *lines;
    Dwarf_Signed n_lines;
    Dwarf_Error err = NULL;
    int res = dwarf_srclines_b(cu, &version, &table_count, &lc, &err);
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w, "reading a line table", err);
    if (res != DW_DLV_OK)
        return;
    res = dwarf_srclines_from_linecontext(lc, &lines, &n_lines, &err);
    for (Dwarf_Signed i = 0; res == DW_DLV_OK && i < n_lines && !w->failed; i++) {
        DwarfLineRow row;
        if ((res = read_line_row(lines, i, &row, &err)) == DW_DLV_OK)
            fn(&row, ctx);
    }
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w, "reading a line-table row", err);
    dwarf_srclines_dealloc_b(lc);
}

/* ----------------------------------------------------------------------
 * Units
 * ---------------------------------------------------------------------- */

bool dwarf_unit_enter(DwarfUnitWalk *w, Dwarf_Die cu)
{
    Dwarf_Half version = 0, offset_size = 0, address_size = 0, extension_size = 0;
    Dwarf_Bool is_info = true, is_dwo = false;
    Dwarf_Sig8 *signature = NULL;
    Dwarf_Off length_offset = 0;
    Dwarf_Unsigned length = 0;
    Dwarf_Error err = NULL;
    if (dwarf_cu_header_basics(cu, &version, &is_info, &is_dwo, &offset_size, &address_size,
                               &extension_size, &signature, &length_offset, &length,
                               &err) != DW_DLV_OK) {
        dwarf_unit_fail(w, "reading a unit header", err);
        return false;
    }
    w->version = version;
    w->address_size = address_size;
    char *s;
    w->comp_dir = dwarf_unit_string(w, cu, DW_AT_comp_dir, &s) ? str_arena_copy(w->strings, s)
                                                                : NULL;
    w->module = dwarf_unit_string(w, cu, DW_AT_name, &s) ? dwarf_unit_source_path(w, s) : "";
    w->files = NULL;
    w->n_files = 0;
    w->file_copies = NULL;
    int res = dwarf_srcfiles(cu, &w->files, &w->n_files, &err);
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w, "reading a unit's file table", err);
    if (res != DW_DLV_OK) {
        w->files = NULL;
        w->n_files = 0;
    } else if (w->n_files > 0) {
        w->file_copies = calloc((size_t)w->n_files, sizeof *w->file_copies);
        if (w->file_copies == NULL)
            rts_panic("provenance: out of C heap (%ld files)", (long)w->n_files);
    }
    return !w->failed;
}

void dwarf_unit_leave(DwarfUnitWalk *w)
{
    if (w->files != NULL) {
        for (Dwarf_Signed i = 0; i < w->n_files; i++)
            dwarf_dealloc(w->dbg, w->files[i], DW_DLA_STRING);
        dwarf_dealloc(w->dbg, w->files, DW_DLA_LIST);
    }
    free(w->file_copies);
    w->files = NULL;
    w->file_copies = NULL;
}

static void walk_units(DwarfUnitWalk *w, DwarfUnitFn unit, void *ctx)
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
            dwarf_unit_fail(w, "reading a unit header", err);
        if (res != DW_DLV_OK)
            return;
        Dwarf_Die cu = NULL;
        res = dwarf_siblingof_b(w->dbg, NULL, true, &cu, &err);
        if (res == DW_DLV_ERROR)
            dwarf_unit_fail(w, "reading a unit's DIE", err);
        if (res != DW_DLV_OK)
            return;
        if (dwarf_unit_enter(w, cu))
            unit(w, cu, ctx);
        dwarf_unit_leave(w);
        dwarf_dealloc_die(cu);
    }
}

bool dwarf_unit_open(DwarfUnitWalk *w, const char *path)
{
    w->dbg = NULL;
    int open_err = os_file_open_read(path, &w->fd);
    if (open_err != 0) {
        snprintf(w->why, w->why_len, "cannot open %s: %s", path, strerror(open_err));
        w->failed = true;
        w->fd = -1;
        return false;
    }
    Dwarf_Error err = NULL;
    int res = dwarf_init_b(w->fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &w->dbg, &err);
    if (res == DW_DLV_OK)
        return true;
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w, "opening its DWARF", err);
    w->dbg = NULL;
    os_file_close(w->fd);
    w->fd = -1;
    return false;
}

void dwarf_unit_close(DwarfUnitWalk *w)
{
    Dwarf_Error err = NULL;
    if (w->dbg != NULL && dwarf_finish(w->dbg, &err) == DW_DLV_ERROR)
        dwarf_dealloc_error(NULL, err);
    w->dbg = NULL;
    if (w->fd >= 0)
        os_file_close(w->fd);
    w->fd = -1;
}

bool dwarf_unit_walk(DwarfUnitWalk *w, const char *path, DwarfUnitFn unit, void *ctx)
{
    if (dwarf_unit_open(w, path)) {
        walk_units(w, unit, ctx);
        dwarf_unit_close(w);
    }
    return !w->failed;
}
