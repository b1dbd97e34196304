/*
 * profiling/DwarfCode.h -- the code addresses of one ELF file's DWARF:
 * every function's and every inlined call's address ranges, with the
 * callee's name and where it was called from, and every line-table row.
 * Read unit by unit, as the call stacks being named pass through them
 * (the whole of a large library's DWARF would take seconds), and searched
 * by address: a return address becomes the source
 * frames it stands for, innermost first, inlined calls expanded, as gdb
 * and pprof show them.  See docs/design/alloc-sampling.md, "Naming a
 * stack".
 */
#ifndef STRATA_DWARF_CODE_H
#define STRATA_DWARF_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DwarfUnit.h"
#include "ProvenanceArena.h"
#include "WordMap.h"

/* One address range of a function, or of a call inlined into one. */
typedef struct {
    uint64_t lo, hi;           /* [lo, hi), link-time addresses */
    uint32_t parent;           /* the enclosing range's index + 1; 0 for none */
    uint32_t call_line;        /* inlined: the calling line in the enclosing
                                  function; 0 for an outermost function */
    const char *name;          /* the function (the callee, if inlined), or "" */
    const char *call_file;     /* inlined: the calling line's file, or "" */
    uint64_t unread;           /* an outermost function whose inside (the
                                  calls inlined into it) is not read yet:
                                  its DIE's offset; else 0 */
} CodeScope;

/* One line-table row: the code from addr up to the next row's address is
 * file:line; an end row ends a sequence (no line after it). */
typedef struct {
    uint64_t addr;
    const char *file;          /* "" for an end row */
    uint32_t line;
    uint32_t ordinal;          /* its place in the walk: rows of one address
                                  keep their order, the last one counting */
    bool end;
} CodeLine;

/* One compilation unit's part of the index, read when an address in it
 * is first asked for: its line table and its functions' ranges, and the
 * inside of a function (its inlined calls) when an address in that
 * function is first asked for (Note [Reading a function when asked] in
 * DwarfCode.c). */
typedef struct {
    uint64_t die_offset;       /* the unit's DIE in .debug_info */
    bool loaded;               /* scopes and lines below are read */
    CodeScope *scopes;         /* sorted by lo, enclosing ranges first */
    size_t n_scopes, cap_scopes;
    CodeLine *lines;           /* sorted by addr */
    size_t n_lines, cap_lines;
} CodeUnit;

/* An address range of a unit (.debug_aranges). */
typedef struct {
    uint64_t lo, hi;
    uint32_t unit;             /* index into units */
} CodeArange;

typedef struct {
    DwarfUnitWalk walk;        /* the file, open while the index lives */
    bool open;
    size_t entered;            /* the unit the walk is in: index + 1; 0 none */
    Dwarf_Die entered_die;     /* its DIE, while entered */
    CodeUnit *units;
    size_t n_units, cap_units;
    WordMap unit_of;           /* a unit's DIE offset -> its index */
    CodeArange *aranges;       /* sorted by lo; NULL: every unit is loaded */
    size_t n_aranges;
    StrArena strings;
    bool whole_units;          /* read each unit's functions' insides with
                                  the unit (set before opening: tests) */
    char why[256];             /* the first error, for walk.why */
    bool error_reported;       /* the owner has reported it */
    size_t bytes;              /* C heap held */
} DwarfCode;

/* One source frame. */
typedef struct {
    const char *function;      /* "" if unknown */
    const char *file;          /* "" if unknown */
    uint32_t line;             /* 0 if unknown */
} CodeFrame;

/* Opens the ELF file at path for the index dc (zeroed but for
 * whole_units) and reads which
 * address ranges each of its compilation units covers (.debug_aranges;
 * without them, every unit is read now).  A unit's functions, inlined
 * calls and lines are read when an address in it is first asked for.
 * True if that went without error; false with a reason in dc->why
 * otherwise, dc keeping what was read.  Free dc with dwarf_code_free
 * either way (it closes the file). */
bool dwarf_code_open(const char *path, DwarfCode *dc);

void dwarf_code_free(DwarfCode *dc);

/* Panics unless dc is well formed: each loaded unit sorted, parents
 * before children and enclosing them, every string present. */
void dwarf_code_check(const DwarfCode *dc);

/* The source frames of the instruction at link-time address vaddr,
 * innermost first: the innermost inlined call at vaddr's line, then each
 * enclosing function at the line that called the one inside it.  At most
 * max; returns how many (0 when the DWARF says nothing about vaddr).
 * Reads vaddr's unit on first use: an error there is in dc->why (and
 * what was read is kept). */
size_t dwarf_code_frames(DwarfCode *dc, uint64_t vaddr, CodeFrame *out, size_t max);

#endif /* STRATA_DWARF_CODE_H */
