/*
 * wire/EventFormat.c -- the table of EventFormat.h.  Pure data; depends
 * on nothing but strata/EventLogFormat.h, because the runtime's writer and
 * the tools both link it (libstrata-wire).  Ids, sizes and descriptions
 * are GHC's; field names are ghc-events' in snake case.  strata's own
 * events (ids from 1000) come last, described "strata: ...".
 */
#include "EventFormat.h"

/* Note [One table for the event format]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An event type's id, size, description and payload layout are written
 * down once, here.  The writer's header declares every `emitted` entry, in
 * table order (ascending ids), with the entry's size and description; it
 * posts an event of integer fields by walking the entry's fields (Note
 * [Posting by the table] in eventlog/EventLog.c), and one with strings by
 * a function of its own that writes the fields in the table's order.  The
 * reader decodes each known type into its EvrEvent union
 * (reader/EventLogReader.c).  Neither is generated from
 * the table; test_event_format.c holds both to it: the fixed sizes are the
 * sum of their fields, and every emitted type, written by the real writer
 * with distinct values in every field, reads back field by field, walked by
 * this table, and through the reader's union where the reader decodes it.
 * Descriptions are the ones GHC's own header carries, so that a strata
 * eventlog's header reads like GHC's to a person with a hex dump.
 */

#define F(name, kind) {name, EVENT_FIELD_##kind}
#define FIELDS(...) \
    sizeof((EventField[]){__VA_ARGS__}) / sizeof(EventField), {__VA_ARGS__}
#define NO_FIELDS 0, {{0}}
/* The name is the enum's, less its "EVENT_" prefix. */
#define E(id, size, emitted, desc, ...) {id, size, emitted, #id + 6, desc, __VA_ARGS__}
#define VAR EVENT_SIZE_VARIABLE

const EventFormat event_formats[] = {
    E(EVENT_CREATE_THREAD, EVENT_SIZE_CREATE_THREAD, true, "Create thread",
      FIELDS(F("thread", U32))),
    E(EVENT_RUN_THREAD, EVENT_SIZE_RUN_THREAD, true, "Run thread", FIELDS(F("thread", U32))),
    E(EVENT_STOP_THREAD, EVENT_SIZE_STOP_THREAD, true, "Stop thread",
      FIELDS(F("thread", U32), F("status", U16), F("blocked_on", U32))),
    E(EVENT_GC_START, EVENT_SIZE_GC_START, true, "Starting GC", NO_FIELDS),
    E(EVENT_GC_END, EVENT_SIZE_GC_END, true, "Finished GC", NO_FIELDS),
    E(EVENT_REQUEST_SEQ_GC, EVENT_SIZE_REQUEST_SEQ_GC, true, "Request sequential GC", NO_FIELDS),
    E(EVENT_REQUEST_PAR_GC, EVENT_SIZE_REQUEST_PAR_GC, true, "Request parallel GC", NO_FIELDS),
    E(EVENT_LOG_MSG, VAR, false, "Log message", FIELDS(F("msg", REST))),
    E(EVENT_BLOCK_MARKER, EVENT_SIZE_BLOCK_MARKER, true, "Block marker",
      FIELDS(F("block_size", U32), F("end_time", U64), F("cap", U16))),
    E(EVENT_USER_MSG, VAR, true, "User message", FIELDS(F("msg", REST))),
    E(EVENT_GC_IDLE, EVENT_SIZE_GC_IDLE, true, "GC idle", NO_FIELDS),
    E(EVENT_GC_WORK, EVENT_SIZE_GC_WORK, true, "GC working", NO_FIELDS),
    E(EVENT_GC_DONE, EVENT_SIZE_GC_DONE, true, "GC done", NO_FIELDS),
    E(EVENT_CAPSET_CREATE, EVENT_SIZE_CAPSET_CREATE, true, "Create capability set",
      FIELDS(F("capset", U32), F("capset_type", U16))),
    E(EVENT_CAPSET_DELETE, EVENT_SIZE_CAPSET_DELETE, true, "Delete capability set",
      FIELDS(F("capset", U32))),
    E(EVENT_CAPSET_ASSIGN_CAP, EVENT_SIZE_CAPSET_ASSIGN_CAP, true,
      "Add capability to capability set", FIELDS(F("capset", U32), F("cap", U16))),
    E(EVENT_CAPSET_REMOVE_CAP, EVENT_SIZE_CAPSET_REMOVE_CAP, true,
      "Remove capability from capability set", FIELDS(F("capset", U32), F("cap", U16))),
    E(EVENT_RTS_IDENTIFIER, VAR, true, "RTS name and version",
      FIELDS(F("capset", U32), F("rts_ident", REST))),
    E(EVENT_PROGRAM_ARGS, VAR, true, "Program arguments",
      FIELDS(F("capset", U32), F("args", CSTR_LIST))),
    E(EVENT_OSPROCESS_PID, EVENT_SIZE_OSPROCESS_PID, true, "Process ID",
      FIELDS(F("capset", U32), F("pid", U32))),
    E(EVENT_OSPROCESS_PPID, EVENT_SIZE_OSPROCESS_PPID, true, "Parent process ID",
      FIELDS(F("capset", U32), F("ppid", U32))),
    E(EVENT_WALL_CLOCK_TIME, EVENT_SIZE_WALL_CLOCK_TIME, true, "Wall clock time",
      FIELDS(F("capset", U32), F("sec", U64), F("nsec", U32))),
    E(EVENT_CAP_CREATE, EVENT_SIZE_CAP_CREATE, true, "Create capability", FIELDS(F("cap", U16))),
    E(EVENT_CAP_DELETE, EVENT_SIZE_CAP_DELETE, true, "Delete capability", FIELDS(F("cap", U16))),
    E(EVENT_HEAP_ALLOCATED, EVENT_SIZE_HEAP_ALLOCATED, true, "Total heap memory ever allocated",
      FIELDS(F("heap_capset", U32), F("alloc_bytes", U64))),
    E(EVENT_HEAP_SIZE, EVENT_SIZE_HEAP_SIZE, true, "Current heap size",
      FIELDS(F("heap_capset", U32), F("size_bytes", U64))),
    E(EVENT_HEAP_LIVE, EVENT_SIZE_HEAP_LIVE, true, "Current heap live data",
      FIELDS(F("heap_capset", U32), F("live_bytes", U64))),
    E(EVENT_HEAP_INFO_GHC, EVENT_SIZE_HEAP_INFO_GHC, true, "Heap static parameters",
      FIELDS(F("heap_capset", U32), F("gens", U16), F("max_heap_size", U64),
             F("alloc_area_size", U64), F("mblock_size", U64), F("block_size", U64))),
    E(EVENT_GC_STATS_GHC, EVENT_SIZE_GC_STATS_GHC, true, "GC statistics",
      FIELDS(F("heap_capset", U32), F("gen", U16), F("copied", U64), F("slop", U64),
             F("frag", U64), F("par_n_threads", U32), F("par_max_copied", U64),
             F("par_tot_copied", U64), F("par_balanced_copied", U64))),
    E(EVENT_GC_GLOBAL_SYNC, EVENT_SIZE_GC_GLOBAL_SYNC, true, "Synchronise stop-the-world GC",
      NO_FIELDS),
    E(EVENT_USER_MARKER, VAR, true, "User marker", FIELDS(F("markername", REST))),
    E(EVENT_MEM_RETURN, EVENT_SIZE_MEM_RETURN, true,
      "The RTS attempted to return heap memory to the OS",
      FIELDS(F("heap_capset", U32), F("current", U32), F("needed", U32), F("returned", U32))),
    E(EVENT_BLOCKS_SIZE, EVENT_SIZE_BLOCKS_SIZE, true, "Report the size of the heap in blocks",
      FIELDS(F("heap_capset", U32), F("blocks_size", U64))),
    E(EVENT_HEAP_PROF_BEGIN, VAR, true, "Start of heap profile",
      FIELDS(F("heap_prof_id", U8), F("sampling_period", U64), F("breakdown", U32),
             F("module_filter", CSTR), F("closure_descr_filter", CSTR),
             F("type_descr_filter", CSTR), F("cost_centre_filter", CSTR),
             F("cost_centre_stack_filter", CSTR), F("retainer_filter", CSTR),
             F("biography_filter", CSTR))),
    E(EVENT_HEAP_PROF_COST_CENTRE, VAR, false, "Cost-centre definition",
      FIELDS(F("cost_centre_id", U32), F("label", CSTR), F("module", CSTR), F("srcloc", CSTR),
             F("flags", U8))),
    E(EVENT_HEAP_PROF_SAMPLE_BEGIN, EVENT_SIZE_HEAP_PROF_SAMPLE_BEGIN, true,
      "Start of heap profile sample", FIELDS(F("census", U64))),
    E(EVENT_HEAP_PROF_SAMPLE_COST_CENTRE, VAR, false, "Heap profile cost-centre sample",
      FIELDS(F("heap_prof_id", U8), F("residency", U64), F("stack_depth", U8),
             F("stack", U32_COUNTED))),
    E(EVENT_HEAP_PROF_SAMPLE_STRING, VAR, true, "Heap profile string sample",
      FIELDS(F("heap_prof_id", U8), F("residency", U64), F("label", CSTR))),
    E(EVENT_HEAP_PROF_SAMPLE_END, EVENT_SIZE_HEAP_PROF_SAMPLE_END, true,
      "End of heap profile sample", FIELDS(F("census", U64))),
    E(EVENT_HEAP_BIO_PROF_SAMPLE_BEGIN, EVENT_SIZE_HEAP_BIO_PROF_SAMPLE_BEGIN, false,
      "Start of heap profile (biographical) sample", FIELDS(F("census", U64), F("time", U64))),
    E(EVENT_PROF_SAMPLE_COST_CENTRE, VAR, false, "Time profile cost-centre stack",
      FIELDS(F("capability", U32), F("tick", U64), F("stack_depth", U8),
             F("stack", U32_COUNTED))),
    E(EVENT_PROF_BEGIN, EVENT_SIZE_PROF_BEGIN, false, "Start of a time profile",
      FIELDS(F("tick_interval", U64))),
    E(EVENT_IPE, VAR, true, "An IPE entry",
      FIELDS(F("info", U64), F("table_name", CSTR), F("closure_desc", CSTR), F("ty_desc", CSTR),
             F("label", CSTR), F("module", CSTR), F("srcloc", CSTR))),
    E(EVENT_USER_BINARY_MSG, VAR, false, "User binary message", FIELDS(F("payload", REST))),
    E(EVENT_CONC_MARK_BEGIN, EVENT_SIZE_CONC_MARK_BEGIN, true, "Begin concurrent mark phase",
      NO_FIELDS),
    E(EVENT_CONC_MARK_END, EVENT_SIZE_CONC_MARK_END, true, "End concurrent mark phase",
      FIELDS(F("conc_marked_object_count", U32))),
    E(EVENT_CONC_SYNC_BEGIN, EVENT_SIZE_CONC_SYNC_BEGIN, true,
      "Begin concurrent GC synchronisation", NO_FIELDS),
    /* GHC's text says "mark" where the begin says "GC". */
    E(EVENT_CONC_SYNC_END, EVENT_SIZE_CONC_SYNC_END, true, "End concurrent mark synchronisation",
      NO_FIELDS),
    E(EVENT_CONC_SWEEP_BEGIN, EVENT_SIZE_CONC_SWEEP_BEGIN, true, "Begin concurrent sweep phase",
      NO_FIELDS),
    E(EVENT_CONC_SWEEP_END, EVENT_SIZE_CONC_SWEEP_END, true, "End concurrent sweep phase",
      NO_FIELDS),
    E(EVENT_CONC_UPD_REM_SET_FLUSH, EVENT_SIZE_CONC_UPD_REM_SET_FLUSH, false,
      "Update remembered set flushed", FIELDS(F("cap", U16))),
    /* strata's own: allocation sampling (docs/design/alloc-sampling.md). */
    E(EVENT_ALLOC_SAMPLING, EVENT_SIZE_ALLOC_SAMPLING, true, "strata: allocation sampling",
      FIELDS(F("rate_bytes", U64))),
    E(EVENT_ALLOC_FRAME, VAR, true, "strata: allocation stack frame",
      FIELDS(F("frame", U32), F("line", U32), F("function", CSTR), F("file", CSTR))),
    E(EVENT_ALLOC_STACK, VAR, true, "strata: allocation call stack",
      FIELDS(F("stack", U32), F("depth", U8), F("frames", U32_COUNTED))),
    E(EVENT_ALLOC_SAMPLE, EVENT_SIZE_ALLOC_SAMPLE, true, "strata: sampled allocation",
      FIELDS(F("sample", U64), F("size_bytes", U64), F("stack", U32), F("era", U64),
             F("cap", U16), F("kind", U8))),
    E(EVENT_ALLOC_DEATH, EVENT_SIZE_ALLOC_DEATH, true, "strata: sampled object died",
      FIELDS(F("sample", U64))),
};

const size_t n_event_formats = sizeof event_formats / sizeof event_formats[0];

const EventFormat *event_format_find(uint16_t id)
{
    for (size_t i = 0; i < n_event_formats; i++)
        if (event_formats[i].id == id)
            return &event_formats[i];
    return NULL;
}

size_t event_field_width(EventFieldKind kind)
{
    switch (kind) {
    case EVENT_FIELD_U8:
        return 1;
    case EVENT_FIELD_U16:
        return 2;
    case EVENT_FIELD_U32:
        return 4;
    case EVENT_FIELD_U64:
        return 8;
    default:
        return 0;
    }
}

const char *eventlog_type_description(uint16_t type)
{
    const EventFormat *f = event_format_find(type);
    return f != NULL ? f->description : NULL;
}

int eventlog_type_size(uint16_t type)
{
    const EventFormat *f = event_format_find(type);
    return f != NULL ? (int)f->size : -1;
}
