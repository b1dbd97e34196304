/*
 * rts/RtsOptions.h -- the RTS options as one table (Note [One table for
 * the RTS options] in RtsOptions.c): parsing one option into an RtsFlags,
 * and the usage text the table's rows carry.  The whole API of
 * RtsOptions.c; the command line (GHCRTS, +RTS ... -RTS) is RtsFlags.c's.
 */
#ifndef STRATA_RTS_OPTIONS_H
#define STRATA_RTS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "Flags.h"

/* Parses one RTS option (e.g. "-A8k", "--info") into flags: true, or
 * false with a message naming the option and the problem (without the
 * program prefix) in err. */
bool rts_options_parse(RtsFlags *flags, const char *opt, char *err, size_t err_len);

/* Writes the usage text (+RTS -?): every row's help, in table order. */
void rts_options_print_usage(FILE *f);

#endif /* STRATA_RTS_OPTIONS_H */
