/*
 * testsuite/fuzz/fuzz_snapshot.c -- fuzz entry point for strata-debug's
 * snapshot reader (utils/debug-client/Snapshot.c) and the analyses run on
 * what it read.  A mutated snapshot almost never keeps its checksum, so
 * the entry point recomputes the trailing checksum of its copy first:
 * the mutations reach the parser (the checksum check itself is covered by
 * testsuite/scripts/debug.sh).  The reader must accept or refuse the
 * input with a message; an accepted one must survive reachability, a
 * census by type and era, and the fragmentation report.  Built with
 * libFuzzer by fuzz.sh; replayed over testsuite/fuzz/corpus/snapshot by
 * make check (replay.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "Snapshot.h"
#include "DebugAnalysis.h"
#include "DebugClient.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_analyse(DbgClient *c)
{
    if (dbg_load_all(c) != 0)
        return;
    DbgReach *r = dbg_reach(c);
    if (r == NULL)
        return;
    size_t n;
    const uint64_t *objs = dbg_reach_objects(r, &n);
    if (n > 0) {
        DbgPath path;
        if (dbg_retainer_path(c, r, objs[n - 1], &path) == 0)
            dbg_path_free(&path);
    }
    DbgCensus census;
    DbgEraRange all = {0};
    if (dbg_census(c, r, DBG_BY_TYPE, &all, &census) == 0)
        dbg_census_free(&census);
    if (dbg_census(c, r, DBG_BY_ERA, &all, &census) == 0)
        dbg_census_free(&census);
    DbgFrag frag;
    if (dbg_fragmentation(c, r, &frag) == 0)
        dbg_frag_free(&frag);
    dbg_reach_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A private copy: ASan then sees reads past the end of the input. */
    uint8_t *snap = malloc(size ? size : 1);
    if (snap == NULL)
        return 0;
    memcpy(snap, data, size);
    if (size >= 16) {
        uint64_t sum = dbg_snapshot_checksum(snap, size - 8);
        for (int i = 0; i < 8; i++)
            snap[size - 8 + i] = (uint8_t)(sum >> (8 * i));
    }
    char err[256] = "";
    DbgClient *c = dbg_open_snapshot_bytes(snap, size, "fuzz.snap", err, sizeof err);
    if (c == NULL) {
        if (err[0] == '\0' || memchr(err, '\0', sizeof err) == NULL)
            abort();
    } else {
        if (!dbg_is_snapshot(c))
            abort();
        fuzz_analyse(c);
        dbg_close(c);
    }
    free(snap);
    return 0;
}
