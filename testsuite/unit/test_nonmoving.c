/*
 * testsuite/unit/test_nonmoving.c -- the non-moving old generation
 * (+RTS --nonmoving-gc, sm/NonMoving*.c, sm/heap/Segment.c): survivors
 * are promoted into segments and never move again; a cycle frees the
 * dead slots and groups, and the next promotions reuse them; a slot of a
 * 1 KiB byte array wastes little; objects keep their eras through slot
 * reuse, 100,000 live eras among them; weak pointers whose keys die in
 * a cycle die with them; the snapshot barrier keeps what the program
 * moves while a held mark has traced nothing (overwritten values, a
 * thunk's free variables, an AP's arguments, what a weak pointer gives);
 * a cycle marks beside a program that moves objects about while it runs;
 * the groups a sweep beside the program freed go back a budget per
 * collection; -DS checks the old space at the sync.
 * Every test runs under -DS: the sanity checker checks the segments
 * (header, marks, zeroed free slots, era runs) before and after each
 * collection.
 */
#include "harness.h"

#include "lists.h"
#include "nonmoving_phases.h"

#include <unistd.h>

#include "Capability.h"
#include "Census.h"
#include "ClosureSize.h"
#include "GC.h"
#include "MBlock.h"
#include "NonMoving.h"
#include "Policy.h"
#include "Sanity.h"
#include "Segment.h"
#include "Storage.h"
#include "os/Thread.h"

static bool in_segment(const StgClosure *c)
{
    return heap_alloced(c) && bd_is_segment(Bdescr(c)) &&
           Bdescr(c)->gen_no == storage_n_gens - 1;
}

/* Allocated slots over all segments. */
static StgWord used_slots(void)
{
    StgWord n = 0;
    for (BlockDesc *bd = oldest_gen->segments; bd != NULL; bd = bd->link)
        n += ((Segment *)bd->start)->n_used;
    return n;
}

static void test_nonmoving_survivors_live_in_segments_and_stay_put(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = mk_list(0, 2000);
    strata_perform_gc(1);
    StgClosure *cells[2000];
    StgClosure *l = r[0];
    for (int i = 0; i < 2000; i++, l = STRATA_FIELD(l, 1)) {
        assert_true(in_segment(l));
        assert_true(in_segment(STRATA_FIELD(l, 0)));
        cells[i] = l;
    }
    for (int round = 0; round < 3; round++) {
        (void)mk_list(0, 5000);   /* garbage: minor collections */
        strata_perform_gc(round % 2);
    }
    l = r[0];
    for (int i = 0; i < 2000; i++, l = STRATA_FIELD(l, 1))
        assert_ptr_equal(l, cells[i]);   /* never moved */
    check_list(r[0], 0, 2000);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

static void test_nonmoving_cycle_frees_slots_and_promotion_reuses_them(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = mk_list(0, 20000);
    strata_perform_gc(1);
    StgWord full = used_slots();
    assert_true(full >= 40000);   /* a cell and its Int each */
    StgWord segments = oldest_gen->n_blocks / SEGMENT_BLOCKS;
    r[0] = NULL;
    strata_perform_gc(1);
    assert_true(used_slots() < full / 100);
    assert_true(oldest_gen->n_words < 1000);
    /* The same again: the freed segments are reused, not added to. */
    r[0] = mk_list(0, 20000);
    strata_perform_gc(1);
    assert_true(oldest_gen->n_blocks / SEGMENT_BLOCKS <= segments);
    check_list(r[0], 0, 20000);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

static void test_nonmoving_kilobyte_byte_array_wastes_little(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_bytes(1024);
    strata_perform_gc(1);
    assert_true(in_segment(r[0]));
    StgWord words = closure_sizeW(r[0]);
    const Segment *seg = segment_of(r[0]);
    assert_int_equal(words, 130);
    assert_int_equal(seg->slot_words, 136);   /* GHC's classes: 256 words */
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* The sync's work (NonMovingStats.last_sync_steps: the entries of the
 * lists it walks and the objects it marks) is that of the barrier's log,
 * the weak pointers and the remembered set, not of the generation's
 * segments: with ten times the segments it is about the same.  Handing
 * the segments to the sweep one by one cost a step each (Note [Handing
 * the segments to the sweep] in sm/NonMovingSweep.c). */
/* Without -DS under ThreadSanitizer (build-tsan/'s -N2 rerun): the
 * single-threaded checker walking the growing list at each of the 110,000
 * cells' collections was about 39 s of the test there; the syncs it
 * counts, and the parallel collections ThreadSanitizer races, are the
 * same.  Every other build checks the heap at each collection. */
#if defined(__SANITIZE_THREAD__)
#define SYNC_WORK_CHECK NULL
#else
#define SYNC_WORK_CHECK "-DS"
#endif

static void test_nonmoving_sync_work_does_not_grow_with_the_generation(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", SYNC_WORK_CHECK, NULL);
    const NonMovingStats *st = nonmoving_stats();
    STRATA_ROOTS(r, 2);
    r[0] = mk_list(0, 10000);
    strata_perform_gc(1);   /* a whole cycle in its pause, its sync too */
    StgWord small_segments = oldest_gen->n_blocks / SEGMENT_BLOCKS;
    uint64_t small_steps = st->last_sync_steps;
    r[1] = mk_list(0, 100000);
    strata_perform_gc(1);
    StgWord big_segments = oldest_gen->n_blocks / SEGMENT_BLOCKS;
    uint64_t big_steps = st->last_sync_steps;
    assert_true(big_segments >= 8 * small_segments);
    assert_true(big_segments - small_segments >= 100);
    if (big_steps >= small_steps + (big_segments - small_segments) / 2)
        fail_msg("the sync's steps grew from %lu to %lu with the segments (%lu -> %lu)",
                 (unsigned long)small_steps, (unsigned long)big_steps,
                 (unsigned long)small_segments, (unsigned long)big_segments);
    check_list(r[0], 0, 10000);
    check_list(r[1], 0, 100000);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* The mark queue's chunks are reused from cycle to cycle (Note [The mark
 * queue's chunks] in sm/NonMovingMark.c): a young array of 60,000 old
 * cells makes the snapshot queue them all (236 chunks); the cycles after
 * the first take no chunk from the C heap. */
static void test_nonmoving_mark_queue_reuses_its_chunks(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    enum { CELLS = 60000 };
    STRATA_ROOTS(r, 2);
    r[0] = mk_list(0, CELLS);
    strata_perform_gc(1);
    StgWord after_first = 0;
    for (int round = 0; round < 4; round++) {
        r[1] = strata_alloc_mut_array(CELLS);
        StgClosure *l = r[0];
        for (StgWord i = 0; i < CELLS; i++, l = STRATA_FIELD(l, 1))
            strata_mut_array_write(r[1], i, l);
        strata_perform_gc(1);
        if (round == 0)
            after_first = nonmoving_mark_chunks_allocated;
    }
    assert_true(after_first >= CELLS / MARK_CHUNK_ENTRIES);
    assert_int_equal(nonmoving_mark_chunks_allocated, after_first);
    check_list(r[0], 0, CELLS);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* Objects of era 1 promoted, every other one dropped, then objects of era 2
 * promoted into the freed slots: each keeps its era, and once era 1's
 * objects are gone the segments hold one era again, without runs. */
static void test_nonmoving_eras_survive_slot_reuse(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    enum { N = 3000 };
    StgClosure *arr = strata_alloc_mut_array(2 * N);
    STRATA_ROOTS(r, 1);
    r[0] = arr;
    for (StgWord i = 0; i < N; i++)
        strata_mut_array_write(r[0], i, mk_int(i));
    strata_perform_gc(1);
    for (StgWord i = 0; i < N; i += 2)
        strata_mut_array_write(r[0], i, NULL);
    strata_perform_gc(1);
    setUserEra(2);
    for (StgWord i = N; i < 2 * N; i++)
        strata_mut_array_write(r[0], i, mk_int(i));
    strata_perform_gc(1);
    StgWord with_runs = 0;
    for (BlockDesc *bd = oldest_gen->segments; bd != NULL; bd = bd->link)
        with_runs += ((Segment *)bd->start)->runs != NULL;
    assert_true(with_runs > 0);   /* both eras share segments */
    for (StgWord i = 0; i < 2 * N; i++) {
        StgClosure *c = strata_mut_array_read(r[0], i);
        if (c == NULL)
            continue;
        assert_true(in_segment(c));
        assert_int_equal(heap_object_era(c), i < N ? 1 : 2);
    }
    for (StgWord i = 1; i < N; i += 2)
        strata_mut_array_write(r[0], i, NULL);
    strata_perform_gc(1);
    for (BlockDesc *bd = oldest_gen->segments; bd != NULL; bd = bd->link) {
        const Segment *seg = (const Segment *)bd->start;
        if (seg->size_class == segment_class_of(2))
            assert_null(seg->runs);   /* era 2 alone */
    }
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* Era runs over all segments, and the runs' room (what the C heap holds
 * for them). */
static void segment_runs(StgWord *runs, StgWord *room)
{
    *runs = *room = 0;
    for (BlockDesc *bd = oldest_gen->segments; bd != NULL; bd = bd->link) {
        const Segment *seg = (const Segment *)bd->start;
        *runs += seg->runs != NULL ? seg->n_runs : 0;
        *room += seg->runs != NULL ? seg->cap_runs : 0;
    }
}

/* Issue 50: 100,000 live eras, one object each, promoted into the
 * segments keep their eras; when three of every four die, the sweep's
 * runs shrink with them (a run per object left, at most, and their room
 * with them) and every survivor still has its era. */
static void test_nonmoving_hundred_thousand_eras_keep_their_eras(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    enum { N = 100000 };
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array(N);
    for (StgWord i = 0; i < N; i++) {
        setUserEra(i + 1);
        strata_mut_array_write(r[0], i, mk_int(i + 1));
    }
    strata_perform_gc(1);
    StgWord runs, room, segments = 0;
    segment_runs(&runs, &room);
    assert_true(runs >= N);   /* one era per slot: a run each */
    for (StgWord i = 0; i < N; i++) {
        StgClosure *c = strata_mut_array_read(r[0], i);
        assert_true(in_segment(c));
        if (heap_object_era(c) != i + 1)
            fail_msg("object %lu has era %llu, not %lu", (unsigned long)i,
                     (unsigned long long)heap_object_era(c), (unsigned long)i + 1);
    }
    for (StgWord i = 0; i < N; i++)
        if (i % 4 != 0)
            strata_mut_array_write(r[0], i, NULL);
    strata_perform_gc(1);
    for (BlockDesc *bd = oldest_gen->segments; bd != NULL; bd = bd->link)
        segments++;
    segment_runs(&runs, &room);
    print_message("%d eras, a quarter left: %lu runs in %lu segments, room for %lu\n", N,
                  (unsigned long)runs, (unsigned long)segments, (unsigned long)room);
    if (runs > N / 4 + segments || room > 2 * runs + 16 * segments)
        fail_msg("%lu runs (room %lu) in %lu segments for %d objects left", (unsigned long)runs,
                 (unsigned long)room, (unsigned long)segments, N / 4);
    for (StgWord i = 0; i < N; i += 4)
        assert_int_equal(heap_object_era(strata_mut_array_read(r[0], i)), i + 1);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

static int finalized;
static void count_finalizer(void *env)
{
    (void)env;
    finalized++;
}

static void test_nonmoving_weak_dies_with_its_key_in_a_cycle(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    finalized = 0;
    STRATA_ROOTS(r, 3);
    r[0] = mk_int(1);   /* key */
    r[1] = mk_int(2);   /* value */
    r[2] = strata_mk_weak(r[0], r[1], count_finalizer, NULL);
    r[1] = NULL;
    strata_perform_gc(1);
    assert_true(in_segment(r[0]) && in_segment(r[2]));
    assert_non_null(strata_deref_weak(r[2]));
    assert_int_equal(STRATA_WORD(strata_deref_weak(r[2]), 0), 2);
    r[0] = NULL;
    strata_perform_gc(1);
    assert_null(strata_deref_weak(r[2]));
    assert_int_equal(finalized, 1);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* A large array and pinned byte arrays promoted, marked while reachable,
 * freed by the cycle after they die. */
static void test_nonmoving_large_and_pinned_groups_are_swept(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_mut_array(10000);
    r[1] = strata_alloc_pinned_bytes(100);
    strata_mut_array_write(r[0], 0, r[1]);
    strata_perform_gc(1);
    assert_true(Bdescr(r[0])->flags & BF_NONMOVING);
    assert_true(Bdescr(r[1])->flags & BF_NONMOVING);
    StgWord large = oldest_gen->n_large_blocks;   /* the stack's chunk too */
    StgWord ours = Bdescr(r[0])->blocks + Bdescr(r[1])->blocks;
    assert_true(ours >= 20 && large >= ours);
    strata_perform_gc(1);
    assert_int_equal(oldest_gen->n_large_blocks, large);   /* still reachable */
    r[0] = r[1] = NULL;
    strata_perform_gc(1);
    assert_int_equal(oldest_gen->n_large_blocks, large - ours);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* ----------------------------------------------------------------------
 * The barrier, with the mark held at a known point
 * ----------------------------------------------------------------------
 * Each test below builds objects of the generation, holds the mark
 * (nonmoving_hold_mark), lets a collection start a concurrent cycle, and
 * then, while the cycle marks but before its mark has traced anything,
 * moves what the snapshot reached to where the mark never looks: into new
 * objects (allocated after the snapshot, so never traced) hung on a root
 * (roots are read at the snapshot only).  Only the barrier's log then
 * keeps the moved objects marked (Note [The update remembered set] in
 * UpdRemSet.c); without it the sweep frees them under the program, and
 * the sanity check or the lists' check fails.  Nothing depends on how the
 * mark thread and the program interleave. */

STRATA_CONSTR_INFO(Pair_info, "Pair", 2, 0);

/* Pair(x, *rest_slot), rest_slot rooted. */
static StgClosure *mk_pair(StgClosure *x, StgClosure **rest_slot)
{
    STRATA_ROOTS(r, 1);
    r[0] = x;
    StgClosure *p = strata_alloc_constr(&Pair_info);
    STRATA_FIELD(p, 0) = r[0];
    STRATA_FIELD(p, 1) = *rest_slot;
    STRATA_ROOTS_POP(r);
    return p;
}

enum { HELD_N = 64, HELD_LEN = 5 };

static void start_cycle(StgClosure **ballast);

/* Holds the mark, then starts a concurrent cycle (start_cycle). */
static void start_held_cycle(StgClosure **ballast)
{
    nonmoving_hold(NONMOVING_MARKING);
    start_cycle(ballast);
    assert_int_equal(nonmoving_phase_now(), NONMOVING_MARKING);
}

/* Grows the generation with new lists hung on *ballast (a rooted slot:
 * no write into an older object) until a collection has taken a snapshot
 * and started a concurrent cycle. */
static void start_cycle(StgClosure **ballast)
{
    *ballast = &Nil_closure;
    for (long i = 0; nonmoving_phase_now() == NONMOVING_IDLE; i++) {
        assert_true(i < 1000000);
        *ballast = mk_pair(mk_list(0, 20), ballast);
    }
    *ballast = NULL;
}

/* Lets the mark go and runs the program (garbage) until the cycle has
 * marked beside it, synced and swept; then checks that the moved lists,
 * a Pair chain of HELD_N of them, are whole, before and after an exact
 * collection. */
static void finish_held_cycle(StgClosure **moved)
{
    /* A minor collection while the mark is held: under -DS it checks the
     * snapshot invariant (Note [Checking the snapshot invariant] in
     * sm/SanitySnapshot.c) with the moves made. */
    strata_perform_gc(0);
    assert_int_equal(nonmoving_phase_now(), NONMOVING_MARKING);
    const NonMovingStats *st = nonmoving_stats();
    uint64_t cycles = st->cycles, stw = st->stw_cycles;
    nonmoving_hold(NONMOVING_IDLE);
    for (long i = 0; st->cycles == cycles; i++) {
        assert_true(i < 100000000);
        (void)mk_list(0, 10);
    }
    assert_int_equal(st->stw_cycles, stw);   /* it ran beside the program */
    for (int pass = 0; pass < 2; pass++) {
        StgWord sum = 0, n = 0;
        for (StgClosure *p = *moved; p != &Nil_closure; p = STRATA_FIELD(p, 1), n++) {
            StgClosure *l = STRATA_FIELD(p, 0);
            if (l->info == &Pair_info)   /* a thunk's or an AP's value */
                l = STRATA_FIELD(l, 0);
            StgWord lo = STRATA_WORD(STRATA_FIELD(l, 0), 0);
            check_list(l, lo, lo + HELD_LEN);
            sum += lo / HELD_LEN;
        }
        assert_int_equal(n, HELD_N);
        assert_int_equal(sum, (StgWord)HELD_N * (HELD_N - 1) / 2);
        strata_perform_gc(1);   /* under -DS: no pointer to a freed slot */
    }
}

/* An array of the generation whose even slots hold lists and odd slots
 * mutable variables holding lists; with the mark held, each list is
 * moved to a new Pair and its slot or variable overwritten. */
static void test_nonmoving_barrier_logs_overwritten_values(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A256k", "-DS", NULL);
    STRATA_ROOTS(r, 3);
    r[0] = strata_alloc_mut_array(HELD_N);
    for (StgWord i = 0; i < HELD_N; i++) {
        r[1] = mk_list(i * HELD_LEN, (i + 1) * HELD_LEN);
        if (i % 2 == 1) {
            r[2] = strata_alloc_mut_var();
            strata_mut_var_write(r[2], r[1]);
            r[1] = r[2];
        }
        strata_mut_array_write(r[0], i, r[1]);
    }
    strata_perform_gc(1);   /* all in the generation; the array clean */
    start_held_cycle(&r[1]);
    r[1] = &Nil_closure;
    for (StgWord i = 0; i < HELD_N; i++) {
        StgClosure *x = strata_mut_array_read(r[0], i);
        if (i % 2 == 1) {
            r[2] = x;
            r[1] = mk_pair(STRATA_MUT_VAR_READ(x), &r[1]);
            strata_mut_var_write(r[2], NULL);
        } else {
            r[1] = mk_pair(x, &r[1]);
            strata_mut_array_write(r[0], i, NULL);
        }
    }
    finish_held_cycle(&r[1]);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* A thunk whose value is Pair(its free variable, Nil). */
static StgClosure *wrap_thunk_entry(StgClosure **self)
{
    StgClosure *nil = &Nil_closure;
    return mk_pair(STRATA_THUNK_FIELD(*self, 0), &nil);
}
STRATA_THUNK_INFO(wrap_thunk_info, "wrap_thunk", 1, 0, wrap_thunk_entry);

/* The function \x -> Pair(x, Nil). */
static StgClosure *wrap_fun_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    StgClosure *nil = &Nil_closure;
    return mk_pair(args[0], &nil);
}
STRATA_FUN_INFO(wrap_fun_info, "wrap_fun", 0, 0, 1, wrap_fun_entry);

/* An array of the generation holding, for each list, a thunk (ap: an AP
 * of wrap_fun) that only it refers to; with the mark held, each is
 * evaluated and its value hung on a root.  The update leaves an
 * indirection to the new value, so the list is reached only through the
 * log of the thunk's free variables (the AP's arguments) taken as it was
 * entered. */
static void evaluate_old_thunks_while_held(bool ap)
{
    harness_start("--nonmoving-gc", "-A256k", "-DS", NULL);
    STRATA_ROOTS(r, 3);
    r[0] = strata_alloc_mut_array(HELD_N);
    r[2] = strata_alloc_fun(&wrap_fun_info);
    for (StgWord i = 0; i < HELD_N; i++) {
        r[1] = mk_list(i * HELD_LEN, (i + 1) * HELD_LEN);
        if (ap) {
            r[1] = strata_make_ap(r[2], &r[1], 1);
        } else {
            StgClosure *t = strata_alloc_thunk(&wrap_thunk_info);
            STRATA_THUNK_FIELD(t, 0) = r[1];
            r[1] = t;
        }
        strata_mut_array_write(r[0], i, r[1]);
    }
    r[2] = NULL;
    strata_perform_gc(1);
    start_held_cycle(&r[1]);
    r[1] = &Nil_closure;
    for (StgWord i = 0; i < HELD_N; i++) {
        StgClosure *v = strata_eval(strata_mut_array_read(r[0], i));
        assert_ptr_equal(v->info, &Pair_info);
        r[1] = mk_pair(v, &r[1]);
    }
    finish_held_cycle(&r[1]);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

static void test_nonmoving_barrier_logs_a_thunks_free_variables(void **state)
{
    (void)state;
    evaluate_old_thunks_while_held(false);
}

static void test_nonmoving_barrier_logs_an_aps_arguments(void **state)
{
    (void)state;
    evaluate_old_thunks_while_held(true);
}

/* Weak pointers of the generation whose keys are unreachable when the
 * cycle starts: the cycle will find them dead, and their values die with
 * them.  With the mark held the program reads each value and keeps it:
 * only the read barrier of strata_deref_weak keeps it marked. */
static void test_nonmoving_barrier_logs_what_a_weak_gives(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A256k", "-DS", NULL);
    STRATA_ROOTS(r, 3);
    r[0] = strata_alloc_mut_array(HELD_N);   /* the weaks */
    r[2] = strata_alloc_mut_array(HELD_N);   /* their keys */
    for (StgWord i = 0; i < HELD_N; i++) {
        r[1] = mk_int(i);
        strata_mut_array_write(r[2], i, r[1]);
        r[1] = mk_list(i * HELD_LEN, (i + 1) * HELD_LEN);
        r[1] = strata_mk_weak(strata_mut_array_read(r[2], i), r[1], NULL, NULL);
        strata_mut_array_write(r[0], i, r[1]);
    }
    strata_perform_gc(1);
    r[2] = NULL;   /* the keys: reachable no more */
    start_held_cycle(&r[1]);
    r[1] = &Nil_closure;
    for (StgWord i = 0; i < HELD_N; i++) {
        StgClosure *v = strata_deref_weak(strata_mut_array_read(r[0], i));
        assert_non_null(v);   /* the cycle has not decided yet */
        r[1] = mk_pair(v, &r[1]);
    }
    finish_held_cycle(&r[1]);
    for (StgWord i = 0; i < HELD_N; i++)
        assert_null(strata_deref_weak(strata_mut_array_read(r[0], i)));
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* r[0] := an array of HELD_N lists of HELD_LEN (r[1] is scratch). */
static void array_of_lists(StgClosure **r)
{
    r[0] = strata_alloc_mut_array(HELD_N);
    for (StgWord i = 0; i < HELD_N; i++) {
        r[1] = mk_list(i * HELD_LEN, (i + 1) * HELD_LEN);
        strata_mut_array_write(r[0], i, r[1]);
    }
}

/* A write into the generation that skips the barrier while a cycle marks
 * (a raw store into an old array's slot), its list kept on a root: the
 * sanity checker's snapshot check names it (Note [Checking the snapshot
 * invariant] in sm/SanitySnapshot.c) before any sweep has freed it. */
static void skip_the_barrier_while_the_mark_is_held(void)
{
    harness_start("--nonmoving-gc", "-A256k", NULL);
    STRATA_ROOTS(r, 2);
    array_of_lists(r);
    strata_perform_gc(1);
    start_held_cycle(&r[1]);
    sanity_check_heap("before the write");   /* passes: nothing moved yet */
    r[1] = strata_mut_array_read(r[0], 0);
    ((StgMutArrPtrs *)r[0])->payload[0] = NULL;
    sanity_check_heap("after the write");
}

static void test_nonmoving_sanity_catches_a_write_that_skips_the_barrier(void **state)
{
    (void)state;
    harness_expect_failure(skip_the_barrier_while_the_mark_is_held, 0, SIGABRT,
                           "sanity check failed (after the write): object of the non-moving generation "
                           "reachable from the roots is neither marked nor reachable from the "
                           "mark's queue or the barrier's log (object=");
}

/* Runs the sync the mark thread asked for: small allocations, a
 * millisecond apart, until one takes the slow path (the thread
 * interrupts the capabilities just after it sets the phase). */
static void run_the_sync(void)
{
    assert_int_equal(nonmoving_phase_now(), NONMOVING_SYNC_WANTED);
    for (long i = 0; nonmoving_phase_now() == NONMOVING_SYNC_WANTED; i++) {
        assert_true(i < 1000);
        usleep(1000);
        (void)mk_int(1);
    }
}

/* The same write, with -DS, and the mark let go: it ends with the program
 * idle and asks for the sync, which the next allocation runs in a pause
 * of its own (no collection), and -DS checks the heap, the old space and
 * the snapshot invariant as the sync begins. */
static void skip_the_barrier_before_the_sync(void)
{
    harness_start("--nonmoving-gc", "-A256k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    array_of_lists(r);
    strata_perform_gc(1);
    start_held_cycle(&r[1]);
    r[1] = strata_mut_array_read(r[0], 0);
    ((StgMutArrPtrs *)r[0])->payload[0] = NULL;
    nonmoving_hold(NONMOVING_IDLE);
    idle_while_phase(NONMOVING_MARKING);
    run_the_sync();
}

static void test_nonmoving_sanity_checks_the_old_space_at_the_sync(void **state)
{
    (void)state;
    harness_expect_failure(skip_the_barrier_before_the_sync, 0, SIGABRT,
                           "sanity check failed (at the sync): object of the non-moving "
                           "generation reachable from the roots is neither marked nor reachable "
                           "from the mark's queue or the barrier's log (object=");
}

/* The bytes of a census's bucket label (0 if none). */
static uint64_t bucket_bytes(const Census *c, const char *label)
{
    for (size_t i = 0; i < c->n_buckets; i++)
        if (strcmp(c->buckets[i].label, label) == 0)
            return c->buckets[i].bytes;
    return 0;
}

/* Until the running cycle is in phase, allocating only garbage Pairs. */
static void run_until_phase(NonMovingPhase phase)
{
    StgClosure *nil = &Nil_closure;
    for (long i = 0; nonmoving_phase_now() != phase; i++) {
        assert_true(i < 100000000);
        (void)mk_pair(NULL, &nil);
    }
}

/* A census by type, the world stopped as for every census (the mark
 * thread parks: a cycle the last collection started marks no object
 * while the census reads the marks). */
static void census_in_a_pause(Census *c)
{
    census_init(c);
    while (!capability_stop_world())
        ;
    census_take(c, HEAP_BY_CLOSURE_TYPE, ERA_RANGE_ALL);
    capability_resume_world();
}

/* A census while a cycle's sweep is held, half the lists and a large
 * byte array found dead and not yet freed: it counts what the sweep will
 * leave (census_take finishes the sweep first), the same as a census
 * once the cycle has ended. */
static void test_nonmoving_census_during_a_sweep_counts_what_lives(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A256k", "-DS", NULL);
    STRATA_ROOTS(r, 3);
    array_of_lists(r);
    r[2] = strata_alloc_bytes(16384);
    strata_perform_gc(1);
    for (StgWord i = 0; i < HELD_N; i += 2)
        strata_mut_array_write(r[0], i, NULL);
    r[2] = NULL;
    nonmoving_hold(NONMOVING_SWEEPING);
    start_cycle(&r[1]);
    run_until_phase(NONMOVING_SWEEPING);
    /* A census in a pause counts the nursery too: the last ballast list
     * may lie there, dead, if no collection ran between the snapshot and
     * the sync (1 run in 5 at load 20).  A minor collection, the sweep
     * still held, drops it. */
    strata_perform_gc(0);
    assert_int_equal(nonmoving_phase_now(), NONMOVING_SWEEPING);
    Census during, after;
    census_in_a_pause(&during);
    /* Until this cycle has ended (the collection that ends it may start
     * the next, which frees nothing before its own sweep). */
    uint64_t cycles = nonmoving_stats()->cycles;
    nonmoving_hold(NONMOVING_IDLE);
    StgClosure *nil = &Nil_closure;
    for (long i = 0; nonmoving_stats()->cycles == cycles; i++) {
        assert_true(i < 100000000);
        (void)mk_pair(NULL, &nil);
    }
    census_in_a_pause(&after);
    const char *labels[] = {"Cons", "Int", "ARR_WORDS"};
    for (size_t k = 0; k < 3; k++)
        assert_int_equal(bucket_bytes(&during, labels[k]), bucket_bytes(&after, labels[k]));
    assert_true(bucket_bytes(&after, "Cons") > 0);
    census_free(&during);
    census_free(&after);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* The dead groups' count: 300 under ThreadSanitizer (build-tsan/'s -N2
 * rerun), where a thousand took 42.9 s of CPU and 300 take 4.5 (-DS
 * checks every listed group at each collection): 600 blocks are still
 * more than four budgets, given back a budget at a time over about ten
 * collections, each checked the same way.  A thousand everywhere else. */
#if defined(__SANITIZE_THREAD__)
#define SWEPT_GROUPS 300
#else
#define SWEPT_GROUPS 1000
#endif

/* A sweep beside the program that frees more groups than one collection's
 * budget: a thousand dead large byte arrays (2,000 blocks), swept while
 * the program waits without allocating, so that no collection frees any
 * before the sweep has listed them all.  Each minor collection then gives
 * back at most its budget (and the one group that passes it), the list
 * shrinks at every one, and its blocks are all back before long.  Before
 * the budget, the first collection freed all 2,000 blocks in its pause
 * (Note [Freeing the sweep's groups a budget at a time] in
 * NonMovingSweep.c); -DS counts the listed groups in the block inventory
 * before and after each collection. */
static void test_nonmoving_sweep_gives_groups_back_a_budget_per_collection(void **state)
{
    (void)state;
    enum { N = SWEPT_GROUPS };
    harness_start("--nonmoving-gc", "-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    StgWord listed = sweep_dead_large_groups(r, N, start_cycle, run_until_phase);
    StgWord budget = nonmoving_settle_budget_blocks();
    assert_true(listed >= 2 * N);
    assert_true(listed > 4 * budget);   /* -A64k: 16 nursery blocks, budget 64 */
    StgWord given = nonmoving_settled()->blocks;
    for (long i = 0; nonmoving_unfreed_blocks() > 0; i++) {
        assert_true(i < 1000);
        StgWord left = nonmoving_unfreed_blocks(), had = nonmoving_settled()->blocks;
        strata_perform_gc(0);
        /* At most the budget, and what the group that passes it holds. */
        assert_true(nonmoving_settled()->blocks - had < budget + SEGMENT_BLOCKS);
        assert_true(nonmoving_unfreed_blocks() < left);
    }
    assert_true(nonmoving_settled()->blocks - given >= listed);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* A cheap generator, so that the moves differ from slot to slot. */
static StgWord next_random(StgWord *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

/* Lists in an array of the generation, moved from slot to slot while
 * cycles mark beside the program, the mark running free: the
 * interleavings the held tests above do not reach (the mark thread
 * tracing the array while the program writes into it), under -DS and
 * ThreadSanitizer.  At the end every list is whole. */
static void test_nonmoving_concurrent_mark_keeps_what_the_program_moves(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A256k", "-DS", NULL);
    enum { N = 2000, LEN = 5 };
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_mut_array(N);
    for (StgWord i = 0; i < N; i++) {
        r[1] = mk_list(i * LEN, (i + 1) * LEN);
        strata_mut_array_write(r[0], i, r[1]);
    }
    strata_perform_gc(1);
    const NonMovingStats *st = nonmoving_stats();
    uint64_t concurrent0 = st->cycles - st->stw_cycles;
    StgWord seed = 1;
    /* Until three cycles have marked beside the program.  A list is now
     * and then replaced by a copy, which the next minor collection
     * promotes: the generation grows past its budget, and the major
     * collections that start the cycles follow. */
    for (long step = 0; st->cycles - st->stw_cycles < concurrent0 + 3; step++) {
        assert_true(step < 50000000);
        StgWord i = next_random(&seed) % N, j = next_random(&seed) % N;
        StgClosure *a = strata_mut_array_read(r[0], i);
        StgClosure *b = strata_mut_array_read(r[0], j);
        strata_mut_array_write(r[0], i, b);
        strata_mut_array_write(r[0], j, a);
        if (step % 4 == 0) {
            StgWord lo = STRATA_WORD(STRATA_FIELD(b, 0), 0);
            r[1] = mk_list(lo, lo + LEN);
            strata_mut_array_write(r[0], i, r[1]);
        }
    }
    strata_perform_gc(1);
    /* Each list is still whole, and the N of them are N different ones. */
    StgWord sum = 0;
    for (StgWord i = 0; i < N; i++) {
        StgClosure *l = strata_mut_array_read(r[0], i);
        StgWord lo = STRATA_WORD(STRATA_FIELD(l, 0), 0);
        assert_int_equal(lo % LEN, 0);
        check_list(l, lo, lo + LEN);
        sum += lo / LEN;
    }
    assert_int_equal(sum, (StgWord)N * (N - 1) / 2);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* Where no processor is spare for both the mark thread and the prefault
 * helper, the helper makes way while the mark thread marks and sweeps
 * (Note [The mark thread parks] in sm/NonMovingThread.c): counted, not
 * timed. */
static void test_nonmoving_prefault_helper_makes_way_for_the_mark(void **state)
{
    (void)state;
    harness_start("--nonmoving-gc", "-A256k", NULL);
    STRATA_ROOTS(r, 1);
    StgWord ways = mblock_prefault_ways_made();
    const NonMovingStats *st = nonmoving_stats();
    uint64_t cycles = st->cycles, stw = st->stw_cycles;
    start_cycle(&r[0]);
    for (long i = 0; st->cycles == cycles; i++) {
        assert_true(i < 100000000);
        (void)mk_list(0, 10);
    }
    assert_int_equal(st->stw_cycles, stw);   /* it ran beside the program */
    if (os_cpus_available() < capabilities_n + 2)
        assert_true(mblock_prefault_ways_made() > ways);
    else
        assert_int_equal(mblock_prefault_ways_made(), ways);
    STRATA_ROOTS_POP(r);
    hs_exit();
}

/* A large array the snapshot's collection promotes is allocated black,
 * so that collection must queue the generation's objects it holds, clean
 * cards and all (Note [Scanning an array's cards] in sm/Scav.c): here
 * the array alone keeps old cells, and the -DS check after the snapshot
 * finds them neither marked nor queued if it does not; left so, the
 * sweep would free them (msgbuf crashed in the mark). */
static void test_nonmoving_snapshot_queues_what_a_young_array_holds(void **state)
{
    (void)state;
    enum { N = 3000, LEN = 2048 };
    harness_start("--nonmoving-gc", "-A256k", "-DS", NULL);
    STRATA_ROOTS(r, 3);
    r[0] = mk_list(0, N);
    strata_perform_gc(1);
    assert_true(Bdescr(r[0])->flags & BF_NONMOVING);
    nonmoving_hold(NONMOVING_MARKING);
    /* Old ballast until the next collection is a snapshot's. */
    r[1] = &Nil_closure;
    for (long i = 0; policy_gen_due(false) != storage_n_gens - 1; i++) {
        assert_true(i < 10000);
        for (StgWord k = 0; k < 1000; k++)
            r[1] = cons_int(k, &r[1]);
        strata_perform_gc(0);
        assert_int_equal(nonmoving_phase_now(), NONMOVING_IDLE);
    }
    r[2] = strata_alloc_mut_array(LEN);
    assert_true(Bdescr(r[2])->flags & BF_LARGE);
    assert_false(Bdescr(r[2])->flags & BF_NONMOVING);
    StgClosure *cell = r[0];
    for (StgWord i = 0; i < LEN; i++, cell = STRATA_FIELD(cell, 1))
        strata_mut_array_write(r[2], i, cell);
    r[0] = r[1] = NULL;
    strata_perform_gc(0);   /* the snapshot's */
    assert_int_equal(nonmoving_phase_now(), NONMOVING_MARKING);
    assert_true(Bdescr(r[2])->flags & BF_NONMOVING);
    nonmoving_hold(NONMOVING_IDLE);
    const NonMovingStats *st = nonmoving_stats();
    for (uint64_t cycles = st->cycles, i = 0; st->cycles == cycles; i++) {
        assert_true(i < 100000000);
        (void)mk_int(i);
    }
    strata_perform_gc(1);
    for (StgWord i = 0; i < LEN; i++) {
        StgClosure *c = strata_mut_array_read(r[2], i);
        assert_ptr_equal(c->info, &Cons_info);
        assert_int_equal(STRATA_WORD(c, 2), i);
        assert_int_equal(STRATA_WORD(STRATA_FIELD(c, 0), 0), i);
    }
    STRATA_ROOTS_POP(r);
    hs_exit();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonmoving_survivors_live_in_segments_and_stay_put),
        cmocka_unit_test(test_nonmoving_cycle_frees_slots_and_promotion_reuses_them),
        cmocka_unit_test(test_nonmoving_kilobyte_byte_array_wastes_little),
        cmocka_unit_test(test_nonmoving_sync_work_does_not_grow_with_the_generation),
        cmocka_unit_test(test_nonmoving_mark_queue_reuses_its_chunks),
        cmocka_unit_test(test_nonmoving_eras_survive_slot_reuse),
        cmocka_unit_test(test_nonmoving_hundred_thousand_eras_keep_their_eras),
        cmocka_unit_test(test_nonmoving_weak_dies_with_its_key_in_a_cycle),
        cmocka_unit_test(test_nonmoving_large_and_pinned_groups_are_swept),
        cmocka_unit_test(test_nonmoving_barrier_logs_overwritten_values),
        cmocka_unit_test(test_nonmoving_barrier_logs_a_thunks_free_variables),
        cmocka_unit_test(test_nonmoving_barrier_logs_an_aps_arguments),
        cmocka_unit_test(test_nonmoving_barrier_logs_what_a_weak_gives),
        cmocka_unit_test(test_nonmoving_sanity_catches_a_write_that_skips_the_barrier),
        cmocka_unit_test(test_nonmoving_sanity_checks_the_old_space_at_the_sync),
        cmocka_unit_test(test_nonmoving_census_during_a_sweep_counts_what_lives),
        cmocka_unit_test(test_nonmoving_sweep_gives_groups_back_a_budget_per_collection),
        cmocka_unit_test(test_nonmoving_concurrent_mark_keeps_what_the_program_moves),
        cmocka_unit_test(test_nonmoving_prefault_helper_makes_way_for_the_mark),
        cmocka_unit_test(test_nonmoving_snapshot_queues_what_a_young_array_holds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
