/*
 * rts/debug/DebugHeap.h -- the debug stub's request handlers that read the heap:
 * roots, saved objects, closures, info tables with provenance, blocks,
 * block contents and the snapshot stream.  Called on the stub's thread
 * only while the mutator is paused at a safe point (DebugServer.c), so the
 * heap does not change under them.  Every address a client sends is
 * checked against the blocks in use or read through debug_safe_read, so a
 * bad request never touches unmapped memory.
 */
#ifndef STRATA_DEBUGHEAP_H
#define STRATA_DEBUGHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugRequest.h"
#include "DebugServe.h"
#include "DebugWire.h"
#include "strata/Closures.h"

/* Info-table provenance as the debugger reports it.  The one place that
 * decides where provenance comes from: today the table's explicit
 * StgInfoProv; a DWARF/ELF resolver (profiling/, issue 7) plugs in here. */
typedef struct {
    int source;                 /* DEBUG_PROV_* */
    char table_name[256], closure_desc[256], ty_desc[256], label[256], module[256],
        src_file[512], src_span[64];
} DebugProvenance;

/* The provenance of the (already validated) info table at addr, whose
 * contents are info: explicit fields first, the rest derived from ELF and
 * DWARF.  source says which, explicit winning when both contributed. */
void debug_info_provenance(uint64_t addr, const StgInfoTable *info, DebugProvenance *out);

/* Copies n bytes at addr into dst if all of them are mapped and readable;
 * false otherwise (never faults). */
bool debug_safe_read(void *dst, uint64_t addr, size_t n);

/* Forgets the block index built for the current pause (on resume). */
void debug_heap_forget(void);

/* Handles ROOTS, SAVED, CLOSURES, INFO, BLOCKS, BLOCK_CONTENTS into out (the
 * response payload).  Returns DEBUG_STATUS_OK or an error status with a
 * message in err.  Mutator paused. */
int debug_heap_handle(const DebugRequest *req, DebugBuf *out, char *err, size_t err_len);

/* SNAPSHOT: the stream of wire/DebugServe.c over this pause's blocks and
 * roots.  Returns false if the connection is gone. */
bool debug_heap_snapshot(const DebugConn *c);

/* Mutator side of rts_debug_save: the saved objects (stable pointers). */
void debug_saved_add(StgClosure *c);
void debug_saved_exit(void);

#endif /* STRATA_DEBUGHEAP_H */
