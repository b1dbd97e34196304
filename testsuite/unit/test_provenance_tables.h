/*
 * testsuite/unit/test_provenance_tables.h -- an info table defined in a
 * header, for test_provenance: its DWARF names this file, not the unit
 * that includes it (in DWARF 5 the two have different file numbers).
 */
#ifndef STRATA_TEST_PROVENANCE_TABLES_H
#define STRATA_TEST_PROVENANCE_TABLES_H

#include <strata.h>

static const unsigned header_table_line = __LINE__; STRATA_CONSTR_INFO(HeaderTable_info, "HeaderTable", 0, 1);

#endif
