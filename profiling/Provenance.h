/*
 * profiling/Provenance.h -- the provenance of an info table as the
 * profiler and the heap debugger show it: its explicit provenance where
 * the table has some, otherwise what the program's own ELF symbols and
 * DWARF say (docs/design/provenance.md).
 *
 * Resolution is lazy and cached: nothing is read until the first call,
 * an ELF file is indexed when the first table (or entry function) in it
 * is resolved, and each table is resolved once.  Call from the mutator's
 * thread or with the mutator paused (the census, the debug stub): the
 * cache has no lock.
 */
#ifndef STRATA_PROVENANCE_H
#define STRATA_PROVENANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DwarfCode.h"
#include "strata/InfoTables.h"

/* GHC's InfoProv fields.  No field is NULL; "" means unknown. */
typedef struct {
    const char *table_name;    /* explicit, else the table's ELF symbol name */
    const char *closure_desc;  /* explicit only */
    const char *ty_desc;       /* explicit only */
    const char *label;         /* explicit, else (thunks, functions) the entry
                                * function's symbol name */
    const char *module;        /* explicit, else the table's compilation unit */
    const char *src_file;      /* explicit, else the file of the table's
                                * definition (thunks, functions: of the entry's) */
    const char *src_span;      /* explicit, else that definition's line */
} IpeInfo;

/* The provenance of info, resolved on first use and cached until
 * provenance_exit; NULL if info is NULL.  Explicit provenance wins field
 * by field (src_file and src_span together); a table whose file has no
 * symbols or DWARF (stripped), or that lies in no mapped file, gets "" for
 * what only they could say.  Unreadable or corrupt debug information is
 * reported once per file on stderr and otherwise treated as absent. */
const IpeInfo *ipe_resolve(const StgInfoTable *info);

/* What the program's symbol table says about a static object. */
typedef struct {
    const char *symbol;        /* the ELF symbol holding it */
    uint64_t offset;           /* bytes from the symbol's start (0: it starts there) */
    const char *file;          /* the definition's file from DWARF, or "" */
    uint32_t line;             /* its line, 0 if unknown */
} StaticName;

/* Names the static object at addr (a static closure) from the ELF symbols
 * and DWARF of the mapped file holding it, as ipe_resolve names tables.
 * False if no symbol holds addr (not in a mapped ELF file, or the file is
 * stripped).  Same threading rules as ipe_resolve; the strings live until
 * provenance_exit.  Not cached per address: the file's indexes are. */
bool provenance_static_name(const void *addr, StaticName *out);

/* The file declaring the static variable or function at addr, named as
 * ipe_resolve names source files, or NULL if no DWARF says.  The heap
 * debugger shows local-root sites with it: their __FILE__ is relative to
 * a build directory the runtime cannot know.  Valid until
 * provenance_exit; same threading rule as ipe_resolve. */
const char *provenance_declaring_file(const void *addr);

/* The source frames of the code at pc (a return address less one: an
 * address inside the call instruction), innermost first, inlined calls
 * expanded (DwarfCode.h), from the DWARF of the mapped file holding it;
 * the outermost function from its symbol table when DWARF has none.  At
 * most max; returns how many, 0 when nothing names pc.  The file's code
 * index is built on the first call that needs it.  Same threading rules
 * as ipe_resolve; the strings live until provenance_exit. */
size_t provenance_code_frames(const void *pc, CodeFrame *out, size_t max);

typedef struct {
    uint64_t tables_resolved;    /* distinct info tables resolved */
    uint64_t files_indexed;      /* ELF files whose symbols / DWARF were read */
    uint64_t code_files_indexed; /* ... and whose code addresses were indexed */
    uint64_t symbols, dwarf_entries;   /* held in those files' indexes */
    uint64_t maps_reads;         /* times /proc/self/maps was read */
    uint64_t deep_walks;         /* DWARF walks into function bodies */
    uint64_t bytes_held;         /* C heap held by the cache */
    uint64_t index_ns;           /* time spent reading ELF files and DWARF */
    uint64_t resolve_ns;         /* time spent in ipe_resolve, indexing included */
} ProvenanceStats;

void provenance_stats(ProvenanceStats *out);

/* Panics unless the cache is well formed: every file's indexes (checked
 * down), every mapping's file, every resolved table's fields. */
void provenance_check(void);

/* Frees the cache (hs_exit).  Pointers ipe_resolve returned are invalid
 * afterwards; a later call starts again from nothing. */
void provenance_exit(void);

#endif /* STRATA_PROVENANCE_H */
