/*
 * profiling/DwarfUnit.h -- a walk over the compilation units of one ELF
 * file's DWARF with libdwarf, and what every walk reads: the unit's file
 * table and line table, a DIE's name, declaring file and line (followed
 * through its declaration or abstract instance), its constant and string
 * attributes.  The two indexes built from DWARF share it: DwarfIndex.c
 * (variables and functions by address, for info-table provenance) and
 * DwarfCode.c (code addresses to functions, inlined calls and lines, for
 * allocation call stacks).  See docs/design/provenance.md.
 *
 * Every libdwarf call gets an error pointer (without one libdwarf aborts
 * the process): an error fails the walk, once, with a reason, and what
 * was read before it is kept (.inv.no-crash).
 */
#ifndef STRATA_DWARF_UNIT_H
#define STRATA_DWARF_UNIT_H

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdbool.h>
#include <stddef.h>

#include "ProvenanceArena.h"

typedef struct DwarfUnitWalk_ {
    Dwarf_Debug dbg;            /* while open */
    int fd;                     /* the file it reads, while open */
    StrArena *strings;          /* where names and paths are copied */
    bool failed;                /* an error stopped the walk */
    char *why;                  /* ... and says why (why_len bytes) */
    size_t why_len;
    /* The current compilation unit. */
    Dwarf_Half version;         /* of the unit: its file numbers start at 0 from DWARF 5 */
    Dwarf_Half address_size;
    const char *comp_dir;       /* in the arena, or NULL */
    const char *module;         /* the unit's name, as SourcePath.h shows it */
    char **files;               /* dwarf_srcfiles of the unit */
    Dwarf_Signed n_files;
    const char **file_copies;   /* files[i] copied into the arena, on first use */
} DwarfUnitWalk;

/* Called for each unit, its files set up; the walk stops once it fails. */
typedef void (*DwarfUnitFn)(DwarfUnitWalk *w, Dwarf_Die cu, void *ctx);

/* Opens the ELF file at path and calls unit for each of its compilation
 * units.  w must have strings, why and why_len set.  Returns true if the
 * whole of the DWARF was read; false with w->why set otherwise (a file
 * that cannot be opened, a libdwarf error). */
bool dwarf_unit_walk(DwarfUnitWalk *w, const char *path, DwarfUnitFn unit, void *ctx);

/* Opens the ELF file at path for walking: false if it cannot be opened
 * (w->failed, with a reason) or has no DWARF (not a failure).  w must
 * have strings, why and why_len set.  dwarf_unit_close closes it. */
bool dwarf_unit_open(DwarfUnitWalk *w, const char *path);
void dwarf_unit_close(DwarfUnitWalk *w);

/* Makes cu the current unit (its version, address size, name, directory
 * and files); false, having failed the walk, if its header cannot be
 * read.  dwarf_unit_leave frees what it read, either way. */
bool dwarf_unit_enter(DwarfUnitWalk *w, Dwarf_Die cu);
void dwarf_unit_leave(DwarfUnitWalk *w);

/* Calls fn(child, its tag, depth, ctx) for each child of parent, in order,
 * while the walk has not failed (a tag that cannot be read fails it);
 * nothing below DWARF_UNIT_MAX_DEPTH (deeper nesting than that is not C,
 * and may be a corrupt tree). */
#define DWARF_UNIT_MAX_DEPTH 64
typedef void (*DwarfDieFn)(Dwarf_Die die, Dwarf_Half tag, int depth, void *ctx);
void dwarf_unit_children(DwarfUnitWalk *w, Dwarf_Die parent, int depth, DwarfDieFn fn,
                         void *ctx);

/* One row of a unit's line table. */
typedef struct {
    Dwarf_Addr addr;
    Dwarf_Unsigned line;        /* 0: none */
    Dwarf_Unsigned file_no;     /* dwarf_unit_file's number */
    bool end;                   /* the end of a sequence: addr is one past it */
} DwarfLineRow;

/* Calls fn(row, ctx) for each row of the line table of the unit cu, in
 * order, while the walk has not failed; a unit without one has none.  A
 * libdwarf error fails the walk, the rows before it kept. */
typedef void (*DwarfLineFn)(const DwarfLineRow *row, void *ctx);
void dwarf_unit_lines(DwarfUnitWalk *w, Dwarf_Die cu, DwarfLineFn fn, void *ctx);

/* Records a libdwarf error (once, naming what was being read) and frees
 * it; err may be NULL. */
void dwarf_unit_fail(DwarfUnitWalk *w, const char *what, Dwarf_Error err);

/* Attribute name of die into *a (the caller deallocates it); false if
 * absent, or on an error, which fails the walk naming what. */
bool dwarf_unit_attr(DwarfUnitWalk *w, Dwarf_Die die, Dwarf_Half name, Dwarf_Attribute *a,
                     const char *what);

/* An attribute's unsigned constant (DW_FORM_implicit_const too); false if
 * absent or of another form. */
bool dwarf_unit_udata(DwarfUnitWalk *w, Dwarf_Die die, Dwarf_Half name, Dwarf_Unsigned *out);

/* An attribute's string (libdwarf's, valid while the walk's dbg is open);
 * false if absent. */
bool dwarf_unit_string(DwarfUnitWalk *w, Dwarf_Die die, Dwarf_Half name, char **out);

/* Name (libdwarf's string, or NULL), declaring file number and line of
 * die, completed from the DIE its DW_AT_specification or
 * DW_AT_abstract_origin names (followed at most twice). */
void dwarf_unit_decl(DwarfUnitWalk *w, Dwarf_Die die, char **name, Dwarf_Unsigned *file_no,
                     Dwarf_Unsigned *line);

/* File file_no of the current unit, as SourcePath.h shows it, in the
 * arena; "" for none or an unknown number. */
const char *dwarf_unit_file(DwarfUnitWalk *w, Dwarf_Unsigned file_no);

/* A copy of path, shown under the runtime's or the unit's source root
 * (Note [Which root a source file is shown under] in SourcePath.c). */
const char *dwarf_unit_source_path(DwarfUnitWalk *w, const char *path);

#endif /* STRATA_DWARF_UNIT_H */
