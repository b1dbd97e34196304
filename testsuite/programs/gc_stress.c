/*
 * testsuite/programs/gc_stress.c -- a randomized mutator for running under
 * +RTS -A8k -DS: a table of mutable slots holding lists, trees, thunks,
 * byte arrays (pinned and not) and large arrays, replaced and mutated at
 * random with a fixed, printed seed.  Every value carries a checksum that
 * is verified when the value is read back, so a collector bug shows up as
 * a wrong checksum or a sanity-check abort.
 *
 *     gc_stress [STEPS] [SEED] +RTS -A8k -DS -RTS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata.h>

STRATA_CONSTR_INFO(Cons_info, "Cons", 2, 1);    /* head, tail, value */
STRATA_CONSTR_INFO(Leaf_info, "Leaf", 0, 1);    /* value */
STRATA_CONSTR_INFO(Nil_info, "Nil", 0, 0);
static StgClosure Nil_closure = {&Nil_info};

static unsigned long long rng_state;
static StgWord rnd(StgWord n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (StgWord)((rng_state >> 33) % n);
}

static StgClosure *leaf(StgWord v)
{
    StgClosure *c = strata_alloc_constr(&Leaf_info);
    STRATA_WORD(c, 0) = v;
    return c;
}

/* A list of n leaves whose values sum to the value stored in its head. */
static StgClosure *make_list(StgWord n, StgWord *sum)
{
    STRATA_ROOTS(r, 2);
    r[0] = &Nil_closure;
    *sum = 0;
    for (StgWord i = 0; i < n; i++) {
        StgWord v = rnd(1000);
        *sum += v;
        r[1] = leaf(v);
        StgClosure *c = strata_alloc_constr(&Cons_info);
        STRATA_FIELD(c, 0) = r[1];
        STRATA_FIELD(c, 1) = r[0];
        STRATA_WORD(c, 2) = *sum;
        r[0] = c;
    }
    StgClosure *l = r[0];
    STRATA_ROOTS_POP(r);
    return l;
}

static StgWord list_sum(StgClosure *l)
{
    StgWord s = 0, expect = l == &Nil_closure ? 0 : STRATA_WORD(l, 2);
    for (; l != &Nil_closure; l = STRATA_FIELD(l, 1))
        s += STRATA_WORD(STRATA_FIELD(l, 0), 0);
    if (s != expect) {
        fprintf(stderr, "gc_stress: list checksum mismatch (sum=%lu, expected=%lu)\n",
                (unsigned long)s, (unsigned long)expect);
        exit(1);
    }
    return s;
}

/* A thunk that sums its list when forced. */
static StgClosure *sum_entry(StgClosure **self)
{
    StgWord s = list_sum(STRATA_THUNK_FIELD(*self, 0));
    (void)make_list(20, &(StgWord){0});   /* allocate while under evaluation */
    return leaf(s);
}
STRATA_THUNK_INFO(sum_info, "sum_thunk", 1, 0, sum_entry);

enum { SLOTS = 256 };

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long steps = argc > 1 ? atol(argv[1]) : 20000;
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 10) : 42;
    printf("gc_stress: steps=%ld seed=%llu\n", steps, rng_state);

    STRATA_ROOTS(r, 3);
    r[0] = strata_alloc_mut_array(SLOTS);   /* the table */
    StgWord sums[SLOTS] = {0};
    for (long step = 0; step < steps; step++) {
        StgWord slot = rnd(SLOTS);
        StgClosure *old = strata_mut_array_read(r[0], slot);
        if (old != NULL) {   /* verify what the slot holds */
            StgHalfWord t = old->info->type;
            if (old->info == &Cons_info) {
                list_sum(old);
            } else if (old->info == &Leaf_info) {   /* a forced thunk, short-circuited */
                if (STRATA_WORD(old, 0) != sums[slot]) {
                    fprintf(stderr, "gc_stress: forced value wrong (slot=%lu)\n",
                            (unsigned long)slot);
                    return 1;
                }
            } else if (old->info == &stg_ARR_WORDS_info) {
                unsigned char *b = STRATA_BYTES_PTR(old);
                for (StgWord i = 0; i < STRATA_BYTES_LEN(old); i++)
                    if (b[i] != (unsigned char)(sums[slot] + i)) {
                        fprintf(stderr, "gc_stress: byte array corrupted (slot=%lu)\n",
                                (unsigned long)slot);
                        return 1;
                    }
            } else if (t == IND || (t >= THUNK && t <= THUNK_0_2)) {
                StgClosure *v = strata_eval(strata_mut_array_read(r[0], slot));
                if (STRATA_WORD(v, 0) != sums[slot]) {
                    fprintf(stderr, "gc_stress: thunk value wrong (slot=%lu)\n",
                            (unsigned long)slot);
                    return 1;
                }
            }
        }
        StgWord sum = 0;
        switch (rnd(6)) {
        case 0: case 1:
            r[1] = make_list(1 + rnd(50), &sum);
            break;
        case 2: {
            r[2] = make_list(1 + rnd(30), &sum);
            StgClosure *t = strata_alloc_thunk(&sum_info);
            STRATA_THUNK_FIELD(t, 0) = r[2];
            r[1] = t;
            break;
        }
        case 3: case 4: {
            StgWord n = rnd(4) == 0 ? 4000 + rnd(20000) : 1 + rnd(200);
            r[1] = rnd(2) ? strata_alloc_pinned_bytes(n) : strata_alloc_bytes(n);
            sum = rnd(256);
            unsigned char *b = STRATA_BYTES_PTR(r[1]);
            for (StgWord i = 0; i < n; i++)
                b[i] = (unsigned char)(sum + i);
            break;
        }
        default:
            r[1] = NULL;
            break;
        }
        strata_mut_array_write(r[0], slot, r[1]);
        sums[slot] = sum;
        if (rnd(5000) == 0)
            strata_perform_gc(1);
    }
    /* A last major collection. Under --nonmoving-gc it finishes a cycle
     * that runs beside the program, so what died since the last finished
     * cycle is found dead before the program ends (alloc-sample.sh counts
     * the sampled objects that died; without it the count depends on how
     * many cycles the mark thread finished in time). */
    strata_perform_gc(1);
    STRATA_ROOTS_POP(r);
    printf("gc_stress: ok\n");
    hs_exit();
    return 0;
}
