#include <stdio.h>

#include <strata.h>

STRATA_CONSTR_INFO(Int_info, "Int", 0, 1);

static StgClosure *mk_int(StgWord n)
{
    StgClosure *c = strata_alloc_constr(&Int_info);
    STRATA_WORD(c, 0) = n;
    return c;
}

/* add x y: a function of arity 2. */
static StgClosure *add_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    StgWord sum = STRATA_WORD(args[0], 0) + STRATA_WORD(args[1], 0);
    return mk_int(sum);
}
STRATA_FUN_INFO(add_info, "add", 0, 0, 2, add_entry);

static void on_death(void *env)
{
    printf("finalized %s\n", (const char *)env);
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    STRATA_ROOTS(r, 4);

    /* A weak pointer: the value lives as long as the key. */
    r[0] = mk_int(1);                        /* the key */
    r[2] = mk_int(2);                        /* the value */
    r[1] = strata_mk_weak(r[0], r[2], on_death, "the key");
    r[2] = NULL;
    strata_perform_gc(1);
    printf("value = %lu\n", (unsigned long)STRATA_WORD(strata_deref_weak(r[1]), 0));
    r[0] = NULL;                             /* the key dies */
    strata_perform_gc(1);                    /* the finalizer runs before it returns */
    printf("after the key died: %s\n", strata_deref_weak(r[1]) == NULL ? "NULL" : "alive");

    /* Partial application: add 40 is a PAP, waiting for one more. */
    r[0] = strata_alloc_fun(&add_info);
    r[2] = mk_int(40);
    r[3] = mk_int(2);
    r[1] = strata_apply(r[0], &r[2], 1);
    StgClosure *v = strata_apply(r[1], &r[3], 1);
    printf("add 40 2 = %lu\n", (unsigned long)STRATA_WORD(v, 0));

    /* A stable name survives collections that move the object. */
    StgWord name = strata_make_stable_name(r[1]);
    strata_perform_gc(1);
    printf("same stable name: %s\n", strata_make_stable_name(r[1]) == name ? "yes" : "no");

    STRATA_ROOTS_POP(r);
    hs_exit();
    return 0;
}
