/*
 * sm/GCPrivate.h -- state shared by GC.c, Evac.c and Scav.c during one
 * collection, and nothing else.
 */
#ifndef STRATA_GCPRIVATE_H
#define STRATA_GCPRIVATE_H

#include <stdbool.h>

#include "LiveTally.h"
#include "Storage.h"

typedef struct {
    unsigned collected_gen;      /* N: generations 0..N are collected */
    uint16_t evac_gen;           /* survivors go at least this old */
    bool failed_to_evac;         /* an object stayed younger than evac_gen */
    StgWord copied_words;        /* words copied so far */
    BlockDesc *todo_large;       /* large groups found live, not yet scanned
                                    (linked by ->link) */
    BlockDesc **scan_queue;      /* full to-space blocks with unscanned words */
    StgWord scan_queue_len, scan_queue_cap;
    LiveTally *tally;            /* a census is due: count survivors here */
} GCThread;

extern GCThread gct;

/* Evac.c / Evac.h: evacuate(p) and gc_alloc_for_copy are inline there. */

/* Scav.c */
void scavenge_loop(void);
void scavenge_object(StgClosure *c);         /* fields of one object */
void scavenge_mut_list(Generation *g);       /* g's old_mut_list */

/* GC.c */
void gc_push_scan_queue(BlockDesc *bd);

#endif /* STRATA_GCPRIVATE_H */
