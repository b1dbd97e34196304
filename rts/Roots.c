/*
 * rts/Roots.c -- local roots: frames of slots pushed by STRATA_ROOTS,
 * living in STACK chunks owned by each attached thread's TSO.
 *
 * Note [Local roots live in a STACK]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * C code cannot let the collector find the heap pointers in its own
 * variables, so it keeps them in frames on a heap STACK object instead
 * (in the manner of OCaml's CAMLlocal, but on the heap).  A frame is
 *
 *     [site] [n] [slot 0] ... [slot n-1]
 *
 * where site points at a static StgRootSite naming the function, file and
 * line that pushed it, which is how the heap debugger labels the frame.
 * Chunks are allocated as large objects, so they never move and C code
 * may hold pointers to its slots.  When a push does not fit, a new chunk
 * is linked in front (->prev points at the older chunk); popping the first
 * frame of a chunk returns to the older one and keeps the emptied chunk
 * as tso->spare_stack so that a loop pushing at the boundary does not
 * allocate every time.  A push never collects (the chunk is allocated with
 * storage_alloc_large_no_gc), so pointers held across STRATA_ROOTS stay
 * valid until the next allocation.  The collector scans every chunk's frames at every
 * GC, whatever the chunk's generation (the chunks are written without a
 * write barrier), and the TSO itself is scanned every GC.
 */
#include "Roots.h"

#include <stddef.h>
#include <stdlib.h>

#include "Messages.h"
#include "Storage.h"
#include "os/Thread.h"
#include "strata/Alloc.h"
#include "strata/Roots.h"

/* 16 KiB chunks: four blocks, well above the large-object threshold. */
#define STACK_CHUNK_BYTES ((StgWord)16384)
#define STACK_HEADER_WORDS (sizeof(StgStack) / WORD_SIZE)

_Static_assert(STACK_CHUNK_BYTES >= LARGE_OBJECT_THRESHOLD,
               "stack chunks must be large objects so that they never move");

/* The calling thread's TSO slot, from roots_thread_init to
 * roots_thread_exit. */
static _Thread_local StgTSO **my_tso_slot;

/* The calling thread's TSO (it must be attached). */
static StgTSO *my_tso(void)
{
    return *my_tso_slot;
}

/* ----------------------------------------------------------------------
 * Chunks
 * ---------------------------------------------------------------------- */

static StgStack *stack_chunk_new(StgWord min_frame_words)
{
    StgWord words = STACK_CHUNK_BYTES / WORD_SIZE;
    if (STACK_HEADER_WORDS + min_frame_words > words)
        words = STACK_HEADER_WORDS + min_frame_words;
    if (words * WORD_SIZE < LARGE_OBJECT_THRESHOLD)
        words = ROUND_UP_WORDS(LARGE_OBJECT_THRESHOLD);
    /* No GC here: STRATA_ROOTS may be given, or be followed by stores of,
     * pointers the caller read before pushing (eval_thunk does). */
    StgStack *s = (StgStack *)storage_alloc_large_no_gc(words);
    s->info = &stg_STACK_info;
    s->prev = NULL;
    s->stack_size = words - STACK_HEADER_WORDS;
    s->sp = s->stack;
    return s;
}

static void regs_enter_chunk(StgStack *s)
{
    strata_regs.sp_base = s->stack;
    strata_regs.sp = s->sp;
    strata_regs.sp_lim = s->stack + s->stack_size;
}

StgStack *roots_current_stack(void)
{
    if (strata_regs.sp_base == NULL)
        return NULL;   /* during start-up, before the first chunk */
    return (StgStack *)((char *)strata_regs.sp_base - offsetof(StgStack, stack));
}

void roots_sync_stack(void)
{
    if (strata_regs.sp_base != NULL)
        roots_current_stack()->sp = strata_regs.sp;
}

bool roots_thread_init(StgTSO **tso_slot, uint32_t id)
{
    StgTSO *tso = (StgTSO *)strata_alloc_words(sizeof(StgTSO) / WORD_SIZE);
    tso->info = &stg_TSO_info;
    tso->stack = NULL;
    tso->spare_stack = NULL;
    tso->id = id;
    *tso_slot = tso;
    my_tso_slot = tso_slot;
    StgStack *s = stack_chunk_new(0);   /* may GC: re-read the TSO below */
    (*tso_slot)->stack = s;
    regs_enter_chunk(s);
    return true;
}

void roots_thread_exit(void)
{
    strata_regs.sp = strata_regs.sp_lim = strata_regs.sp_base = NULL;
    my_tso_slot = NULL;
}

/* The TSO, its chunks and every slot of every frame.  The chunks are
 * written without a write barrier, so all of this is visited at every GC
 * whatever its generation (Note [Local roots live in a STACK]).  Chunks are
 * large objects: evacuating one marks it live but never moves it. */
void roots_visit_thread(StgTSO **tso_slot, RootEvacFn evac, void *ctx)
{
    if (*tso_slot == NULL)
        return;   /* attaching: its TSO is not allocated yet */
    evac((StgClosure **)tso_slot, ctx);
    StgTSO *tso = *tso_slot;   /* re-read: evac may have moved it */
    evac((StgClosure **)&tso->stack, ctx);
    evac((StgClosure **)&tso->spare_stack, ctx);
    /* Another GC thread may be scanning the TSO or a chunk at the same
     * time, evacuating these same fields: read them atomically (it stores
     * the same addresses). */
    for (StgStack *s = __atomic_load_n(&tso->stack, __ATOMIC_RELAXED); s != NULL;
         s = __atomic_load_n(&s->prev, __ATOMIC_RELAXED)) {
        evac((StgClosure **)&s->prev, ctx);
        for (StgPtr f = s->stack; f < s->sp;) {
            StgWord n = f[1];
            if (f[0] == 0 || f + ROOT_FRAME_HEADER_WORDS + n > s->sp)
                rts_panic("corrupt local-root frame (stack=%p, frame=%p)", (void *)s, (void *)f);
            for (StgWord i = 0; i < n; i++)
                evac((StgClosure **)&f[ROOT_FRAME_HEADER_WORDS + i], ctx);
            f += ROOT_FRAME_HEADER_WORDS + n;
        }
    }
}

/* ----------------------------------------------------------------------
 * Push and pop, slow paths
 * ---------------------------------------------------------------------- */

StgClosure **strata_roots_push_slow(const StgRootSite *site, StgWord n)
{
    if (strata_regs.sp_base == NULL) {
        if (capabilities_n == 0)
            rts_error("STRATA_ROOTS used before hs_init or after hs_exit (in %s, %s:%d)",
                      site->func, site->file, site->line);
        else
            rts_error("STRATA_ROOTS used on thread %ld, which is not attached to the runtime "
                      "(in %s, %s:%d); call rts_lock() first",
                      os_thread_id(), site->func, site->file, site->line);
        abort();
    }
    StgWord need = ROOT_FRAME_HEADER_WORDS + n;
    roots_sync_stack();
    StgStack *spare = my_tso()->spare_stack;
    StgStack *s;
    if (spare != NULL && spare->stack_size >= need) {
        s = spare;
        my_tso()->spare_stack = NULL;
    } else {
        s = stack_chunk_new(need);   /* may GC; chunks never move */
    }
    s->prev = roots_current_stack();
    s->sp = s->stack;
    my_tso()->stack = s;
    regs_enter_chunk(s);
    return strata_roots_push(site, n);
}

static const StgRootSite *frame_site(StgPtr f)
{
    return (const StgRootSite *)f[0];
}

/* Calls visit on every pushed frame's site, newest first. */
static void for_each_frame_newest_first(void (*visit)(const StgRootSite *site, void *arg),
                                        void *arg)
{
    roots_sync_stack();
    for (StgStack *s = roots_current_stack(); s != NULL; s = s->prev) {
        /* Frames can only be found forwards from the chunk's start;
         * walking again for each frame keeps this free of allocation
         * (it runs on error paths only). */
        for (StgPtr end = s->sp; end > s->stack;) {
            StgPtr f = s->stack, last = f;
            while (f < end) {
                last = f;
                f += ROOT_FRAME_HEADER_WORDS + f[1];
            }
            visit(frame_site(last), arg);
            end = last;
        }
    }
}

static void keep_first_site(const StgRootSite *site, void *arg)
{
    const StgRootSite **newest = arg;
    if (*newest == NULL)
        *newest = site;
}

void strata_roots_pop_slow(StgPtr f)
{
    StgPtr end = f + ROOT_FRAME_HEADER_WORDS + f[1];
    if (end != strata_regs.sp || f < strata_regs.sp_base) {
        const StgRootSite *site = frame_site(f), *newest = NULL;
        for_each_frame_newest_first(keep_first_site, &newest);
        if (newest == NULL)
            newest = &(const StgRootSite){"(no frame)", "?", 0};
        rts_panic("local roots popped out of order: the frame pushed in %s (%s:%d) "
                  "is not the newest frame; the newest, pushed in %s (%s:%d), was not popped",
                  site->func, site->file, site->line, newest->func, newest->file,
                  newest->line);
    }
    StgStack *cur = roots_current_stack();
    if (f != strata_regs.sp_base || cur->prev == NULL) {
        strata_regs.sp = f;
        return;
    }
    /* The chunk is empty: go back to the older one, keep this as spare. */
    cur->sp = cur->stack;
    StgStack *older = cur->prev;
    cur->prev = NULL;
    my_tso()->spare_stack = cur;
    my_tso()->stack = older;
    regs_enter_chunk(older);
}

/* ----------------------------------------------------------------------
 * Frames left at exit
 * ---------------------------------------------------------------------- */

static void count_frame(const StgRootSite *site, void *arg)
{
    (void)site;
    ++*(StgWord *)arg;
}

static void report_frame(const StgRootSite *site, void *arg)
{
    (void)arg;
    rts_error("hs_exit:   pushed in %s (%s:%d)", site->func, site->file, site->line);
}

bool roots_frames_hold(StgStack *top, StgPtr top_sp, const StgRootSite *site, StgWord slot,
                       const StgClosure *c)
{
    for (StgStack *s = top; s != NULL; s = s->prev) {
        StgPtr end = s == top ? top_sp : s->sp;
        for (StgPtr f = s->stack; f < end; f += ROOT_FRAME_HEADER_WORDS + f[1])
            if (frame_site(f) == site && f[1] > slot &&
                f[ROOT_FRAME_HEADER_WORDS + slot] == (StgWord)c)
                return true;
    }
    return false;
}

bool roots_frame_holds(const StgRootSite *site, StgWord slot, const StgClosure *c)
{
    if (strata_regs.sp_base == NULL)
        return false;
    return roots_frames_hold(roots_current_stack(), strata_regs.sp, site, slot, c);
}

StgWord roots_pushed_frames_mine(void)
{
    if (strata_regs.sp_base == NULL)
        return 0;
    StgWord n = 0;
    for_each_frame_newest_first(count_frame, &n);
    return n;
}

StgWord roots_report_pushed_frames(void)
{
    if (strata_regs.sp_base == NULL)
        return 0;
    StgWord n = 0;
    for_each_frame_newest_first(count_frame, &n);
    if (n == 0)
        return 0;
    rts_error("hs_exit: %lu local-root frame%s still pushed (each STRATA_ROOTS needs its "
              "STRATA_ROOTS_POP), newest first:", (unsigned long)n, n == 1 ? " is" : "s are");
    for_each_frame_newest_first(report_frame, NULL);
    return n;
}
