/*
 * eventlog/EventTypes.c -- the table of GHC event types strata knows: each
 * id's fixed payload size (or EVENT_SIZE_VARIABLE) and the description GHC
 * writes into the eventlog header.  Pure data; depends on nothing but
 * strata/EventLogFormat.h, because it is compiled both into the runtime and
 * into libstrata-format for the tools.  See docs/design/eventlog.md.
 */
#include <stddef.h>

#include "strata/EventLogFormat.h"

typedef struct {
    uint16_t id;              /* GHC's event type id */
    uint16_t size;            /* payload bytes, or EVENT_SIZE_VARIABLE */
    const char *description;  /* GHC's header text (readers ignore it) */
} EventTypeInfo;

/* Descriptions are the ones GHC's own header carries, so that a strata
 * eventlog's header reads like GHC's to a person with a hex dump. */
static const EventTypeInfo event_types[] = {
    {EVENT_CREATE_THREAD, EVENT_SIZE_CREATE_THREAD, "Create thread"},
    {EVENT_RUN_THREAD, EVENT_SIZE_RUN_THREAD, "Run thread"},
    {EVENT_STOP_THREAD, EVENT_SIZE_STOP_THREAD, "Stop thread"},
    {EVENT_GC_START, EVENT_SIZE_GC_START, "Starting GC"},
    {EVENT_GC_END, EVENT_SIZE_GC_END, "Finished GC"},
    {EVENT_REQUEST_SEQ_GC, EVENT_SIZE_REQUEST_SEQ_GC, "Request sequential GC"},
    {EVENT_REQUEST_PAR_GC, EVENT_SIZE_REQUEST_PAR_GC, "Request parallel GC"},
    {EVENT_LOG_MSG, EVENT_SIZE_VARIABLE, "Log message"},
    {EVENT_BLOCK_MARKER, EVENT_SIZE_BLOCK_MARKER, "Block marker"},
    {EVENT_USER_MSG, EVENT_SIZE_VARIABLE, "User message"},
    {EVENT_GC_IDLE, EVENT_SIZE_GC_IDLE, "GC idle"},
    {EVENT_GC_WORK, EVENT_SIZE_GC_WORK, "GC working"},
    {EVENT_GC_DONE, EVENT_SIZE_GC_DONE, "GC done"},
    {EVENT_CAPSET_CREATE, EVENT_SIZE_CAPSET_CREATE, "Create capability set"},
    {EVENT_CAPSET_DELETE, EVENT_SIZE_CAPSET_DELETE, "Delete capability set"},
    {EVENT_CAPSET_ASSIGN_CAP, EVENT_SIZE_CAPSET_ASSIGN_CAP, "Add capability to capability set"},
    {EVENT_CAPSET_REMOVE_CAP, EVENT_SIZE_CAPSET_REMOVE_CAP,
     "Remove capability from capability set"},
    {EVENT_RTS_IDENTIFIER, EVENT_SIZE_VARIABLE, "RTS name and version"},
    {EVENT_PROGRAM_ARGS, EVENT_SIZE_VARIABLE, "Program arguments"},
    {EVENT_OSPROCESS_PID, EVENT_SIZE_OSPROCESS_PID, "Process ID"},
    {EVENT_OSPROCESS_PPID, EVENT_SIZE_OSPROCESS_PPID, "Parent process ID"},
    {EVENT_WALL_CLOCK_TIME, EVENT_SIZE_WALL_CLOCK_TIME, "Wall clock time"},
    {EVENT_CAP_CREATE, EVENT_SIZE_CAP_CREATE, "Create capability"},
    {EVENT_CAP_DELETE, EVENT_SIZE_CAP_DELETE, "Delete capability"},
    {EVENT_HEAP_ALLOCATED, EVENT_SIZE_HEAP_ALLOCATED, "Total heap memory ever allocated"},
    {EVENT_HEAP_SIZE, EVENT_SIZE_HEAP_SIZE, "Current heap size"},
    {EVENT_HEAP_LIVE, EVENT_SIZE_HEAP_LIVE, "Current heap live data"},
    {EVENT_HEAP_INFO_GHC, EVENT_SIZE_HEAP_INFO_GHC, "Heap static parameters"},
    {EVENT_GC_STATS_GHC, EVENT_SIZE_GC_STATS_GHC, "GC statistics"},
    {EVENT_GC_GLOBAL_SYNC, EVENT_SIZE_GC_GLOBAL_SYNC, "Synchronise stop-the-world GC"},
    {EVENT_USER_MARKER, EVENT_SIZE_VARIABLE, "User marker"},
    {EVENT_MEM_RETURN, EVENT_SIZE_MEM_RETURN,
     "The RTS attempted to return heap memory to the OS"},
    {EVENT_BLOCKS_SIZE, EVENT_SIZE_BLOCKS_SIZE, "Report the size of the heap in blocks"},
    {EVENT_HEAP_PROF_BEGIN, EVENT_SIZE_VARIABLE, "Start of heap profile"},
    {EVENT_HEAP_PROF_COST_CENTRE, EVENT_SIZE_VARIABLE, "Cost-centre definition"},
    {EVENT_HEAP_PROF_SAMPLE_BEGIN, EVENT_SIZE_HEAP_PROF_SAMPLE_BEGIN,
     "Start of heap profile sample"},
    {EVENT_HEAP_PROF_SAMPLE_COST_CENTRE, EVENT_SIZE_VARIABLE, "Heap profile cost-centre sample"},
    {EVENT_HEAP_PROF_SAMPLE_STRING, EVENT_SIZE_VARIABLE, "Heap profile string sample"},
    {EVENT_HEAP_PROF_SAMPLE_END, EVENT_SIZE_HEAP_PROF_SAMPLE_END, "End of heap profile sample"},
    {EVENT_HEAP_BIO_PROF_SAMPLE_BEGIN, EVENT_SIZE_HEAP_BIO_PROF_SAMPLE_BEGIN,
     "Start of heap profile (biographical) sample"},
    {EVENT_PROF_SAMPLE_COST_CENTRE, EVENT_SIZE_VARIABLE, "Time profile cost-centre stack"},
    {EVENT_PROF_BEGIN, EVENT_SIZE_PROF_BEGIN, "Start of a time profile"},
    {EVENT_IPE, EVENT_SIZE_VARIABLE, "An IPE entry"},
    {EVENT_USER_BINARY_MSG, EVENT_SIZE_VARIABLE, "User binary message"},
};

#define N_EVENT_TYPES (sizeof event_types / sizeof event_types[0])

static const EventTypeInfo *event_type_find(uint16_t type)
{
    for (size_t i = 0; i < N_EVENT_TYPES; i++)
        if (event_types[i].id == type)
            return &event_types[i];
    return NULL;
}

const char *eventlog_type_description(uint16_t type)
{
    const EventTypeInfo *t = event_type_find(type);
    return t != NULL ? t->description : NULL;
}

int eventlog_type_size(uint16_t type)
{
    const EventTypeInfo *t = event_type_find(type);
    return t != NULL ? (int)t->size : -1;
}
