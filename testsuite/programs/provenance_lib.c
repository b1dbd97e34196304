/*
 * testsuite/programs/provenance_lib.c -- info tables defined in a shared
 * library, for testsuite/scripts/provenance.sh, which builds it with -g
 * (and a stripped copy) and has provenance_dlopen load it.  Nothing here
 * calls the runtime, so the library needs only the headers.
 */
#include <strata.h>

/* Exported: in .dynsym as well as .symtab. */
STRATA_CONSTR_INFO(LibCell_info, "LibCell", 1, 1);

/* A thunk whose value is its free variable. */
static StgClosure *lib_first_entry(StgClosure **self)
{
    return STRATA_THUNK_FIELD(*self, 0);
}
STRATA_THUNK_INFO(LibFirst_info, "lib_first", 1, 0, lib_first_entry);

/* File-local: named only by .symtab (gone when stripped). */
static STRATA_CONSTR_INFO(LibHidden_info, "LibHidden", 0, 1);

const StgInfoTable *lib_hidden_info(void);
const StgInfoTable *lib_hidden_info(void)
{
    return &LibHidden_info;
}
