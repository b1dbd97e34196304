/*
 * profiling/DwarfIndex.h -- the definitions with a static address in one
 * file's DWARF, read with libdwarf: every variable (info tables are static
 * variables) and every function (thunk and function entries), each with
 * its name, the file and line of its declaration and its compilation
 * unit.  Built once per ELF file when the provenance resolver first needs
 * it, then searched by address.  See docs/design/provenance.md.
 */
#ifndef STRATA_DWARF_INDEX_H
#define STRATA_DWARF_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ProvenanceArena.h"

typedef struct {
    uint64_t vaddr;       /* link-time address of the variable / function entry */
    const char *name;     /* DW_AT_name, or "" (in the arena, as the others) */
    const char *file;     /* declaring file, as SourcePath.h shows it, or "" */
    const char *module;   /* the compilation unit's name, shown the same way */
    uint32_t line;        /* declaring line, 0 if unknown */
} DwarfEntry;

typedef struct {
    DwarfEntry *entries;  /* sorted by vaddr */
    size_t n_entries, cap_entries;
    StrArena strings;
    size_t bytes;         /* C heap held: entries + arena */
    bool deep;            /* built with static locals (see dwarf_index_build) */
} DwarfIndex;

/* Indexes the DWARF of the ELF file at path into ix (which must be
 * zeroed): file-scope variables and functions, and with deep also the
 * static variables inside function bodies (several times slower: the
 * bodies are most of the DWARF).  Returns true if the whole of it was read; false, with a reason
 * in why[why_len], if libdwarf reported an error -- ix then keeps what was
 * read before the error (corrupt debug information never crashes the
 * program, it only loses names).  Free ix with dwarf_index_free either
 * way. */
bool dwarf_index_build(const char *path, bool deep, DwarfIndex *ix, char *why,
                       size_t why_len);

void dwarf_index_free(DwarfIndex *ix);

/* Panics unless ix is well formed: entries sorted, within capacity, every
 * string present. */
void dwarf_index_check(const DwarfIndex *ix);

/* The entry at exactly vaddr, or NULL. */
const DwarfEntry *dwarf_index_find(const DwarfIndex *ix, uint64_t vaddr);

#endif /* STRATA_DWARF_INDEX_H */
