/*
 * testsuite/unit/test_sanity.c -- the sanity checker catches a corrupted
 * heap: each test breaks one invariant on purpose, in a child process, and
 * checks that the checker aborts with a message naming the failed check.
 * A clean heap passes.
 */
#include "harness.h"

#include "BlockAlloc.h"
#include "MBlock.h"
#include "Sanity.h"
#include "Storage.h"
#include "require.h"

STRATA_CONSTR_INFO(Pair_info, "Pair", 2, 0);
STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);

static StgClosure *mk_int(StgWord n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = n;
    return c;
}

/* A rooted pair of ints promoted to the oldest generation. */
static StgClosure **old_pair(void)
{
    static const StgRootSite site = {"old_pair", __FILE__, __LINE__};
    StgClosure **r = strata_roots_push(&site, 1);
    r[0] = strata_alloc_constr(&Pair_info);
    StgClosure *a = mk_int(1);
    STRATA_FIELD(r[0], 0) = a;
    StgClosure *b = mk_int(2);
    STRATA_FIELD(r[0], 1) = b;
    strata_perform_gc(1);
    strata_perform_gc(1);
    return r;
}

static void test_sanity_clean_heap_passes(void **state)
{
    (void)state;
    harness_start("-A8k", NULL);
    StgClosure **r = old_pair();
    for (int i = 0; i < 1000; i++)
        (void)mk_int((StgWord)i);
    sanity_check_heap("test");
    strata_roots_pop(r);
    hs_exit();
}

static void corrupt_pointer_to_freed_block(void)
{
    harness_start("-A8k", NULL);
    StgClosure **r = old_pair();
    BlockDesc *bd = block_alloc_group(1);
    block_free_group(bd);
    STRATA_FIELD(r[0], 0) = (StgClosure *)bd->start;   /* freed memory */
    sanity_check_heap("test");
}

/* Freed memory reads as poison where the build poisons it (debug level 2
 * and up, AddressSanitizer), and the checker then calls the pointer stale
 * (Note [Naming a stale pointer] in sm/Sanity.c). */
#if STRATA_DEBUG >= 2 || defined(STRATA_ASAN)
#define FREED_POINTER_MESSAGE "stale pointer (object="
#else
#define FREED_POINTER_MESSAGE "pointer into a block that is not in the heap"
#endif

static void test_sanity_catches_pointer_into_freed_block(void **state)
{
    (void)state;
    harness_expect_failure(corrupt_pointer_to_freed_block, 0, SIGABRT, FREED_POINTER_MESSAGE);
}

static void corrupt_info_pointer(void)
{
    harness_start("-A8k", NULL);
    StgClosure **r = old_pair();
    StgClosure *i = STRATA_FIELD(r[0], 1);
    *(StgWord *)i = 0x1234567a;   /* not an info table (misaligned) */
    sanity_check_heap("test");
}

/* .inv.header: a word 0 that is no info pointer is caught. */
static void test_sanity_catches_bad_info_pointer(void **state)
{
    (void)state;
    /* Segments are walked in another order: the object itself is found
     * before the field that points at it. */
    harness_expect_failure(corrupt_info_pointer, 0, SIGABRT,
                           harness_nonmoving_rerun() ? "bad info pointer" : "is not a closure");
}

static void corrupt_missing_barrier(void)
{
    harness_start("-A8k", NULL);
    static const StgRootSite site = {"corrupt_missing_barrier", __FILE__, __LINE__};
    StgClosure **r = strata_roots_push(&site, 1);
    r[0] = strata_alloc_mut_var();
    strata_perform_gc(1);
    strata_perform_gc(1);
    StgClosure *young = mk_int(3);
    ((StgMutVar *)r[0])->var = young;   /* bypasses the write barrier */
    sanity_check_heap("test");
}

static void test_sanity_catches_missing_write_barrier(void **state)
{
    (void)state;
    harness_expect_failure(corrupt_missing_barrier, 0, SIGABRT,
                           "old-to-young pointer not in a remembered set");
}

static void corrupt_block_era(void)
{
    harness_start("-A8k", NULL);
    StgClosure **r = old_pair();
    Bdescr(r[0])->era = 1000000;   /* never current */
    sanity_check_heap("test");
}

static void test_sanity_catches_invalid_block_era(void **state)
{
    (void)state;
    harness_expect_failure(corrupt_block_era, 0, SIGABRT, "era that was never current");
}

static void corrupt_young_map(void)
{
    harness_start("-A8k", NULL);
    StgClosure **r = old_pair();
    (void)r;
    /* The nursery's megablock holds groups of generation 0: say it holds
     * one fewer (a minor GC would take its objects for old ones). */
    StgClosure *young = strata_alloc_constr(&Pair_info);
    uint8_t *count = (uint8_t *)(block_young_map_biased + ((StgWord)young >> MBLOCK_SHIFT));
    (*count)--;
    sanity_check_heap("test");
}

static void test_sanity_catches_wrong_young_map(void **state)
{
    (void)state;
    harness_expect_failure(corrupt_young_map, 0, SIGABRT, "young-group map says");
}

static void corrupt_block_generation(void)
{
    harness_start("-A8k", "-G3", NULL);
    StgClosure **r = old_pair();
    /* The descriptor lies about its generation (the non-moving collector
     * promotes the pair to generation 2, the copying one to 1). */
    Bdescr(r[0])->gen_no = Bdescr(r[0])->gen_no == 2 ? 1 : 2;
    sanity_check_heap("test");
}

static void test_sanity_catches_wrong_generation(void **state)
{
    (void)state;
    harness_expect_failure(corrupt_block_generation, 0, SIGABRT,
                           "list belongs to generation");
}

static void corrupt_inventory(void)
{
    harness_start("-A8k", NULL);
    (void)block_alloc_group(3);   /* allocated, but on no heap list: a leak */
    sanity_check_heap("test");
}

static void test_sanity_catches_leaked_blocks(void **state)
{
    (void)state;
    harness_expect_failure(corrupt_inventory, 0, SIGABRT, "block inventory does not balance");
}

static void corrupt_via_dS(void)
{
    harness_start("-A8k", "-DS", NULL);
    StgClosure **r = old_pair();
    STRATA_FIELD(r[0], 0) = (StgClosure *)((char *)STRATA_FIELD(r[0], 0) + 3);
    for (;;)
        (void)mk_int(0);   /* the next GC's check must stop the program */
}

static void test_sanity_runs_around_every_gc_with_dS(void **state)
{
    (void)state;
    harness_expect_failure(corrupt_via_dS, 0, SIGABRT, "sanity check failed (before GC)");
}

/* A word that is no address at all, stored in a pointer field: the checker
 * must say so, not read through it.  Under -DS, as a user would meet it. */
static StgWord stray_word;

static void corrupt_stray_word_in_field(void)
{
    harness_start("-A8k", "-DS", NULL);
    StgClosure **r = old_pair();
    STRATA_FIELD(r[0], 0) = (StgClosure *)stray_word;
    for (;;)
        (void)mk_int(0);
}

static void test_sanity_catches_integer_in_pointer_field(void **state)
{
    (void)state;
    stray_word = 0x1000;   /* aligned, below any mapping */
    harness_expect_failure(corrupt_stray_word_in_field, 0, SIGABRT,
                           "pointer to neither the heap nor a static closure");
    stray_word = 0x7ffffffff000;   /* aligned, likely unmapped near the stack */
    harness_expect_failure(corrupt_stray_word_in_field, 0, SIGABRT,
                           "pointer to neither the heap nor a static closure");
}

static void corrupt_heap_word_in_field(void)
{
    harness_start("-A8k", "-DS", NULL);
    StgClosure **r = old_pair();
    /* Inside the reservation, in a megablock never handed out. */
    STRATA_FIELD(r[0], 0) = (StgClosure *)(mblock_heap_end - MBLOCK_SIZE + FIRST_BLOCK_OFF);
    for (;;)
        (void)mk_int(0);
}

static void test_sanity_catches_pointer_to_unheld_heap(void **state)
{
    (void)state;
    harness_expect_failure(corrupt_heap_word_in_field, 0, SIGABRT,
                           "heap address space the allocator does not hold");
}

/* A byte array whose length is cut short: the walk goes on into its
 * payload and meets an aligned garbage word where an info pointer
 * should be. */
static void corrupt_object_runs_onto_garbage(void)
{
    harness_start("-A8k", NULL);
    static const StgRootSite site = {"corrupt_object_runs_onto_garbage", __FILE__, __LINE__};
    StgClosure **r = strata_roots_push(&site, 1);
    r[0] = strata_alloc_bytes(64);
    StgWord *payload = STRATA_BYTES_PTR(r[0]);
    for (int i = 0; i < 8; i++)
        payload[i] = 0x1000;
    ((StgArrBytes *)r[0])->bytes = 8;   /* the object now ends at payload[1] */
    sanity_check_heap("test");
}

static void test_sanity_catches_object_running_onto_garbage(void **state)
{
    (void)state;
    harness_expect_failure(corrupt_object_runs_onto_garbage, 0, SIGABRT,
                           "bad info pointer (object=");
}

/* An info table whose fixed_words disagrees with its layout (written by
 * hand, wrongly): the collector would copy that many words (Note [A
 * copy's size from its info table] in sm/Evac.c), so -DS names it. */
static const StgInfoTable Wrong_size_info = {CONSTR_2_0, 2, 0, 0, "WrongSize", NULL, NULL, 5};

static void misuse_wrong_fixed_words(void)
{
    harness_start("-A8k", NULL);
    static const StgRootSite site = {"misuse_wrong_fixed_words", __FILE__, __LINE__};
    StgClosure **r = strata_roots_push(&site, 1);
    r[0] = strata_alloc_constr(&Wrong_size_info);
    sanity_check_heap("test");
}

static void test_sanity_catches_wrong_fixed_words(void **state)
{
    (void)state;
    harness_expect_failure(misuse_wrong_fixed_words, 0, SIGABRT,
                           "info table WrongSize gives 5 words for an object of 3 (object=");
}

/* A thunk's pointer field written through STRATA_FIELD, the constructors'
 * macro: it lands in the thunk's reserved header word (Note [A thunk's
 * reserved word] in sm/Sanity.c).  Under -DS, as a user would meet it. */
static StgClosure *never_entered(StgClosure **self)
{
    (void)self;
    return NULL;
}
STRATA_THUNK_INFO(Box_thunk_info, "BoxThunk", 1, 0, never_entered);

static void misuse_field_on_thunk(void)
{
    harness_start("-A8k", "-DS", NULL);
    static const StgRootSite site = {"misuse_field_on_thunk", __FILE__, __LINE__};
    StgClosure **r = strata_roots_push(&site, 2);
    r[0] = strata_alloc_thunk(&Box_thunk_info);
    r[1] = mk_int(42);
    STRATA_FIELD(r[0], 0) = r[1];   /* should be STRATA_THUNK_FIELD */
    for (;;)
        (void)mk_int(0);
}

static void test_sanity_catches_field_written_over_thunk_header(void **state)
{
    (void)state;
    harness_expect_failure(misuse_field_on_thunk, 0, SIGABRT,
                           "unevaluated thunk's reserved header word is set");
}

/* The same thunk written the right way passes. */
static void test_sanity_passes_thunk_field_written_right(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    static const StgRootSite site = {"thunk_field_written_right", __FILE__, __LINE__};
    StgClosure **r = strata_roots_push(&site, 2);
    r[0] = strata_alloc_thunk(&Box_thunk_info);
    r[1] = mk_int(42);
    STRATA_THUNK_FIELD(r[0], 0) = r[1];
    for (int i = 0; i < 3000; i++)
        (void)mk_int((StgWord)i);   /* several GCs, each checked before and after */
    strata_perform_gc(1);
    assert_int_equal(STRATA_WORD(STRATA_THUNK_FIELD(r[0], 0), 0), 42);
    strata_roots_pop(r);
    hs_exit();
}

/* A pointer read after the GC that moved its object: in debug builds it
 * reads the poison pattern, not the 42 that was written (nor whatever is
 * allocated there next). */
static void test_sanity_stale_pointer_reads_poison(void **state)
{
    (void)state;
#if STRATA_DEBUG >= 2 && !defined(STRATA_ASAN)
    harness_start("-A8k", NULL);
    StgClosure *stale = mk_int(42);   /* no root: the GC moves nothing it knows of */
    assert_int_equal(STRATA_WORD(stale, 0), 42);
    strata_perform_gc(0);
    assert_int_equal(STRATA_WORD(stale, 0), HEAP_POISON_WORD);
    hs_exit();
#else
    skip_in_build("the debug fill of from-space without ASan (build-debug2/, --enable-debug=2)");
#endif
}

/* A pointer kept across a major GC in a C local and stored back into its
 * root: the next check names it. */
static void misuse_stale_root(void)
{
    harness_start("-A8k", "-DS", NULL);
    StgClosure **r = old_pair();
    StgClosure *kept = r[0];
    strata_perform_gc(1);   /* copies the pair; its old blocks are freed */
    r[0] = kept;
    for (;;)
        (void)mk_int(0);
}

/* With --nonmoving-gc the old pair never moves; a pointer kept to it after
 * it died and was swept points at a free slot. */
static void misuse_swept_root(void)
{
    harness_start("-A8k", "-DS", NULL);
    StgClosure **r = old_pair();
    StgClosure *kept = r[0];
    r[0] = NULL;
    strata_perform_gc(1);   /* the pair dies and its slot is freed */
    r[0] = kept;
    for (;;)
        (void)mk_int(0);
}

static void test_sanity_names_stale_pointer_in_root(void **state)
{
    (void)state;
    if (harness_nonmoving_rerun()) {
        harness_expect_failure(misuse_swept_root, 0, SIGABRT, "pointer to a free slot");
        return;
    }
#if STRATA_DEBUG >= 2 || defined(STRATA_ASAN)
    harness_expect_failure(misuse_stale_root, 0, SIGABRT,
                           "stale pointer in root slot");
#else
    harness_expect_failure(misuse_stale_root, 0, SIGABRT,
                           "pointer into a block that is not in the heap");
#endif
}

/* The same misuses without -DS in the sanitizer build, where the
 * collector's read of the damaged object is undefined behaviour (a
 * misaligned header or info table) or a read of poisoned memory, and the
 * sanitizer stops the program with its own report: the runtime's line
 * naming -DS comes first (Note [A sanitizer's report says what to do next]
 * in support/os/Crash.c), as the fatal-signal handler's does in a release
 * build. */
#if defined(STRATA_ASAN)
/* A large array kept in a C local after it died: its blocks are freed
 * (and poisoned), and the next GC reads its header through the root. */
static void misuse_stale_large_root(void)
{
    harness_start("-A8k", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array(2000);
    StgClosure *kept = r[0];
    r[0] = NULL;
    strata_perform_gc(0);   /* the array dies: its group is freed */
    r[0] = kept;
    strata_perform_gc(0);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* A write one word past an object, of a misaligned value, lands in the
 * next object's info pointer. */
static void misuse_overrun_misaligned(void)
{
    harness_start("-A8k", NULL);
    STRATA_ROOTS(r, 2);
    r[0] = mk_int(1);
    r[1] = mk_int(2);
    if ((StgWord *)r[1] != (StgWord *)r[0] + 2)
        fail_msg("the two objects are not adjacent");
    STRATA_WORD(r[0], 1) = 0x10002;   /* r[1]'s info pointer: not a table */
    strata_perform_gc(0);
    STRATA_ROOTS_POP(r);
}

/* fn must die (any way) and its stderr hold the runtime's line before
 * the sanitizer's own report. */
static void expect_line_before_report(void (*fn)(void))
{
    static char buf[65536];
    int status = harness_run_child(fn, buf, sizeof buf);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        fail_msg("the misuse went unnoticed:\n%s", buf);
    const char *line = strstr(buf, "report in the garbage collector; the heap may be damaged: "
                                    "rerun with +RTS -DS to find the damaged object");
    const char *ubsan = strstr(buf, "runtime error:");
    const char *asan = strstr(buf, "ERROR: AddressSanitizer");
    const char *report = ubsan != NULL && (asan == NULL || ubsan < asan) ? ubsan : asan;
    if (line == NULL || report == NULL || line > report)
        fail_msg("no line naming +RTS -DS before the sanitizer's report:\n%s", buf);
}
#endif

static void test_sanity_sanitizer_report_names_sanity_flag(void **state)
{
    (void)state;
#if defined(STRATA_ASAN)
    expect_line_before_report(misuse_stale_large_root);
    expect_line_before_report(misuse_overrun_misaligned);
#else
    skip_in_build("a sanitizer's report (build-san/, --enable-sanitizers)");
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sanity_clean_heap_passes),
        cmocka_unit_test(test_sanity_catches_pointer_into_freed_block),
        cmocka_unit_test(test_sanity_catches_bad_info_pointer),
        cmocka_unit_test(test_sanity_catches_missing_write_barrier),
        cmocka_unit_test(test_sanity_catches_invalid_block_era),
        cmocka_unit_test(test_sanity_catches_wrong_generation),
        cmocka_unit_test(test_sanity_catches_wrong_young_map),
        cmocka_unit_test(test_sanity_catches_leaked_blocks),
        cmocka_unit_test(test_sanity_runs_around_every_gc_with_dS),
        cmocka_unit_test(test_sanity_catches_integer_in_pointer_field),
        cmocka_unit_test(test_sanity_catches_pointer_to_unheld_heap),
        cmocka_unit_test(test_sanity_catches_object_running_onto_garbage),
        cmocka_unit_test(test_sanity_catches_wrong_fixed_words),
        cmocka_unit_test(test_sanity_catches_field_written_over_thunk_header),
        cmocka_unit_test(test_sanity_passes_thunk_field_written_right),
        cmocka_unit_test(test_sanity_stale_pointer_reads_poison),
        cmocka_unit_test(test_sanity_names_stale_pointer_in_root),
        cmocka_unit_test(test_sanity_sanitizer_report_names_sanity_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
