/*
 * ghc/StubRoots.c -- the ROOTS request for a GHC heap: every live thread's
 * stack frames (each pointer slot, and the SRT of the frame's code) named
 * by the frame's IPE provenance, the thread itself, the stable pointers,
 * then the weak pointers.  Relies on GHC's stack frame layouts
 * (ClosureMacros.h, Closures.h), on StubView.c's threads and stable
 * pointers and on StubInfo.c's bitmaps.  See docs/design/ghc-stub.md.
 */
#include "GhcStub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct {
    DebugBuf *out;
    uint32_t count;
    uint32_t frame_no;           /* frames numbered on from thread to thread */
    StubBitmap *bitmap, *args;   /* scratch */
} RootWriter;

static void root_str(DebugBuf *out, const char *s)
{
    debug_buf_put_str(out, s, strlen(s));
}

static void put_root(RootWriter *w, uint8_t kind, uint32_t index, uint32_t slot, uint64_t addr,
                     const char *func, const char *file, uint32_t line)
{
    debug_buf_put_u8(w->out, kind);
    debug_buf_put_u32(w->out, index);
    debug_buf_put_u32(w->out, slot);
    debug_buf_put_u64(w->out, stub_untag(addr));
    root_str(w->out, func);
    root_str(w->out, file);
    debug_buf_put_u32(w->out, line);
    w->count++;
}

/* ----------------------------------------------------------------------
 * Stack frames
 * ---------------------------------------------------------------------- */

typedef struct {
    char func[256], file[512];
    uint32_t line;
} FrameName;

/* A frame is named by its return address's IPE entry (the function whose
 * code it returns to, with -finfo-table-map), else by what the runtime's
 * own frames are. */
static void frame_name(const StgWord *frame, uint32_t type, FrameName *n)
{
    memset(n, 0, sizeof *n);
    InfoProvEnt ipe;
    if (stub_ipe(frame[0], &ipe)) {
        const char *label = ipe.prov.label != NULL && ipe.prov.label[0] != '\0'
                                ? ipe.prov.label : ipe.prov.table_name;
        snprintf(n->func, sizeof n->func, "%s", label != NULL ? label : "");
        snprintf(n->file, sizeof n->file, "%s", ipe.prov.src_file ? ipe.prov.src_file : "");
        n->line = ipe.prov.src_span != NULL ? (uint32_t)strtoul(ipe.prov.src_span, NULL, 10) : 0;
        return;
    }
    const char *what;
    switch (type) {
    case UPDATE_FRAME: what = "update frame"; break;
    case CATCH_FRAME: what = "catch frame"; break;
    case UNDERFLOW_FRAME: what = "underflow frame"; break;
    case STOP_FRAME: what = "stop frame"; break;
    case ATOMICALLY_FRAME: what = "atomically frame"; break;
    case CATCH_RETRY_FRAME: what = "catch-retry frame"; break;
    case CATCH_STM_FRAME: what = "catch-STM frame"; break;
    default: what = ""; break;
    }
    snprintf(n->func, sizeof n->func, "%s", what);
}

static void bit_on(StubBitmap *m, uint32_t i)
{
    m->bytes[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* The frame's payload (the words after its return address) as fixed
 * words, the first of them a pointer, then arguments laid out by args. */
static void prefixed(StubBitmap *m, uint32_t fixed, uint32_t ptr_at, const StubBitmap *args)
{
    stub_bitmap_clear(m);
    m->bits = fixed + args->bits;
    bit_on(m, ptr_at);
    for (uint32_t i = 0; i < args->bits; i++)
        if (stub_bitmap_is_ptr(args, i))
            bit_on(m, fixed + i);
}

/* The pointer words of the frame at p, over the words after its return
 * address, into m, by GHC's rule (scavenge_stack); returns the frame's
 * size in words. */
static StgWord frame_layout(const StgWord *p, const StgRetInfoTable *info, StubBitmap *m,
                            StubBitmap *args)
{
    switch (info->i.type) {
    case UPDATE_FRAME:
        stub_bitmap_clear(m);
        m->bits = sizeofW(StgUpdateFrame) - 1;
        bit_on(m, offsetof(StgUpdateFrame, updatee) / sizeof(StgWord) - 1);
        return sizeofW(StgUpdateFrame);
    case RET_BIG:
        stub_bitmap_large(m, (uint64_t)(uintptr_t)GET_LARGE_BITMAP(&info->i));
        return 1 + m->bits;
    case RET_FUN: {
        /* size, fun, then fun's arguments */
        const StgRetFun *f = (const StgRetFun *)p;
        stub_fun_arg_bitmap((uint64_t)(uintptr_t)UNTAG_CONST_CLOSURE(f->fun)->header.info, args);
        prefixed(m, 2, 1, args);
        return sizeofW(StgRetFun) + f->size;
    }
    case RET_BCO:
        /* the BCO, then arguments as its bitmap says */
        stub_bitmap_large(args, (uint64_t)(uintptr_t)BCO_BITMAP((const StgBCO *)p[1]));
        prefixed(m, 1, 0, args);
        return 2 + args->bits;
    default:
        stub_bitmap_small(m, info->i.layout.bitmap);
        return 1 + m->bits;
    }
}

/* The frames of one stack chunk, newest first; the next (older) chunk,
 * from the underflow frame that ends this one, or NULL. */
static StgStack *put_chunk_frames(RootWriter *w, StgStack *stack)
{
    StgPtr p = stack->sp, end = stack->stack + stack->stack_size;
    StgStack *older = NULL;
    while (p < end) {
        const StgRetInfoTable *info = get_ret_itbl((StgClosure *)p);
        StgWord size = frame_layout(p, info, w->bitmap, w->args);
        if (size == 0 || p + size > end)
            break;
        FrameName name;
        frame_name(p, info->i.type, &name);
        uint64_t srt = stub_info_srt(p[0], &info->i);
        if (srt != 0)
            put_root(w, DEBUG_ROOT_FRAME, w->frame_no, 0, srt, name.func, name.file, name.line);
        for (uint32_t i = 0; i < w->bitmap->bits && 1 + i < size; i++)
            if (stub_bitmap_is_ptr(w->bitmap, i) && p[1 + i] != 0)
                put_root(w, DEBUG_ROOT_FRAME, w->frame_no, 1 + i, p[1 + i], name.func, name.file,
                         name.line);
        w->frame_no++;
        if (info->i.type == UNDERFLOW_FRAME)
            older = ((StgUnderflowFrame *)p)->next_chunk;
        if (info->i.type == STOP_FRAME || info->i.type == UNDERFLOW_FRAME)
            break;
        p += size;
    }
    return older;
}

/* A thread's frames, newest first through its stack chunks, then the
 * thread itself (named by its id). */
static void put_thread(RootWriter *w, StgTSO *tso)
{
    for (StgStack *s = tso->stackobj; s != NULL;)
        s = put_chunk_frames(w, s);
    put_root(w, DEBUG_ROOT_THREAD, (uint32_t)tso->id, 0, (uint64_t)(uintptr_t)tso, "", "", 0);
}

/* ----------------------------------------------------------------------
 * Weak pointers
 * ---------------------------------------------------------------------- */

/* Weak pointers made since the last GC wait on their capability's list;
 * the GC moves them to the generations' lists. */
static void put_weak_list(RootWriter *w, StgWeak *weak, uint32_t *index)
{
    for (; weak != NULL; weak = weak->link)
        put_root(w, DEBUG_ROOT_WEAK, (*index)++, 0, (uint64_t)(uintptr_t)weak, "", "", 0);
}

static void put_weaks(RootWriter *w)
{
    uint32_t index = 0;
    for (uint32_t i = 0; i < getNumCapabilities(); i++)
        put_weak_list(w, *(StgWeak **)((char *)capabilities[i] + OFFSET_Capability_weak_ptr_list_hd),
                      &index);
    for (uint32_t g = 0; g < RtsFlags.GcFlags.generations; g++)
        put_weak_list(w, generations[g].weak_ptr_list, &index);
}

void stub_put_roots(DebugBuf *out)
{
    size_t count_at = out->len;
    debug_buf_put_u32(out, 0);
    StubBitmap *bitmap = calloc(1, sizeof *bitmap), *args = calloc(1, sizeof *args);
    if (bitmap == NULL || args == NULL) {
        free(bitmap);
        free(args);
        out->oom = true;
        return;
    }
    RootWriter w = {out, 0, 0, bitmap, args};
    for (size_t i = 0; i < stub_view.n_threads; i++)   /* oldest thread first */
        put_thread(&w, stub_view.threads[i]);
    for (size_t i = 0; i < stub_view.n_stable; i++)
        put_root(&w, DEBUG_ROOT_STABLE_PTR, (uint32_t)i, 0,
                 (uint64_t)(uintptr_t)stub_view.stable[i], "", "", 0);
    put_weaks(&w);
    debug_buf_set_u32(out, count_at, w.count);
    free(bitmap);
    free(args);
}
