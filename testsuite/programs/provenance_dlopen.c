/*
 * testsuite/programs/provenance_dlopen.c -- objects whose info tables
 * live in a shared library loaded after start-up, for
 * testsuite/scripts/provenance.sh.
 *
 *     provenance_dlopen LIBRARY [--unlink-self] +RTS -hi -i0 -l -RTS
 *
 * A first major GC (a census with -i0) sees only this program's tables,
 * so the provenance resolver reads the mappings before the library is
 * there; then the library is loaded with dlopen, objects of its tables
 * are made, and a second major GC sees them.  With --unlink-self the
 * program first deletes its own executable, as rebuilding it while it runs
 * would.  Exits 1 with a message if the library or one of its symbols
 * cannot be loaded.
 */
#define _POSIX_C_SOURCE 200809L   /* readlink, unlink under -std=c11 */

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <strata.h>

STRATA_CONSTR_INFO(MainCell_info, "MainCell", 0, 1);

static StgClosure *main_twice_entry(StgClosure **self)
{
    return STRATA_THUNK_FIELD(*self, 0);
}
STRATA_THUNK_INFO(MainTwice_info, "main_twice", 1, 0, main_twice_entry);

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    bool unlink_self = argc == 3 && strcmp(argv[2], "--unlink-self") == 0;
    if (argc != 2 && !unlink_self) {
        fprintf(stderr, "usage: %s LIBRARY [--unlink-self]\n", argv[0]);
        hs_exit();
        return 2;
    }
    char self[4096];
    ssize_t n = unlink_self ? readlink("/proc/self/exe", self, sizeof self - 1) : 0;
    if (unlink_self && (n <= 0 || (self[n] = '\0', unlink(self) != 0))) {
        perror("provenance_dlopen: cannot delete its own executable");
        hs_exit();
        return 1;
    }
    STRATA_ROOTS(r, 5);
    r[0] = strata_alloc_constr(&MainCell_info);
    STRATA_WORD(r[0], 0) = 42;
    r[1] = strata_alloc_thunk(&MainTwice_info);
    STRATA_THUNK_FIELD(r[1], 0) = r[0];
    strata_perform_gc(1);

    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    const StgInfoTable *cell = lib != NULL ? dlsym(lib, "LibCell_info") : NULL;
    const StgInfoTable *first = lib != NULL ? dlsym(lib, "LibFirst_info") : NULL;
    const StgInfoTable *(*hidden)(void) = NULL;
    if (lib != NULL)
        *(void **)&hidden = dlsym(lib, "lib_hidden_info");
    if (cell == NULL || first == NULL || hidden == NULL) {
        fprintf(stderr, "provenance_dlopen: cannot load %s: %s\n", argv[1], dlerror());
        STRATA_ROOTS_POP(r);
        hs_exit();
        return 1;
    }
    r[2] = strata_alloc_constr(cell);
    STRATA_FIELD(r[2], 0) = r[0];
    STRATA_WORD(r[2], 1) = 7;
    r[3] = strata_alloc_thunk(first);
    STRATA_THUNK_FIELD(r[3], 0) = r[2];
    r[4] = strata_alloc_constr(hidden());
    strata_perform_gc(1);
    printf("census after dlopen done\n");
    STRATA_ROOTS_POP(r);
    hs_exit();
    return 0;
}
