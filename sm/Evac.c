/*
 * sm/Evac.c -- evacuation: moving one object out of from-space.
 *
 * evacuate(p) makes *p point at the to-space copy of the object it points
 * at, copying it on first visit and leaving a forwarding pointer behind
 * (Note [Forwarding pointers] in ClosureSize.h).  Indirections are
 * short-circuited here.  Large objects and pinned blocks are relinked,
 * never copied.  Copies go to a block of the object's destination
 * generation and *the same era* (Note [Eras live in block descriptors] in
 * heap/Era.c).  Nothing here recurses: Scav.c scans the copies.  The
 * common cases are inline in Evac.h (Note [The evacuate fast path]).
 */

#include "BlockAlloc.h"
#include "ClosureSize.h"
#include "EraRuns.h"
#include "Evac.h"
#include "GCPrivate.h"
#include "MBlock.h"
#include "Messages.h"
#include "NonMoving.h"
#include "os/Thread.h"

/* ----------------------------------------------------------------------
 * To-space allocation
 * ---------------------------------------------------------------------- */

/* A new to-space block of generation g and era for this GC thread, on its
 * list of blocks opened in this collection (merged into g at the end). */
static BlockDesc *new_todo_block(GenWorkspace *ws, Generation *g, uint64_t era)
{
    BlockDesc *bd = gc_alloc_block();
    bd->gen = g;
    block_set_gen_no(bd, (uint16_t)g->no);
    bd->dest_no = g->promote_to;
    bd->era = era;
    bd->n_era_runs = 0;
    bd->flags = g->no <= gct->collected_gen ? BF_EVACUATED : 0;
    bd->u.scan = bd->start;
    bd->link = ws->blocks;
    if (ws->blocks == NULL)
        ws->blocks_tail = bd;
    ws->blocks = bd;
    ws->n_blocks++;
    return bd;
}

/* Note [Sharing work]
 * ~~~~~~~~~~~~~~~~~~~~
 * A GC thread scans the blocks it fills (its scan queue: Note [Scanning
 * what was copied] in Scav.c).  When it stops filling one -- the block is
 * full, or its era moves to a new block -- and the block still holds
 * unscanned words, it gives the block up onto its work-stealing deque,
 * where any thread may take it (.inv.gc-owner).  So that idle threads need
 * not wait for a block to fill, a copy checks every WORK_UNIT_WORDS
 * whether some thread is idle; if one is and the block holds at least
 * that much unscanned work, the block is given up early and the copies
 * go on in a fresh block (at most one such block waits in a thread's
 * deque at a time).  The block being scanned is never given up: its
 * scanner finishes it.  With one GC thread nothing is given up and this
 * costs nothing (the soft limit is the block's end).  A large object found
 * live goes onto the deque of the thread that found it too, so the large
 * objects of a collection are shared out (each is scanned whole by one
 * thread). */
#define WORK_UNIT_WORDS 128

/* Gives up a block this thread no longer fills (Note [Sharing work]). */
static void give_up_block(BlockDesc *bd)
{
    GCThread *t = gct;
    if (!t->parallel || bd == t->scanning || bd->u.scan == bd->free)
        return;
    if (bd->flags & BF_SCANQ)
        bd_flags_clear(bd, BF_SCANQ);   /* its scan queue entry goes stale */
    if (t->ws[bd->gen_no].last_dest == bd)   /* Note [The cursor is on the scan queue] */
        t->ws[bd->gen_no].last_limit = NULL;
    gc_share_block(bd);
}

/* Where copies into bd must stop for now: the block's end, or in a
 * parallel GC the end of the next work unit. */
static inline StgPtr cursor_limit(const BlockDesc *bd)
{
    StgPtr end = block_alloc_limit(bd);
    if (gct->parallel && bd->free + WORK_UNIT_WORDS < end)
        return bd->free + WORK_UNIT_WORDS;
    return end;
}

/* Note [Where a copy goes]
 * ~~~~~~~~~~~~~~~~~~~~~~~~
 * A copy goes to a block of its destination generation and its own era
 * (.inv.block-era), one of the copying GC thread's own (.inv.gc-owner).
 * An era gets a to-space block of its own once it has copied
 * ERA_OWN_BLOCK_WORDS into this generation in this GC, by this thread (or
 * kept one from an earlier GC, for a generation not collected); until then
 * its objects go to the thread's shared block of the generation, in era
 * runs (Note [Blocks of several eras] in EraRuns.h).  So an era with much
 * live data costs what it always did, at most one partly filled block per
 * GC thread, plus the first ERA_OWN_BLOCK_WORDS it copied into a shared
 * block before it had one; an era with a few objects costs a word of run
 * record instead of a block: 20,000 eras of one object each take about a
 * megabyte, not 80.  The map slot of an era holds its own block or,
 * tagged, its count of words in shared blocks.  An eighth of a block is
 * the threshold: on era_stress it left far less of the heap in shared
 * blocks and runs than half a block did (docs/design/eras.md has the
 * figures), and below the threshold an own block would be mostly empty. */
#define ERA_OWN_BLOCK_WORDS (BLOCK_SIZE_W / 8)

static inline bool slot_is_block(StgWord v)
{
    return v != 0 && (v & 1) == 0;
}

/* The shared block with room for n words of era, opened anew when the
 * current one has no room for them and their run. */
static BlockDesc *shared_dest(GenWorkspace *ws, Generation *g, StgWord n_words, uint64_t era)
{
    BlockDesc *bd = ws->shared_dest;
    if (bd != NULL) {
        StgWord need = n_words + (block_last_era(bd) == era ? 0 : ERA_RUN_WORDS);
        if (bd->free + need <= block_alloc_limit(bd) && block_start_era_run(bd, era))
            return bd;
        give_up_block(bd);
    }
    bd = new_todo_block(ws, g, era);
    ws->shared_dest = bd;
    return bd;
}

/* Stops copying into bd (the era's own block or the shared one) before it
 * is full, so that an idle thread can take it (Note [Sharing work]). */
static void close_block_early(GenWorkspace *ws, Generation *g, BlockDesc *bd, uint64_t era)
{
    if (bd == ws->shared_dest) {
        ws->shared_dest = NULL;
    } else {
        StgWord *slot = era_map_slot(&ws->dests, era);
        if (*slot == (StgWord)bd)
            *slot = (StgWord)new_todo_block(ws, g, era);
    }
    ws->last_dest = NULL;
    give_up_block(bd);
}

/* The last-used block is not of this era, is full, or reached its work
 * unit: find the era's own block or the shared one (Note [Where a copy
 * goes]). */
StgPtr gc_alloc_for_copy_slow(GenWorkspace *ws, uint16_t gen_no, StgWord n_words, uint64_t era)
{
    ASSERT_INTERNAL(n_words > 0 && n_words <= BLOCK_SIZE_W);
    ASSERT_INTERNAL(!nonmoving_on() || gen_no < storage_n_gens - 1);
    Generation *g = &storage_gens[gen_no];
    BlockDesc *bd = ws->last_dest;
    if (bd != NULL && ws->last_era == era && bd->free + n_words <= block_alloc_limit(bd)) {
        /* Only the work unit is used up. */
        if (gc_work_wanted() && bd != gct->scanning && ws_deque_looks_empty(&gct->deque) &&
            (StgWord)(bd->free - bd->u.scan) >= WORK_UNIT_WORDS)
            close_block_early(ws, g, bd, era);
        else
            goto bump;
    }
    StgWord *slot = era_map_slot(&ws->dests, era);
    if (slot_is_block(*slot)) {
        bd = (BlockDesc *)*slot;
        if (bd->free + n_words > block_alloc_limit(bd)) {
            give_up_block(bd);
            bd = new_todo_block(ws, g, era);
            *slot = (StgWord)bd;
        }
    } else {
        StgWord shared_words = *slot >> 1;
        if (shared_words + n_words >= ERA_OWN_BLOCK_WORDS) {
            bd = new_todo_block(ws, g, era);
            *slot = (StgWord)bd;
        } else {
            *slot = ((shared_words + n_words) << 1) | 1;
            bd = shared_dest(ws, g, n_words, era);
        }
    }
bump:
    ws->last_dest = bd;
    ws->last_era = era;
    ws->last_limit = cursor_limit(bd);
    if (ws->last_limit < bd->free + n_words)
        ws->last_limit = block_alloc_limit(bd);
    StgPtr p = bd->free;
    bd->free += n_words;
    ws->n_words += n_words;
    gc_note_copy_into(bd);
    return p;
}

/* Note [Immutable copies without a claim]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A constructor or function never changes after it is made, so two
 * copies of one are as good as one: when two GC threads copy it at once,
 * each points its own slot at its own copy and stores its forwarding
 * pointer with a release store, the last store wins for later visitors,
 * and the two copies hold the same words.  GHC's parallel collector does
 * the same for these closure types.  The claim's compare-and-swap is
 * then paid only for thunks (an update must reach every referrer) and
 * mutable objects, and a parallel GC of a heap of constructors costs per
 * byte about what a sequential one does: the locked instruction, which
 * also waits for the copy's stores to drain, had been the largest share
 * of a parallel GC's samples (bench/optimisations.md, row 6b89494).
 *
 * Where a duplicate would show, every copy is claimed (unique_copies):
 * in a GC that counts a census (the duplicate would count twice), and
 * while a weak pointer or a stable name exists (each holds one address
 * by identity: the copy a referrer kept could die, or get a second name,
 * while its twin lives).  A duplicate is rare -- two threads must reach
 * one object within the same few nanoseconds -- and lives only as long
 * as the referrer that points at it, so a later census counts what the
 * program still holds. */

/* The words of a copy of size words out of from-space block bd that
 * count as promoted out of the aging blocks: size unless bd is a nursery
 * block.  Read only under --nonmoving-gc with two generations, where
 * from-space is generation 0 alone.  A relaxed load, with no test of the
 * generation, since it costs every copy into a segment: BF_NURSERY does
 * not change during a collection. */
static inline StgWord aged_words(const BlockDesc *bd, StgWord size)
{
    return __atomic_load_n(&bd->flags, __ATOMIC_RELAXED) & BF_NURSERY ? 0 : size;
}

/* Takes back this thread's copy of n_words at to, its latest allocation
 * in generation gen_no: another thread copied the object first. */
static void retract_copy(uint16_t gen_no, StgPtr to, StgWord n_words)
{
    BlockDesc *bd = Bdescr(to);
    GenWorkspace *ws = &gct->ws[gen_no];
    ws->n_words -= n_words;
    if (bd_is_segment(bd)) {
        nonmoving_retract_copy(to);
        return;
    }
    ASSERT_INTERNAL(bd->free == to + n_words);
    bd->free = to;
    /* A run the copy started would now be empty: drop it, and make the
     * next copy look the era up again (.inv.era-runs). */
    if (bd->n_era_runs > 0 &&
        era_run_offset(*block_era_run(bd, bd->n_era_runs - 1)) == (StgWord)(to - bd->start)) {
        bd->n_era_runs--;
        ws->last_dest = NULL;
    }
}

void evacuate_claim(StgClosure **p, StgClosure *q, const StgInfoTable *info, StgPtr to,
                    StgWord size)
{
    GCThread *t = gct;
    uint16_t to_gen = Bdescr(to)->gen_no;
    const StgInfoTable *fwd = (const StgInfoTable *)((StgWord)to | 1);
    if (__atomic_compare_exchange_n(&q->info, &info, fwd, false, __ATOMIC_RELEASE,
                                    __ATOMIC_ACQUIRE)) {
        slot_store(p, (StgClosure *)to);
        return;
    }
    /* info now holds the winner's forwarding pointer. */
    retract_copy(to_gen, to, size);
    if (bd_is_segment(Bdescr(to)))
        t->aged_promoted_words -= aged_words(Bdescr(q), size);
    StgClosure *winner = (StgClosure *)((StgWord)info & ~(StgWord)1);
    if (Bdescr(winner)->gen_no < t->evac_gen)
        t->failed_to_evac = true;
    slot_store(p, winner);
}

/* ----------------------------------------------------------------------
 * Evacuation
 * ---------------------------------------------------------------------- */

/* Note [Prefetching at the copy]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Evacuating a child costs mostly the cache miss on the from-space object.
 * The copy has just read its parent's fields, so it prefetches the
 * children there, for the scan that will evacuate them: the scan works on
 * the newest to-space block (the scan queue is a stack, Note [Scanning
 * what was copied] in Scav.c), about a block behind the copies, so the
 * prefetches have a few thousand bytes of scanning to arrive in.  The
 * words prefetched are the first ones after the header, as many as the
 * info table has pointers (at most PREFETCH_COPY_FIELDS): a constructor's
 * or a function's pointers come first, so these are its children; for a
 * thunk (two header words) the hint lands one word early, and for the
 * other types, copied rarely, it may be no pointer at all.  A prefetch
 * never faults, and prefetching NULL or a static closure is harmless.
 * Write intent: a child's header takes a forwarding pointer.  Taking the
 * pointers' exact place from the table (the scan's way) made the compiler
 * save a register in evacuate_heap and lost most of the gain.
 *
 * This replaced a walk that ran 48 words ahead of the scan and read each
 * object there a second time (bench/optimisations.md, row b0319de). */
#define PREFETCH_COPY_FIELDS 4

/* Note [Prefetching to-space]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A copy writes to-space in order, and the first write to each cache line
 * of a block the collector has not touched lately (most of a major GC's
 * to-space) waits for the line to be read in for ownership.  Each copy
 * on the fast path asks for the line TOSPACE_PREFETCH_WORDS words past
 * its own, so that the line is there when the copies reach it (the hint
 * says write, which baseline x86-64 code emits as a plain prefetcht0; an
 * explicit prefetchw measured the same).  Past the block's end the hint
 * lands in the next block or in memory the heap does not use; a prefetch
 * never faults.  64 words (512 bytes, eight lines) ahead: 32 and 128
 * measured the same (bench/optimisations.md, row 100f948). */
#define TOSPACE_PREFETCH_WORDS 64

/* The end of every copy: the header and fields, then the forwarding
 * pointer, or the claim when another GC thread may copy too (Note
 * [Copying alone] in GCThread.c). */
static inline __attribute__((always_inline)) void
finish_copy(GCThread *t, StgClosure **p, StgClosure *q, const StgInfoTable *info, StgPtr to,
            StgWord size)
{
    const StgWord *from = (const StgWord *)q;
    to[0] = (StgWord)info;
    /* Most copies are of two or three words (a box, a cons cell, a tree
     * node): those without the loop's counter and exit test. */
    StgWord n_ptrs = info->ptrs;   /* Note [Prefetching at the copy] */
    if (STRATA_LIKELY(size <= 3)) {
        if (size >= 2) {
            to[1] = from[1];
            if (n_ptrs >= 1)
                __builtin_prefetch((const void *)from[1], 1);
        }
        if (size == 3) {
            to[2] = from[2];
            if (n_ptrs >= 2)
                __builtin_prefetch((const void *)from[2], 1);
        }
    } else {
        for (StgWord i = 1; i < size; i++)
            to[i] = from[i];
        if (n_ptrs > PREFETCH_COPY_FIELDS)
            n_ptrs = PREFETCH_COPY_FIELDS;
        if (n_ptrs >= size)   /* not a fixed layout: stay inside the object */
            n_ptrs = size - 1;
        for (StgWord i = 1; i <= n_ptrs; i++)
            __builtin_prefetch((const void *)from[i], 1);
    }
    if (STRATA_UNLIKELY(t->claim)) {
        if (info->type >= THUNK || t->unique_copies) {
            evacuate_claim(p, q, info, to, size);
            return;
        }
        /* Note [Immutable copies without a claim]: the copy's words
         * before its address. */
        __atomic_store_n(&q->info, (const StgInfoTable *)((StgWord)to | 1), __ATOMIC_RELEASE);
        slot_store(p, (StgClosure *)to);
        return;
    }
    q->info = (const StgInfoTable *)((StgWord)to | 1);
    slot_store(p, (StgClosure *)to);
}

/* The generation a copy of an object in from-space block bd goes to. */
static inline uint16_t copy_dest_gen(const GCThread *t, const BlockDesc *bd)
{
    return bd->dest_no < t->evac_gen ? t->evac_gen : bd->dest_no;
}

/* Note [Finding a copy's era]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * An object in a from-space block of several eras takes the era of the
 * run it lies in (.inv.block-era).  A binary search of the block's runs
 * for every such copy cost what the rest of the copy did: with 100,000
 * eras over 160,000 objects (bench/eras) each search read seven or eight
 * run records in a chain, each load waiting on the one before, and a major
 * GC took far longer than with the search inline in the copy's fast
 * path, where, it seems, the CPU had overlapped it with the rest of the
 * copy (bench/optimisations.md, row 5c66f20).  But copies come in the order the
 * scan meets them, which is mostly the order the objects were allocated
 * in, so each GC thread keeps the run its last lookup found (EraFinger):
 * an object in that run, or in the next one or two, is found without a
 * search.  The world is stopped, so a from-space block gains no run during
 * the collection, and the finger is forgotten when the next one starts. */
#define ERA_FINGER_STEPS 2

/* The start (word offset) of run i of bd, n runs in all; i == n is the
 * block's end. */
static inline StgWord era_run_start(const BlockDesc *bd, uint32_t i, uint32_t n)
{
    return i < n ? era_run_offset(*block_era_run(bd, i)) : (StgWord)bd->blocks * BLOCK_SIZE_W;
}

/* Points f at run `run` of bd (0: the block's first era, before any run;
 * i + 1: run i). */
static inline void era_finger_set(EraFinger *f, const BlockDesc *bd, uint32_t run, uint32_t n)
{
    f->bd = bd;
    f->run = run;
    f->lo = run == 0 ? 0 : era_run_start(bd, run - 1, n);
    f->hi = era_run_start(bd, run, n);
    f->era = run == 0 ? bd->era : era_run_era(bd, *block_era_run(bd, run - 1));
}

/* Moves f to the run of bd that holds offset off: the next one or two
 * runs, else a binary search. */
static void era_finger_find(EraFinger *f, const BlockDesc *bd, StgWord off, uint32_t n)
{
    if (f->bd == bd)
        for (uint32_t step = 0; step < ERA_FINGER_STEPS && off >= f->hi && f->run < n; step++) {
            era_finger_set(f, bd, f->run + 1, n);
            if (off >= f->lo && off < f->hi)
                return;
        }
    era_finger_set(f, bd, block_era_runs_upto(bd, n, off), n);
}

/* The era of q, in from-space block bd (Note [Finding a copy's era]). */
static uint64_t era_of_from_space(GCThread *t, const BlockDesc *bd, const StgClosure *q)
{
    uint32_t n = bd->n_era_runs;
    if (n == 0)
        return bd->era;
    StgWord off = (StgWord)((const StgWord *)q - bd->start);
    EraFinger *f = &t->era_finger;
    if (f->bd != bd || off < f->lo || off >= f->hi)
        era_finger_find(f, bd, off, n);
    ASSERT_INTERNAL(f->era == block_era_at(bd, q));
    return f->era;
}

/* A copy whose to-space block is not the last one used, is full or
 * reached its work unit, or is not on the scan queue (again), or whose
 * object lies in a block of several eras.  The destination and era are
 * found again here, so that the fast path need not keep them for the
 * call (Note [A copy without a call]). */
static __attribute__((noinline)) void
evacuate_copy_slow(StgClosure **p, StgClosure *q, const StgInfoTable *info, StgWord size)
{
    GCThread *t = gct;
    const BlockDesc *bd = Bdescr(q);
    uint16_t to_gen = copy_dest_gen(t, bd);
    uint64_t era = era_of_from_space(t, bd, q);
    StgPtr to;
    if (STRATA_UNLIKELY(nonmoving_on()) && to_gen == storage_n_gens - 1) {
        /* The non-moving generation has no to-space blocks, so its cursor
         * never serves a copy: a slot, straight away (Note [Promoting
         * into segments] in NonMovingAlloc.c). */
        t->ws[to_gen].n_words += size;
        t->aged_promoted_words += aged_words(bd, size);   /* Note [A probe that ages a sample] */
        to = nonmoving_alloc_copy_inline(t->nm, size, era,
                                         nonmoving_copy_needs_scan(info, t->tally != NULL));
    } else {
        to = gc_alloc_for_copy(size, to_gen, era);
    }
    /* The copy keeps its era and lands in to-space (.inv.block-era,
     * .inv.tospace in docs/design/gc.md). */
    ASSERT_INTERNAL(heap_object_era(to) == era && Bdescr(to)->gen_no == to_gen);
    ASSERT_INTERNAL((Bdescr(to)->flags & BF_EVACUATED) || to_gen > t->collected_gen);
    finish_copy(t, p, q, info, to, size);
}

/* Note [A copy without a call]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Copies q (size words, in from-space block bd, header info) to a
 * to-space block of its destination generation and era, leaves a
 * forwarding pointer, and points *p at the copy (or at another thread's
 * copy).  The common copy -- into the block the last copy of this
 * generation and era went to, with room and already on the scan queue --
 * calls nothing; everything else leaves by a tail call
 * (evacuate_copy_slow, evacuate_claim, evacuate_slow).  So evacuate_heap
 * is a leaf and saves no register: when a call sat in the middle of the
 * fast path, every evacuation, even of an object already forwarded or
 * not in from-space, pushed and popped six callee-saved registers
 * (bench/optimisations.md, row e157a9d).  For
 * the same reason a copy counts its words once, in its generation's
 * workspace (ws->n_words, which a retracted copy gives back); the thread's
 * copied_words is their sum, taken when the workspaces are merged.
 * Inlined: out of line, reached by a tail call, it cost more
 * instructions (bench/optimisations.md, row 46453f7).
 *
 * A leaf still saved registers on every copy when the copy needed more
 * than the nine a call may clobber: the inlined search of a block's era
 * runs, and the destination and era kept live for the slow path's
 * arguments, made the compiler push six callee-saved registers before
 * the forwarding test.  The search is now in the slow path, which finds
 * the destination and era again from q, so the fast path fits in the
 * scratch registers and pushes nothing (bench/optimisations.md, row
 * 71b188f).  Check the disassembly of evacuate_heap after
 * changing this path: no push. */
static inline __attribute__((always_inline)) void
evacuate_copy(StgClosure **p, StgClosure *q, const BlockDesc *bd, const StgInfoTable *info,
              StgWord size)
{
    GCThread *t = gct;
    ASSERT_INTERNAL(!(bd->flags & BF_EVACUATED) && bd->gen_no <= t->collected_gen);
    ASSERT_EXPENSIVE(closure_sizeW_info(q, info) == size);
    uint16_t to_gen = copy_dest_gen(t, bd);
    if (STRATA_UNLIKELY(__atomic_load_n(&bd->n_era_runs, __ATOMIC_ACQUIRE) != 0)) {
        evacuate_copy_slow(p, q, info, size);
        return;
    }
    uint64_t era = bd->era;
    GenWorkspace *ws = &t->ws[to_gen];
    BlockDesc *dest = ws->last_dest;
    /* A cursor whose block left the scan queue has no limit (Note [The
     * cursor is on the scan queue] in Scav.c), so this test covers it. */
    if (STRATA_UNLIKELY(dest == NULL || ws->last_era != era ||
                        dest->free + size > ws->last_limit)) {
        evacuate_copy_slow(p, q, info, size);
        return;
    }
    ASSERT_INTERNAL(dest->flags & BF_SCANQ);
    StgPtr to = dest->free;
    dest->free += size;
    ws->n_words += size;
    __builtin_prefetch(to + TOSPACE_PREFETCH_WORDS, 1);   /* Note [Prefetching to-space] */
    ASSERT_INTERNAL(heap_object_era(to) == era && Bdescr(to)->gen_no == to_gen);
    ASSERT_INTERNAL((Bdescr(to)->flags & BF_EVACUATED) || to_gen > t->collected_gen);
    finish_copy(t, p, q, info, to, size);
}

/* Note [A copy's size from its info table]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The copy fast path takes the object's size from its info table's
 * fixed_words, which the STRATA_*_INFO macros compute when the program is
 * compiled, instead of testing the closure type's range and adding
 * header, pointers and non-pointers on every copy (bench/optimisations.md,
 * row 0011d16).  A table with fixed_words 0 -- an array,
 * a stack, any runtime table of a variable size, or a user's table
 * written out without the macros -- goes to evacuate_slow, which works
 * the size out from the type (closure_sizeW_info).  The sanity checker
 * (-DS) reports a table whose fixed_words disagrees with its layout. */

/* q is in from-space (block bd, flags read once): follows its forwarding
 * pointer or copies it. */
static inline __attribute__((always_inline)) void
evacuate_collected(GCThread *t, StgClosure **p, StgClosure *q, const BlockDesc *bd,
                   uint16_t flags)
{
    const StgInfoTable *info = __atomic_load_n(&q->info, __ATOMIC_ACQUIRE);
    if ((StgWord)info & 1) {   /* forwarded (Note [Forwarding pointers]) */
        StgClosure *to = (StgClosure *)((StgWord)info & ~(StgWord)1);
        ASSERT_INTERNAL(heap_alloced(to));
        ASSERT_INTERNAL(t->parallel || heap_object_era(to) == block_era_at(bd, q));
        if (Bdescr(to)->gen_no < t->evac_gen)
            t->failed_to_evac = true;
        slot_store(p, to);
        return;
    }
    /* Note [A copy's size from its info table]: 0 for anything that is
     * not a constructor, function or thunk of a macro-made table. */
    StgWord size = info->fixed_words;
    if (STRATA_UNLIKELY((flags & (BF_LARGE | BF_PINNED)) || size == 0)) {
        evacuate_slow(p);
        return;
    }
    evacuate_copy(p, q, bd, info, size);
}

void evacuate_heap(StgClosure **p, StgClosure *q)
{
    BlockDesc *bd = Bdescr(q);
    GCThread *t = gct;
    uint16_t flags = bd_flags(bd);
    if (bd_gen_no(bd) > t->collected_gen || (flags & BF_EVACUATED)) {
        if (bd_gen_no(bd) < t->evac_gen)
            t->failed_to_evac = true;
        if (STRATA_UNLIKELY(flags & BF_NONMOVING))
            nonmoving_gc_reached(q);   /* Note [The snapshot] in NonMoving.c */
        return;
    }
    evacuate_collected(t, p, q, bd, flags);
}

void evacuate_from_space(StgClosure **p, StgClosure *q, const BlockDesc *bd)
{
    evacuate_collected(gct, p, q, bd, bd_flags(bd));
}


/* The from-space large-object lists, shared by the GC threads. */
static OsMutex large_lock = OS_MUTEX_INIT;

/* Keeps a large or pinned group alive: moves it to its destination
 * generation and onto this thread's list to scan.  Under large_lock when
 * threads run in parallel, where another may have kept it first; the
 * generation is written before BF_EVACUATED, which readers test first. */
static void evacuate_large(BlockDesc *bd)
{
    GCThread *t = gct;
    if (t->parallel) {
        os_mutex_lock(&large_lock);
        if (bd_flags(bd) & BF_EVACUATED) {
            os_mutex_unlock(&large_lock);
            return;
        }
    }
    ASSERT_INTERNAL(!(bd->flags & BF_EVACUATED) && bd->gen_no <= t->collected_gen);
    Generation *from = &storage_gens[bd->gen_no];
    dbl_link_remove(bd, &from->old_large);
    uint16_t to = copy_dest_gen(t, bd);
    Generation *g = &storage_gens[to];
    bd->gen = g;
    block_set_gen_no(bd, to);
    bd->dest_no = g->promote_to;
    if (to == storage_n_gens - 1 && nonmoving_on())
        nonmoving_adopt_group(bd);
    bd_flags_set(bd, BF_EVACUATED);
    if (t->parallel) {
        os_mutex_unlock(&large_lock);
        gc_share_block(bd);   /* any GC thread may scan it (Note [Sharing work]) */
        return;
    }
    bd->link = t->todo_large;
    t->todo_large = bd;
}

/* Large and pinned objects are relinked, indirections short-circuited
 * (their value goes back through evacuate, which knows every other rule),
 * and anything else is copied whole. */
void evacuate_slow(StgClosure **p)
{
    StgClosure *q = slot_load(p);
    BlockDesc *bd = Bdescr(q);
    if (bd_flags(bd) & (BF_LARGE | BF_PINNED)) {
        evacuate_large(bd);
        if (bd_gen_no(bd) < gct->evac_gen)
            gct->failed_to_evac = true;
        return;
    }
    const StgInfoTable *info = __atomic_load_n(&q->info, __ATOMIC_ACQUIRE);
    if ((StgWord)info & 1) {   /* another GC thread copied it meanwhile */
        evacuate(p);
        return;
    }
    if (info->type == IND) {
        slot_store(p, ((StgInd *)q)->indirectee);
        evacuate(p);
        return;
    }
    StgWord size = closure_sizeW_info(q, info);
    if (STRATA_UNLIKELY(size == 0))
        rts_panic("evacuate: object of unknown closure type (object=%p, type=%u, block=%p)",
                  (void *)q, (unsigned)info->type, (void *)bd);
    evacuate_copy(p, q, bd, info, size);
}
