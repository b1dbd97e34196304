/*
 * examples/leak.c -- a memory leak to find with the heap profiler.
 *
 * A toy server handles requests in phases.  Each request allocates
 * short-lived working data, and a "session cache" keeps an entry per
 * request that nothing ever evicts: the leak.  Each phase starts a new era
 * (setUserEra) and posts a marker, so that
 *
 *     leak +RTS -hi -l -RTS                     shows which info table grows
 *     leak +RTS -he --automatic-era-increment -l -RTS
 *                                               shows that old eras never die
 *
 * Usage: leak [PHASES [REQUESTS_PER_PHASE]]   (defaults 12 and 1500000)
 */
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

/* Explicit provenance points at each table's allocation site (kept by
 * hand: the profiling test checks the line numbers).  Without it, a -g
 * build would still name the tables from DWARF, but with the line where
 * each table is defined (docs/design/provenance.md). */
static const StgInfoProv entry_prov = {"SessionEntry_con_info", "SessionEntry",
                                       "Session", "remember", "Cache",
                                       "examples/leak.c", "49:5-60"};
static const StgInfoProv request_prov = {"Request_con_info", "Request", "Request",
                                         "handle", "Server", "examples/leak.c", "68:5-57"};
static const StgInfoProv chunk_prov = {"Chunk_con_info", "Chunk", "Body", "parse",
                                       "Server", "examples/leak.c", "63:9-61"};
/* A cache entry: next entry, the session's payload; request id. */
STRATA_CONSTR_INFO_PROV(SessionEntry_info, "SessionEntry", 2, 1, &entry_prov);
/* A request: its body (a list of chunks); id. */
STRATA_CONSTR_INFO_PROV(Request_info, "Request", 1, 1, &request_prov);
/* A body chunk: next chunk; a word of data. */
STRATA_CONSTR_INFO_PROV(Chunk_info, "Chunk", 1, 1, &chunk_prov);

/* The session cache: a global mutable variable holding a list, like a
 * top-level IORef.  A static closure, so it is still alive at exit and the
 * final census shows everything it leaked. */
static StgMutVar session_cache = {&stg_MUT_VAR_CLEAN_info, NULL};
#define CACHE ((StgClosure *)&session_cache)

/* Remembers a request in the cache. */
static void remember(StgWord id)
{
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_bytes(48);   /* the session's payload */
    StgClosure *e = strata_alloc_constr(&SessionEntry_info);
    STRATA_FIELD(e, 0) = STRATA_MUT_VAR_READ(CACHE);
    STRATA_FIELD(e, 1) = r[0];
    STRATA_WORD(e, 2) = id;
    strata_mut_var_write(CACHE, e);
    STRATA_ROOTS_POP(r);
}

/* Handles one request: builds its body, then the request, then walks it. */
static StgWord handle(StgWord id)
{
    STRATA_ROOTS(r, 1);
    r[0] = NULL;   /* the body so far */
    for (int i = 0; i < 20; i++) {
        StgClosure *chunk = strata_alloc_constr(&Chunk_info);
        STRATA_FIELD(chunk, 0) = r[0];
        STRATA_WORD(chunk, 1) = id * 31 + (StgWord)i;
        r[0] = chunk;
    }
    StgClosure *req = strata_alloc_constr(&Request_info);
    STRATA_FIELD(req, 0) = r[0];
    STRATA_WORD(req, 1) = id;
    StgWord sum = 0;
    for (StgClosure *c = STRATA_FIELD(req, 0); c != NULL; c = STRATA_FIELD(c, 0))
        sum += STRATA_WORD(c, 1);
    STRATA_ROOTS_POP(r);
    return sum;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long phases = argc > 1 ? atol(argv[1]) : 12;
    long per_phase = argc > 2 ? atol(argv[2]) : 1500000;
    if (phases < 1 || per_phase < 1) {
        fprintf(stderr, "usage: %s [PHASES [REQUESTS_PER_PHASE]] (both >= 1)\n", argv[0]);
        hs_exit();
        return 2;
    }
    StgWord checksum = 0, id = 0;
    for (long p = 1; p <= phases; p++) {
        setUserEra((StgWord)p);
        char marker[32];
        snprintf(marker, sizeof marker, "phase %ld", p);
        traceMarker(marker);
        for (long i = 0; i < per_phase; i++, id++) {
            checksum += handle(id);
            if (i % 64 == 0)   /* one request in 64 leaks its session */
                remember(id);
        }
    }
    StgWord cached = 0;
    for (StgClosure *e = STRATA_MUT_VAR_READ(CACHE); e != NULL; e = STRATA_FIELD(e, 0))
        cached++;
    printf("handled %lu requests, %lu sessions cached, checksum %lu\n", (unsigned long)id,
           (unsigned long)cached, (unsigned long)checksum);
    hs_exit();
    return 0;
}
