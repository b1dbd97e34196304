/*
 * sm/Sanity.c -- the heap sanity checker, run before and after every GC
 * with +RTS -DS (in every build: it costs nothing when off).
 *
 * It checks, in order: the megablock and block free lists (their own
 * checks); every block on every heap list belongs to its generation, has
 * a valid era and sane bounds; every object in those blocks has a valid
 * info table and size; every pointer field is NULL, a static closure or
 * the start of an object inside a heap block that is on a heap list (so
 * nothing points into from-space or freed memory); every pointer from an
 * old generation to a younger one is in a remembered set (.inv.remembered
 * in MutList.h); and the block inventory balances: the blocks on heap
 * lists, mutable lists and the nursery are exactly the blocks the block
 * allocator has handed out (.inv.block-inventory).
 */
#include "Sanity.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "BlockAlloc.h"
#include "ClosureSize.h"
#include "EraRuns.h"
#include "GC.h"
#include "GrowArray.h"
#include "HeapIter.h"
#include "os/Image.h"
#include "MBlock.h"
#include "Messages.h"
#include "MutList.h"
#include "NonMoving.h"
#include "Era.h"
#include "Heap.h"
#include "SanityPrivate.h"
#include "Segment.h"
#include "Weak.h"

#if defined(STRATA_ASAN)
#include <sanitizer/asan_interface.h>
#endif

static const char *check_when;

/* The old objects on mutable lists, for the remembered-set check: a
 * sorted array searched by bisection. */
static StgWord *remembered = NULL;
static StgWord n_remembered = 0;
static size_t cap_remembered = 0;   /* GROW_ARRAY_RESERVE's capacity */

void sanity_fail(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: sanity check failed (%s): ", rts_prog_name, check_when);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    abort();
}

#define fail sanity_fail

/* ----------------------------------------------------------------------
 * Blocks
 * ---------------------------------------------------------------------- */

/* .inv.era-runs (sm/block/EraRuns.h): offsets increase within the used part,
 * and no run's era was never current. */
static void check_era_runs(const BlockDesc *bd)
{
    StgWord prev = 0;
    for (uint32_t i = 0; i < bd->n_era_runs; i++) {
        StgWord off = era_run_offset(*block_era_run(bd, i));
        uint64_t era = era_run_era(bd, *block_era_run(bd, i));
        if (off <= prev || bd->start + off > bd->free)
            fail("era run out of order or past the block's objects (block=%p, run=%u, "
                 "offset=%lu words, previous=%lu, used=%lu words)", (void *)bd, (unsigned)i,
                 (unsigned long)off, (unsigned long)prev, (unsigned long)(bd->free - bd->start));
        if (era > storage_max_era())
            fail("era run has an era that was never current (block=%p, run=%u, era=%lu, "
                 "max era=%lu)", (void *)bd, (unsigned)i, (unsigned long)era,
                 (unsigned long)storage_max_era());
        prev = off;
    }
}

/* .inv.young-map: pass 1 counts the groups of generation 0 in each
 * megablock between the lowest and highest it visits, to compare with
 * the young-group map (Note [The young-group map] in BlockAlloc.h). */
static uint8_t *young_expected;
static StgWord young_expected_n;     /* its length: the reservation's megablocks */
static StgWord young_lo, young_hi;   /* megablock indices visited: [lo, hi) */

static StgWord mblock_index(const void *p)
{
    return (StgWord)((const char *)p - mblock_heap_base) >> MBLOCK_SHIFT;
}

static void count_young(const BlockDesc *bd)
{
    StgWord i = mblock_index(bd);
    if (i < young_lo)
        young_lo = i;
    if (i >= young_hi)
        young_hi = i + 1;
    if (bd->gen_no == 0)
        young_expected[i]++;
}

static void check_young_map(void)
{
    for (StgWord i = young_lo; i < young_hi; i++) {
        const char *mb = mblock_heap_base + (i << MBLOCK_SHIFT);
        unsigned have = block_young_groups_in_mblock(mb);
        if (have != young_expected[i])
            fail("young-group map says %u groups of generation 0 in megablock %p, the heap's "
                 "lists hold %u", have, (const void *)mb, (unsigned)young_expected[i]);
        young_expected[i] = 0;
    }
}

/* Checks one group on a list and marks it BF_KNOWN; g is the generation
 * whose list holds it, NULL for a mutable list. */
static StgWord mark_block(BlockDesc *bd, const Generation *g, uint16_t must_flags,
                          const char *what)
{
    if (bd->free == (StgPtr)-1)
        fail("a free block is on the %s list (block=%p)", what, (void *)bd);
    if (Bdescr(bd->start) != bd)
        fail("block descriptor does not describe its start (block=%p, start=%p)",
             (void *)bd, (void *)bd->start);
    if (bd->flags & BF_KNOWN)
        fail("block is on two lists, or twice on the %s list (block=%p)", what, (void *)bd);
    if (g != NULL && (bd->gen != g || bd->gen_no != g->no))
        fail("block on generation %u's %s list belongs to generation %u (block=%p)",
             (unsigned)g->no, what, (unsigned)bd->gen_no, (void *)bd);
    if (g != NULL && bd->era > storage_max_era())
        fail("block has an era that was never current (block=%p, era=%lu, max era=%lu)",
             (void *)bd, (unsigned long)bd->era, (unsigned long)storage_max_era());
    if ((must_flags & bd->flags) != must_flags)
        fail("block on the %s list lacks flags 0x%x (block=%p, flags=0x%x)", what,
             (unsigned)must_flags, (void *)bd, (unsigned)bd->flags);
    if (bd->n_era_runs != 0 && (g == NULL || bd->blocks != 1 ||
                                ERA_RUN_WORDS * bd->n_era_runs > BLOCK_SIZE_W))
        fail("era runs in a block that cannot have them (block=%p, runs=%u, blocks=%u)",
             (void *)bd, (unsigned)bd->n_era_runs, (unsigned)bd->blocks);
    if (bd->free < bd->start || bd->free > block_alloc_limit(bd))
        fail("block's free pointer is outside the block (block=%p, start=%p, free=%p, blocks=%u, "
             "era runs=%u)", (void *)bd, (void *)bd->start, (void *)bd->free,
             (unsigned)bd->blocks, (unsigned)bd->n_era_runs);
    if (bd->flags & BF_SCANQ)
        fail("block still on the GC's scan queue (block=%p)", (void *)bd);
    check_era_runs(bd);
    count_young(bd);
    bd->flags |= BF_KNOWN;
    return bd->blocks;
}

static StgWord mark_list(BlockDesc *list, const Generation *g, const char *what)
{
    StgWord n = 0;
    for (BlockDesc *bd = list; bd != NULL; bd = bd->link)
        n += mark_block(bd, g, 0, what);
    return n;
}

/* Pass 1's visitor over the heap's groups: counts their blocks. */
static void mark_heap_block(BlockDesc *bd, HeapBlockKind kind, Generation *gen, void *ctx)
{
    static const char *const what[] = {
        [HEAP_BLOCK_SMALL] = "block", [HEAP_BLOCK_LARGE] = "large-object",
        [HEAP_BLOCK_PINNED] = "pinned", [HEAP_BLOCK_NURSERY] = "nursery",
        [HEAP_BLOCK_SEGMENT] = "segment",
    };
    uint16_t must = kind == HEAP_BLOCK_NURSERY ? BF_NURSERY
                    : kind == HEAP_BLOCK_PINNED ? BF_PINNED
                    : kind == HEAP_BLOCK_SEGMENT ? BF_NONMOVING : 0;
    *(StgWord *)ctx += mark_block(bd, gen, must, what[kind]);
}

static void unmark_list(BlockDesc *list)
{
    for (BlockDesc *bd = list; bd != NULL; bd = bd->link)
        bd->flags &= (uint16_t)~BF_KNOWN;
}

static void unmark_heap_block(BlockDesc *bd, HeapBlockKind kind, Generation *gen, void *ctx)
{
    (void)kind;
    (void)gen;
    (void)ctx;
    bd->flags &= (uint16_t)~BF_KNOWN;
}

/* The groups a sweep beside the program freed and no collection has yet
 * given back (Note [Freeing the sweep's groups a budget at a time] in
 * NonMovingSweep.c): on no heap list, still allocated. */
static void mark_unfreed_group(BlockDesc *bd, void *ctx)
{
    *(StgWord *)ctx += mark_block(bd, NULL, 0, "non-moving sweep's unfreed");
}

static void unmark_group(BlockDesc *bd, void *ctx)
{
    (void)ctx;
    bd->flags &= (uint16_t)~BF_KNOWN;
}

static void check_large_links(const Generation *g)
{
    BlockDesc *prev = NULL;
    for (BlockDesc *bd = g->large_objects; bd != NULL; bd = bd->link) {
        if (bd->u.back != prev)
            fail("large-object list of generation %u has a bad back link (block=%p)",
                 (unsigned)g->no, (void *)bd);
        if (!(bd->flags & (BF_LARGE | BF_PINNED)))
            fail("group on the large-object list is neither large nor pinned (block=%p)",
                 (void *)bd);
        prev = bd;
    }
}

/* ----------------------------------------------------------------------
 * Objects
 * ---------------------------------------------------------------------- */

static int cmp_word(const void *a, const void *b)
{
    StgWord x = *(const StgWord *)a, y = *(const StgWord *)b;
    return x < y ? -1 : x > y;
}

static void collect_remembered(void)
{
    n_remembered = 0;
    for (unsigned g = 0; g < storage_n_gens; g++) {
        MUT_LIST_FOR_EACH(storage_gens[g].mut_list, c, {
            if (GROW_ARRAY_RESERVE_MIN(remembered, cap_remembered, n_remembered + 1, 1024) != 0)
                fail("out of C heap (remembered set of %lu entries)", (unsigned long)n_remembered);
            remembered[n_remembered++] = (StgWord)c;
        });
    }
    if (n_remembered > 1)
        qsort(remembered, n_remembered, sizeof *remembered, cmp_word);
}

static bool is_remembered(const StgClosure *c)
{
    StgWord key = (StgWord)c;
    StgWord lo = 0, hi = n_remembered;
    while (lo < hi) {
        StgWord mid = (lo + hi) / 2;
        if (remembered[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n_remembered && remembered[lo] == key;
}

/* Note [The checker reads only what it has proved readable]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The checker exists for heaps that are broken, so no word it finds may be
 * trusted as an address until it is proved to be one: a heap address must
 * lie in a megablock the allocator holds (mblock_holds) and in a block on
 * a heap list; a static closure or info table must lie in a readable
 * segment of the loaded program or a library (os_image_contains).  A word
 * that is neither is reported with the object and field it came from; it
 * is never read through, so a stray integer in a pointer field or an
 * object that runs onto garbage ends in a message, not a SIGSEGV. */
bool sanity_info_is_valid(const StgInfoTable *info)
{
    if (info == NULL || ((StgWord)info & (sizeof(void *) - 1)) != 0 || heap_alloced(info) ||
        !os_image_contains(info, sizeof *info))
        return false;
    return info->type > INVALID_OBJECT && info->type < N_CLOSURE_TYPES;
}

/* The type of the object holding a field; NULL is a root slot. */
static const char *describe_type(const StgClosure *c)
{
    return c == NULL ? "(root slot)" : strata_closure_type_name(c->info->type);
}

/* Note [Naming a stale pointer]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A pointer kept across a GC without a root (a C local, a global) still
 * holds the object's old address.  In debug builds (STRATA_DEBUG >= 2)
 * everything a GC leaves behind reads as HEAP_POISON_WORD (Note [Poisoning
 * free blocks] in BlockAlloc.c), and under AddressSanitizer freed blocks
 * are poisoned, so a heap pointer that fails a check and reads either way
 * is named stale: someone stored it back into a root or a field after the
 * object had moved.  Only words in a megablock the allocator holds are
 * read here, which are mapped (Note [The checker reads only what it has
 * proved readable]). */
static bool reads_poison(const StgClosure *p)
{
#if defined(STRATA_ASAN)
    if (__asan_address_is_poisoned(p))
        return true;
#endif
#if STRATA_DEBUG >= 2
    return *(const StgWord *)p == HEAP_POISON_WORD;
#else
    return false;
#endif
}

#define STALE_WHY "it points into freed memory or an earlier GC's from-space (poisoned, " \
                  "reads 0xaaaa...), so the object it meant has moved or died: a pointer " \
                  "kept across a GC must live in a root (strata_roots_push)"

_Noreturn static void fail_stale(const StgClosure *c, StgWord field, const StgClosure *p)
{
    if (c == NULL)
        fail("stale pointer in root slot %lu (value=%p): " STALE_WHY, (unsigned long)field,
             (void *)p);
    fail("stale pointer (object=%p %s, field=%lu, value=%p): " STALE_WHY, (void *)c,
         describe_type(c), (unsigned long)field, (void *)p);
}

static void check_block_pointer(const StgClosure *c, StgWord field, const StgClosure *p,
                                BlockDesc *bd);

/* Checks one pointer field of object c (in block owner, or static). */
void sanity_check_pointer(const StgClosure *c, const BlockDesc *owner, StgWord field,
                          const StgClosure *p)
{
    if (p == NULL)
        return;
    if (((StgWord)p & (WORD_SIZE - 1)) != 0)
        fail("misaligned pointer (object=%p %s, field=%lu, value=%p)", (void *)c,
             describe_type(c), (unsigned long)field, (void *)p);
    if (!heap_alloced(p)) {
        if (!os_image_contains(p, sizeof(StgClosure)))
            fail("pointer to neither the heap nor a static closure (object=%p %s, field=%lu, "
                 "value=%p)", (void *)c, describe_type(c), (unsigned long)field, (void *)p);
        if (!sanity_info_is_valid(p->info))
            fail("pointer to a static closure with a bad info table (object=%p %s, field=%lu, "
                 "value=%p)", (void *)c, describe_type(c), (unsigned long)field, (void *)p);
        return;
    }
    if (!mblock_holds(p))
        fail("pointer into heap address space the allocator does not hold (object=%p %s, "
             "field=%lu, value=%p)", (void *)c, describe_type(c), (unsigned long)field, (void *)p);
    BlockDesc *bd = Bdescr(p);
    if (bd_is_segment(bd)) {
        sanity_check_segment_pointer(c, field, p);
        bd = segment_head_bd(bd);   /* for the remembered-set check below */
    } else {
        check_block_pointer(c, field, p, bd);
    }
    /* The TSO and stack chunks are scanned at every GC: no barrier needed
     * for them.  A weak's key and value are remembered by the weak pass
     * (.inv.weak-young, Note [Old weaks that point young] in Weak.c). */
    if (owner != NULL && bd->gen_no < owner->gen_no && c->info->type != TSO &&
        c->info->type != STACK) {
        bool ok = c->info->type == WEAK ? weak_is_remembered((const StgWeak *)c)
                                        : is_remembered(c);
        if (ok && (c->info->type == MUT_ARR_PTRS_DIRTY || c->info->type == MUT_ARR_PTRS_CLEAN)) {
            StgMutArrPtrs *a = (StgMutArrPtrs *)c;
            StgWord i = (StgWord)((StgClosure *const *)((const StgWord *)c + field) - a->payload);
            ok = mut_arr_ptrs_card_table(a)[i >> MUT_ARR_PTRS_CARD_BITS] != 0;
        }
        if (!ok)
            fail("old-to-young pointer not in a remembered set (object=%p %s in generation %u, "
                 "field=%lu, value=%p in generation %u)", (void *)c, describe_type(c),
                 (unsigned)owner->gen_no, (unsigned long)field, (void *)p, (unsigned)bd->gen_no);
    }
}

/* check_pointer's tests of p, in block bd (not a segment). */
static void check_block_pointer(const StgClosure *c, StgWord field, const StgClosure *p,
                                BlockDesc *bd)
{
    bool wrong = !(bd->flags & BF_KNOWN) || (StgPtr)p < bd->start || (StgPtr)p >= bd->free ||
                 closure_is_forwarded(p) || !sanity_info_is_valid(p->info);
    if (wrong && reads_poison(p))
        fail_stale(c, field, p);
    if (!(bd->flags & BF_KNOWN))
        fail("pointer into a block that is not in the heap: from-space or freed "
             "(object=%p %s, field=%lu, value=%p, target block=%p)",
             (void *)c, describe_type(c), (unsigned long)field, (void *)p, (void *)bd);
    if ((StgPtr)p < bd->start || (StgPtr)p >= bd->free)
        fail("pointer beyond the allocated part of its block (object=%p %s, field=%lu, "
             "value=%p, block=%p)", (void *)c, describe_type(c), (unsigned long)field,
             (void *)p, (void *)bd);
    if (closure_is_forwarded(p) || !sanity_info_is_valid(p->info))
        fail("pointer to something that is not a closure (object=%p %s, field=%lu, value=%p, "
             "block=%p)", (void *)c, describe_type(c), (unsigned long)field, (void *)p, (void *)bd);
    if ((bd->flags & BF_LARGE) && (StgPtr)p != bd->start)
        fail("pointer into the middle of a large object (object=%p %s, field=%lu, value=%p, "
             "large object=%p)", (void *)c, describe_type(c), (unsigned long)field, (void *)p,
             (void *)bd->start);
}

/* Note [A thunk's reserved word]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A thunk (and an AP) has one header word more than a constructor
 * (includes/strata/Closures.h): it is 0 until evaluation starts, and only
 * rts/Eval.c writes it, in the same step that changes the info pointer to
 * BLACKHOLE or IND.  So an object that is still a thunk and has a nonzero
 * word 1 was written through the wrong macro: STRATA_FIELD(t, 0) is word 1
 * of t, not its first pointer field (STRATA_THUNK_FIELD(t, 0), word 2).
 * The collector never scans word 1, so whatever was stored there would be
 * neither kept alive nor updated; the checker says so before that
 * matters. */
static void check_thunk_header(const StgClosure *c)
{
    StgWord reserved = ((const StgWord *)c)[1];
    if (reserved != 0)
        fail("unevaluated thunk's reserved header word is set (object=%p %s, word 1=%#lx): "
             "a field written with STRATA_FIELD or STRATA_WORD, which are for constructors; "
             "a thunk's fields are STRATA_THUNK_FIELD and STRATA_THUNK_WORD",
             (void *)c, describe_type(c), (unsigned long)reserved);
}

void sanity_pointer_fields(const StgClosure *c, StgWord *first_out, StgWord *n_out)
{
    const StgInfoTable *info = c->info;
    StgWord first = 0, n = 0;
    switch (info->type) {
    case CONSTR: case CONSTR_1_0: case CONSTR_0_1: case CONSTR_2_0:
    case CONSTR_1_1: case CONSTR_0_2: case CONSTR_NOCAF:
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1:
    case FUN_0_2: case FUN_STATIC:
        first = 1; n = info->ptrs; break;
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0:
    case THUNK_1_1: case THUNK_0_2: case THUNK_STATIC:
        first = THUNK_HEADER_WORDS; n = info->ptrs; break;
    case BLACKHOLE:
        if (!sanity_info_is_valid(((const StgBlackhole *)c)->thunk_info))
            fail("blackhole without a thunk info table (object=%p)", (void *)c);
        first = THUNK_HEADER_WORDS; n = ((const StgBlackhole *)c)->thunk_info->ptrs; break;
    case IND: case IND_STATIC: case MUT_VAR_CLEAN: case MUT_VAR_DIRTY:
        first = 1; n = 1; break;
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
        first = 3; n = ((const StgMutArrPtrs *)c)->ptrs; break;
    case PAP:
        first = 2; n = 1 + ((const StgPAP *)c)->n_args; break;
    case AP:
        first = 3; n = 1 + ((const StgAP *)c)->n_args; break;
    case WEAK:
        first = 1; n = 2; break;   /* key, value; the list is weak_check's */
    case TSO:
        first = 1; n = 2; break;
    case STACK:
        first = 1; n = 1; break;   /* frames are checked as roots */
    case ARR_WORDS:
        break;
    default:
        fail("object of a closure type strata never creates (object=%p, type=%u %s)",
             (void *)c, (unsigned)info->type, describe_type(c));
    }
    *first_out = first;
    *n_out = n;
}

/* Checks every pointer field of c (owner: its block, NULL if static). */
static void check_fields(const StgClosure *c, const BlockDesc *owner)
{
    const StgWord *w = (const StgWord *)c;
    switch (c->info->type) {
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0:
    case THUNK_1_1: case THUNK_0_2: case THUNK_STATIC: case AP:
        check_thunk_header(c);
        break;
    default:
        break;
    }
    StgWord first, n;
    sanity_pointer_fields(c, &first, &n);
    for (StgWord i = first; i < first + n; i++)
        sanity_check_pointer(c, owner, i, (const StgClosure *)w[i]);
}

StgWord sanity_check_object(const StgClosure *c, const BlockDesc *bd, StgPtr end)
{
    if (closure_is_forwarded(c))
        fail("forwarding pointer outside a GC (object=%p, block=%p)", (void *)c, (void *)bd);
    if (!sanity_info_is_valid(c->info))
        fail("bad info pointer (object=%p, info=%p, block=%p, gen=%u, era=%lu)", (void *)c,
             (const void *)c->info, (void *)bd, (unsigned)bd->gen_no, (unsigned long)bd->era);
    StgWord size = closure_sizeW(c);
    if (size == 0 || (StgPtr)c + size > end)
        fail("object runs past the end of its block (object=%p %s, size=%lu words, block=%p)",
             (void *)c, describe_type(c), (unsigned long)size, (void *)bd);
    /* The collector copies by fixed_words (Note [A copy's size from its
     * info table] in Evac.c). */
    if (c->info->fixed_words != 0 && c->info->fixed_words != size)
        fail("info table %s gives %u words for an object of %lu (object=%p %s, block=%p)",
             c->info->name != NULL ? c->info->name : "(unnamed)",
             (unsigned)c->info->fixed_words, (unsigned long)size, (void *)c,
             describe_type(c), (void *)bd);
    check_fields(c, bd);
    return size;
}

/* Walks the objects of block bd; zero words are slop. */
static void check_objects(BlockDesc *bd, HeapBlockKind kind, Generation *gen, void *ctx)
{
    (void)gen;
    (void)ctx;
    if (kind == HEAP_BLOCK_SEGMENT) {
        sanity_check_segment_objects(bd);
        return;
    }
    if (sanity_skips_group(bd))
        return;
    StgPtr end = bd->free;
    for (StgPtr p = heap_first_object(bd->start, end); p < end;) {
        StgWord size = sanity_check_object((StgClosure *)p, bd, end);
        p = heap_next_object(p, size, end);
    }
}

/* Each root slot of every registered source (GC.h): a root points at a
 * closure like any field does. */
static StgWord roots_checked;

static void check_root(StgClosure **slot, void *ctx)
{
    (void)ctx;
    sanity_check_pointer(NULL, NULL, roots_checked++, *slot);
}

/* .inv.weak-lists (Weak.h): each weak on generation g's list is a WEAK
 * object in a block of generation g. */
static void check_weak(StgWeak *w, unsigned gen, void *ctx)
{
    (void)ctx;
    sanity_check_pointer(NULL, NULL, gen, (const StgClosure *)w);
    if (w->info->type != WEAK)
        fail("object on a weak pointer list is not a WEAK (object=%p %s, list=%u)", (void *)w,
             describe_type((const StgClosure *)w), gen);
    if (Bdescr(w)->gen_no != gen)
        fail("weak pointer on the list of another generation (object=%p in generation %u, "
             "list=%u)", (void *)w, (unsigned)Bdescr(w)->gen_no, gen);
}

/* ----------------------------------------------------------------------
 * The whole heap
 * ---------------------------------------------------------------------- */

void sanity_check_heap(const char *when)
{
    check_when = when;
    mblock_check();
    block_check();

    /* Pass 1: every block on a heap list, marked BF_KNOWN. */
    StgWord n_mblocks = (StgWord)(mblock_heap_end - mblock_heap_base) >> MBLOCK_SHIFT;
    if (young_expected_n != n_mblocks) {
        free(young_expected);
        young_expected = calloc(n_mblocks, 1);
        if (young_expected == NULL)
            fail("no memory for the young-group map's check (%lu megablocks)",
                 (unsigned long)n_mblocks);
        young_expected_n = n_mblocks;
    }
    young_lo = (StgWord)-1;   /* nothing visited yet: an empty range */
    young_hi = 0;
    StgWord blocks = 0;
    heap_for_each_block(mark_heap_block, &blocks);
    for (unsigned i = 0; i < storage_n_gens; i++) {
        blocks += mark_list(storage_gens[i].mut_list, NULL, "mutable");
        check_large_links(&storage_gens[i]);
    }
    if (storage_config.nonmoving)
        nonmoving_for_each_unfreed_group(mark_unfreed_group, &blocks);
    if (blocks != block_n_allocated())
        fail("block inventory does not balance: %lu blocks on heap lists, %lu allocated",
             (unsigned long)blocks, (unsigned long)block_n_allocated());
    check_young_map();
    if (storage_config.nonmoving)
        sanity_check_nonmoving_lists();

    /* Pass 2: every object and pointer. */
    collect_remembered();
    heap_for_each_block(check_objects, NULL);
    for (StgWord i = 0; i < static_roots_count; i++)
        check_fields(static_roots[i], NULL);
    roots_checked = 0;
    gc_visit_roots(check_root, NULL);
    weak_for_each(check_weak, NULL);
    if (storage_config.nonmoving)
        sanity_check_snapshot();   /* after every object's own check */

    /* Clean up the marks. */
    heap_for_each_block(unmark_heap_block, NULL);
    if (storage_config.nonmoving)
        nonmoving_for_each_unfreed_group(unmark_group, NULL);
    for (unsigned i = 0; i < storage_n_gens; i++)
        unmark_list(storage_gens[i].mut_list);
}
