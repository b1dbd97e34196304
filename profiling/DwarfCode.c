/*
 * profiling/DwarfCode.c -- builds and searches the code index of
 * DwarfCode.h.  The file stays open (DwarfUnit.h); .debug_aranges says
 * which unit covers an address, and a unit is read the first time one of
 * its addresses is asked for: the address ranges of its functions and of
 * the calls inlined into them (DW_AT_low_pc/high_pc, or DW_AT_ranges from
 * .debug_ranges or DWARF 5's .debug_rnglists), and its line table; the
 * inside of a function when one of its addresses is.  See Note [Frames
 * from nested ranges] and Note [Reading a function when asked].
 */
#include "DwarfCode.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "DwarfUnit.h"
#include "GrowArray.h"
#include "Messages.h"
#include "SortedSearch.h"
#include "WordMapOrPanic.h"

/* Note [Frames from nested ranges]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A function's DIE has its address ranges; a call inlined into it is a
 * DW_TAG_inlined_subroutine child with ranges inside the caller's, the
 * callee's name (through DW_AT_abstract_origin) and the file and line of
 * the call.  Ranges of one file nest (two either nest or do not overlap),
 * so sorted by start, enclosing first, each range's parent is the nearest
 * earlier one that encloses it (a stack sweep finds them all), and the
 * innermost range holding an address a is found from the last range
 * starting at or before a: it holds a, or the innermost range holding a
 * is its nearest ancestor that does (any range between them would start
 * later and hold a too).  The frames at a are then: the innermost range's
 * function at a's line-table row, and for each range going out, the
 * enclosing function at the line its inner range was called from. */

/* Note [Reading a function when asked]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A sample's stack passes through a few functions of a unit, yet reading
 * the unit's DIEs whole (every function's parameters, variables, blocks
 * and inlined calls) cost more than its line table.  So a unit is read
 * shallow: its line table, and the ranges of its top-level functions
 * only, each marked unread with its DIE's offset.  When the innermost
 * scope found for an address lies in an unread function, that function's
 * DIE is read (its inlined calls added, the unit's scopes sorted and
 * linked again) and the address looked up again: a function's inside is
 * all inside its ranges, so no other function's answer changes.  A
 * function split in several ranges (a .cold part) has several scopes of
 * one DIE: all are marked read together.  Without .debug_aranges the
 * walk reads every unit at once and closes the file behind it, so then
 * units are read whole, as they are with whole_units (set by tests, to
 * compare the two). */

typedef struct {
    DwarfUnitWalk *u;
    DwarfCode *dc;
    CodeUnit *unit;             /* being read */
    uint64_t cu_base;           /* the unit's DW_AT_low_pc (DWARF 4 ranges) */
    uint64_t (*ranges)[2];      /* the ranges of the DIE being read */
    size_t n_ranges, cap_ranges;
    uint32_t next_ordinal;      /* of line rows, to keep one address's in order */
    bool shallow;               /* top-level functions' ranges only */
    uint64_t die;               /* the DIE being read (add_scopes) */
} Walk;

/* ----------------------------------------------------------------------
 * Address ranges of a DIE
 * ---------------------------------------------------------------------- */

static void range_add(Walk *w, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return;
    if (GROW_ARRAY_RESERVE_MIN(w->ranges, w->cap_ranges, w->n_ranges + 1, 16) != 0)
        rts_panic("alloc-sample: out of C heap reading ranges (%zu)", w->n_ranges);
    w->ranges[w->n_ranges][0] = lo;
    w->ranges[w->n_ranges][1] = hi;
    w->n_ranges++;
}

static void rnglists_ranges(Walk *w, Dwarf_Attribute a, Dwarf_Half form)
{
    Dwarf_Error err = NULL;
    Dwarf_Unsigned value = 0, count = 0, set_offset = 0;
    int res = form == DW_FORM_rnglistx ? dwarf_formudata(a, &value, &err)
                                       : dwarf_global_formref(a, &value, &err);
    Dwarf_Rnglists_Head head = NULL;
    if (res == DW_DLV_OK)
        res = dwarf_rnglists_get_rle_head(a, form, value, &head, &count, &set_offset, &err);
    for (Dwarf_Unsigned i = 0; res == DW_DLV_OK && i < count; i++) {
        unsigned len = 0, code = 0;
        Dwarf_Unsigned raw1, raw2, lo, hi;
        Dwarf_Bool unavailable = false;
        res = dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2,
                                                &unavailable, &lo, &hi, &err);
        if (res == DW_DLV_OK && !unavailable &&
            (code == DW_RLE_startx_endx || code == DW_RLE_startx_length ||
             code == DW_RLE_offset_pair || code == DW_RLE_start_end ||
             code == DW_RLE_start_length))
            range_add(w, lo, hi);
    }
    if (head != NULL)
        dwarf_dealloc_rnglists_head(head);
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w->u, "reading a range list", err);
}

static void debug_ranges_ranges(Walk *w, Dwarf_Die die, Dwarf_Attribute a)
{
    Dwarf_Error err = NULL;
    Dwarf_Off off = 0, real = 0;
    int res = dwarf_global_formref(a, &off, &err);
    if (res == DW_DLV_ERROR) {   /* DWARF 2 and 3 say data4 */
        dwarf_dealloc_error(w->u->dbg, err);
        err = NULL;
        Dwarf_Unsigned v = 0;
        res = dwarf_formudata(a, &v, &err);
        off = v;
    }
    Dwarf_Ranges *rs = NULL;
    Dwarf_Signed n = 0;
    Dwarf_Unsigned bytes = 0;
    if (res == DW_DLV_OK)
        res = dwarf_get_ranges_b(w->u->dbg, off, die, &real, &rs, &n, &bytes, &err);
    uint64_t base = w->cu_base;
    for (Dwarf_Signed i = 0; res == DW_DLV_OK && i < n; i++) {
        if (rs[i].dwr_type == DW_RANGES_END)
            break;
        if (rs[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
            base = rs[i].dwr_addr2;
        else
            range_add(w, base + rs[i].dwr_addr1, base + rs[i].dwr_addr2);
    }
    if (rs != NULL)
        dwarf_ranges_dealloc(w->u->dbg, rs, n);
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w->u, "reading a range list", err);
}

/* Reads die's address ranges into w->ranges (none: a declaration, an
 * abstract instance, code removed). */
static void die_ranges(Walk *w, Dwarf_Die die)
{
    w->n_ranges = 0;
    Dwarf_Error err = NULL;
    Dwarf_Addr lo = 0, hi = 0;
    Dwarf_Half form = 0;
    enum Dwarf_Form_Class cls = DW_FORM_CLASS_UNKNOWN;
    int res = dwarf_lowpc(die, &lo, &err);
    if (res == DW_DLV_OK) {
        res = dwarf_highpc_b(die, &hi, &form, &cls, &err);
        if (res == DW_DLV_OK)
            range_add(w, lo, cls == DW_FORM_CLASS_CONSTANT ? lo + hi : hi);
    }
    if (res == DW_DLV_ERROR) {
        dwarf_unit_fail(w->u, "reading a function's addresses", err);
        return;
    }
    if (w->n_ranges > 0)
        return;
    Dwarf_Attribute a;
    if (!dwarf_unit_attr(w->u, die, DW_AT_ranges, &a, "reading a function's ranges"))
        return;
    res = dwarf_whatform(a, &form, &err);
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w->u, "reading a function's ranges", err);
    else if (w->u->version >= 5)
        rnglists_ranges(w, a, form);
    else
        debug_ranges_ranges(w, die, a);
    dwarf_dealloc_attribute(a);
}

/* ----------------------------------------------------------------------
 * Scopes
 * ---------------------------------------------------------------------- */

/* A scope per range of die (a function, or an inlined call). */
static void add_scopes(Walk *w, Dwarf_Die die, bool inlined)
{
    char *name;
    Dwarf_Unsigned decl_file, decl_line, call_file = 0, call_line = 0;
    dwarf_unit_decl(w->u, die, &name, &decl_file, &decl_line);
    if (inlined) {
        (void)dwarf_unit_udata(w->u, die, DW_AT_call_file, &call_file);
        (void)dwarf_unit_udata(w->u, die, DW_AT_call_line, &call_line);
    }
    CodeUnit *cu = w->unit;
    const char *copy = name != NULL ? str_arena_copy(&w->dc->strings, name) : "";
    const char *file = inlined ? dwarf_unit_file(w->u, call_file) : "";
    for (size_t i = 0; i < w->n_ranges; i++) {
        if (GROW_ARRAY_RESERVE_MIN(cu->scopes, cu->cap_scopes, cu->n_scopes + 1, 64) != 0)
            rts_panic("alloc-sample: out of C heap (%zu code ranges)", cu->n_scopes);
        cu->scopes[cu->n_scopes++] = (CodeScope){
            .lo = w->ranges[i][0],
            .hi = w->ranges[i][1],
            .call_line = call_line <= UINT32_MAX ? (uint32_t)call_line : 0,
            .name = copy,
            .call_file = file,
            .unread = w->shallow ? w->die : 0,
        };
    }
}

static void walk_children(Walk *w, Dwarf_Die parent, int depth);

static void walk_die(Dwarf_Die die, Dwarf_Half tag, int depth, void *ctx)
{
    Walk *w = ctx;
    if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
        die_ranges(w, die);
        if (w->n_ranges == 0)
            return;   /* no code: nothing inside has any either */
        Dwarf_Off off = 0;
        Dwarf_Error err = NULL;
        if (w->shallow && dwarf_dieoffset(die, &off, &err) != DW_DLV_OK) {
            dwarf_unit_fail(w->u, "reading a function's offset", err);
            return;
        }
        w->die = off;
        add_scopes(w, die, tag == DW_TAG_inlined_subroutine);
        if (!w->shallow)
            walk_children(w, die, depth + 1);
    } else if (tag == DW_TAG_lexical_block) {
        walk_children(w, die, depth + 1);
    }
}

static void walk_children(Walk *w, Dwarf_Die parent, int depth)
{
    dwarf_unit_children(w->u, parent, depth, walk_die, w);
}

/* ----------------------------------------------------------------------
 * Lines
 * ---------------------------------------------------------------------- */

static void add_line(Walk *w, uint64_t addr, const char *file, uint64_t line, bool end)
{
    CodeUnit *cu = w->unit;
    if (GROW_ARRAY_RESERVE_MIN(cu->lines, cu->cap_lines, cu->n_lines + 1, 256) != 0)
        rts_panic("alloc-sample: out of C heap (%zu line rows)", cu->n_lines);
    cu->lines[cu->n_lines++] = (CodeLine){
        .addr = addr,
        .file = end ? "" : file,
        .line = end || line > UINT32_MAX ? 0 : (uint32_t)line,
        .end = end,
        .ordinal = w->next_ordinal++,
    };
}

static void add_line_row(const DwarfLineRow *row, void *ctx)
{
    Walk *w = ctx;
    add_line(w, row->addr, row->end ? "" : dwarf_unit_file(w->u, row->file_no), row->line,
             row->end);
}

/* Reads the unit's ranges and lines, its DIE being cu. */
static void read_unit(Walk *w, Dwarf_Die cu)
{
    Dwarf_Addr base = 0;
    Dwarf_Error err = NULL;
    int res = dwarf_lowpc(cu, &base, &err);
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(w->u, "reading a unit's base address", err);
    w->cu_base = res == DW_DLV_OK ? base : 0;
    walk_children(w, cu, 0);
    if (!w->u->failed)
        dwarf_unit_lines(w->u, cu, add_line_row, w);
}

/* ----------------------------------------------------------------------
 * The index
 * ---------------------------------------------------------------------- */

static int scope_order(const void *a, const void *b)
{
    const CodeScope *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi)
        return x->hi > y->hi ? -1 : 1;   /* the enclosing range first */
    return (x->call_line != 0) - (y->call_line != 0);   /* the function first */
}

static int line_order(const void *a, const void *b)
{
    const CodeLine *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->end != y->end)
        return x->end ? -1 : 1;   /* a sequence's end before the next one's start */
    return x->ordinal < y->ordinal ? -1 : x->ordinal > y->ordinal;
}

/* Parents by a stack sweep (Note [Frames from nested ranges]). */
static void link_parents(CodeUnit *cu)
{
    uint32_t *stack = malloc((cu->n_scopes + 1) * sizeof *stack);
    if (stack == NULL)
        rts_panic("alloc-sample: out of C heap (%zu code ranges)", cu->n_scopes);
    size_t depth = 0;
    for (size_t i = 0; i < cu->n_scopes; i++) {
        CodeScope *s = &cu->scopes[i];
        while (depth > 0 && cu->scopes[stack[depth - 1]].hi < s->hi)
            depth--;   /* ends before s does: does not enclose it */
        s->parent = depth > 0 ? stack[depth - 1] + 1 : 0;
        stack[depth++] = (uint32_t)i;
    }
    free(stack);
}

static void scopes_sort(CodeUnit *cu)
{
    if (cu->n_scopes > 1)
        qsort(cu->scopes, cu->n_scopes, sizeof *cu->scopes, scope_order);
    link_parents(cu);
}

/* Whether the rows are in line_order already (a unit of one sequence,
 * or of sequences in address order): then the sort is skipped. */
static bool lines_sorted(const CodeUnit *cu)
{
    for (size_t i = 1; i < cu->n_lines; i++)
        if (line_order(&cu->lines[i - 1], &cu->lines[i]) > 0)
            return false;
    return true;
}

static void unit_sort(CodeUnit *cu)
{
    scopes_sort(cu);
    if (cu->n_lines > 1 && !lines_sorted(cu))
        qsort(cu->lines, cu->n_lines, sizeof *cu->lines, line_order);
}

static void count_bytes(DwarfCode *dc)
{
    size_t bytes = dc->cap_units * sizeof *dc->units + dc->n_aranges * sizeof *dc->aranges +
                   word_map_bytes(&dc->unit_of) + dc->strings.bytes;
    for (size_t i = 0; i < dc->n_units; i++)
        bytes += dc->units[i].cap_scopes * sizeof(CodeScope) +
                 dc->units[i].cap_lines * sizeof(CodeLine);
    dc->bytes = bytes;
}

/* Leaves the unit the walk is in, if any. */
static void unit_leave(DwarfCode *dc)
{
    if (dc->entered == 0)
        return;
    dwarf_unit_leave(&dc->walk);
    dwarf_dealloc_die(dc->entered_die);
    dc->entered = 0;
    dc->entered_die = NULL;
}

/* Makes unit i the walk's current one (it stays so until another is
 * entered: reading a function of the unit just loaded, the usual next
 * step, does not enter it again); its DIE, or NULL after an error. */
static Dwarf_Die unit_enter(DwarfCode *dc, size_t i)
{
    if (dc->entered == i + 1)
        return dc->entered_die;
    unit_leave(dc);
    Dwarf_Die die = NULL;
    Dwarf_Error err = NULL;
    int res = dwarf_offdie_b(dc->walk.dbg, dc->units[i].die_offset, true, &die, &err);
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(&dc->walk, "reading a unit's DIE", err);
    if (res != DW_DLV_OK)
        return NULL;
    dc->entered = i + 1;
    dc->entered_die = die;
    if (!dwarf_unit_enter(&dc->walk, die)) {
        unit_leave(dc);
        return NULL;
    }
    return die;
}

/* Reads unit i (once): its DIE, ranges and lines. */
static void unit_load(DwarfCode *dc, size_t i)
{
    CodeUnit *cu = &dc->units[i];
    cu->loaded = true;
    if (dc->walk.failed)
        return;   /* one error per file: what was read stays */
    Walk w = {.u = &dc->walk, .dc = dc, .unit = cu, .shallow = !dc->whole_units};
    Dwarf_Die die = unit_enter(dc, i);
    if (die != NULL)
        read_unit(&w, die);
    free(w.ranges);
    unit_sort(cu);
    count_bytes(dc);
}

/* Reads the inside of the unread function whose DIE is at fn_die, in
 * unit i (Note [Reading a function when asked]). */
static void function_read(DwarfCode *dc, size_t i, uint64_t fn_die)
{
    CodeUnit *cu = &dc->units[i];
    for (size_t j = 0; j < cu->n_scopes; j++)
        if (cu->scopes[j].unread == fn_die)
            cu->scopes[j].unread = 0;
    if (dc->walk.failed)
        return;   /* one error per file: what was read stays */
    Walk w = {.u = &dc->walk, .dc = dc, .unit = cu};
    Dwarf_Die unit_die = unit_enter(dc, i), fn = NULL;
    Dwarf_Error err = NULL;
    int res = DW_DLV_NO_ENTRY;
    if (unit_die != NULL) {
        Dwarf_Addr base = 0;
        res = dwarf_lowpc(unit_die, &base, &err);
        w.cu_base = res == DW_DLV_OK ? base : 0;
        if (res != DW_DLV_ERROR)
            res = dwarf_offdie_b(dc->walk.dbg, fn_die, true, &fn, &err);
        if (res == DW_DLV_OK)
            walk_children(&w, fn, 1);
    }
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(&dc->walk, "reading a function's DIE", err);
    if (fn != NULL)
        dwarf_dealloc_die(fn);
    free(w.ranges);
    scopes_sort(cu);
    count_bytes(dc);
}

static uint32_t unit_add(DwarfCode *dc, uint64_t die_offset)
{
    bool found;
    uint64_t *slot = word_map_slot_or_panic(&dc->unit_of, die_offset, &found);
    if (found)
        return (uint32_t)*slot;
    if (GROW_ARRAY_RESERVE_MIN(dc->units, dc->cap_units, dc->n_units + 1, 64) != 0)
        rts_panic("alloc-sample: out of C heap (%zu units)", dc->n_units);
    dc->units[dc->n_units] = (CodeUnit){.die_offset = die_offset};
    *slot = dc->n_units;
    return (uint32_t)dc->n_units++;
}

static int arange_order(const void *a, const void *b)
{
    const CodeArange *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The units and their ranges from .debug_aranges; false if it has none. */
static bool read_aranges(DwarfCode *dc)
{
    Dwarf_Arange *list = NULL;
    Dwarf_Signed n = 0;
    Dwarf_Error err = NULL;
    int res = dwarf_get_aranges(dc->walk.dbg, &list, &n, &err);
    if (res == DW_DLV_ERROR)
        dwarf_unit_fail(&dc->walk, "reading .debug_aranges", err);
    if (res != DW_DLV_OK || n <= 0)
        return false;
    dc->aranges = calloc((size_t)n, sizeof *dc->aranges);
    if (dc->aranges == NULL)
        rts_panic("alloc-sample: out of C heap (%ld address ranges)", (long)n);
    for (Dwarf_Signed i = 0; i < n; i++) {
        Dwarf_Unsigned segment, segment_size, length;
        Dwarf_Addr start;
        Dwarf_Off cu_die;
        if (!dc->walk.failed &&
            dwarf_get_arange_info_b(list[i], &segment, &segment_size, &start, &length, &cu_die,
                                    &err) == DW_DLV_OK && length > 0)
            dc->aranges[dc->n_aranges++] =
                (CodeArange){start, start + length, unit_add(dc, cu_die)};
        else if (err != NULL)
            dwarf_unit_fail(&dc->walk, "reading .debug_aranges", err), err = NULL;
        dwarf_dealloc(dc->walk.dbg, list[i], DW_DLA_ARANGE);
    }
    dwarf_dealloc(dc->walk.dbg, list, DW_DLA_LIST);
    qsort(dc->aranges, dc->n_aranges, sizeof *dc->aranges, arange_order);
    return true;
}

/* Without .debug_aranges: every unit, now. */
static void load_every_unit(DwarfUnitWalk *u, Dwarf_Die cu, void *ctx)
{
    DwarfCode *dc = ctx;
    Dwarf_Off off = 0;
    Dwarf_Error err = NULL;
    if (dwarf_dieoffset(cu, &off, &err) != DW_DLV_OK) {
        dwarf_unit_fail(u, "reading a unit's offset", err);
        return;
    }
    CodeUnit *unit = &dc->units[unit_add(dc, off)];
    unit->loaded = true;
    Walk w = {.u = u, .dc = dc, .unit = unit};
    read_unit(&w, cu);
    free(w.ranges);
    unit_sort(&dc->units[unit_add(dc, off)]);
}

bool dwarf_code_open(const char *path, DwarfCode *dc)
{
    dc->walk = (DwarfUnitWalk){.strings = &dc->strings, .why = dc->why, .why_len = sizeof dc->why,
                               .fd = -1};
    dc->open = dwarf_unit_open(&dc->walk, path);
    if (dc->open && !read_aranges(dc) && !dc->walk.failed) {
        /* The walk that reads every unit closes the file behind it. */
        dwarf_unit_close(&dc->walk);
        dc->open = false;
        (void)dwarf_unit_walk(&dc->walk, path, load_every_unit, dc);
    }
    count_bytes(dc);
    return !dc->walk.failed;
}

void dwarf_code_free(DwarfCode *dc)
{
    unit_leave(dc);
    if (dc->open)
        dwarf_unit_close(&dc->walk);
    for (size_t i = 0; i < dc->n_units; i++) {
        free(dc->units[i].scopes);
        free(dc->units[i].lines);
    }
    free(dc->units);
    free(dc->aranges);
    word_map_free(&dc->unit_of);
    str_arena_free(&dc->strings);
    memset(dc, 0, sizeof *dc);
}

static void unit_check(const CodeUnit *cu)
{
    if (cu->n_scopes > cu->cap_scopes || cu->n_lines > cu->cap_lines)
        rts_panic("alloc-sample: code index over capacity (scopes=%zu/%zu, lines=%zu/%zu)",
                  cu->n_scopes, cu->cap_scopes, cu->n_lines, cu->cap_lines);
    for (size_t i = 0; i < cu->n_scopes; i++) {
        const CodeScope *s = &cu->scopes[i];
        if (s->name == NULL || s->call_file == NULL || s->lo >= s->hi)
            rts_panic("alloc-sample: code range %zu [0x%llx, 0x%llx) is malformed", i,
                      (unsigned long long)s->lo, (unsigned long long)s->hi);
        if (i > 0 && scope_order(&cu->scopes[i - 1], s) > 0)
            rts_panic("alloc-sample: code ranges %zu and %zu out of order", i - 1, i);
        if (s->parent > i || (s->parent != 0 && cu->scopes[s->parent - 1].lo > s->lo))
            rts_panic("alloc-sample: code range %zu has parent %u", i, (unsigned)s->parent);
    }
    for (size_t i = 0; i < cu->n_lines; i++)
        if (cu->lines[i].file == NULL || (i > 0 && cu->lines[i - 1].addr > cu->lines[i].addr))
            rts_panic("alloc-sample: line row %zu is malformed or out of order", i);
}

void dwarf_code_check(const DwarfCode *dc)
{
    for (size_t i = 0; i < dc->n_units; i++)
        unit_check(&dc->units[i]);
    for (size_t i = 0; i < dc->n_aranges; i++)
        if (dc->aranges[i].unit >= dc->n_units || dc->aranges[i].lo >= dc->aranges[i].hi ||
            (i > 0 && dc->aranges[i - 1].lo > dc->aranges[i].lo))
            rts_panic("alloc-sample: address range %zu is malformed or out of order", i);
}

/* ----------------------------------------------------------------------
 * Searching
 * ---------------------------------------------------------------------- */

/* The innermost scope of cu holding vaddr, or NULL. */
static const CodeScope *innermost(const CodeUnit *cu, uint64_t vaddr)
{
    size_t lo = SORTED_COUNT_AT_OR_BELOW(cu->scopes, cu->n_scopes, CodeScope, lo, vaddr);
    for (uint32_t i = (uint32_t)lo; i != 0; i = cu->scopes[i - 1].parent) {
        const CodeScope *s = &cu->scopes[i - 1];
        if (vaddr < s->hi)
            return s;
    }
    return NULL;
}

/* The line-table row of cu holding vaddr, or NULL. */
static const CodeLine *line_at(const CodeUnit *cu, uint64_t vaddr)
{
    size_t lo = SORTED_COUNT_AT_OR_BELOW(cu->lines, cu->n_lines, CodeLine, addr, vaddr);
    return lo == 0 || cu->lines[lo - 1].end ? NULL : &cu->lines[lo - 1];
}

/* The innermost scope of unit i holding vaddr, the function around it
 * read first if it was not (Note [Reading a function when asked]); NULL
 * if none holds vaddr. */
static const CodeScope *innermost_read(DwarfCode *dc, size_t i, uint64_t vaddr)
{
    const CodeUnit *cu = &dc->units[i];
    const CodeScope *s = innermost(cu, vaddr);
    const CodeScope *outer = s;
    while (outer != NULL && outer->parent != 0)
        outer = &cu->scopes[outer->parent - 1];
    if (outer == NULL || outer->unread == 0)
        return s;
    function_read(dc, i, outer->unread);
    return innermost(&dc->units[i], vaddr);
}

/* The unit that says something about vaddr (read now if it must be),
 * with its innermost scope and line row there (either may be NULL); NULL
 * if none does. */
static const CodeUnit *unit_at(DwarfCode *dc, uint64_t vaddr, const CodeScope **s,
                               const CodeLine **row)
{
    size_t u = 0;
    if (dc->aranges == NULL) {
        while (u < dc->n_units && innermost(&dc->units[u], vaddr) == NULL &&
               line_at(&dc->units[u], vaddr) == NULL)
            u++;
        if (u == dc->n_units)
            return NULL;
    } else {
        size_t lo = SORTED_COUNT_AT_OR_BELOW(dc->aranges, dc->n_aranges, CodeArange, lo, vaddr);
        if (lo == 0 || vaddr >= dc->aranges[lo - 1].hi)
            return NULL;
        u = dc->aranges[lo - 1].unit;
        if (!dc->units[u].loaded)
            unit_load(dc, u);
    }
    *s = innermost_read(dc, u, vaddr);
    *row = line_at(&dc->units[u], vaddr);
    return *s != NULL || *row != NULL ? &dc->units[u] : NULL;
}

size_t dwarf_code_frames(DwarfCode *dc, uint64_t vaddr, CodeFrame *out, size_t max)
{
    const CodeScope *s = NULL;
    const CodeLine *row = NULL;
    const CodeUnit *cu = unit_at(dc, vaddr, &s, &row);
    if (max == 0 || cu == NULL)
        return 0;
    size_t n = 0;
    out[n++] = (CodeFrame){
        .function = s != NULL ? s->name : "",
        .file = row != NULL ? row->file : "",
        .line = row != NULL ? row->line : 0,
    };
    /* Each inlined call's caller, at the calling line; a caller whose
     * range is missing (in another unit) is left unnamed. */
    for (; s != NULL && s->call_line != 0 && n < max;) {
        const CodeScope *caller = s->parent != 0 ? &cu->scopes[s->parent - 1] : NULL;
        out[n++] = (CodeFrame){
            .function = caller != NULL ? caller->name : "",
            .file = s->call_file,
            .line = s->call_line,
        };
        s = caller;
    }
    return n;
}
