/*
 * testsuite/unit/test_provenance.c -- info-table provenance derived from
 * this test program's own ELF symbols and DWARF (it is built with -g):
 * names, files, lines and units of constructor, thunk, static-local and
 * header-defined tables; explicit provenance winning field by field;
 * caching; tables outside any mapped file; nothing read unless asked;
 * and unreadable, truncated or corrupt files and /proc maps handled
 * without a crash.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "DwarfIndex.h"
#include "ElfSymbols.h"
#include "GC.h"
#include "Provenance.h"
#include "ProvenanceMaps.h"
#include "SourcePath.h"
#include "test_provenance_tables.h"

/* Each table's line is recorded on the line that defines it. */
static const unsigned cell_line = __LINE__; STRATA_CONSTR_INFO(Cell_info, "Cell", 2, 0);

static StgClosure *pair_entry(StgClosure **self)
{
    return STRATA_THUNK_FIELD(*self, 0);
}
static const unsigned pair_entry_line = __LINE__ - 4;
STRATA_THUNK_INFO(Pair_thunk_info, "pair", 1, 0, pair_entry);

static const StgInfoProv full_prov = {"T_con_info", "T", "Ty", "mkT", "Mod", "t.hs", "3:1-9"};
STRATA_CONSTR_INFO_PROV(Full_info, "Full", 0, 1, &full_prov);
static const StgInfoProv partial_prov = {NULL, "Part", "PartTy", NULL, NULL, NULL, NULL};
static const unsigned partial_line = __LINE__; STRATA_CONSTR_INFO_PROV(Partial_info, "Partial", 0, 1, &partial_prov);

/* A table that is a static local of a function. */
static const StgInfoTable *local_table(unsigned *line)
{
    *line = __LINE__; static const StgInfoTable Local_info = {CONSTR_0_1, 0, 1, 0, "Local", NULL, NULL, 0};
    return &Local_info;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void assert_line(const IpeInfo *p, unsigned line)
{
    char want[16];
    snprintf(want, sizeof want, "%u", line);
    assert_string_equal(p->src_span, want);
}

static int teardown(void **state)
{
    (void)state;
    provenance_check();
    provenance_exit();
    return 0;
}

/* ----------------------------------------------------------------------
 * Derived provenance
 * ---------------------------------------------------------------------- */

static void test_provenance_constructor_from_dwarf(void **state)
{
    (void)state;
    const IpeInfo *p = ipe_resolve(&Cell_info);
    assert_non_null(p);
    assert_string_equal(p->table_name, "Cell_info");
    assert_string_equal(p->src_file, "testsuite/unit/test_provenance.c");
    assert_line(p, cell_line);
    assert_string_equal(p->module, "testsuite/unit/test_provenance.c");
    assert_string_equal(p->label, "");   /* constructors: no binding to name */
    assert_string_equal(p->closure_desc, "");
    assert_string_equal(p->ty_desc, "");
}

static void test_provenance_thunk_names_its_entry(void **state)
{
    (void)state;
    const IpeInfo *p = ipe_resolve(&Pair_thunk_info);
    assert_string_equal(p->table_name, "Pair_thunk_info");
    assert_string_equal(p->label, "pair_entry");
    assert_string_equal(p->src_file, "testsuite/unit/test_provenance.c");
    assert_line(p, pair_entry_line);
    assert_string_equal(p->module, "testsuite/unit/test_provenance.c");
}

static void test_provenance_static_local_and_header(void **state)
{
    (void)state;
    unsigned line;
    ProvenanceStats st;
    (void)ipe_resolve(&Cell_info);
    provenance_stats(&st);
    assert_int_equal(st.deep_walks, 0);   /* file-scope tables: no function bodies */
    const StgInfoTable *local = local_table(&line);
    const IpeInfo *p = ipe_resolve(local);
    assert_true(strncmp(p->table_name, "Local_info", 10) == 0);   /* gcc may add ".0" */
    assert_line(p, line);
    provenance_stats(&st);
    assert_int_equal(st.deep_walks, 1);   /* the static local needed one */
    /* What was resolved from the shallow index is still readable. */
    assert_true(ends_with(ipe_resolve(&Cell_info)->src_file, "test_provenance.c"));
    p = ipe_resolve(&HeaderTable_info);
    assert_string_equal(p->table_name, "HeaderTable_info");
    assert_string_equal(p->src_file, "testsuite/unit/test_provenance_tables.h");
    assert_line(p, header_table_line);
    assert_string_equal(p->module, "testsuite/unit/test_provenance.c");
}

/* .inv.explicit-wins */
static void test_provenance_explicit_wins(void **state)
{
    (void)state;
    const IpeInfo *p = ipe_resolve(&Full_info);
    assert_string_equal(p->table_name, "T_con_info");
    assert_string_equal(p->closure_desc, "T");
    assert_string_equal(p->ty_desc, "Ty");
    assert_string_equal(p->label, "mkT");
    assert_string_equal(p->module, "Mod");
    assert_string_equal(p->src_file, "t.hs");
    assert_string_equal(p->src_span, "3:1-9");
    ProvenanceStats st;
    provenance_stats(&st);
    assert_int_equal(st.maps_reads, 0);   /* complete: nothing else read */
    assert_int_equal(st.files_indexed, 0);
    /* Field by field: the missing ones are derived. */
    p = ipe_resolve(&Partial_info);
    assert_string_equal(p->closure_desc, "Part");
    assert_string_equal(p->ty_desc, "PartTy");
    assert_string_equal(p->table_name, "Partial_info");
    assert_true(ends_with(p->src_file, "test_provenance.c"));
    assert_line(p, partial_line);
}

static void test_provenance_is_cached(void **state)
{
    (void)state;
    const IpeInfo *a = ipe_resolve(&Cell_info);
    ProvenanceStats before, after;
    provenance_stats(&before);
    const IpeInfo *b = ipe_resolve(&Cell_info);
    provenance_stats(&after);
    assert_ptr_equal(a, b);
    assert_int_equal(before.tables_resolved, 1);
    assert_int_equal(after.tables_resolved, 1);
    assert_int_equal(after.maps_reads, 1);
    assert_int_equal(after.files_indexed, 1);   /* this program only */
    assert_true(after.symbols > 0 && after.dwarf_entries > 0);
    assert_true(after.bytes_held > 0);
    assert_int_equal(after.deep_walks, 0);
    /* A second table in the same file reuses its index. */
    (void)ipe_resolve(&Pair_thunk_info);
    provenance_stats(&after);
    assert_int_equal(after.files_indexed, 1);
    assert_int_equal(after.tables_resolved, 2);
}

static void test_provenance_outside_mapped_files(void **state)
{
    (void)state;
    assert_null(ipe_resolve(NULL));
    StgInfoTable *heap = malloc(sizeof *heap);
    assert_non_null(heap);
    *heap = Cell_info;
    const IpeInfo *p = ipe_resolve(heap);
    assert_string_equal(p->table_name, "");
    assert_string_equal(p->src_file, "");
    assert_string_equal(p->src_span, "");
    assert_string_equal(p->module, "");
    /* A thunk table on the heap still names its entry, which is code. */
    StgInfoTable *thunk = malloc(sizeof *thunk);
    assert_non_null(thunk);
    *thunk = Pair_thunk_info;
    p = ipe_resolve(thunk);
    assert_string_equal(p->table_name, "");
    assert_string_equal(p->label, "pair_entry");
    assert_line(p, pair_entry_line);
    provenance_exit();   /* before freeing: the cache is keyed by address */
    free(heap);
    free(thunk);
}

/* Without profiling or a debugger request, nothing is read (.inv.lazy). */
static void test_provenance_costs_nothing_unused(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", "-hT", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_constr(&Cell_info);
    strata_perform_gc(1);
    strata_perform_gc(1);
    ProvenanceStats st;
    provenance_stats(&st);
    assert_int_equal(st.maps_reads, 0);
    assert_int_equal(st.tables_resolved, 0);
    assert_int_equal(st.bytes_held, 0);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* ----------------------------------------------------------------------
 * Bad input
 * ---------------------------------------------------------------------- */

static char tmp_dir[] = "/tmp/strata-prov-XXXXXX";

static const char *tmp_path(const char *name)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", tmp_dir, name);
    return p;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* This program's file, read whole. */
static unsigned char *read_self(size_t *len)
{
    int fd = open("/proc/self/exe", O_RDONLY);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    unsigned char *buf = malloc((size_t)st.st_size);
    assert_non_null(buf);
    size_t got = 0;
    ssize_t k;
    while (got < (size_t)st.st_size && (k = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
        got += (size_t)k;
    close(fd);
    assert_int_equal(got, (size_t)st.st_size);
    *len = got;
    return buf;
}

/* Where section name lies in an ELF image in memory; false if absent. */
static bool find_section(unsigned char *image, size_t len, const char *name, size_t *off,
                         size_t *size)
{
    assert_true(elf_version(EV_CURRENT) != EV_NONE);
    Elf *e = elf_memory((char *)image, len);
    assert_non_null(e);
    size_t shstrndx;
    assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
    bool found = false;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn != NULL && !found; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        assert_non_null(gelf_getshdr(scn, &sh));
        const char *n = elf_strptr(e, shstrndx, sh.sh_name);
        if (n != NULL && strcmp(n, name) == 0 && sh.sh_type != SHT_NOBITS) {
            *off = sh.sh_offset;
            *size = sh.sh_size;
            found = true;
        }
    }
    elf_end(e);
    return found;
}

static void test_provenance_unreadable_files(void **state)
{
    (void)state;
    char why[512] = "";
    ElfObject obj;
    assert_false(elf_object_read(tmp_path("missing"), &obj, why, sizeof why));
    assert_non_null(strstr(why, "cannot open"));
    elf_object_free(&obj);
    write_file(tmp_path("garbage"), "this is not an ELF file at all", 30);
    assert_false(elf_object_read(tmp_path("garbage"), &obj, why, sizeof why));
    assert_non_null(strstr(why, "not an ELF file"));
    elf_object_free(&obj);
    DwarfIndex ix = {0};
    (void)dwarf_index_build(tmp_path("garbage"), true, &ix, why, sizeof why);   /* no DWARF */
    assert_int_equal(ix.n_entries, 0);
    dwarf_index_free(&ix);
    assert_false(dwarf_index_build(tmp_path("missing"), false, &ix, why, sizeof why));
    assert_non_null(strstr(why, "cannot open"));
    dwarf_index_free(&ix);
}

/* A truncated copy of this program, and copies with each DWARF section
 * overwritten by noise: reading them may lose names, never crash
 * (.inv.no-crash). */
static void test_provenance_corrupt_dwarf(void **state)
{
    (void)state;
    size_t len;
    unsigned char *self = read_self(&len);
    char why[512];
    ElfObject obj;
    DwarfIndex ix = {0};
    for (size_t cut = 64; cut < len; cut = cut * 4) {
        write_file(tmp_path("truncated"), self, cut);
        (void)elf_object_read(tmp_path("truncated"), &obj, why, sizeof why);
        elf_object_check(&obj);
        elf_object_free(&obj);
        (void)dwarf_index_build(tmp_path("truncated"), true, &ix, why, sizeof why);
        dwarf_index_check(&ix);
        dwarf_index_free(&ix);
    }
    static const char *const sections[] = {".debug_info", ".debug_abbrev", ".debug_line",
                                           ".debug_str", ".debug_line_str", ".symtab",
                                           ".strtab"};
    uint64_t seed = harness_seed("test_provenance_corrupt_dwarf");
    unsigned char *copy = malloc(len);
    assert_non_null(copy);
    int corrupted = 0, reported = 0;
    for (size_t s = 0; s < sizeof sections / sizeof sections[0]; s++) {
        size_t off, size;
        if (!find_section(self, len, sections[s], &off, &size))
            continue;
        for (int variant = 0; variant < 3; variant++) {
            memcpy(copy, self, len);
            uint64_t x = seed + s * 31 + (uint64_t)variant;
            /* variant 0: all noise; 1: noise after the first 16 bytes
             * (headers intact); 2: every 7th byte flipped */
            for (size_t i = variant == 1 ? 16 : 0; i < size; i += variant == 2 ? 7 : 1) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                copy[off + i] = variant == 2 ? (unsigned char)~copy[off + i]
                                             : (unsigned char)(x >> 56);
            }
            write_file(tmp_path("corrupt"), copy, len);
            bool read = elf_object_read(tmp_path("corrupt"), &obj, why, sizeof why);
            elf_object_check(&obj);
            if (read && obj.dwarf_path != NULL) {
                corrupted++;
                why[0] = '\0';
                if (!dwarf_index_build(obj.dwarf_path, variant != 1, &ix, why, sizeof why)) {
                    reported++;
                    assert_true(why[0] != '\0');
                }
                dwarf_index_check(&ix);   /* what was kept is usable */
                dwarf_index_free(&ix);
            }
            elf_object_free(&obj);
        }
    }
    printf("corrupt copies: %d read, %d with an error reported\n", corrupted, reported);
    assert_true(corrupted >= 12);
    assert_true(reported > 0);   /* the error path was taken */
    free(copy);
    free(self);
}

static void test_provenance_maps_parsing(void **state)
{
    (void)state;
    const char *text =
        "55d0a0000000-55d0a0001000 r--p 00000000 08:01 123   /usr/bin/prog\n"
        "55d0a0001000-55d0a0002000 r-xp 00001000 08:01 123   /usr/bin/prog\n"
        "7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n"
        "7f0000100000-7f0000101000 r--p 00000000 08:01 77    /tmp/gone.so (deleted)\n"
        "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0     [stack]\n"
        "this line is nonsense\n"
        "7f0000200000-7f0000100000 r--p 00000000 08:01 78    /backwards\n"
        "7f0000300000-7f0000301000 r--p 0002a000 08:01 79    /lib/with space.so\n";
    write_file(tmp_path("maps"), text, strlen(text));
    ProcMapping *maps;
    size_t n;
    assert_int_equal(proc_maps_read(tmp_path("maps"), &maps, &n), 0);
    assert_int_equal(n, 4);
    assert_string_equal(maps[0].path, "/usr/bin/prog");
    assert_int_equal(maps[0].start, 0x55d0a0000000);
    assert_false(maps[0].deleted);
    assert_int_equal(maps[1].offset, 0x1000);
    assert_string_equal(maps[2].path, "/tmp/gone.so");
    assert_true(maps[2].deleted);
    assert_string_equal(maps[3].path, "/lib/with space.so");
    assert_int_equal(maps[3].offset, 0x2a000);
    assert_false(maps[3].deleted);
    proc_maps_free(maps, n);
    errno = 0;
    assert_int_equal(proc_maps_read(tmp_path("no-such-maps"), &maps, &n), -1);
    assert_int_equal(errno, ENOENT);
}

static int bad_input_setup(void **state)
{
    (void)state;
    return mkdtemp(tmp_dir) != NULL ? 0 : -1;
}

static int bad_input_teardown(void **state)
{
    (void)state;
    static const char *const names[] = {"garbage", "truncated", "corrupt", "maps"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        (void)unlink(tmp_path(names[i]));
    return rmdir(tmp_dir);
}

/* ----------------------------------------------------------------------
 * Source file names (SourcePath.h)
 * ---------------------------------------------------------------------- */

static void assert_normalised(const char *dir, const char *name, const char *want)
{
    char out[SOURCE_PATH_MAX];
    assert_true(source_path_normalise(dir, name, out, sizeof out));
    assert_string_equal(out, want);
}

static void test_provenance_source_path_normalise(void **state)
{
    (void)state;
    assert_normalised("/src/build", "../rts/StgInfo.c", "/src/rts/StgInfo.c");
    assert_normalised("/src/build/", "./../examples//leak.c", "/src/examples/leak.c");
    assert_normalised("/src", "/abs/x.c", "/abs/x.c");
    assert_normalised("/", "../../x.c", "/x.c");
    assert_normalised(NULL, "../a/../../x.c", "../../x.c");
    assert_normalised("rel", "../../x.c", "../x.c");
    assert_normalised("/a/b", "../..", "/");
    assert_normalised(NULL, "a/..", ".");
    char small[8];
    assert_false(source_path_normalise("/src/build", "../x.c", small, sizeof small));
}

static void assert_shown(const char *root, const char *dir, const char *name, const char *want)
{
    char out[SOURCE_PATH_MAX];
    assert_string_equal(source_path_show(root, dir, name, out, sizeof out), want);
}

static void test_provenance_source_path_roots(void **state)
{
    (void)state;
    /* the runtime's tree: in-tree, out-of-tree (even a build dir outside
     * it), absolute names, and a root spelt with a trailing slash */
    assert_shown("/src", "/src", "rts/StgInfo.c", "rts/StgInfo.c");
    assert_shown("/src", "/src/build", "../rts/StgInfo.c", "rts/StgInfo.c");
    assert_shown("/src", "/elsewhere/b", "/src/examples/leak.c", "examples/leak.c");
    assert_shown("/src/", "/src/build", "../examples/leak.c", "examples/leak.c");
    /* a user's program: built where its sources are, or out of tree */
    assert_shown("/src", "/home/u/p", "main.c", "main.c");
    assert_shown("/src", "/home/u/p", "lib/x.h", "lib/x.h");
    assert_shown("/src", "/home/u/p/build", "../main.c", "/home/u/p/main.c");
    assert_shown("/src", "/home/u/p", "/usr/include/stdio.h", "/usr/include/stdio.h");
    /* a prefix of a name is not a directory above it */
    assert_shown("/src", "/home/u/p", "/src2/x.c", "/src2/x.c");
    /* no root, no build directory, or a relative one (-fdebug-prefix-map) */
    assert_shown(NULL, "/b", "../x.c", "/x.c");
    assert_shown(NULL, NULL, "../x.c", "../x.c");
    assert_shown("/src", ".", "../x.c", "../x.c");
    /* too long to normalise: the name as DWARF gave it */
    char *long_name = malloc(SOURCE_PATH_MAX + 8);
    assert_non_null(long_name);
    memset(long_name, 'a', SOURCE_PATH_MAX + 7);
    long_name[SOURCE_PATH_MAX + 7] = '\0';
    char out[SOURCE_PATH_MAX];
    assert_ptr_equal(source_path_show("/src", "/b", long_name, out, sizeof out), long_name);
    free(long_name);
    /* this test program's own unit lies in the runtime's tree */
    assert_true(source_path_runtime_root()[0] == '/');
}

int main(void)
{
    const struct CMUnitTest derived[] = {
        cmocka_unit_test_teardown(test_provenance_constructor_from_dwarf, teardown),
        cmocka_unit_test_teardown(test_provenance_thunk_names_its_entry, teardown),
        cmocka_unit_test_teardown(test_provenance_static_local_and_header, teardown),
        cmocka_unit_test_teardown(test_provenance_explicit_wins, teardown),
        cmocka_unit_test_teardown(test_provenance_is_cached, teardown),
        cmocka_unit_test_teardown(test_provenance_outside_mapped_files, teardown),
        cmocka_unit_test_teardown(test_provenance_costs_nothing_unused, teardown),
    };
    const struct CMUnitTest bad_input[] = {
        cmocka_unit_test(test_provenance_unreadable_files),
        cmocka_unit_test(test_provenance_corrupt_dwarf),
        cmocka_unit_test(test_provenance_maps_parsing),
        cmocka_unit_test(test_provenance_source_path_normalise),
        cmocka_unit_test(test_provenance_source_path_roots),
    };
    int failed = cmocka_run_group_tests(derived, NULL, NULL);
    return failed + cmocka_run_group_tests(bad_input, bad_input_setup, bad_input_teardown);
}
