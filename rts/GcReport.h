/*
 * rts/GcReport.h -- the collector's observer: statistics and eventlog.
 */
#ifndef STRATA_GCREPORT_H
#define STRATA_GCREPORT_H

#include "GC.h"

/* Set with gc_set_observer by hs_init. */
extern const GCObserver gc_report_observer;

#endif /* STRATA_GCREPORT_H */
