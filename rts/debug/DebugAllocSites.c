/*
 * rts/debug/DebugAllocSites.c -- the ALLOC_SITES reply (DebugAllocSites.h),
 * from the sampled objects' table (profiling/SampledObjects.h) and their
 * interned stacks (profiling/CallStacks.h), read with the program paused:
 * no sample is taken and no object moves meanwhile.
 */
#include "DebugAllocSites.h"

#include <string.h>

#include "CallStacks.h"
#include "SampledObjects.h"

/* The frames a reply gives one stack (a u16 count). */
#define SITE_MAX_FRAMES 0xffffu

static void put_str(DebugBuf *b, const char *s)
{
    size_t n = strlen(s);
    debug_buf_put_str(b, s, n > 0xffff ? 0xffff : n);
}

static void put_site(const StgClosure *obj, const SampledObject *what, void *ctx)
{
    DebugBuf *out = ctx;
    const uint32_t *frames = NULL;
    size_t n = 0;
    if (!call_stack_frames(what->stack, &frames, &n))
        n = 0;
    if (n > SITE_MAX_FRAMES)
        n = SITE_MAX_FRAMES;
    debug_buf_put_u64(out, (uint64_t)(uintptr_t)obj);
    debug_buf_put_u64(out, what->sample);
    debug_buf_put_u64(out, what->era);
    debug_buf_put_u64(out, what->size_bytes);
    debug_buf_put_u16(out, (uint16_t)n);
    for (size_t k = 0; k < n; k++) {
        const char *function = "", *file = "";
        uint32_t line = 0;
        (void)call_stack_frame(frames[k], &function, &file, &line);
        put_str(out, function);
        put_str(out, file);
        debug_buf_put_u32(out, line);
    }
}

void debug_alloc_sites_put(DebugBuf *out)
{
    debug_buf_put_u32(out, (uint32_t)sampled_objects_live());
    sampled_objects_each(put_site, out);
}
