/*
 * profiling/Provenance.c -- ipe_resolve: explicit provenance, completed
 * from the ELF symbols and DWARF of whichever mapped file holds the info
 * table (Provenance.h; docs/design/provenance.md).
 *
 * The cache has three levels, each filled only on demand:
 *   - the file-backed mappings of the process (/proc/self/maps), read at
 *     the first resolution and again whenever an address lies in none of
 *     them (a library loaded since);
 *   - per mapped ELF file, its symbol index (ElfSymbols.c) and DWARF index
 *     (DwarfIndex.c), built when the first table or entry function in it
 *     is resolved, without function bodies until an address misses (Note
 *     [Shallow, then deep]);
 *   - per info table, the resolved IpeInfo (a WordMap keyed by address).
 * A table with complete explicit provenance never touches the first two.
 * provenance_static_name names static closures (the debug stub's static
 * roots) from the same per-file indexes.
 */
#include "Provenance.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "DwarfCode.h"
#include "DwarfIndex.h"
#include "ElfSymbols.h"
#include "GrowArray.h"
#include "Messages.h"
#include "ProvenanceMaps.h"
#include "WordMapOrPanic.h"
#include "os/Clock.h"
#include "os/Process.h"

#define PROC_MAPS_PATH "/proc/self/maps"
#define PROC_SELF_EXE "/proc/self/exe"

/* One mapped ELF file. */
typedef struct {
    char *path;          /* as /proc/self/maps names it (owned) */
    bool deleted;        /* unlinked since mapped: path names another file or none */
    bool indexed;        /* elf has been read */
    bool dwarf_indexed;  /* dwarf has been built (shallow at least) */
    bool mapped;         /* in the mappings as last read */
    uintptr_t base_start;   /* its mapping of the lowest file offset: */
    uint64_t base_offset;   /* the one the load bias is computed from */
    ElfObject elf;
    DwarfIndex dwarf;       /* shallow, then deep after a miss */
    DwarfIndex retired;     /* the shallow index a deep one replaced: resolved
                             * tables still point at its strings */
    bool dwarf_reported;    /* a DWARF error was reported for this file */
    bool code_indexed;      /* code has been built (provenance_code_frames) */
    DwarfCode code;         /* its functions, inlined calls and lines */
} ProvObject;

/* One file-backed mapping and the file it maps. */
typedef struct {
    uintptr_t start, end;
    uint64_t offset;
    ProvObject *object;
} ProvRange;

/* A resolved table: its IpeInfo and the storage for its line. */
typedef struct {
    IpeInfo info;
    char span[24];
} Resolved;

/* Where an address lies: its file's symbol and DWARF entry, if any. */
typedef struct {
    const ElfSymbol *symbol;
    const DwarfEntry *dwarf;
    uint64_t vaddr;            /* the address at link time (with symbol or dwarf) */
} Location;

static ProvObject **objects;   /* every file seen in the mappings, never moved */
static size_t n_objects, cap_objects;
static ProvRange *ranges;      /* the mappings as last read */
static size_t n_ranges;
static WordMap resolved;       /* info table address -> Resolved * */
static ProvenanceStats stats;

/* ----------------------------------------------------------------------
 * Mappings and files
 * ---------------------------------------------------------------------- */

static ProvObject *object_for_path(const char *path, bool deleted)
{
    for (size_t i = 0; i < n_objects; i++)
        if (objects[i]->deleted == deleted && strcmp(objects[i]->path, path) == 0)
            return objects[i];
    ProvObject *o = calloc(1, sizeof *o);
    if (GROW_ARRAY_RESERVE_MIN(objects, cap_objects, n_objects + 1, 16) != 0 || o == NULL)
        rts_panic("provenance: out of C heap (%zu files)", n_objects + 1);
    o->path = strdup(path);
    o->deleted = deleted;
    if (o->path == NULL)
        rts_panic("provenance: out of C heap copying %s", path);
    objects[n_objects++] = o;
    return o;
}

/* Re-reads the mappings; false (and the old ones kept) if they cannot be
 * read. */
static bool ranges_refresh(void)
{
    ProcMapping *maps;
    size_t n;
    stats.maps_reads++;
    if (proc_maps_read(PROC_MAPS_PATH, &maps, &n) != 0) {
        if (stats.maps_reads == 1)
            rts_error("provenance: cannot read %s: %s", PROC_MAPS_PATH, strerror(errno));
        return false;
    }
    ProvRange *fresh = malloc((n ? n : 1) * sizeof *fresh);
    if (fresh == NULL)
        rts_panic("provenance: out of C heap (%zu mappings)", n);
    for (size_t i = 0; i < n_objects; i++)
        objects[i]->mapped = false;
    for (size_t i = 0; i < n; i++) {
        ProvObject *o = object_for_path(maps[i].path, maps[i].deleted);
        fresh[i] = (ProvRange){maps[i].start, maps[i].end, maps[i].offset, o};
        if (!o->mapped || maps[i].offset < o->base_offset) {
            o->mapped = true;
            o->base_start = maps[i].start;
            o->base_offset = maps[i].offset;
        }
    }
    proc_maps_free(maps, n);
    free(ranges);
    ranges = fresh;
    n_ranges = n;
    return true;
}

static const ProvRange *range_of(uintptr_t addr)
{
    for (size_t i = 0; i < n_ranges; i++)
        if (addr >= ranges[i].start && addr < ranges[i].end)
            return &ranges[i];
    return NULL;
}

static void object_index_dwarf(ProvObject *o, bool deep)
{
    char why[512];
    if (!dwarf_index_build(o->elf.dwarf_path, deep, &o->dwarf, why, sizeof why) &&
        !o->dwarf_reported) {
        rts_error("provenance: ignoring the rest of the DWARF of %s: %s", o->elf.dwarf_path,
                  why);
        o->dwarf_reported = true;
    }
}

/* Whether path, unlinked, was this program's executable. */
static bool is_deleted_self(const char *path)
{
    char exe[4096];
    if (os_process_exe_path(exe, sizeof exe) != 0 || exe[0] == '\0')
        return false;
    size_t len = strlen(path);
    return strncmp(exe, path, len) == 0 && strcmp(exe + len, " (deleted)") == 0;
}

static void object_index(ProvObject *o)
{
    uint64_t t0 = clock_elapsed_ns();
    char why[512];
    o->indexed = true;
    /* An unlinked file can no longer be opened by name (and its name may
     * now be another file's), except the executable, through
     * /proc/self/exe: rebuilding a program while it runs keeps its names. */
    const char *file = o->path;
    if (o->deleted)
        file = is_deleted_self(o->path) ? PROC_SELF_EXE : NULL;
    /* A file that is not ELF (nothing holding code or info tables is) just
     * has no names: not worth a message. */
    (void)(file != NULL && elf_object_read(file, &o->elf, why, sizeof why));
    stats.files_indexed++;
    stats.index_ns += clock_elapsed_ns() - t0;
}

/* After a miss in a shallow index: the address may be a static local
 * (Note [Shallow, then deep]). */
static void object_index_deep(ProvObject *o)
{
    uint64_t t0 = clock_elapsed_ns();
    o->retired = o->dwarf;
    memset(&o->dwarf, 0, sizeof o->dwarf);
    object_index_dwarf(o, true);
    stats.deep_walks++;
    stats.index_ns += clock_elapsed_ns() - t0;
}

/* Note [Shallow, then deep]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Function bodies are most of a file's DWARF (parameters, locals, inlined
 * calls, call sites): walking them made indexing the examples three times
 * slower, and tables are rarely static locals.  So a file is first indexed
 * without them; the first address in it that the shallow index lacks makes
 * one deep walk, whose index replaces the shallow one.  The shallow one is
 * kept until provenance_exit, because tables already resolved point into
 * its strings. */

/* The indexed file holding addr, and addr at link time in *vaddr; NULL if
 * addr is in no mapped file (heap, stack, anonymous memory) or its file's
 * segments do not say.  *refreshed says whether the mappings were re-read
 * during this resolution already. */
static ProvObject *object_at(uintptr_t addr, bool *refreshed, uint64_t *vaddr)
{
    const ProvRange *r = range_of(addr);
    if (r == NULL && !*refreshed) {
        *refreshed = true;
        if (ranges_refresh())
            r = range_of(addr);
    }
    if (r == NULL)
        return NULL;
    ProvObject *o = r->object;
    if (!o->indexed)
        object_index(o);
    /* One bias for the whole file, from the mapping of its first segment
     * (.inv.one-bias):
     * two segments may share a file page, so another mapping's offset can
     * be ambiguous (a RELRO segment in the page that ends .rodata). */
    intptr_t bias;
    if (!elf_object_bias(&o->elf, o->base_start, o->base_offset, &bias))
        return NULL;
    *vaddr = (uint64_t)(addr - (uintptr_t)bias);
    return o;
}

/* What the mapped files say about addr. */
static Location locate(uintptr_t addr, bool *refreshed)
{
    Location loc = {NULL, NULL, 0};
    ProvObject *o = object_at(addr, refreshed, &loc.vaddr);
    if (o == NULL)
        return loc;
    loc.symbol = elf_object_symbol_at(&o->elf, loc.vaddr);
    if (!o->dwarf_indexed && o->elf.dwarf_path != NULL) {
        uint64_t t0 = clock_elapsed_ns();
        object_index_dwarf(o, false);
        stats.index_ns += clock_elapsed_ns() - t0;
    }
    o->dwarf_indexed = true;
    loc.dwarf = dwarf_index_find(&o->dwarf, loc.vaddr);
    if (loc.dwarf == NULL && o->elf.dwarf_path != NULL && !o->dwarf.deep) {
        object_index_deep(o);
        loc.dwarf = dwarf_index_find(&o->dwarf, loc.vaddr);
    }
    return loc;
}

/* ----------------------------------------------------------------------
 * Resolution
 * ---------------------------------------------------------------------- */

static const char *or_empty(const char *s)
{
    return s != NULL ? s : "";
}

/* Fills the fields explicit provenance leaves open from the symbols and
 * DWARF.  See Note [Which definition names a table]. */
static void derive(const StgInfoTable *info, Resolved *r, const StgInfoProv *p)
{
    bool refreshed = false;
    Location table = locate((uintptr_t)info, &refreshed);
    Location entry = {NULL, NULL, 0};
    if (info->entry != NULL)
        entry = locate((uintptr_t)info->entry, &refreshed);
    const char *table_name = table.symbol != NULL ? table.symbol->name
                             : table.dwarf != NULL ? table.dwarf->name : "";
    const char *label = entry.symbol != NULL ? entry.symbol->name
                        : entry.dwarf != NULL ? entry.dwarf->name : "";
    const char *module = table.dwarf != NULL ? table.dwarf->module
                         : entry.dwarf != NULL ? entry.dwarf->module : "";
    const DwarfEntry *src = entry.dwarf != NULL ? entry.dwarf : table.dwarf;
    if (p == NULL || p->table_name == NULL)
        r->info.table_name = table_name;
    if (p == NULL || p->label == NULL)
        r->info.label = label;
    if (p == NULL || p->module == NULL)
        r->info.module = module;
    if ((p == NULL || p->src_file == NULL) && src != NULL) {
        r->info.src_file = src->file;
        if (src->line != 0) {
            snprintf(r->span, sizeof r->span, "%u", (unsigned)src->line);
            r->info.src_span = r->span;
        }
    }
}

/* Note [Which definition names a table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A constructor's table is named by its own definition: the symbol of the
 * static variable, the file and line declaring it, its unit as module.
 * A thunk or function table is one of many such tables a C file defines
 * next to their entry functions; what a reader wants to see is the code
 * that builds the value, so the label is the entry function's symbol and
 * the source location is the entry's declaration (the table's, if the
 * entry has no DWARF).  The module stays the table's unit.  Labels of
 * constructors stay empty: C has no binding to name. */

const IpeInfo *ipe_resolve(const StgInfoTable *info)
{
    if (info == NULL)
        return NULL;
    bool found;
    uint64_t *slot = word_map_slot_or_panic(&resolved, (uint64_t)(uintptr_t)info, &found);
    if (found)
        return &((Resolved *)*slot)->info;
    uint64_t t0 = clock_elapsed_ns();
    Resolved *r = calloc(1, sizeof *r);
    if (r == NULL)
        rts_panic("provenance: out of C heap resolving %p", (const void *)info);
    *slot = (StgWord)(uintptr_t)r;   /* derive() never inserts into resolved */
    const StgInfoProv *p = info->prov;
    r->info = (IpeInfo){
        .table_name = or_empty(p != NULL ? p->table_name : NULL),
        .closure_desc = or_empty(p != NULL ? p->closure_desc : NULL),
        .ty_desc = or_empty(p != NULL ? p->ty_desc : NULL),
        .label = or_empty(p != NULL ? p->label : NULL),
        .module = or_empty(p != NULL ? p->module : NULL),
        .src_file = or_empty(p != NULL ? p->src_file : NULL),
        .src_span = p != NULL && p->src_file != NULL ? or_empty(p->src_span) : "",
    };
    if (p == NULL || p->table_name == NULL || p->label == NULL || p->module == NULL ||
        p->src_file == NULL)
        derive(info, r, p);
    stats.tables_resolved++;
    stats.resolve_ns += clock_elapsed_ns() - t0;
#if STRATA_DEBUG >= 3
    provenance_check();
#endif
    return &r->info;
}

const char *provenance_declaring_file(const void *addr)
{
    if (addr == NULL)
        return NULL;
    bool refreshed = false;
    Location loc = locate((uintptr_t)addr, &refreshed);
    return loc.dwarf != NULL && loc.dwarf->file[0] != '\0' ? loc.dwarf->file : NULL;
}

/* ----------------------------------------------------------------------
 * Static objects
 * ---------------------------------------------------------------------- */

bool provenance_static_name(const void *addr, StaticName *out)
{
    uint64_t t0 = clock_elapsed_ns();
    bool refreshed = false;
    Location loc = locate((uintptr_t)addr, &refreshed);
    stats.resolve_ns += clock_elapsed_ns() - t0;
    if (loc.symbol == NULL)
        return false;
    /* The DWARF entry is looked up at exactly the address: an object in
     * the middle of a symbol (an array of closures) gets no line. */
    *out = (StaticName){
        .symbol = loc.symbol->name,
        .offset = loc.vaddr - loc.symbol->vaddr,
        .file = loc.dwarf != NULL ? loc.dwarf->file : "",
        .line = loc.dwarf != NULL ? loc.dwarf->line : 0,
    };
    return true;
}

/* ----------------------------------------------------------------------
 * Code addresses
 * ---------------------------------------------------------------------- */

/* Note [Code in separate debug files]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Call stacks are named from the DWARF of files that carry it, and from
 * the symbol table alone for files whose DWARF is in a separate debug
 * file (found by build-id or .gnu_debuglink: a Debian -dbg package).
 * Those are system libraries, whose frames in an allocation's stack are
 * the C library's below main, a thread's start, a qsort calling back:
 * their names say enough.  Their DWARF is also large and compressed:
 * naming one frame of libc from its debug file took 150-600 ms (zlib
 * inflating all of .debug_info at the first read), inside an
 * allocation.  A program's own code carries its DWARF (cc -g), and so
 * does the runtime. */

/* Reports, once per file, the first error reading its code index. */
static void code_report_error(ProvObject *o)
{
    if (!o->code.walk.failed || o->code.error_reported)
        return;
    o->code.error_reported = true;
    if (!o->dwarf_reported)
        rts_error("provenance: ignoring the rest of the DWARF of %s: %s", o->elf.dwarf_path,
                  o->code.why);
    o->dwarf_reported = true;
}

static void object_index_code(ProvObject *o)
{
    uint64_t t0 = clock_elapsed_ns();
    o->code_indexed = true;
    (void)dwarf_code_open(o->elf.dwarf_path, &o->code);
    code_report_error(o);
    stats.code_files_indexed++;
    stats.index_ns += clock_elapsed_ns() - t0;
}

size_t provenance_code_frames(const void *pc, CodeFrame *out, size_t max)
{
    if (max == 0)
        return 0;
    uint64_t t0 = clock_elapsed_ns();
    bool refreshed = false;
    uint64_t vaddr = 0;
    ProvObject *o = object_at((uintptr_t)pc, &refreshed, &vaddr);
    size_t n = 0;
    /* Note [Code in separate debug files]: symbols only. */
    if (o != NULL && o->elf.dwarf_path != NULL && !o->elf.dwarf_separate) {
        if (!o->code_indexed)
            object_index_code(o);
        uint64_t t1 = clock_elapsed_ns();
        n = dwarf_code_frames(&o->code, vaddr, out, max);
        code_report_error(o);
        stats.index_ns += clock_elapsed_ns() - t1;   /* mostly a unit read on first use */
    }
    /* The outermost function from the symbol table when DWARF cannot name
     * it (a stripped file, a caller in another unit). */
    const ElfSymbol *sym = o != NULL ? elf_object_symbol_at(&o->elf, vaddr) : NULL;
    if (sym != NULL) {
        if (n == 0)
            out[n++] = (CodeFrame){.function = "", .file = "", .line = 0};
        if (out[n - 1].function[0] == '\0')
            out[n - 1].function = sym->name;
    }
    stats.resolve_ns += clock_elapsed_ns() - t0;
    return n;
}

/* ----------------------------------------------------------------------
 * Statistics and shutdown
 * ---------------------------------------------------------------------- */

void provenance_stats(ProvenanceStats *out)
{
    uint64_t bytes = n_objects * sizeof *objects + n_ranges * sizeof *ranges +
                     word_map_bytes(&resolved) +
                     stats.tables_resolved * sizeof(Resolved);
    *out = stats;
    for (size_t i = 0; i < n_objects; i++) {
        const ProvObject *o = objects[i];
        bytes += sizeof *o + strlen(o->path) + 1 + o->elf.bytes + o->dwarf.bytes +
                 o->retired.bytes + o->code.bytes;
        out->symbols += o->elf.n_symbols;
        out->dwarf_entries += o->dwarf.n_entries;
    }
    out->bytes_held = bytes;
}

void provenance_check(void)
{
    for (size_t i = 0; i < n_objects; i++) {
        const ProvObject *o = objects[i];
        if (o == NULL || o->path == NULL)
            rts_panic("provenance: file %zu of %zu missing", i, n_objects);
        elf_object_check(&o->elf);
        dwarf_index_check(&o->dwarf);
        dwarf_index_check(&o->retired);
        dwarf_code_check(&o->code);
    }
    for (size_t i = 0; i < n_ranges; i++)
        if (ranges[i].object == NULL || ranges[i].start >= ranges[i].end)
            rts_panic("provenance: mapping %zu [%p, %p) is malformed", i,
                      (void *)ranges[i].start, (void *)ranges[i].end);
    uint64_t n = 0;
    size_t pos = 0;
    uint64_t key, val;
    while (word_map_next(&resolved, &pos, &key, &val)) {
        const IpeInfo *p = &((const Resolved *)(uintptr_t)val)->info;
        if (p->table_name == NULL || p->closure_desc == NULL || p->ty_desc == NULL ||
            p->label == NULL || p->module == NULL || p->src_file == NULL ||
            p->src_span == NULL)
            rts_panic("provenance: table 0x%llx resolved with a NULL field",
                      (unsigned long long)key);
        n++;
    }
    if (n != stats.tables_resolved)
        rts_panic("provenance: %llu tables cached, %llu counted", (unsigned long long)n,
                  (unsigned long long)stats.tables_resolved);
}

void provenance_exit(void)
{
    size_t pos = 0;
    uint64_t key, val;
    while (word_map_next(&resolved, &pos, &key, &val))
        free((Resolved *)(uintptr_t)val);
    word_map_free(&resolved);
    for (size_t i = 0; i < n_objects; i++) {
        elf_object_free(&objects[i]->elf);
        dwarf_index_free(&objects[i]->dwarf);
        dwarf_index_free(&objects[i]->retired);
        dwarf_code_free(&objects[i]->code);
        free(objects[i]->path);
        free(objects[i]);
    }
    free(objects);
    free(ranges);
    objects = NULL;
    ranges = NULL;
    n_objects = n_ranges = cap_objects = 0;
    memset(&stats, 0, sizeof stats);
}
