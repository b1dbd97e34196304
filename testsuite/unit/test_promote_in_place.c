/*
 * testsuite/unit/test_promote_in_place.c -- a minor GC that promotes the
 * nursery without copying it (Note [Promoting the nursery in place] in
 * sm/PromoteInPlace.h): nothing moves and nothing reachable is lost; the
 * objects the barrier dirtied while young are remembered once old; large
 * and pinned objects, weak pointers, stable names and eras come along; a
 * GC that cannot have fresh nursery blocks copies instead; and the automatic
 * policy follows the nursery's survival, with one capability or several
 * (scripts/test.sh runs it again at -N2).  Every test runs with the
 * sanity checker on (-DS), which checks the remembered sets and the
 * young-group map at every GC.
 */
#include "harness.h"
#include "require.h"

#include "BlockAlloc.h"
#include "Capability.h"
#include "EraRuns.h"
#include "Segment.h"
#include "GC.h"
#include "Messages.h"
#include "MutList.h"
#include "PromoteInPlace.h"
#include "Sanity.h"
#include "StableName.h"
#include "Storage.h"
#include "Tenure.h"
#include "Weak.h"
#include "os/OSMem.h"
#include "strata/Weak.h"

STRATA_CONSTR_INFO(Cons_info, "Cons", 2, 1);   /* head, tail, number */
STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);
STRATA_CONSTR_INFO(Nil_info, "Nil", 0, 0);
static StgClosure Nil_closure = {&Nil_info};

static StgClosure *mk_int(StgWord n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = n;
    return c;
}

/* Prepends Cons(Int n, *list) to the rooted list *list. */
static void push(StgWord n, StgClosure **list)
{
    STRATA_ROOTS(r, 1);
    r[0] = mk_int(n);
    StgClosure *c = strata_alloc_constr(&Cons_info);
    STRATA_FIELD(c, 0) = r[0];
    STRATA_FIELD(c, 1) = *list;
    STRATA_WORD(c, 2) = n;
    *list = c;
    STRATA_ROOTS_POP(r);
}

/* Makes *list the list n-1, n-2, ..., 0 (it must be rooted). */
static void build_list(StgWord n, StgClosure **list)
{
    *list = &Nil_closure;
    for (StgWord i = 0; i < n; i++)
        push(i, list);
}

/* The list n-1, n-2, ..., 0. */
static void check_list(const StgClosure *l, StgWord n)
{
    for (StgWord i = n; i > 0; i--) {
        assert_ptr_equal(l->info, &Cons_info);
        assert_int_equal(STRATA_WORD(l, 2), i - 1);
        assert_int_equal(STRATA_WORD(STRATA_FIELD(l, 0), 0), i - 1);
        l = STRATA_FIELD(l, 1);
    }
    assert_ptr_equal(l, &Nil_closure);
}

static bool on_list(BlockDesc *list, const StgClosure *p)
{
    MUT_LIST_FOR_EACH(list, c, {
        if (c == p)
            return true;
    });
    return false;
}

static int teardown(void **state)
{
    (void)state;
    hs_exit();
    return 0;
}

/* With =always every minor GC promotes in place: a list built across many
 * GCs keeps every cell where it was allocated, and the first major GC
 * copies it. */
static void test_pip_always_moves_nothing(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", "--promote-in-place=always", NULL);
    STRATA_ROOTS(r, 1);
    build_list(20000, &r[0]);
    assert_true(promote_in_place_count() > 0);
    StgClosure *head = r[0];
    assert_true(Bdescr(head)->flags & BF_NURSERY);
    strata_perform_gc(0);
    const GCDetails *d = gc_last_details();
    assert_true(d->in_place);
    assert_int_equal(d->copied_bytes, 0);
    assert_true(d->promoted_in_place_bytes > 0);
    assert_ptr_equal(r[0], head);                       /* not moved */
    assert_int_equal(Bdescr(head)->gen_no, 1);
    assert_false(Bdescr(head)->flags & BF_NURSERY);
    check_list(r[0], 20000);
    strata_perform_gc(1);
    assert_false(gc_last_details()->in_place);
    assert_ptr_not_equal(r[0], head);                   /* a major GC copies */
    check_list(r[0], 20000);
    STRATA_ROOTS_POP(r);
}

/* An in-place GC needs a fresh block for every used nursery block.  When
 * the heap cannot give them (here: no free block left, and the next
 * commit of a megablock fails), the GC copies instead, and nothing is
 * lost or half promoted. */
static void test_pip_falls_back_to_copying(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", "--promote-in-place=always", NULL);
    STRATA_ROOTS(r, 1);
    build_list(2000, &r[0]);
    StgClosure *head = r[0];
    assert_true(Bdescr(head)->flags & BF_NURSERY);
    StgWord in_place_before = promote_in_place_count();

    /* Take every free block: the allocator asks the OS for a megablock
     * only when it has none, and that first request is made to fail.
     * Blocks held here are on no heap list, so the sanity checker's
     * inventory would not balance while they are held: it checks the heap
     * again once they are back. */
    unsigned debug_flags = rts_debug_flags;
    rts_debug_flags &= ~(unsigned)DEBUG_SANITY;
    BlockDesc *held = NULL;
    StgWord n_held = 0;
    sm_lock();
    os_mem_fail_after(1);
    for (BlockDesc *bd; (bd = block_alloc_group(1)) != NULL; n_held++) {
        bd->link = held;
        held = bd;
    }
    os_mem_fail_after(1);   /* the in-place GC's first request fails too */
    sm_unlock();
    assert_true(n_held > 0);

    strata_perform_gc(0);
    os_mem_fail_after(0);
    const GCDetails *d = gc_last_details();
    assert_false(d->in_place);
    assert_int_equal(d->promoted_in_place_bytes, 0);
    assert_true(d->copied_bytes > 0);
    assert_int_equal(promote_in_place_count(), in_place_before);
    assert_ptr_not_equal(r[0], head);                   /* copied */
    assert_false(Bdescr(r[0])->flags & BF_NURSERY);
    check_list(r[0], 2000);

    sm_lock();
    block_free_chain(held);
    sm_unlock();
    rts_debug_flags = debug_flags;
    sanity_check_heap("after a GC that could not promote in place");
    /* The copy aged the list in generation 0 (adaptive aging starts out
     * aging), and aged blocks keep a GC from promoting in place: a major
     * GC empties generation 0, and with blocks to be had again the next
     * minor GC promotes in place. */
    assert_int_equal(Bdescr(r[0])->gen_no, 0);
    assert_non_null(storage_gens[0].blocks);
    strata_perform_gc(1);
    push(2000, &r[0]);
    push(2001, &r[0]);
    strata_perform_gc(0);
    assert_true(gc_last_details()->in_place);
    check_list(r[0], 2002);
    STRATA_ROOTS_POP(r);
}

/* A mutable variable dirtied while young is DIRTY and old after the
 * promotion: it must be on generation 1's remembered list, or the next
 * write of a young object (the barrier's fast path: DIRTY, nothing
 * recorded) would be missed by the next copying GC. */
static void test_pip_dirtied_young_mut_var_is_remembered(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", "--promote-in-place=always", NULL);
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_mut_var();
    r[1] = mk_int(1);
    strata_mut_var_write(r[0], r[1]);
    assert_ptr_equal(r[0]->info, &stg_MUT_VAR_DIRTY_info);
    strata_perform_gc(0);
    assert_true(gc_last_details()->in_place);
    assert_int_equal(Bdescr(r[0])->gen_no, 1);
    assert_ptr_equal(r[0]->info, &stg_MUT_VAR_DIRTY_info);
    assert_true(on_list(storage_gens[1].mut_list, r[0]));
    /* Now copy: the young value is reachable only through the old variable. */
    storage_config.promote_in_place = PROMOTE_IN_PLACE_NEVER;
    r[1] = mk_int(42);
    strata_mut_var_write(r[0], r[1]);
    r[1] = NULL;
    strata_perform_gc(0);
    assert_false(gc_last_details()->in_place);
    StgClosure *v = STRATA_MUT_VAR_READ(r[0]);
    assert_ptr_equal(v->info, &Int_info);
    assert_int_equal(STRATA_WORD(v, 0), 42);
    assert_int_not_equal(Bdescr(v)->gen_no, 0);
    STRATA_ROOTS_POP(r);
}

/* The same for an array: its cards stay marked until a copying GC scans
 * them. */
static void test_pip_dirtied_young_mut_array_is_remembered(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", "--promote-in-place=always", NULL);
    const StgWord n = 1000;
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_mut_array(n);
    r[1] = mk_int(1);
    strata_mut_array_write(r[0], 3, r[1]);
    strata_perform_gc(0);
    assert_true(gc_last_details()->in_place);
    assert_int_equal(Bdescr(r[0])->gen_no, 1);
    assert_true(on_list(storage_gens[1].mut_list, r[0]));
    storage_config.promote_in_place = PROMOTE_IN_PLACE_NEVER;
    for (StgWord i = 0; i < n; i += 97) {
        r[1] = mk_int(i);
        strata_mut_array_write(r[0], i, r[1]);
    }
    r[1] = NULL;
    strata_perform_gc(0);
    for (StgWord i = 0; i < n; i += 97) {
        StgClosure *v = strata_mut_array_read(r[0], i);
        assert_int_equal(STRATA_WORD(v, 0), i);
        assert_int_not_equal(Bdescr(v)->gen_no, 0);
    }
    STRATA_ROOTS_POP(r);
}

/* Large objects and pinned blocks go to generation 1's large-object list
 * with the nursery, unmoved. */
static void test_pip_large_and_pinned_objects(void **state)
{
    (void)state;
    harness_start("-A1m", "-DS", "--promote-in-place=always", NULL);
    STRATA_ROOTS(r, 3);
    r[0] = strata_alloc_bytes(16 * 1024);
    r[1] = strata_alloc_pinned_bytes(100);
    r[2] = mk_int(5);
    memset(STRATA_BYTES_PTR(r[0]), 0xab, 16 * 1024);
    StgClosure *large = r[0], *pinned = r[1];
    assert_int_equal(Bdescr(large)->gen_no, 0);
    strata_perform_gc(0);
    assert_true(gc_last_details()->in_place);
    assert_ptr_equal(r[0], large);
    assert_ptr_equal(r[1], pinned);
    assert_int_equal(Bdescr(large)->gen_no, 1);
    assert_int_equal(Bdescr(pinned)->gen_no, 1);
    assert_null(storage_gens[0].large_objects);
    assert_int_equal(((uint8_t *)STRATA_BYTES_PTR(r[0]))[16 * 1024 - 1], 0xab);
    assert_int_equal(STRATA_WORD(r[2], 0), 5);
    strata_perform_gc(1);
    assert_ptr_equal(r[0], large);                      /* large objects never move */
    STRATA_ROOTS_POP(r);
}

static int finalized;
static void count_finalizer(void *env)
{
    (void)env;
    finalized++;
}

static const StgWeak *wanted_weak;
static unsigned wanted_weak_gen;
static void find_weak(StgWeak *w, unsigned gen, void *env)
{
    (void)env;
    if (w == wanted_weak)
        wanted_weak_gen = gen;
}

/* A weak pointer and its key promoted in place: the key lives on (nothing
 * in generation 0 dies), and dies at the major GC after it is dropped. */
static void test_pip_weak_pointers_come_along(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", "--promote-in-place=always", NULL);
    finalized = 0;
    STRATA_ROOTS(r, 2);
    r[0] = mk_int(7);
    r[1] = strata_mk_weak(r[0], r[0], count_finalizer, NULL);
    r[0] = NULL;
    strata_perform_gc(0);
    assert_true(gc_last_details()->in_place);
    StgClosure *v = strata_deref_weak(r[1]);
    assert_non_null(v);
    assert_int_equal(STRATA_WORD(v, 0), 7);
    assert_int_equal(Bdescr(r[1])->gen_no, 1);
    /* On generation 1's list, as the debugger lists it. */
    wanted_weak = (const StgWeak *)r[1];
    wanted_weak_gen = UINT32_MAX;
    weak_for_each(find_weak, NULL);
    assert_int_equal(wanted_weak_gen, 1);
    strata_perform_gc(1);
    assert_null(strata_deref_weak(r[1]));
    assert_int_equal(finalized, 1);
    STRATA_ROOTS_POP(r);
}

/* Stable names (Note [Stable names do not keep objects alive] in
 * rts/StableName.c) are kept by address and updated by copying GCs.  An
 * in-place GC moves nothing and kills nothing: every name keeps its
 * object, and a name whose object was dropped goes at the major GC after. */
static void test_pip_stable_names_keep_their_objects(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", "--promote-in-place=always", NULL);
    STRATA_ROOTS(r, 2);
    r[0] = mk_int(1);
    r[1] = mk_int(2);
    StgWord name0 = strata_make_stable_name(r[0]);
    StgWord name1 = strata_make_stable_name(r[1]);
    assert_int_not_equal(name0, name1);
    const StgClosure *at = r[0];
    strata_perform_gc(0);
    assert_true(gc_last_details()->in_place);
    assert_int_equal(stable_name_count(), 2);   /* before any lookup makes one */
    assert_ptr_equal(r[0], at);
    assert_int_equal(Bdescr(r[0])->gen_no, 1);
    /* The second first: a forgotten table would give it the lowest name. */
    assert_int_equal(strata_make_stable_name(r[1]), name1);
    assert_int_equal(strata_make_stable_name(r[0]), name0);
    assert_int_equal(stable_name_count(), 2);
    r[1] = NULL;
    strata_perform_gc(0);   /* promoted again, not dead */
    assert_true(gc_last_details()->in_place);
    assert_int_equal(stable_name_count(), 2);
    strata_perform_gc(1);
    assert_int_equal(stable_name_count(), 1);
    assert_int_equal(strata_make_stable_name(r[0]), name0);
    STRATA_ROOTS_POP(r);
}

/* Eras live in the blocks' descriptors and era runs, which promotion in
 * place keeps: every object keeps its birth era, in one nursery block of
 * several eras too. */
static void test_pip_objects_keep_their_eras(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", "--promote-in-place=always", NULL);
    STRATA_ROOTS(r, 3);
    setUserEra(3);
    r[0] = mk_int(3);
    setUserEra(4);
    r[1] = mk_int(4);
    setUserEra(5);
    r[2] = mk_int(5);
    assert_ptr_equal(Bdescr(r[0]), Bdescr(r[2]));      /* one block, three runs */
    strata_perform_gc(0);
    assert_true(gc_last_details()->in_place);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(Bdescr(r[i])->gen_no, 1);
        assert_int_equal(heap_object_era(r[i]), 3 + i);
    }
    strata_perform_gc(1);
    for (int i = 0; i < 3; i++)
        assert_int_equal(heap_object_era(r[i]), 3 + i);
    setUserEra(0);
    STRATA_ROOTS_POP(r);
}

/* auto: a growing list (everything survives) promotes in place once adaptive
 * aging has stopped; short-lived garbage goes back to copying within
 * PIP_RUN GCs and stays there.  The loops run to those events, counted in
 * GCs, with bounds that only end a test that fails; the sanity checker
 * makes every GC cost the whole heap, so they stop as soon as they can. */
static StgWord grow_until_in_place(StgClosure **list)
{
    *list = &Nil_closure;
    StgWord n = 0;
    while (promote_in_place_count() == 0 && n < 200000)
        push(n++, list);
    return n;
}

static void test_pip_auto_follows_survival(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", NULL);
    STRATA_ROOTS(r, 2);
    StgWord n = grow_until_in_place(&r[0]);
    StgWord grown = promote_in_place_count();
    assert_true(grown > 0);
    assert_false(tenure_aging_enabled());
    check_list(r[0], n);
    /* Garbage: each short list is dropped at once. */
    StgWord gcs_before = storage_gens[0].collections;
    for (StgWord i = 0; storage_gens[0].collections <= gcs_before + 4 * PIP_RUN; i++) {
        r[1] = &Nil_closure;
        push(i, &r[1]);
        push(i, &r[1]);
    }
    assert_true(promote_in_place_count() <= grown + PIP_RUN);
    StgWord settled = promote_in_place_count();
    StgWord gcs_settled = storage_gens[0].collections;
    for (StgWord i = 0; storage_gens[0].collections <= gcs_settled + 2 * PIP_RUN; i++) {
        r[1] = &Nil_closure;
        push(i, &r[1]);
    }
    assert_int_equal(promote_in_place_count(), settled);
    check_list(r[0], n);
    STRATA_ROOTS_POP(r);
}

/* auto with capabilities that do not allocate: the one busy thread's GCs
 * come when its own nursery is full, and they promote in place as at -N1.
 * Before, the policy wanted half of all the nurseries allocated, which one
 * thread never reaches from -N3 on, and adaptive aging an eighth of them
 * aged, never reached from -N9 on.  The same growing list at -N1 and at
 * -N16: at -N16 at least half as many GCs in place. */
static StgWord grow_list_in_place_count(const char *caps)
{
    harness_start("-A64k", "-DS", caps, NULL);
    STRATA_ROOTS(r, 1);
    build_list(40000, &r[0]);
    check_list(r[0], 40000);
    STRATA_ROOTS_POP(r);
    return promote_in_place_count();
}

static void test_pip_auto_with_idle_capabilities(void **state)
{
    (void)state;
    StgWord at_n1 = grow_list_in_place_count("-N1");
    hs_exit();
    StgWord at_n16 = grow_list_in_place_count("-N16");
    print_message("in-place GCs: %lu at -N1, %lu at -N16\n", (unsigned long)at_n1,
                  (unsigned long)at_n16);
    assert_true(at_n1 > 0);
    assert_true(at_n16 >= at_n1 / 2);
}

/* never: the same growing list is copied at every GC (auto promotes it
 * in place within about 5,500 cells). */
static void test_pip_never(void **state)
{
    (void)state;
    harness_start("-A64k", "-DS", "--promote-in-place=never", NULL);
    STRATA_ROOTS(r, 1);
    build_list(20000, &r[0]);
    assert_int_equal(promote_in_place_count(), 0);
    check_list(r[0], 20000);
    STRATA_ROOTS_POP(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_pip_always_moves_nothing, teardown),
        cmocka_unit_test_teardown(test_pip_falls_back_to_copying, teardown),
        cmocka_unit_test_teardown(test_pip_dirtied_young_mut_var_is_remembered, teardown),
        cmocka_unit_test_teardown(test_pip_dirtied_young_mut_array_is_remembered, teardown),
        cmocka_unit_test_teardown(test_pip_large_and_pinned_objects, teardown),
        cmocka_unit_test_teardown(test_pip_weak_pointers_come_along, teardown),
        cmocka_unit_test_teardown(test_pip_stable_names_keep_their_objects, teardown),
        cmocka_unit_test_teardown(test_pip_objects_keep_their_eras, teardown),
        cmocka_unit_test_teardown(test_pip_auto_follows_survival, teardown),
        cmocka_unit_test_teardown(test_pip_auto_with_idle_capabilities, teardown),
        cmocka_unit_test_teardown(test_pip_never, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
