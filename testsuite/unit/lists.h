/*
 * testsuite/unit/lists.h -- the lists the collector's unit tests build:
 * cons cells that carry their number, each holding an Int of it, ending
 * in a static Nil, and the check that a list is still [lo .. hi-1].
 * Include after harness.h.
 */
#ifndef STRATA_TEST_LISTS_H
#define STRATA_TEST_LISTS_H

#include <strata.h>

/* Cons cells carry a number so each object can be recognised. */
STRATA_CONSTR_INFO(Cons_info, "Cons", 2, 1);   /* head, tail, number */
STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);
STRATA_CONSTR_INFO(Nil_info, "Nil", 0, 0);
static StgClosure Nil_closure = {&Nil_info};

static inline StgClosure *mk_int(StgWord n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = n;
    return c;
}

/* Cons(Int n, tail) with tail taken from a rooted slot. */
static inline StgClosure *cons_int(StgWord n, StgClosure **tail_slot)
{
    STRATA_ROOTS(r, 1);
    r[0] = mk_int(n);
    StgClosure *c = strata_alloc_constr(&Cons_info);
    STRATA_FIELD(c, 0) = r[0];
    STRATA_FIELD(c, 1) = *tail_slot;
    STRATA_WORD(c, 2) = n;
    STRATA_ROOTS_POP(r);
    return c;
}

/* [lo .. hi-1] as a list. */
static inline StgClosure *mk_list(StgWord lo, StgWord hi)
{
    STRATA_ROOTS(r, 1);
    r[0] = &Nil_closure;
    for (StgWord i = hi; i > lo; i--)
        r[0] = cons_int(i - 1, &r[0]);
    StgClosure *l = r[0];
    STRATA_ROOTS_POP(r);
    return l;
}

static inline void check_list(StgClosure *l, StgWord lo, StgWord hi)
{
    for (StgWord i = lo; i < hi; i++) {
        assert_ptr_equal(l->info, &Cons_info);
        assert_int_equal(STRATA_WORD(l, 2), i);
        assert_int_equal(STRATA_WORD(STRATA_FIELD(l, 0), 0), i);
        l = STRATA_FIELD(l, 1);
    }
    assert_ptr_equal(l, &Nil_closure);
}

#endif /* STRATA_TEST_LISTS_H */
