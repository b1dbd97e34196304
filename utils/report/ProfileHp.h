/*
 * utils/report/ProfileHp.h -- a Profile from a .hp heap profile (GHC's
 * or strata's `+RTS -h` text format), read line by line in one pass.  The
 * whole API of ProfileHp.c.
 */
#ifndef STRATA_REPORT_PROFILE_HP_H
#define STRATA_REPORT_PROFILE_HP_H

#include <stdio.h>

#include "Profile.h"

/* Fills p from the .hp file f (named p->path); 0 on success (maybe with
 * p->warning), -1 after printing an error, prefixed by tool and the
 * path, on stderr. */
int profile_read_hp(Profile *p, FILE *f, const char *tool);

#endif /* STRATA_REPORT_PROFILE_HP_H */
