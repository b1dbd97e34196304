/*
 * rts/RtsFlags.h -- the RTS options of a run: the structure they are
 * parsed into (Flags.h), the one instance the runtime reads, and the
 * parser's API.  Options are spelled as GHC spells them
 * (docs/reference/rts-flags.md); each is a row of RtsOptions.c's table.
 */
#ifndef STRATA_RTSFLAGS_H
#define STRATA_RTSFLAGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "Flags.h"

extern RtsFlags rts_flags;

/* Sets every field to its default. */
void rts_flags_init_defaults(RtsFlags *flags);

/* Frees the strings a parse allocated. */
void rts_flags_free(RtsFlags *flags);

/* Parses one RTS option (e.g. "-A8k", "--info") into flags.  Returns true
 * on success; on failure writes a message naming the option and the
 * problem (without the program prefix) into err (size err_len).
 * Options are independent here; what depends on all of them (a bare
 * -he<era> choosing -hT, -A clamped to -M) is settled at the end of
 * rts_flags_process_args. */
bool rts_flags_parse_one(RtsFlags *flags, const char *opt, char *err, size_t err_len);

/* Parses a GHCRTS-style string of whitespace-separated options. */
bool rts_flags_parse_string(RtsFlags *flags, const char *s, char *err, size_t err_len);

/* Removes +RTS ... -RTS / --RTS groups from argv (in place, updating
 * *argc, keeping argv[*argc] == NULL), parsing what they hold after the
 * GHCRTS environment variable; "--" stays and ends RTS processing.  Sets
 * the message prefix from argv[0].  Prints "<prog>: <problem>" for every
 * bad flag, then one hint to use +RTS -?, and returns false.  -? and
 * --info are not errors: they set show_usage/show_info, and the caller
 * prints and exits (1 after -?, as GHC does; 0 after --info). */
bool rts_flags_process_args(RtsFlags *flags, int *argc, char ***argv);

/* True if every field holds a value the parser could have produced
 * (sizes in range and whole blocks, generations >= 1, factor > 0, era
 * range ordered, ...).  Checks only; never prints or aborts. */
bool rts_flags_check(const RtsFlags *flags);

/* Writes the usage text (+RTS -?) and the --info block to f. */
void rts_flags_print_usage(FILE *f);
void rts_flags_print_info(FILE *f);

#endif /* STRATA_RTSFLAGS_H */
