/*
 * profiling/ProvenanceMaps.c -- parses /proc/<pid>/maps (see
 * ProvenanceMaps.h).  A line reads
 *     start-end perms offset dev inode   path
 * with hexadecimal start, end and offset; anonymous mappings have no path,
 * special ones ([heap], [vdso], ...) a bracketed name.
 */
#include "ProvenanceMaps.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"
#include "Messages.h"
#include "os/File.h"

#define DELETED_SUFFIX " (deleted)"

/* Parses one line into m (path not yet copied); false if it is not a
 * file-backed mapping. */
static bool parse_line(char *line, ProcMapping *m, const char **path)
{
    uintmax_t start, end, offset;
    int path_at = -1;
    if (sscanf(line, "%jx-%jx %*s %jx %*s %*s %n", &start, &end, &offset, &path_at) != 3 ||
        path_at < 0 || start >= end)
        return false;
    char *p = line + path_at;
    p[strcspn(p, "\n")] = '\0';
    if (p[0] != '/')
        return false;
    size_t len = strlen(p), suffix = strlen(DELETED_SUFFIX);
    m->deleted = len > suffix && strcmp(p + len - suffix, DELETED_SUFFIX) == 0;
    if (m->deleted)
        p[len - suffix] = '\0';
    m->start = (uintptr_t)start;
    m->end = (uintptr_t)end;
    m->offset = (uint64_t)offset;
    *path = p;
    return true;
}

int proc_maps_read(const char *maps_path, ProcMapping **out, size_t *n_out)
{
    FILE *f;
    int open_err = os_stdio_open(maps_path, "r", &f);
    if (open_err != 0) {
        errno = open_err;
        return -1;
    }
    ProcMapping *maps = NULL;
    size_t n = 0, cap = 0;
    char *line = NULL;
    size_t line_cap = 0;
    while (getline(&line, &line_cap, f) > 0) {
        ProcMapping m;
        const char *path;
        if (!parse_line(line, &m, &path))
            continue;
        if (GROW_ARRAY_RESERVE_MIN(maps, cap, n + 1, 32) != 0)
            rts_panic("provenance: out of C heap (%zu mappings)", n);
        m.path = strdup(path);
        if (m.path == NULL)
            rts_panic("provenance: out of C heap copying a mapping's path");
        maps[n++] = m;
    }
    int read_errno = ferror(f) ? errno : 0;
    free(line);
    os_stdio_close(f);
    if (read_errno != 0) {
        proc_maps_free(maps, n);
        errno = read_errno;
        return -1;
    }
    *out = maps;
    *n_out = n;
    return 0;
}

void proc_maps_free(ProcMapping *maps, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(maps[i].path);
    free(maps);
}
