/*
 * profiling/ElfSymbols.h -- what the provenance resolver needs from one
 * ELF file (the executable or a shared library), read with elfutils'
 * libelf: its loadable segments (to turn a run-time address into a
 * link-time one), its data and function symbols sorted by address, and
 * which file holds its DWARF -- itself, a separate debug file found by
 * build-id or .gnu_debuglink, or none.  See docs/design/provenance.md.
 */
#ifndef STRATA_ELF_SYMBOLS_H
#define STRATA_ELF_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ProvenanceArena.h"

typedef struct {
    uint64_t vaddr;    /* link-time address */
    uint64_t size;     /* bytes (0 if the symbol table does not say) */
    const char *name;  /* in the object's arena */
} ElfSymbol;

typedef struct {
    uint64_t vaddr, offset, filesz;   /* a PT_LOAD segment */
} ElfSegment;

#define ELF_MAX_SEGMENTS 16

typedef struct {
    ElfSegment segments[ELF_MAX_SEGMENTS];   /* the PT_LOAD segments */
    size_t n_segments;
    ElfSymbol *symbols;      /* STT_OBJECT and STT_FUNC, sorted by vaddr */
    size_t n_symbols;
    const char *dwarf_path;  /* file with .debug_info (in the arena), or NULL */
    bool dwarf_separate;     /* ... a separate debug file, not the object */
    StrArena strings;        /* names and paths */
    size_t bytes;            /* C heap held: symbols + arena */
} ElfObject;

/* Reads the ELF file at path into obj.  Returns true if it is an ELF file
 * libelf can read (symbols and DWARF may still be absent: a stripped file
 * has none); false, with a reason in why[why_len], if it cannot be opened
 * or is not ELF.  A separate debug file that is missing is skipped
 * silently; one that is unreadable or does not match is skipped with a
 * warning on stderr.  Free obj with elf_object_free either way. */
bool elf_object_read(const char *path, ElfObject *obj, char *why, size_t why_len);

void elf_object_free(ElfObject *obj);

/* Panics unless obj is well formed: symbols sorted, named, within the
 * segment table's bounds. */
void elf_object_check(const ElfObject *obj);

/* The symbol whose [vaddr, vaddr + size) holds vaddr (an exact start
 * match for a symbol of size 0), or NULL. */
const ElfSymbol *elf_object_symbol_at(const ElfObject *obj, uint64_t vaddr);

/* The load bias (run-time minus link-time address) of obj given one of its
 * mappings: map_start is where file offset map_offset sits in memory.
 * False if no segment covers that offset. */
bool elf_object_bias(const ElfObject *obj, uintptr_t map_start, uint64_t map_offset,
                     intptr_t *bias);

#endif /* STRATA_ELF_SYMBOLS_H */
