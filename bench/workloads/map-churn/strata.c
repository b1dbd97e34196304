/*
 * bench/workloads/map-churn -- long-lived data with steady churn (strata C API).
 *
 * A persistent weight-balanced binary search tree (the algorithm of
 * Data.Map: delta 3, ratio 2, single/double rotations), Int keys and values
 * unboxed in the nodes (48 bytes a node).  Build the tree of the N even
 * keys 0, 2, .., 2N-2 (perfectly balanced, in O(N)), then N/8 rounds of
 * churn: insert one pseudo-random key from [0, 2N), delete another.  Every
 * update copies its path, so the old generation (the tree: 48 MB a million
 * keys) keeps turning over and major collections dominate.  Prints the size
 * and a checksum; ghc.hs runs the same algorithm on the same key sequence.
 *
 *     strata <n> [+RTS ... -RTS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <strata.h>

/* Bin: left, right; size, key, value.  Tip: a static closure. */
STRATA_CONSTR_INFO(Bin_info, "Bin", 2, 3);
STRATA_CONSTR_INFO(Tip_info, "Tip", 0, 0);
static StgClosure Tip_closure = {&Tip_info};
#define TIP (&Tip_closure)

#define LEFT(t) STRATA_FIELD((t), 0)
#define RIGHT(t) STRATA_FIELD((t), 1)
#define SIZE(t) ((long)STRATA_WORD((t), 2))
#define KEY(t) ((long)STRATA_WORD((t), 3))
#define VAL(t) ((long)STRATA_WORD((t), 4))

#define DELTA 3
#define RATIO 2

static inline long size(const StgClosure *t) { return t == TIP ? 0 : SIZE(t); }

/* A node over l and r: the caller passes them straight from roots (or
 * fresh), and bin allocates once, then reads nothing else from the heap. */
static StgClosure *bin(long k, long v, StgClosure **l, StgClosure **r)
{
    StgClosure *t = strata_alloc_constr(&Bin_info);
    STRATA_FIELD(t, 0) = *l;
    STRATA_FIELD(t, 1) = *r;
    STRATA_WORD(t, 2) = (StgWord)(size(*l) + size(*r) + 1);
    STRATA_WORD(t, 3) = (StgWord)k;
    STRATA_WORD(t, 4) = (StgWord)v;
    return t;
}

/* balance k v l r: l and r are raw pointers, rooted before any allocation. */
static StgClosure *balance(long k, long v, StgClosure *l, StgClosure *r)
{
    long sl = size(l), sr = size(r);
    STRATA_ROOTS(s, 4);
    s[0] = l;
    s[1] = r;
    StgClosure *t;
    if (sl + sr <= 1) {
        t = bin(k, v, &s[0], &s[1]);
    } else if (sr > DELTA * sl) {
        /* rotate left; r is a Bin */
        StgClosure *rl = LEFT(r), *rr = RIGHT(r);
        if (size(rl) < RATIO * size(rr)) {
            /* singleL k v l (Bin k2 v2 rl rr) = bin k2 v2 (bin k v l rl) rr */
            s[2] = rl;
            s[3] = bin(k, v, &s[0], &s[2]);
            s[2] = RIGHT(s[1]);
            t = bin(KEY(s[1]), VAL(s[1]), &s[3], &s[2]);
        } else {
            /* doubleL k v l (Bin k2 v2 (Bin k3 v3 t2 t3) t4)
             *   = bin k3 v3 (bin k v l t2) (bin k2 v2 t3 t4) */
            s[2] = LEFT(rl);
            s[2] = bin(k, v, &s[0], &s[2]);          /* bin k v l t2 */
            s[0] = RIGHT(LEFT(s[1]));                /* t3 (l no longer needed) */
            s[3] = RIGHT(s[1]);                      /* t4 */
            s[3] = bin(KEY(s[1]), VAL(s[1]), &s[0], &s[3]);
            StgClosure *m = LEFT(s[1]);
            t = bin(KEY(m), VAL(m), &s[2], &s[3]);
        }
    } else if (sl > DELTA * sr) {
        /* rotate right; l is a Bin */
        StgClosure *ll = LEFT(l), *lr = RIGHT(l);
        if (size(lr) < RATIO * size(ll)) {
            /* singleR k v (Bin k2 v2 ll lr) r = bin k2 v2 ll (bin k v lr r) */
            s[2] = lr;
            s[3] = bin(k, v, &s[2], &s[1]);
            s[2] = LEFT(s[0]);
            t = bin(KEY(s[0]), VAL(s[0]), &s[2], &s[3]);
        } else {
            /* doubleR k v (Bin k2 v2 t1 (Bin k3 v3 t2 t3)) t4
             *   = bin k3 v3 (bin k2 v2 t1 t2) (bin k v t3 t4) */
            s[2] = RIGHT(lr);
            s[2] = bin(k, v, &s[2], &s[1]);          /* bin k v t3 t4 */
            s[1] = LEFT(RIGHT(s[0]));                /* t2 (r no longer needed) */
            s[3] = LEFT(s[0]);                       /* t1 */
            s[3] = bin(KEY(s[0]), VAL(s[0]), &s[3], &s[1]);
            StgClosure *m = RIGHT(s[0]);
            t = bin(KEY(m), VAL(m), &s[3], &s[2]);
        }
    } else {
        t = bin(k, v, &s[0], &s[1]);
    }
    STRATA_ROOTS_POP(s);
    return t;
}

static StgClosure *insert(long k, long v, StgClosure *t)
{
    if (t == TIP) {
        STRATA_ROOTS(s, 1);
        s[0] = TIP;
        StgClosure *n = bin(k, v, &s[0], &s[0]);
        STRATA_ROOTS_POP(s);
        return n;
    }
    long kx = KEY(t), x = VAL(t);
    STRATA_ROOTS(s, 2);
    s[0] = t;
    StgClosure *res;
    if (k < kx) {
        s[1] = insert(k, v, LEFT(t));
        res = balance(kx, x, s[1], RIGHT(s[0]));
    } else if (k > kx) {
        s[1] = insert(k, v, RIGHT(t));
        res = balance(kx, x, LEFT(s[0]), s[1]);
    } else {
        s[1] = RIGHT(t);
        s[0] = LEFT(t);
        res = bin(k, v, &s[0], &s[1]);
    }
    STRATA_ROOTS_POP(s);
    return res;
}

/* deleteFindMin / deleteFindMax: the tree without its extreme; the
 * extreme's key and value through *km, *vm.  t is a Bin. */
static StgClosure *delete_find_min(StgClosure *t, long *km, long *vm)
{
    if (LEFT(t) == TIP) {
        *km = KEY(t);
        *vm = VAL(t);
        return RIGHT(t);
    }
    long k = KEY(t), v = VAL(t);
    STRATA_ROOTS(s, 2);
    s[0] = t;
    s[1] = delete_find_min(LEFT(t), km, vm);
    StgClosure *res = balance(k, v, s[1], RIGHT(s[0]));
    STRATA_ROOTS_POP(s);
    return res;
}

static StgClosure *delete_find_max(StgClosure *t, long *km, long *vm)
{
    if (RIGHT(t) == TIP) {
        *km = KEY(t);
        *vm = VAL(t);
        return LEFT(t);
    }
    long k = KEY(t), v = VAL(t);
    STRATA_ROOTS(s, 2);
    s[0] = t;
    s[1] = delete_find_max(RIGHT(t), km, vm);
    StgClosure *res = balance(k, v, LEFT(s[0]), s[1]);
    STRATA_ROOTS_POP(s);
    return res;
}

/* glue l r: both subtrees of a deleted node, balanced with each other. */
static StgClosure *glue(StgClosure *l, StgClosure *r)
{
    if (l == TIP)
        return r;
    if (r == TIP)
        return l;
    long km, vm;
    StgClosure *res;
    STRATA_ROOTS(s, 2);
    s[0] = l;
    s[1] = r;
    if (size(l) > size(r)) {
        s[0] = delete_find_max(l, &km, &vm);
        res = balance(km, vm, s[0], s[1]);
    } else {
        s[1] = delete_find_min(r, &km, &vm);
        res = balance(km, vm, s[0], s[1]);
    }
    STRATA_ROOTS_POP(s);
    return res;
}

static StgClosure *delete(long k, StgClosure *t)
{
    if (t == TIP)
        return TIP;
    long kx = KEY(t), x = VAL(t);
    STRATA_ROOTS(s, 2);
    s[0] = t;
    StgClosure *res;
    if (k < kx) {
        s[1] = delete(k, LEFT(t));
        res = balance(kx, x, s[1], RIGHT(s[0]));
    } else if (k > kx) {
        s[1] = delete(k, RIGHT(t));
        res = balance(kx, x, LEFT(s[0]), s[1]);
    } else {
        res = glue(LEFT(t), RIGHT(t));
    }
    STRATA_ROOTS_POP(s);
    return res;
}

/* The tree of keys 2i, values i, for i in [lo, lo + cnt). */
static StgClosure *build(long lo, long cnt)
{
    if (cnt == 0)
        return TIP;
    long nl = cnt / 2, mid = lo + nl;
    STRATA_ROOTS(s, 2);
    s[0] = build(lo, nl);
    s[1] = build(mid + 1, cnt - nl - 1);
    StgClosure *t = bin(2 * mid, mid, &s[0], &s[1]);
    STRATA_ROOTS_POP(s);
    return t;
}

/* In-order fold: allocates nothing. */
static void fold(const StgClosure *t, uint64_t *sum, long *prev, int *ordered)
{
    while (t != TIP) {
        fold(LEFT(t), sum, prev, ordered);
        if (KEY(t) <= *prev)
            *ordered = 0;
        *prev = KEY(t);
        *sum = *sum * 31 + (uint64_t)KEY(t) * 7 + (uint64_t)VAL(t);
        t = RIGHT(t);
    }
}

static int balanced(const StgClosure *t)
{
    if (t == TIP)
        return 1;
    long sl = size(LEFT(t)), sr = size(RIGHT(t));
    return (sl + sr <= 1 || (sl <= DELTA * sr && sr <= DELTA * sl)) &&
           SIZE(t) == sl + sr + 1 && balanced(LEFT(t)) && balanced(RIGHT(t));
}

static uint64_t rng_state = 42;
static long next_key(long range)
{
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (long)((rng_state >> 33) % (uint64_t)range);
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    if (argc > 2 || n < 1) {
        fprintf(stderr, "usage: %s N [+RTS ... -RTS]\n", argv[0]);
        hs_exit();
        return 2;
    }
    long range = 2 * n;
    STRATA_ROOTS(r, 1);
    r[0] = build(0, n);
    long built = size(r[0]);
    for (long i = 0; i < n / 8; i++) {
        r[0] = insert(next_key(range), i, r[0]);
        r[0] = delete(next_key(range), r[0]);
    }
    uint64_t sum = 0;
    long prev = -1;
    int ordered = 1;
    fold(r[0], &sum, &prev, &ordered);
    printf("map-churn n=%ld built=%ld size=%ld ordered=%d balanced=%d checksum=%llu\n", n,
           built, size(r[0]), ordered, balanced(r[0]), (unsigned long long)sum);
    STRATA_ROOTS_POP(r);
    hs_exit();
    return 0;
}
