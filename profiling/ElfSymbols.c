/*
 * profiling/ElfSymbols.c -- reads an ELF file's segments, symbols and the
 * location of its DWARF with libelf (ElfSymbols.h).
 *
 * Symbols come from .symtab, which holds static (file-local) symbols as
 * well as global ones -- most info tables are static.  A stripped file
 * has none; then a separate debug file (objcopy --only-keep-debug) keeps
 * them, and failing that .dynsym names at least the exported tables.
 * Nothing is kept open: the symbols' names are copied into the object's
 * arena and the file is closed before returning.
 */
#include "ElfSymbols.h"

#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Messages.h"
#include "SortedSearch.h"
#include "os/File.h"

/* Where separate debug files live (Debian's debug packages and gdb's
 * default). */
#define DEBUG_FILE_DIR "/usr/lib/debug"

#define BUILD_ID_MAX 64

/* What one scan of a file's sections found. */
typedef struct {
    Elf_Scn *symtab, *dynsym;
    bool has_debug_info;                   /* .debug_info with contents */
    unsigned char build_id[BUILD_ID_MAX];  /* NT_GNU_BUILD_ID, if any */
    size_t build_id_len;
    char debuglink[256];                   /* .gnu_debuglink file name, or "" */
    uint32_t debuglink_crc;
} ElfScan;

/* An open ELF file. */
typedef struct {
    int fd;
    Elf *elf;
} ElfFile;

/* ----------------------------------------------------------------------
 * Opening and scanning
 * ---------------------------------------------------------------------- */

static bool elf_file_open(const char *path, ElfFile *f, char *why, size_t why_len)
{
    static bool version_set = false;
    if (!version_set) {
        if (elf_version(EV_CURRENT) == EV_NONE) {
            snprintf(why, why_len, "libelf is out of date (%s)", elf_errmsg(-1));
            return false;
        }
        version_set = true;
    }
    f->elf = NULL;
    f->fd = -1;
    int err = os_file_open_read(path, &f->fd);
    if (err != 0) {
        snprintf(why, why_len, "cannot open %s: %s", path, strerror(err));
        return false;
    }
    f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
    if (f->elf == NULL || elf_kind(f->elf) != ELF_K_ELF) {
        snprintf(why, why_len, "%s is not an ELF file (%s)", path,
                 f->elf == NULL ? elf_errmsg(-1) : "not ELF");
        return false;
    }
    return true;
}

static void elf_file_close(ElfFile *f)
{
    if (f->elf != NULL)
        elf_end(f->elf);
    if (f->fd >= 0)
        os_file_close(f->fd);
    f->elf = NULL;
    f->fd = -1;
}

static void scan_build_id(Elf_Scn *scn, ElfScan *s)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    if (d == NULL)
        return;
    GElf_Nhdr nhdr;
    size_t off = 0, name_off, desc_off;
    while ((off = gelf_getnote(d, off, &nhdr, &name_off, &desc_off)) > 0) {
        if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
            memcmp((const char *)d->d_buf + name_off, "GNU", 4) == 0 &&
            nhdr.n_descsz > 0 && nhdr.n_descsz <= BUILD_ID_MAX) {
            memcpy(s->build_id, (const char *)d->d_buf + desc_off, nhdr.n_descsz);
            s->build_id_len = nhdr.n_descsz;
            return;
        }
    }
}

/* .gnu_debuglink: a file name, NUL, padding to 4 bytes, a CRC-32. */
static void scan_debuglink(Elf_Scn *scn, ElfScan *s)
{
    Elf_Data *d = elf_getdata(scn, NULL);
    if (d == NULL || d->d_buf == NULL)
        return;
    const char *buf = d->d_buf;
    size_t len = strnlen(buf, d->d_size);
    size_t crc_at = (len + 4) & ~(size_t)3;
    if (len == 0 || len >= sizeof s->debuglink || crc_at + 4 > d->d_size ||
        strchr(buf, '/') != NULL)
        return;
    memcpy(s->debuglink, buf, len + 1);
    memcpy(&s->debuglink_crc, buf + crc_at, 4);   /* native byte order: loaded in-process */
}

static void elf_scan(Elf *e, ElfScan *s)
{
    memset(s, 0, sizeof *s);
    size_t shstrndx;
    if (elf_getshdrstrndx(e, &shstrndx) != 0)
        return;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn != NULL; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL)
            continue;
        const char *name = elf_strptr(e, shstrndx, sh.sh_name);
        if (sh.sh_type == SHT_SYMTAB)
            s->symtab = scn;
        else if (sh.sh_type == SHT_DYNSYM)
            s->dynsym = scn;
        else if (sh.sh_type == SHT_NOTE && s->build_id_len == 0)
            scan_build_id(scn, s);
        if (name == NULL)
            continue;
        if (strcmp(name, ".debug_info") == 0 && sh.sh_type != SHT_NOBITS && sh.sh_size > 0)
            s->has_debug_info = true;
        else if (strcmp(name, ".gnu_debuglink") == 0)
            scan_debuglink(scn, s);
    }
}

/* ----------------------------------------------------------------------
 * Segments and symbols
 * ---------------------------------------------------------------------- */

static void read_segments(Elf *e, ElfObject *obj)
{
    size_t n;
    if (elf_getphdrnum(e, &n) != 0)
        return;
    for (size_t i = 0; i < n && obj->n_segments < ELF_MAX_SEGMENTS; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) != NULL && ph.p_type == PT_LOAD)
            obj->segments[obj->n_segments++] =
                (ElfSegment){ph.p_vaddr, ph.p_offset, ph.p_filesz};
    }
}

static int symbol_order(const void *a, const void *b)
{
    const ElfSymbol *x = a, *y = b;
    if (x->vaddr != y->vaddr)
        return x->vaddr < y->vaddr ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void read_symbols(Elf *e, Elf_Scn *scn, ElfObject *obj)
{
    GElf_Shdr sh;
    Elf_Data *d;
    if (gelf_getshdr(scn, &sh) == NULL || sh.sh_entsize == 0 ||
        (d = elf_getdata(scn, NULL)) == NULL)
        return;
    size_t count = sh.sh_size / sh.sh_entsize, n = 0;
    ElfSymbol *syms = malloc((count ? count : 1) * sizeof *syms);
    if (syms == NULL)
        rts_panic("provenance: out of C heap (%zu symbols)", count);
    for (size_t i = 0; i < count; i++) {
        GElf_Sym sym;
        if (gelf_getsym(d, (int)i, &sym) == NULL)
            break;
        int type = GELF_ST_TYPE(sym.st_info);
        if ((type != STT_OBJECT && type != STT_FUNC) || sym.st_shndx == SHN_UNDEF ||
            sym.st_value == 0)
            continue;
        const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
        if (name == NULL || name[0] == '\0')
            continue;
        syms[n++] = (ElfSymbol){sym.st_value, sym.st_size, str_arena_copy(&obj->strings, name)};
    }
    qsort(syms, n, sizeof *syms, symbol_order);
    obj->symbols = syms;
    obj->n_symbols = n;
}

/* ----------------------------------------------------------------------
 * Separate debug files
 * ---------------------------------------------------------------------- */

/* CRC-32 as .gnu_debuglink uses it (the zlib/IEEE polynomial). */
static uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    static uint32_t table[256];
    if (table[1] == 0)
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    crc = ~crc;
    while (n-- > 0)
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

static bool file_crc32(int fd, uint32_t *crc)
{
    unsigned char buf[65536];
    uint32_t c = 0;
    uint64_t offset = 0;
    for (;;) {
        size_t k;
        if (os_file_read_at(fd, offset, buf, sizeof buf, &k) != 0)
            return false;
        if (k == 0)
            break;
        c = crc32_update(c, buf, k);
        offset += k;
    }
    *crc = c;
    return true;
}

/* Opens candidate as the debug file of a file scanned into main; true if
 * it exists, matches and is readable (*df open, *ds its scan). */
static bool debug_file_try(const char *candidate, const ElfScan *main, bool by_build_id,
                           ElfFile *df, ElfScan *ds)
{
    if (os_path_readable(candidate) != 0)
        return false;   /* missing: the usual case, nothing to say */
    char why[512];
    if (!elf_file_open(candidate, df, why, sizeof why)) {
        rts_error("provenance: ignoring debug file %s: %s", candidate, why);
        elf_file_close(df);
        return false;
    }
    elf_scan(df->elf, ds);
    const char *mismatch = NULL;
    if (by_build_id || (main->build_id_len > 0 && ds->build_id_len > 0)) {
        if (ds->build_id_len != main->build_id_len ||
            memcmp(ds->build_id, main->build_id, main->build_id_len) != 0)
            mismatch = "its build-id differs";
    } else {
        uint32_t crc;
        if (!file_crc32(df->fd, &crc) || crc != main->debuglink_crc)
            mismatch = "its CRC differs from the one in .gnu_debuglink";
    }
    if (mismatch != NULL) {
        rts_error("provenance: ignoring debug file %s: %s", candidate, mismatch);
        elf_file_close(df);
        return false;
    }
    return true;
}

/* Looks for the separate debug file of path: by build-id under
 * DEBUG_FILE_DIR, then by .gnu_debuglink next to the file, in its .debug
 * directory and under DEBUG_FILE_DIR (gdb's order). */
static bool debug_file_find(const char *path, const ElfScan *main, ElfFile *df, ElfScan *ds,
                            char *found, size_t found_len)
{
    if (main->build_id_len > 1) {
        int k = snprintf(found, found_len, "%s/.build-id/%02x/", DEBUG_FILE_DIR,
                         main->build_id[0]);
        for (size_t i = 1; i < main->build_id_len && k > 0 && (size_t)k < found_len; i++)
            k += snprintf(found + k, found_len - (size_t)k, "%02x", main->build_id[i]);
        if (k > 0 && (size_t)k < found_len)
            snprintf(found + k, found_len - (size_t)k, ".debug");
        if (debug_file_try(found, main, true, df, ds))
            return true;
    }
    if (main->debuglink[0] == '\0')
        return false;
    const char *slash = strrchr(path, '/');
    int dir_len = slash != NULL ? (int)(slash - path) : 0;
    for (int i = 0; i < 3; i++) {
        if (i == 0)
            snprintf(found, found_len, "%.*s/%s", dir_len, path, main->debuglink);
        else if (i == 1)
            snprintf(found, found_len, "%.*s/.debug/%s", dir_len, path, main->debuglink);
        else
            snprintf(found, found_len, DEBUG_FILE_DIR "%.*s/%s", dir_len, path, main->debuglink);
        if (strcmp(found, path) != 0 && debug_file_try(found, main, false, df, ds))
            return true;
    }
    return false;
}

/* ----------------------------------------------------------------------
 * The object
 * ---------------------------------------------------------------------- */

bool elf_object_read(const char *path, ElfObject *obj, char *why, size_t why_len)
{
    memset(obj, 0, sizeof *obj);
    ElfFile f;
    if (!elf_file_open(path, &f, why, why_len)) {
        elf_file_close(&f);
        return false;
    }
    ElfScan s;
    elf_scan(f.elf, &s);
    read_segments(f.elf, obj);
    if (s.has_debug_info)
        obj->dwarf_path = str_arena_copy(&obj->strings, path);
    if (s.symtab != NULL)
        read_symbols(f.elf, s.symtab, obj);
    if (!s.has_debug_info || s.symtab == NULL) {
        ElfFile df;
        ElfScan ds;
        char found[4096];
        if (debug_file_find(path, &s, &df, &ds, found, sizeof found)) {
            if (!s.has_debug_info && ds.has_debug_info) {
                obj->dwarf_path = str_arena_copy(&obj->strings, found);
                obj->dwarf_separate = true;
            }
            if (s.symtab == NULL && ds.symtab != NULL)
                read_symbols(df.elf, ds.symtab, obj);
            elf_file_close(&df);
        }
    }
    if (obj->symbols == NULL && s.dynsym != NULL)
        read_symbols(f.elf, s.dynsym, obj);
    elf_file_close(&f);
    obj->bytes = obj->n_symbols * sizeof(ElfSymbol) + obj->strings.bytes;
    return true;
}

void elf_object_free(ElfObject *obj)
{
    free(obj->symbols);
    str_arena_free(&obj->strings);
    memset(obj, 0, sizeof *obj);
}

void elf_object_check(const ElfObject *obj)
{
    if (obj->n_segments > ELF_MAX_SEGMENTS)
        rts_panic("provenance: %zu segments (max %d)", obj->n_segments, ELF_MAX_SEGMENTS);
    if (obj->n_symbols > 0 && obj->symbols == NULL)
        rts_panic("provenance: %zu symbols without an array", obj->n_symbols);
    for (size_t i = 0; i < obj->n_symbols; i++) {
        if (obj->symbols[i].name == NULL)
            rts_panic("provenance: symbol %zu has no name", i);
        if (i > 0 && symbol_order(&obj->symbols[i - 1], &obj->symbols[i]) > 0)
            rts_panic("provenance: symbols %zu and %zu out of order", i - 1, i);
    }
}

const ElfSymbol *elf_object_symbol_at(const ElfObject *obj, uint64_t vaddr)
{
    /* The last symbol starting at or below vaddr, then the ones before it
     * at the same address (the sort puts aliases side by side). */
    size_t lo = SORTED_COUNT_AT_OR_BELOW(obj->symbols, obj->n_symbols, ElfSymbol, vaddr, vaddr);
    for (size_t i = lo; i-- > 0;) {
        const ElfSymbol *s = &obj->symbols[i];
        if (s->vaddr == vaddr) {
            while (i > 0 && obj->symbols[i - 1].vaddr == vaddr)
                i--;
            return &obj->symbols[i];
        }
        if (vaddr < s->vaddr + s->size)
            return s;
        if (s->vaddr + (1u << 20) < vaddr)
            break;   /* no sane symbol spans a megabyte back to here */
    }
    return NULL;
}

bool elf_object_bias(const ElfObject *obj, uintptr_t map_start, uint64_t map_offset,
                     intptr_t *bias)
{
    for (size_t i = 0; i < obj->n_segments; i++) {
        /* A mapping starts at the page holding its segment's first byte;
         * vaddr and offset agree modulo the page size. */
        const ElfSegment *seg = &obj->segments[i];
        uint64_t page_start = seg->offset & ~(uint64_t)0xfff;
        if (map_offset >= page_start && map_offset < seg->offset + seg->filesz) {
            uint64_t vaddr = seg->vaddr - (seg->offset - map_offset);
            *bias = (intptr_t)(map_start - (uintptr_t)vaddr);
            return true;
        }
    }
    return false;
}
