/*
 * examples/ffi-qsort.c -- foreign calls in both directions (the "Foreign
 * calls" section of docs/api-guide.md):
 *
 *   - libc's qsort sorts C data with a comparator that is a strata
 *     function closure, turned into a C function pointer by rts_mkFunPtr;
 *   - a C "library" function walks an array and calls a strata callback
 *     with a context object passed as a stable pointer;
 *   - strata code calls C functions it holds only as pointers (strlen,
 *     qsort itself) with rts_dynamic_call, taking the arguments from heap
 *     values.
 *
 * Every callback allocates, so with +RTS -A8k the collector runs inside
 * them again and again; testsuite/scripts/ffi.sh runs this under -DS.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata.h>

STRATA_CONSTR_INFO(Cons_info, "Cons", 2, 0);
STRATA_CONSTR_INFO(Nil_info, "Nil", 0, 0);
static StgClosure Nil_closure = {&Nil_info};

/* ---- A comparator for qsort: int compare(const void *, const void *) --- */

typedef struct {
    const char *name;
    int score;
} Player;

/* Highest score first, then by name.  The arguments arrive as Ptr boxes;
 * the result is an I# box. */
static StgClosure *by_score_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    const Player *a = rts_getPtr(args[0]);
    const Player *b = rts_getPtr(args[1]);
    int c = (b->score > a->score) - (b->score < a->score);
    if (c == 0)
        c = strcmp(a->name, b->name);
    return rts_mkInt(c);
}
STRATA_FUN_INFO(by_score_info, "by_score", 0, 0, 2, by_score_entry);
static StgClosure by_score = {&by_score_info};

static StgClosure *compare_ints_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    int a = *(const int *)rts_getPtr(args[0]);
    int b = *(const int *)rts_getPtr(args[1]);
    return rts_mkInt((a > b) - (a < b));
}
STRATA_FUN_INFO(compare_ints_info, "compare_ints", 0, 0, 2, compare_ints_entry);
static StgClosure compare_ints = {&compare_ints_info};

typedef int (*CompareFn)(const void *, const void *);

/* ---- A C library that takes a callback and a context pointer ---------- */

static void for_each_even(const int *xs, size_t n, void (*visit)(int, void *), void *ctx)
{
    for (size_t i = 0; i < n; i++)
        if (xs[i] % 2 == 0)
            visit(xs[i], ctx);
}

/* visit(x, seen): conses x (an I#) onto the list in the mutable variable
 * seen, the object behind the context's stable pointer.  A void callback's
 * result is ignored. */
static StgClosure *visit_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    StgClosure *cell = strata_alloc_constr(&Cons_info);
    STRATA_FIELD(cell, 0) = args[0];   /* args are rooted: read after allocating */
    STRATA_FIELD(cell, 1) = STRATA_MUT_VAR_READ(args[1]);
    strata_mut_var_write(args[1], cell);
    return &Nil_closure;
}
STRATA_FUN_INFO(visit_info, "visit", 0, 0, 2, visit_entry);
static StgClosure visit = {&visit_info};

/* ---- The program -------------------------------------------------------- */

static void sort_players(void)
{
    Player players[] = {{"ada", 90}, {"bob", 75}, {"cy", 90}, {"dee", 60}, {"eve", 75}};
    size_t n = sizeof players / sizeof players[0];
    HsFunPtr cmp = rts_mkFunPtr(&by_score, "int(ptr, ptr)");
    qsort(players, n, sizeof players[0], (CompareFn)cmp);
    hs_free_fun_ptr(cmp);
    printf("players:");
    for (size_t i = 0; i < n; i++)
        printf(" %s=%d", players[i].name, players[i].score);
    printf("\n");
}

static void sort_many_numbers(size_t n)
{
    int *xs = malloc(n * sizeof *xs);
    if (xs == NULL)
        exit(1);
    for (size_t i = 0; i < n; i++)
        xs[i] = (int)((i * 2654435761u) % n);   /* a permutation of 0 .. n-1 */
    HsFunPtr cmp = rts_mkFunPtr(&compare_ints, "int(ptr,ptr)");
    qsort(xs, n, sizeof *xs, (CompareFn)cmp);
    hs_free_fun_ptr(cmp);
    size_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += xs[i] != (int)i;
    printf("sorted %zu numbers with a strata comparator: %s\n", n, wrong ? "WRONG" : "ok");
    free(xs);
}

static void visit_evens(void)
{
    static const int xs[] = {3, 8, 5, 2, 10, 7, 4};
    StgStablePtr seen = getStablePtr(strata_alloc_mut_var());
    strata_mut_var_write(deRefStablePtr(seen), &Nil_closure);
    HsFunPtr fp = rts_mkFunPtr(&visit, "void(int, sptr)");
    for_each_even(xs, sizeof xs / sizeof xs[0], (void (*)(int, void *))fp, seen);
    hs_free_fun_ptr(fp);
    printf("evens, last first:");
    for (StgClosure *l = STRATA_MUT_VAR_READ(deRefStablePtr(seen)); l != &Nil_closure;
         l = STRATA_FIELD(l, 1))
        printf(" %ld", (long)rts_getInt(STRATA_FIELD(l, 0)));
    printf("\n");
    freeStablePtr(seen);
}

static void call_c_dynamically(void)
{
    STRATA_ROOTS(r, 5);
    /* strlen on a pinned byte array: its payload address is passed. */
    const char text[] = "hello, strata";
    r[0] = strata_alloc_pinned_bytes(sizeof text);
    memcpy(STRATA_BYTES_PTR(r[0]), text, sizeof text);
    if (rts_dynamic_call((HsFunPtr)strlen, "size_t(ptr)", r, &r[1]) != STRATA_FFI_OK)
        exit(1);
    printf("strlen(\"%s\") = %lu\n", text, (unsigned long)rts_getWord(r[1]));

    /* qsort, called from strata, calling the strata comparator back. */
    int nums[] = {42, 7, 19, 3, 25};
    size_t n = sizeof nums / sizeof nums[0];
    HsFunPtr cmp = rts_mkFunPtr(&compare_ints, "int(ptr,ptr)");
    r[0] = rts_mkPtr(nums);
    r[1] = rts_mkWord(n);
    r[2] = rts_mkWord(sizeof nums[0]);
    r[3] = rts_mkPtr((void *)cmp);
    if (rts_dynamic_call((HsFunPtr)qsort, "void(ptr,size_t,size_t,ptr)", r, NULL) != STRATA_FFI_OK)
        exit(1);
    hs_free_fun_ptr(cmp);
    printf("qsort via rts_dynamic_call:");
    for (size_t i = 0; i < n; i++)
        printf(" %d", nums[i]);
    printf("\n");

    /* A signature that does not parse is refused with a message. */
    if (rts_dynamic_call((HsFunPtr)strlen, "size_t(pointer)", r, &r[4]) ==
        STRATA_FFI_BAD_SIGNATURE)
        printf("a bad signature is refused\n");
    STRATA_ROOTS_POP(r);
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 100000;
    sort_players();
    sort_many_numbers(n);
    visit_evens();
    call_c_dynamically();
    hs_exit();
    return 0;
}
