/*
 * utils/strata-events/ShowCmd.c -- `strata-events show FILE`: the header's
 * event types, then every event on one line (timestamp, cap, the type's
 * description from the header, decoded fields), in the manner of
 * `ghc-events show`.  Format: docs/strata-events.md.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ShowCmd.h"
#include "Tool.h"

#define SHOW_HEX_MAX 16   /* payload bytes shown for types we do not decode */

static void show_str(FILE *out, EvrStr s)
{
    tool_print_quoted(out, s.ptr, s.len);
}

/* ", name \"s\"": a named string field after the first. */
static void show_field(FILE *out, const char *name, EvrStr s)
{
    fprintf(out, ", %s ", name);
    show_str(out, s);
}

static void show_hex(FILE *out, const EvrEvent *ev)
{
    fprintf(out, "%" PRIu32 " bytes", ev->payload_bytes);
    if (ev->payload_bytes == 0)
        return;
    fputc(':', out);
    uint32_t n = ev->payload_bytes < SHOW_HEX_MAX ? ev->payload_bytes : SHOW_HEX_MAX;
    for (uint32_t i = 0; i < n; i++)
        fprintf(out, " %02x", ev->payload[i]);
    if (n < ev->payload_bytes)
        fputs(" ...", out);
}

static void show_args(FILE *out, EvrStr args)
{
    fputc('[', out);
    size_t i = 0;
    int first = 1;
    while (i < args.len) {
        const char *nul = memchr(args.ptr + i, '\0', args.len - i);
        size_t n = nul ? (size_t)(nul - (args.ptr + i)) : args.len - i;
        if (!first)
            fputs(", ", out);
        tool_print_quoted(out, args.ptr + i, n);
        first = 0;
        i += n + 1;
    }
    fputc(']', out);
}

static void show_prof_begin(FILE *out, const EvrEvent *ev)
{
    static const char *const filter_names[EVR_HEAP_PROF_FILTERS] = {
        "module", "closure_descr", "type_descr", "cost_centre", "cost_centre_stack",
        "retainer", "biography"};
    uint32_t b = ev->u.prof_begin.breakdown;
    fprintf(out, "profile %u, breakdown %" PRIu32 " (%s, %s), interval %" PRIu64 " ns",
            ev->u.prof_begin.profile_id, b, tool_breakdown_flag(b), tool_breakdown_name(b),
            ev->u.prof_begin.interval_ns);
    for (int i = 0; i < EVR_HEAP_PROF_FILTERS; i++) {
        EvrStr f = ev->u.prof_begin.filters[i];
        if (f.len > 0)
            show_field(out, filter_names[i], f);
    }
}

/* The fields of allocation sampling's events. */
static void show_alloc_fields(FILE *out, const EvrEvent *ev)
{
    static const char *const kinds[] = {"nursery", "large", "pinned"};
    switch (ev->type) {
    case EVENT_ALLOC_SAMPLING:
        fprintf(out, "one sample per %" PRIu64 " bytes", ev->u.alloc_sampling.rate_bytes);
        break;
    case EVENT_ALLOC_FRAME:
        fprintf(out, "frame %" PRIu32 ", function ", ev->u.alloc_frame.frame);
        show_str(out, ev->u.alloc_frame.function);
        fputs(", file ", out);
        show_str(out, ev->u.alloc_frame.file);
        fprintf(out, ", line %" PRIu32, ev->u.alloc_frame.line);
        break;
    case EVENT_ALLOC_STACK:
        fprintf(out, "stack %" PRIu32 ", frames [", ev->u.alloc_stack.stack);
        for (size_t k = 0; k < ev->u.alloc_stack.depth; k++)
            fprintf(out, "%s%" PRIu32, k ? " " : "", evr_alloc_stack_frame(ev, k));
        fputc(']', out);
        break;
    case EVENT_ALLOC_SAMPLE:
        fprintf(out, "sample %" PRIu64 ", %" PRIu64 " bytes, stack %" PRIu32 ", era %" PRIu64
                     ", cap %u, ",
                ev->u.alloc_sample.sample, ev->u.alloc_sample.size_bytes,
                ev->u.alloc_sample.stack, ev->u.alloc_sample.era, ev->u.alloc_sample.cap);
        if (ev->u.alloc_sample.kind < sizeof kinds / sizeof kinds[0])
            fputs(kinds[ev->u.alloc_sample.kind], out);
        else
            fprintf(out, "kind %u", ev->u.alloc_sample.kind);
        break;
    case EVENT_ALLOC_DEATH:
        fprintf(out, "sample %" PRIu64, ev->u.alloc_death.sample);
        break;
    default:
        break;
    }
}

/* The decoded fields of ev, after "description: ". */
static void show_fields(FILE *out, const EvrEvent *ev)
{
    switch (ev->type) {
    case EVENT_BLOCK_MARKER:
        fprintf(out, "size %" PRIu32 ", end time %" PRIu64 ", ", ev->u.block.block_bytes,
                ev->u.block.end_time_ns);
        if (ev->u.block.cap == EVENT_CAP_GLOBAL)
            fputs("global", out);
        else
            fprintf(out, "cap %u", ev->u.block.cap);
        break;
    case EVENT_HEAP_SIZE:
    case EVENT_HEAP_LIVE:
    case EVENT_BLOCKS_SIZE:
    case EVENT_HEAP_ALLOCATED:
        fprintf(out, "capset %" PRIu32 ", %" PRIu64 " bytes", ev->u.heap.capset,
                ev->u.heap.bytes);
        break;
    case EVENT_RTS_IDENTIFIER:
        fprintf(out, "capset %" PRIu32 ", ", ev->u.rts_id.capset);
        show_str(out, ev->u.rts_id.ident);
        break;
    case EVENT_PROGRAM_ARGS:
        fprintf(out, "capset %" PRIu32 ", ", ev->u.args.capset);
        show_args(out, ev->u.args.args);
        break;
    case EVENT_WALL_CLOCK_TIME:
        fprintf(out, "capset %" PRIu32 ", %" PRIu64 " s %" PRIu32 " ns",
                ev->u.wall_clock.capset, ev->u.wall_clock.secs, ev->u.wall_clock.nsecs);
        break;
    case EVENT_USER_MSG:
    case EVENT_USER_MARKER:
        show_str(out, ev->u.user.text);
        break;
    case EVENT_HEAP_PROF_BEGIN:
        show_prof_begin(out, ev);
        break;
    case EVENT_HEAP_PROF_SAMPLE_BEGIN:
    case EVENT_HEAP_PROF_SAMPLE_END:
        fprintf(out, "census counter %" PRIu64, ev->u.sample.census);
        break;
    case EVENT_HEAP_BIO_PROF_SAMPLE_BEGIN:
        fprintf(out, "census counter %" PRIu64 ", sample time %" PRIu64 " ns", ev->u.sample.census,
                ev->u.sample.sample_time_ns);
        break;
    case EVENT_HEAP_PROF_SAMPLE_STRING:
        fprintf(out, "profile %u, %" PRIu64 " bytes, ", ev->u.sample_string.profile_id,
                ev->u.sample_string.residency_bytes);
        show_str(out, ev->u.sample_string.label);
        break;
    case EVENT_HEAP_PROF_COST_CENTRE:
        fprintf(out, "cc %" PRIu32, ev->u.cost_centre.id);
        show_field(out, "label", ev->u.cost_centre.label);
        show_field(out, "module", ev->u.cost_centre.module);
        show_field(out, "srcloc", ev->u.cost_centre.srcloc);
        fprintf(out, ", flags %u", ev->u.cost_centre.flags);
        break;
    case EVENT_HEAP_PROF_SAMPLE_COST_CENTRE:
        fprintf(out, "profile %u, %" PRIu64 " bytes, stack [", ev->u.sample_cc.profile_id,
                ev->u.sample_cc.residency_bytes);
        for (size_t k = 0; k < ev->u.sample_cc.depth; k++)
            fprintf(out, "%s%" PRIu32, k ? " " : "", evr_ccs_id(ev, k));
        fputc(']', out);
        break;
    case EVENT_IPE:
        fprintf(out, "info 0x%" PRIx64, ev->u.ipe.info);
        show_field(out, "table", ev->u.ipe.table_name);
        show_field(out, "closure desc", ev->u.ipe.closure_desc);
        show_field(out, "type", ev->u.ipe.ty_desc);
        show_field(out, "label", ev->u.ipe.label);
        show_field(out, "module", ev->u.ipe.module);
        show_field(out, "srcloc", ev->u.ipe.srcloc);
        if (ev->declared_payload_bytes != ev->payload_bytes)
            fprintf(out, " (declares %" PRIu32 " bytes, has %" PRIu32 ")",
                    ev->declared_payload_bytes, ev->payload_bytes);
        break;
    default:
        show_alloc_fields(out, ev);
        break;
    }
}

static void show_event(FILE *out, const EventLogReader *r, const EvrEvent *ev)
{
    const EvrEventType *t = evr_type(r, ev->type);
    fprintf(out, "%12" PRIu64 ": ", ev->time_ns);
    if (ev->cap >= 0)
        fprintf(out, "cap %d: ", ev->cap);
    tool_print_escaped(out, t->description, strlen(t->description));
    if (ev->decoded) {
        if (ev->payload_bytes > 0 || ev->type == EVENT_USER_MSG || ev->type == EVENT_USER_MARKER) {
            fputs(": ", out);
            show_fields(out, ev);
        }
    } else if (ev->malformed != NULL) {
        fprintf(out, ": malformed (%s): ", ev->malformed);
        show_hex(out, ev);
    } else if (ev->payload_bytes > 0) {
        fputs(": ", out);
        show_hex(out, ev);
    }
    fputc('\n', out);
}

int cmd_show(const char *path)
{
    FILE *f;
    EventLogReader *r = tool_open(path, &f);
    if (r == NULL)
        return TOOL_EXIT_FAIL;
    fputs("Event types:\n", stdout);
    for (size_t i = 0; i < evr_type_count(r); i++) {
        const EvrEventType *t = evr_type_at(r, i);
        fprintf(stdout, "%5u: ", t->id);
        tool_print_escaped(stdout, t->description, strlen(t->description));
        if (t->size == EVENT_SIZE_VARIABLE)
            fputs(" (size variable)\n", stdout);
        else
            fprintf(stdout, " (size %u)\n", t->size);
    }
    fputs("\nEvents:\n", stdout);
    EvrEvent ev;
    int rc;
    while ((rc = evr_next(r, &ev)) == 1)
        show_event(stdout, r, &ev);
    fflush(stdout);
    int status = TOOL_EXIT_OK;
    if (rc < 0) {
        tool_report_error(r);
        status = TOOL_EXIT_FAIL;
    } else {
        tool_warn_no_data_end(r);
    }
    tool_close(r, f);
    return status;
}
