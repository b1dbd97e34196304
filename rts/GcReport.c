/*
 * rts/GcReport.c -- what the runtime does with each collection: the
 * statistics (+RTS -s/-S) and the eventlog's GC events, in GHC's order
 * (docs/design/eventlog.md).  The collector only calls its observer
 * (sm/GC.h); this file is that observer.
 */
#include "GcReport.h"

#include "EventLog.h"
#include "Stats.h"
#include "strata/EventLogFormat.h"

static void report_start(unsigned gc_threads)
{
    stats_gc_begin();
    if (gc_threads > 1)
        eventlog_post_request_par_gc();
    else
        eventlog_post_request_seq_gc();
    eventlog_post_gc_global_sync();
    eventlog_post_gc_start();
}

/* Each GC thread's phases, in the buffer of the capability it works for. */
static void report_thread_phase(unsigned cap, GCPhase phase)
{
    switch (phase) {
    case GC_PHASE_START:
        break;
    case GC_PHASE_WORK:
        eventlog_post_gc_work_on(cap);
        break;
    case GC_PHASE_IDLE:
        eventlog_post_gc_idle_on(cap);
        break;
    case GC_PHASE_DONE:
        eventlog_post_gc_done_on(cap);
        break;
    }
}

/* The events that close a GC: GC_END, then the heap figures, then for a
 * major GC the live data and what was returned to the OS.  HEAP_SIZE is
 * megablocks held, as in GHC; BLOCKS_SIZE is the heap's blocks. */
static void trace_gc_end(const GCDetails *d)
{
    if (!eventlog_enabled())
        return;
    RtsStats totals;
    stats_get(&totals);
    uint64_t heap_bytes = (uint64_t)d->kept_mblocks * MBLOCK_SIZE;
    uint64_t blocks_bytes = (uint64_t)d->heap_blocks * BLOCK_SIZE;
    eventlog_post_gc_end();
    eventlog_post_heap_allocated(totals.allocated_bytes);
    eventlog_post_heap_size(heap_bytes);
    eventlog_post_blocks_size(blocks_bytes);
    /* GHC's par_* fields: threads, the most one copied, the total, and
     * the balanced figure (sm/GC.h); one thread copied it all alone. */
    eventlog_post_gc_stats_ghc((uint16_t)d->gen, d->copied_bytes, d->slop_bytes,
                               heap_bytes > blocks_bytes ? heap_bytes - blocks_bytes : 0,
                               d->gc_threads, d->par_max_copied_bytes, d->copied_bytes,
                               d->gc_threads > 1 ? d->par_balanced_copied_bytes
                                                 : d->copied_bytes);
    if (d->major) {
        eventlog_post_heap_live(d->live_bytes);
        eventlog_post_mem_return((uint32_t)(d->kept_mblocks + d->returned_mblocks),
                                 (uint32_t)d->kept_mblocks, (uint32_t)d->returned_mblocks);
    }
}

static void report_end(const GCDetails *d)
{
    stats_gc_end(d);
    trace_gc_end(d);
}

/* GHC's CONC_* events, in whichever buffer the thread posting has (the
 * mark thread's: the global one); strata-events pauses counts the span
 * from CONC_SYNC_BEGIN to CONC_SYNC_END as a pause. */
static void report_nonmoving(NonMovingEvent event, uint64_t marked)
{
    static const uint16_t types[] = {
        [NONMOVING_EVENT_MARK_BEGIN] = EVENT_CONC_MARK_BEGIN,
        [NONMOVING_EVENT_MARK_END] = EVENT_CONC_MARK_END,
        [NONMOVING_EVENT_SYNC_BEGIN] = EVENT_CONC_SYNC_BEGIN,
        [NONMOVING_EVENT_SYNC_END] = EVENT_CONC_SYNC_END,
        [NONMOVING_EVENT_SWEEP_BEGIN] = EVENT_CONC_SWEEP_BEGIN,
        [NONMOVING_EVENT_SWEEP_END] = EVENT_CONC_SWEEP_END,
    };
    /* GHC's count is a Word32. */
    uint64_t count = marked > UINT32_MAX ? UINT32_MAX : marked;
    eventlog_post_fields(EVENTLOG_CLASS_GC, types[event], &count);
}

const GCObserver gc_report_observer = {report_start, report_thread_phase, report_end,
                                       report_nonmoving};
