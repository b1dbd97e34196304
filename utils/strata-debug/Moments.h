/*
 * utils/strata-debug/Moments.h -- the moments a diff compares: `mark` and
 * `snapshot --new-era` start a new era in the running program.
 */
#ifndef STRATA_DEBUG_MOMENTS_H
#define STRATA_DEBUG_MOMENTS_H

#include <stdbool.h>
#include <stdio.h>

#include "DebugClient.h"

/* Asks the paused program for a new era on resume; says which on text
 * (unless NULL), into *era.  Non-zero after an error message naming cmd. */
int mark_new_era(DbgClient *c, const char *cmd, FILE *text, uint64_t *era);
/* "era N was current; the program resumes in era M: ..." on text. */
void say_new_era(DbgClient *c, FILE *text, uint64_t era);
/* strata-debug mark: a new era (and an eventlog marker), nothing else. */
int cmd_mark(DbgClient *c, bool json);

#endif /* STRATA_DEBUG_MOMENTS_H */
