/*
 * strata/EventLogFormat.h -- GHC's eventlog binary format: the one
 * definition shared by the runtime's writer and the tools' reader
 * (docs/HACKING.md, Module boundaries).  Every number is GHC's
 * (docs/reference/eventlog-format.md):
 * big-endian framing, event type ids, fixed payload sizes.
 */
#ifndef STRATA_EVENTLOGFORMAT_H
#define STRATA_EVENTLOGFORMAT_H

#include <stdint.h>

/* Header markers (Word32, except EVENT_DATA_END). */
#define EVENT_HEADER_BEGIN 0x68647262u  /* "hdrb" */
#define EVENT_HET_BEGIN 0x68657462u     /* "hetb" */
#define EVENT_ET_BEGIN 0x65746200u      /* "etb\0" */
#define EVENT_ET_END 0x65746500u        /* "ete\0" */
#define EVENT_HET_END 0x68657465u       /* "hete" */
#define EVENT_HEADER_END 0x68647265u    /* "hdre" */
#define EVENT_DATA_BEGIN 0x64617462u    /* "datb" */
#define EVENT_DATA_END 0xffffu          /* Word16, where a type id would be */

#define EVENT_SIZE_VARIABLE 0xffffu     /* declared size of variable events */
#define EVENT_HEADER_BYTES 10           /* Word16 type + Word64 timestamp */
#define EVENT_PAYLOAD_SIZE_MAX 65535
#define EVENT_CAP_GLOBAL 0xffffu        /* block marker cap: global buffer */

/* Event type ids (GHC's numbers). */
enum {
    EVENT_CREATE_THREAD = 0,
    EVENT_RUN_THREAD = 1,
    EVENT_STOP_THREAD = 2,
    EVENT_GC_START = 9,
    EVENT_GC_END = 10,
    EVENT_REQUEST_SEQ_GC = 11,
    EVENT_REQUEST_PAR_GC = 12,
    EVENT_LOG_MSG = 16,
    EVENT_BLOCK_MARKER = 18,
    EVENT_USER_MSG = 19,
    EVENT_GC_IDLE = 20,
    EVENT_GC_WORK = 21,
    EVENT_GC_DONE = 22,
    EVENT_CAPSET_CREATE = 25,
    EVENT_CAPSET_DELETE = 26,
    EVENT_CAPSET_ASSIGN_CAP = 27,
    EVENT_CAPSET_REMOVE_CAP = 28,
    EVENT_RTS_IDENTIFIER = 29,
    EVENT_PROGRAM_ARGS = 30,
    EVENT_OSPROCESS_PID = 32,
    EVENT_OSPROCESS_PPID = 33,
    EVENT_WALL_CLOCK_TIME = 43,
    EVENT_CAP_CREATE = 45,
    EVENT_CAP_DELETE = 46,
    EVENT_HEAP_ALLOCATED = 49,
    EVENT_HEAP_SIZE = 50,
    EVENT_HEAP_LIVE = 51,
    EVENT_HEAP_INFO_GHC = 52,
    EVENT_GC_STATS_GHC = 53,
    EVENT_GC_GLOBAL_SYNC = 54,
    EVENT_USER_MARKER = 58,
    EVENT_MEM_RETURN = 90,
    EVENT_BLOCKS_SIZE = 91,
    EVENT_HEAP_PROF_BEGIN = 160,
    EVENT_HEAP_PROF_COST_CENTRE = 161,
    EVENT_HEAP_PROF_SAMPLE_BEGIN = 162,
    EVENT_HEAP_PROF_SAMPLE_COST_CENTRE = 163,
    EVENT_HEAP_PROF_SAMPLE_STRING = 164,
    EVENT_HEAP_PROF_SAMPLE_END = 165,
    EVENT_HEAP_BIO_PROF_SAMPLE_BEGIN = 166,
    EVENT_PROF_SAMPLE_COST_CENTRE = 167,
    EVENT_PROF_BEGIN = 168,
    EVENT_IPE = 169,
    EVENT_USER_BINARY_MSG = 181,
    /* GHC's non-moving collector (--nonmoving-gc): its concurrent phases,
     * and the short stop of every capability that ends a mark. */
    EVENT_CONC_MARK_BEGIN = 200,
    EVENT_CONC_MARK_END = 201,
    EVENT_CONC_SYNC_BEGIN = 202,
    EVENT_CONC_SYNC_END = 203,
    EVENT_CONC_SWEEP_BEGIN = 204,
    EVENT_CONC_SWEEP_END = 205,
    EVENT_CONC_UPD_REM_SET_FLUSH = 206,
    /* strata's own events, numbered far above GHC's (which end near 215):
     * declared in the header like GHC's, so ghc-events skips them
     * (docs/reference/eventlog-format.md, "strata's own events"). */
    EVENT_ALLOC_SAMPLING = 1000,
    EVENT_ALLOC_FRAME = 1001,
    EVENT_ALLOC_STACK = 1002,
    EVENT_ALLOC_SAMPLE = 1003,
    EVENT_ALLOC_DEATH = 1004,
};

/* Fixed payload sizes in bytes (excluding the 10-byte event header);
 * EVENT_SIZE_VARIABLE for variable-size events. */
#define EVENT_SIZE_CREATE_THREAD 4       /* ThreadId */
#define EVENT_SIZE_RUN_THREAD 4          /* ThreadId */
#define EVENT_SIZE_STOP_THREAD 10        /* ThreadId, Word16 status, ThreadId blocked on */
/* STOP_THREAD statuses strata posts (ghc-events' numbering). */
#define THREAD_STOP_YIELDING 3
#define THREAD_STOP_FINISHED 5
#define THREAD_STOP_FOREIGN_CALL 6
#define THREAD_STOP_BLOCKED_ON_BLACKHOLE 8
#define EVENT_SIZE_GC_START 0
#define EVENT_SIZE_GC_END 0
#define EVENT_SIZE_REQUEST_SEQ_GC 0
#define EVENT_SIZE_REQUEST_PAR_GC 0
#define EVENT_SIZE_BLOCK_MARKER 14      /* Word32 size, Word64 end time, Word16 cap */
#define EVENT_SIZE_GC_IDLE 0
#define EVENT_SIZE_GC_WORK 0
#define EVENT_SIZE_GC_DONE 0
#define EVENT_SIZE_CAPSET_CREATE 6      /* CapsetId, Word16 type */
#define EVENT_SIZE_CAPSET_DELETE 4
#define EVENT_SIZE_CAPSET_ASSIGN_CAP 6  /* CapsetId, CapNo */
#define EVENT_SIZE_CAPSET_REMOVE_CAP 6
#define EVENT_SIZE_OSPROCESS_PID 8      /* CapsetId, Word32 pid */
#define EVENT_SIZE_OSPROCESS_PPID 8
#define EVENT_SIZE_WALL_CLOCK_TIME 16   /* CapsetId, Word64 secs, Word32 nsecs */
#define EVENT_SIZE_CAP_CREATE 2
#define EVENT_SIZE_CAP_DELETE 2
#define EVENT_SIZE_HEAP_ALLOCATED 12    /* CapsetId, Word64 bytes */
#define EVENT_SIZE_HEAP_SIZE 12
#define EVENT_SIZE_HEAP_LIVE 12
#define EVENT_SIZE_HEAP_INFO_GHC 38     /* CapsetId, Word16 gens, 4 x Word64 */
#define EVENT_SIZE_GC_STATS_GHC 58      /* docs/reference/eventlog-format.md */
#define EVENT_SIZE_GC_GLOBAL_SYNC 0
#define EVENT_SIZE_MEM_RETURN 16        /* CapsetId, 3 x Word32 */
#define EVENT_SIZE_BLOCKS_SIZE 12       /* CapsetId, Word64 bytes */
#define EVENT_SIZE_HEAP_PROF_SAMPLE_BEGIN 8   /* Word64 census counter */
#define EVENT_SIZE_HEAP_PROF_SAMPLE_END 8
#define EVENT_SIZE_HEAP_BIO_PROF_SAMPLE_BEGIN 16
#define EVENT_SIZE_PROF_BEGIN 8
#define EVENT_SIZE_CONC_MARK_BEGIN 0
#define EVENT_SIZE_CONC_MARK_END 4      /* Word32 objects marked */
#define EVENT_SIZE_CONC_SYNC_BEGIN 0
#define EVENT_SIZE_CONC_SYNC_END 0
#define EVENT_SIZE_CONC_SWEEP_BEGIN 0
#define EVENT_SIZE_CONC_SWEEP_END 0
#define EVENT_SIZE_CONC_UPD_REM_SET_FLUSH 2   /* CapNo */
#define EVENT_SIZE_ALLOC_SAMPLING 8     /* Word64 mean bytes between samples */
#define EVENT_SIZE_ALLOC_SAMPLE 31      /* Word64 sample, Word64 size, Word32 stack,
                                           Word64 era, Word16 cap, Word8 kind */
#define EVENT_SIZE_ALLOC_DEATH 8        /* Word64 sample */
/* ALLOC_STACK holds at most this many frames (a Word8 count). */
#define EVENT_ALLOC_STACK_MAX_FRAMES 255

/* Capset types. */
#define CAPSET_TYPE_CUSTOM 1
#define CAPSET_TYPE_OSPROCESS 2
#define CAPSET_TYPE_CLOCKDOMAIN 3

/* HEAP_PROF_BEGIN breakdown codes. */
#define HEAP_PROF_BREAKDOWN_COST_CENTRE 1
#define HEAP_PROF_BREAKDOWN_MODULE 2
#define HEAP_PROF_BREAKDOWN_CLOSURE_DESCR 3
#define HEAP_PROF_BREAKDOWN_TYPE_DESCR 4
#define HEAP_PROF_BREAKDOWN_RETAINER 5
#define HEAP_PROF_BREAKDOWN_BIOGRAPHY 6
#define HEAP_PROF_BREAKDOWN_CLOSURE_TYPE 7
#define HEAP_PROF_BREAKDOWN_INFO_TABLE 8
#define HEAP_PROF_BREAKDOWN_ERA 9

/* The capsets strata's runtime declares (GHC's defaults). */
#define STRATA_CAPSET_OSPROCESS 0
#define STRATA_CAPSET_CLOCKDOMAIN 1

/* The description GHC writes for an event type, or NULL if strata does not
 * know the id.  Defined, with the rest of each type's format, in
 * wire/EventFormat.c. */
const char *eventlog_type_description(uint16_t type);

/* The fixed payload size of a known type, EVENT_SIZE_VARIABLE for variable
 * ones; -1 if unknown. */
int eventlog_type_size(uint16_t type);

#endif /* STRATA_EVENTLOGFORMAT_H */
