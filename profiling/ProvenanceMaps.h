/*
 * profiling/ProvenanceMaps.h -- the file-backed mappings of this process,
 * read from /proc/self/maps: where the executable and each loaded shared
 * library sit in memory, so that the provenance resolver can tell which
 * ELF file an info table's address belongs to.
 */
#ifndef STRATA_PROVENANCE_MAPS_H
#define STRATA_PROVENANCE_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uintptr_t start, end;   /* [start, end) in this process */
    uint64_t offset;        /* file offset mapped at start */
    char *path;             /* absolute path of the mapped file (owned) */
    bool deleted;           /* the file was unlinked since (path is its old name) */
} ProcMapping;

/* Reads the mappings of a file in /proc/<pid>/maps format (the resolver
 * passes "/proc/self/maps") and keeps those backed by a file: the path
 * starts with '/'.  A file unlinked since it was mapped keeps its old name
 * with deleted set (the kernel appends " (deleted)").  Lines that do not
 * parse are skipped.  Returns 0 and a malloc'd array in *out (free it with
 * proc_maps_free), or -1 with errno set if the file cannot be read. */
int proc_maps_read(const char *maps_path, ProcMapping **out, size_t *n_out);

void proc_maps_free(ProcMapping *maps, size_t n);

#endif /* STRATA_PROVENANCE_MAPS_H */
