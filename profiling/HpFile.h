/*
 * profiling/HpFile.h -- the .hp heap-profile file that hp2ps reads
 * (written when heap profiling is on and the eventlog is not).
 */
#ifndef STRATA_HPFILE_H
#define STRATA_HPFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "Census.h"

/* Opens <path>, writes JOB/DATE/units and the empty sample at time 0.
 * Returns false after a message naming the file if it cannot be opened. */
bool hp_file_open(const char *path, const char *job);

/* One sample: every non-empty bucket, at secs since start. */
void hp_file_write_sample(double secs, const Census *c);

/* A marker line (traceMarker). */
void hp_file_write_mark(double secs);

/* Writes the closing empty sample and closes the file. */
void hp_file_close(double secs);

bool hp_file_is_open(void);

#endif /* STRATA_HPFILE_H */
