/*
 * testsuite/programs/provenance_cost.c -- what DWARF/ELF provenance costs:
 * the first resolution (reading /proc/self/maps, indexing this program's
 * symbols and DWARF -- which include the whole runtime, linked in
 * statically), then the time per further table, and the C heap the cache
 * holds.  docs/design/provenance.md quotes its output; provenance.sh runs
 * it and checks the counts (never the times).
 *
 *     provenance_cost        prints one "key value" line per figure
 */
#include <stdio.h>
#include <string.h>

#include <strata.h>

#include "Provenance.h"
#include "os/Clock.h"

/* 64 constructor and 64 thunk tables, each with its own line. */
static StgClosure *cost_entry(StgClosure **self)
{
    return STRATA_THUNK_FIELD(*self, 0);
}
#define TABLES(X)                                                             \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) \
    X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25)   \
    X(26) X(27) X(28) X(29) X(30) X(31) X(32) X(33) X(34) X(35) X(36) X(37)   \
    X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47) X(48) X(49)   \
    X(50) X(51) X(52) X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61)   \
    X(62) X(63)
#define DEFINE(i)                                                             \
    STRATA_CONSTR_INFO(Con##i##_info, "Con" #i, 0, 1);                        \
    STRATA_THUNK_INFO(Thunk##i##_info, "Thunk" #i, 1, 0, cost_entry);
TABLES(DEFINE)
#define REF(i) &Con##i##_info, &Thunk##i##_info,
static const StgInfoTable *const tables[] = {TABLES(REF)};
#define N_TABLES (sizeof tables / sizeof tables[0])

int main(void)
{
    uint64_t t0 = clock_elapsed_ns();
    const IpeInfo *first = ipe_resolve(tables[0]);
    uint64_t t1 = clock_elapsed_ns();
    size_t named = first->table_name[0] != '\0' && first->src_span[0] != '\0';
    for (size_t i = 1; i < N_TABLES; i++) {
        const IpeInfo *p = ipe_resolve(tables[i]);
        named += p->table_name[0] != '\0' && p->src_span[0] != '\0';
    }
    uint64_t t2 = clock_elapsed_ns();
    for (size_t i = 0; i < N_TABLES; i++)
        (void)ipe_resolve(tables[i]);
    uint64_t t3 = clock_elapsed_ns();
    ProvenanceStats st;
    provenance_stats(&st);
    printf("tables %zu\n", N_TABLES);
    printf("tables_named %zu\n", named);
    printf("files_indexed %llu\n", (unsigned long long)st.files_indexed);
    printf("symbols %llu\n", (unsigned long long)st.symbols);
    printf("dwarf_entries %llu\n", (unsigned long long)st.dwarf_entries);
    printf("bytes_held %llu\n", (unsigned long long)st.bytes_held);
    printf("first_resolution_ns %llu\n", (unsigned long long)(t1 - t0));
    printf("index_ns %llu\n", (unsigned long long)st.index_ns);
    printf("per_table_ns %llu\n", (unsigned long long)((t2 - t1) / (N_TABLES - 1)));
    printf("cached_lookup_ns %llu\n", (unsigned long long)((t3 - t2) / N_TABLES));
    provenance_exit();
    return named == N_TABLES ? 0 : 1;
}
