/* The complete example of docs/api-guide.md (the test suite checks that
 * the two stay identical, then compiles and runs the guide's copy). */
#include <stdio.h>

#include <strata.h>

/* Info tables: static descriptions of each kind of object. */
STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);      /* 0 pointers, 1 word */
STRATA_CONSTR_INFO(Cons_info, "Cons", 2, 0);    /* head, tail */
STRATA_CONSTR_INFO(Nil_info, "Nil", 0, 0);
static StgClosure Nil_closure = {&Nil_info};     /* a static closure */

static StgClosure *mk_int(StgWord n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = n;
    return c;
}

/* [1..n]: each allocation may move what we hold, so hold it in roots. */
static StgClosure *upto(StgWord n)
{
    STRATA_ROOTS(r, 2);
    r[0] = &Nil_closure;
    for (StgWord i = n; i >= 1; i--) {
        r[1] = mk_int(i);
        StgClosure *cell = strata_alloc_constr(&Cons_info);
        STRATA_FIELD(cell, 0) = r[1];
        STRATA_FIELD(cell, 1) = r[0];
        r[0] = cell;
    }
    StgClosure *list = r[0];
    STRATA_ROOTS_POP(r);
    return list;
}

/* A thunk: sum of the list in its one free variable, computed when forced. */
static StgClosure *sum_entry(StgClosure **self)
{
    StgWord total = 0;
    for (StgClosure *l = STRATA_THUNK_FIELD(*self, 0); l != &Nil_closure;
         l = STRATA_FIELD(l, 1))
        total += STRATA_WORD(STRATA_FIELD(l, 0), 0);
    return mk_int(total);
}
STRATA_THUNK_INFO(sum_info, "sum", 1, 0, sum_entry);

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);              /* strips +RTS ... -RTS */

    STRATA_ROOTS(r, 2);
    r[0] = upto(100000);
    StgClosure *t = strata_alloc_thunk(&sum_info);
    STRATA_THUNK_FIELD(t, 0) = r[0];
    r[1] = t;                           /* unevaluated until forced */

    setUserEra(2);                      /* objects from here on are era 2 */
    StgStablePtr counter = getStablePtr(strata_alloc_mut_var());
    for (StgWord i = 0; i < 1000; i++)
        strata_mut_var_write(deRefStablePtr(counter), mk_int(i));

    StgClosure *sum = strata_eval(r[1]);
    printf("sum = %lu\n", (unsigned long)STRATA_WORD(sum, 0));
    printf("counter = %lu\n",
           (unsigned long)STRATA_WORD(STRATA_MUT_VAR_READ(deRefStablePtr(counter)), 0));
    printf("era = %lu\n", (unsigned long)getUserEra());

    freeStablePtr(counter);
    STRATA_ROOTS_POP(r);
    hs_exit();
    return 0;
}
