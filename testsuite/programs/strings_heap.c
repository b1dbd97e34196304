/*
 * testsuite/programs/strings_heap.c -- a heap whose constructor names
 * hold what every output must write one way (Note [One way to write a
 * string] in wire/TextOut.c): a name in UTF-8 ("Café→λ", in a module
 * "Módulo"), one with invalid bytes, one with an escape sequence.  For
 * strata-debug's text, --json and TUI tests (debug.sh, tui.sh).
 *
 *     strings_heap +RTS --debug-socket=PATH -RTS
 *
 * Builds a list of three cells of each, held by a local-root frame,
 * prints "ready", then allocates a little every millisecond (so that the
 * debug stub can pause it at a safe point) until it is killed.
 */
#include <stdio.h>
#include <time.h>

#include <strata.h>

static const StgInfoProv cafe_prov = {"Cafe_con_info", "Caf\u00e9\u2192\u03bb", "T",
                                      "build", "M\u00f3dulo", "strings_heap.c", "1:1"};
STRATA_CONSTR_INFO_PROV(Cafe_info, "Caf\u00e9\u2192\u03bb", 1, 1, &cafe_prov);
STRATA_CONSTR_INFO(Bad_info, "Bad\xffName\xc3", 1, 1);
STRATA_CONSTR_INFO(Esc_info, "Esc\x1b[2Jape", 1, 1);
STRATA_CONSTR_INFO(Junk_info, "Junk", 0, 1);

/* A list of n cells of info table t in front of tail (rooted by the caller). */
static StgClosure *cells(const StgInfoTable *t, StgClosure **tail, int n)
{
    for (int i = 0; i < n; i++) {
        StgClosure *c = strata_alloc_constr(t);
        STRATA_FIELD(c, 0) = *tail;
        STRATA_WORD(c, 1) = (StgWord)i;
        *tail = c;
    }
    return *tail;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    STRATA_ROOTS(r, 1);
    r[0] = NULL;
    cells(&Cafe_info, &r[0], 3);
    cells(&Bad_info, &r[0], 3);
    cells(&Esc_info, &r[0], 3);
    printf("ready\n");
    fflush(stdout);
    struct timespec ms = {0, 1000000};
    for (;;) {
        StgClosure *j = strata_alloc_constr(&Junk_info);
        STRATA_WORD(j, 0) = 1;
        nanosleep(&ms, NULL);
    }
}
