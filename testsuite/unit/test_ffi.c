/*
 * testsuite/unit/test_ffi.c -- foreign calls (includes/strata/Ffi.h):
 * function pointers made from closures, called by qsort and by C loops
 * while the callbacks allocate and the collector runs with the sanity
 * checker (-A8k -DS); dynamic calls with every type; function pointers
 * made and freed many times; and every kind of misuse: bad signatures,
 * arity mismatches, wrong arguments and results, foreign threads, calls
 * after hs_exit, double frees.
 */
#include "harness.h"

#include <pthread.h>

#include "Adjustor.h"
#include "FfiCall.h"
#include "FfiSignature.h"
#include "Stats.h"

STRATA_CONSTR_INFO(Cons_info, "Cons", 2, 0);
STRATA_CONSTR_INFO(Nil_info, "Nil", 0, 0);
STRATA_CONSTR_INFO(MyInt_info, "MyInt", 0, 1);
static StgClosure Nil_closure = {&Nil_info};

static int setup(void **state)
{
    (void)state;
    harness_start("-A8k", "-DS", NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    adjustor_check();
    assert_int_equal(adjustor_live_count(), 0);
    hs_exit();
    return 0;
}

static StgWord gcs_so_far(void)
{
    RtsStats s;
    stats_get(&s);
    return s.gcs;
}

/* [Int 1 .. Int n] with the head in a rooted slot. */
static StgClosure *build_list(int64_t n)
{
    STRATA_ROOTS(r, 2);
    r[0] = &Nil_closure;
    for (int64_t i = n; i >= 1; i--) {
        r[1] = rts_mkInt(i);
        StgClosure *c = strata_alloc_constr(&Cons_info);
        STRATA_FIELD(c, 0) = r[1];
        STRATA_FIELD(c, 1) = r[0];
        r[0] = c;
    }
    StgClosure *l = r[0];
    STRATA_ROOTS_POP(r);
    return l;
}

static int64_t sum_list(StgClosure *l)
{
    int64_t s = 0;
    for (; l != &Nil_closure; l = STRATA_FIELD(l, 1))
        s += rts_getInt(STRATA_FIELD(l, 0));
    return s;
}

static int64_t list_length(StgClosure *l)
{
    int64_t n = 0;
    for (; l != &Nil_closure; l = STRATA_FIELD(l, 1))
        n++;
    return n;
}

/* ----------------------------------------------------------------------
 * qsort with an allocating strata comparator
 * ---------------------------------------------------------------------- */

/* The comparison is a thunk over two fresh boxes, forced by the
 * comparator, which also leaves a little list of garbage behind. */
static StgClosure *compare_thunk_entry(StgClosure **self)
{
    int64_t x = rts_getInt(STRATA_THUNK_FIELD(*self, 0));
    int64_t y = rts_getInt(STRATA_THUNK_FIELD(*self, 1));
    return rts_mkInt(x < y ? -1 : x > y ? 1 : 0);
}
STRATA_THUNK_INFO(compare_thunk_info, "compare", 2, 0, compare_thunk_entry);

static StgWord comparator_calls;

static StgClosure *cmp_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    comparator_calls++;
    const int64_t *a = rts_getPtr(args[0]);
    const int64_t *b = rts_getPtr(args[1]);
    STRATA_ROOTS(r, 3);
    r[0] = rts_mkInt(*a);
    r[1] = rts_mkInt(*b);
    StgClosure *t = strata_alloc_thunk(&compare_thunk_info);
    STRATA_THUNK_FIELD(t, 0) = r[0];
    STRATA_THUNK_FIELD(t, 1) = r[1];
    r[2] = t;
    r[0] = build_list(4);                     /* garbage */
    StgClosure *result = strata_eval(r[2]);   /* an I# */
    STRATA_ROOTS_POP(r);
    return result;
}
STRATA_FUN_INFO(cmp_info, "cmp", 0, 0, 2, cmp_entry);
static StgClosure cmp_closure = {&cmp_info};

static int c_cmp(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return a < b ? -1 : a > b;
}

#define QSORT_N 100000

static void test_ffi_qsort_with_allocating_comparator(void **state)
{
    (void)state;
    uint64_t seed = harness_seed("test_ffi_qsort_with_allocating_comparator");
    int64_t *xs = malloc(QSORT_N * sizeof *xs);
    int64_t *want = malloc(QSORT_N * sizeof *want);
    assert_non_null(xs);
    assert_non_null(want);
    for (int i = 0; i < QSORT_N; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        xs[i] = (int64_t)(seed >> 20) - ((int64_t)1 << 42);
        want[i] = xs[i];
    }
    qsort(want, QSORT_N, sizeof *want, c_cmp);

    HsFunPtr fp = rts_mkFunPtr(&cmp_closure, "i32(ptr,ptr)");
    assert_non_null(fp);
    StgWord gcs_before = gcs_so_far();
    comparator_calls = 0;
    qsort(xs, QSORT_N, sizeof *xs, (int (*)(const void *, const void *))fp);
    assert_memory_equal(xs, want, QSORT_N * sizeof *xs);
    assert_true(comparator_calls >= QSORT_N);
    /* The comparator allocated enough for many collections inside it. */
    assert_true(gcs_so_far() - gcs_before > 100);
    hs_free_fun_ptr(fp);
    free(xs);
    free(want);
}

/* The same sort started from strata: a dynamic call of libc's qsort on a
 * pinned byte array, with the comparator calling back in. */
static void test_ffi_dynamic_qsort_calls_back(void **state)
{
    (void)state;
    const StgWord n = 5000;
    STRATA_ROOTS(r, 5);
    r[0] = strata_alloc_pinned_bytes(n * sizeof(int64_t));
    int64_t *xs = STRATA_BYTES_PTR(r[0]);
    for (StgWord i = 0; i < n; i++)
        xs[i] = (int64_t)((i * 7919) % n);
    HsFunPtr fp = rts_mkFunPtr(&cmp_closure, "int(ptr, ptr)");
    assert_non_null(fp);
    r[1] = rts_mkWord(n);
    r[2] = rts_mkWord(sizeof(int64_t));
    r[3] = rts_mkPtr((void *)fp);
    StgWord gcs_before = gcs_so_far();
    assert_int_equal(rts_dynamic_call((HsFunPtr)qsort, "void(ptr,size_t,size_t,ptr)", r, NULL),
                     STRATA_FFI_OK);
    assert_true(gcs_so_far() > gcs_before);
    xs = STRATA_BYTES_PTR(r[0]);   /* pinned: the same address */
    for (StgWord i = 0; i < n; i++)
        assert_int_equal(xs[i], (int64_t)i);
    hs_free_fun_ptr(fp);
    STRATA_ROOTS_POP(r);
}

/* ----------------------------------------------------------------------
 * A callback that allocates heavily, with a context object
 * ---------------------------------------------------------------------- */

/* heavy(n, ctx): builds [1..n], conses its sum onto the list in the
 * mutable variable ctx, and returns the sum. */
static StgClosure *heavy_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    int64_t n = rts_getInt(args[0]);
    STRATA_ROOTS(r, 2);
    r[0] = build_list(n);
    r[1] = rts_mkInt(sum_list(r[0]));
    StgClosure *cell = strata_alloc_constr(&Cons_info);
    STRATA_FIELD(cell, 0) = r[1];
    STRATA_FIELD(cell, 1) = STRATA_MUT_VAR_READ(args[1]);
    strata_mut_var_write(args[1], cell);
    StgClosure *result = r[1];
    STRATA_ROOTS_POP(r);
    return result;
}
STRATA_FUN_INFO(heavy_info, "heavy", 0, 0, 2, heavy_entry);
static StgClosure heavy_closure = {&heavy_info};

static void test_ffi_callback_allocates_heavily(void **state)
{
    (void)state;
    StgStablePtr ctx = getStablePtr(strata_alloc_mut_var());
    strata_mut_var_write(deRefStablePtr(ctx), &Nil_closure);
    HsFunPtr fp = rts_mkFunPtr(&heavy_closure, "i64(i64,sptr)");
    assert_non_null(fp);
    int64_t (*heavy)(int64_t, StgStablePtr) = (int64_t (*)(int64_t, StgStablePtr))fp;
    StgWord gcs_before = gcs_so_far();
    const int calls = 150;
    for (int k = 1; k <= calls; k++) {
        int64_t n = 1000 + k;
        assert_int_equal(heavy(n, ctx), n * (n + 1) / 2);
    }
    assert_true(gcs_so_far() - gcs_before > 100);
    /* Every sum survived the collections, newest first. */
    StgClosure *l = STRATA_MUT_VAR_READ(deRefStablePtr(ctx));
    assert_int_equal(list_length(l), calls);
    for (int k = calls; k >= 1; k--, l = STRATA_FIELD(l, 1)) {
        int64_t n = 1000 + k;
        assert_int_equal(rts_getInt(STRATA_FIELD(l, 0)), n * (n + 1) / 2);
    }
    hs_free_fun_ptr(fp);
    freeStablePtr(ctx);
}

/* A closure with a free variable (a heap list the collector moves),
 * returning a fresh object through a stable pointer: sptr(i64). */
static StgClosure *prepend_entry(StgClosure **self, StgClosure **args)
{
    STRATA_ROOTS(r, 1);
    r[0] = rts_mkInt(rts_getInt(args[0]));
    StgClosure *c = strata_alloc_constr(&Cons_info);
    STRATA_FIELD(c, 0) = r[0];
    STRATA_FIELD(c, 1) = STRATA_FIELD(*self, 0);   /* the captured list */
    STRATA_ROOTS_POP(r);
    return c;
}
STRATA_FUN_INFO(prepend_info, "prepend", 1, 0, 1, prepend_entry);

static void test_ffi_closure_with_free_variable_returns_sptr(void **state)
{
    (void)state;
    STRATA_ROOTS(r, 1);
    r[0] = build_list(100);
    StgClosure *f = strata_alloc_fun(&prepend_info);
    STRATA_FIELD(f, 0) = r[0];
    HsFunPtr fp = rts_mkFunPtr(f, "sptr(i64)");
    assert_non_null(fp);
    StgStablePtr (*prepend)(int64_t) = (StgStablePtr (*)(int64_t))fp;
    for (int k = 0; k < 2000; k++) {
        StgStablePtr sp = prepend(k);
        StgClosure *l = deRefStablePtr(sp);
        assert_int_equal(rts_getInt(STRATA_FIELD(l, 0)), k);
        assert_int_equal(list_length(l), 101);
        assert_int_equal(sum_list(l), 5050 + k);
        freeStablePtr(sp);
    }
    hs_free_fun_ptr(fp);
    STRATA_ROOTS_POP(r);
}

/* ----------------------------------------------------------------------
 * Making and freeing many function pointers
 * ---------------------------------------------------------------------- */

/* add(x) = x + the Int captured in the closure. */
static StgClosure *add_entry(StgClosure **self, StgClosure **args)
{
    return rts_mkInt(rts_getInt(args[0]) + rts_getInt(STRATA_FIELD(*self, 0)));
}
STRATA_FUN_INFO(add_info, "add", 1, 0, 1, add_entry);

static StgClosure *make_adder(int64_t k)
{
    STRATA_ROOTS(r, 1);
    r[0] = rts_mkInt(k);
    StgClosure *f = strata_alloc_fun(&add_info);
    STRATA_FIELD(f, 0) = r[0];
    STRATA_ROOTS_POP(r);
    return f;
}

#define LIVE_AT_ONCE 257

static void test_ffi_fun_ptrs_made_and_freed_many_times(void **state)
{
    (void)state;
    HsFunPtr ring[LIVE_AT_ONCE] = {0};
    int64_t ring_k[LIVE_AT_ONCE] = {0};
    StgWord live_before = adjustor_live_count();
    for (int64_t k = 0; k < 20000; k++) {
        int slot = (int)(k % LIVE_AT_ONCE);
        if (ring[slot] != NULL) {
            int64_t (*add)(int64_t) = (int64_t (*)(int64_t))ring[slot];
            assert_int_equal(add(1000), 1000 + ring_k[slot]);
            hs_free_fun_ptr(ring[slot]);
        }
        ring[slot] = rts_mkFunPtr(make_adder(k), "i64(i64)");
        assert_non_null(ring[slot]);
        ring_k[slot] = k;
        if (k % 4096 == 0)
            adjustor_check();
    }
    assert_int_equal(adjustor_live_count(), live_before + LIVE_AT_ONCE);
    for (int i = 0; i < LIVE_AT_ONCE; i++)
        freeHaskellFunctionPtr((void *)ring[i]);   /* GHC's name */
    assert_int_equal(adjustor_live_count(), live_before);
    adjustor_check();
}

/* ----------------------------------------------------------------------
 * Every type, both directions
 * ---------------------------------------------------------------------- */

/* id(x) = x, for any box. */
static StgClosure *id_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    return args[0];
}
STRATA_FUN_INFO(id_info, "id", 0, 0, 1, id_entry);
static StgClosure id_closure = {&id_info};

/* A callback T(T) made from id, called through a dynamic call T(T):
 * the value crosses strata -> C -> strata -> C -> strata. */
static StgClosure *round_trip(const char *sig, StgClosure **arg)
{
    STRATA_ROOTS(r, 1);
    HsFunPtr fp = rts_mkFunPtr(&id_closure, sig);
    assert_non_null(fp);
    assert_int_equal(rts_dynamic_call(fp, sig, arg, &r[0]), STRATA_FFI_OK);
    hs_free_fun_ptr(fp);
    StgClosure *res = r[0];
    STRATA_ROOTS_POP(r);
    return res;
}

/* The argument goes into a rooted slot before round_trip allocates. */
#define ROUND_TRIP(sig, value) (a[0] = (value), round_trip((sig), a))

static void test_ffi_every_type_round_trips(void **state)
{
    (void)state;
    STRATA_ROOTS(a, 2);
    assert_int_equal(rts_getInt(ROUND_TRIP("i8(i8)", rts_mkInt(-128))), -128);
    assert_int_equal(rts_getInt(ROUND_TRIP("i8(i8)", rts_mkInt(200))), -56);   /* narrowed */
    assert_int_equal(rts_getWord(ROUND_TRIP("u8(u8)", rts_mkWord(255))), 255);
    assert_int_equal(rts_getInt(ROUND_TRIP("i16(i16)", rts_mkInt(-32768))), -32768);
    assert_int_equal(rts_getWord(ROUND_TRIP("u16(u16)", rts_mkWord(65535))), 65535);
    assert_int_equal(rts_getInt(ROUND_TRIP("i32(i32)", rts_mkInt(INT32_MIN))), INT32_MIN);
    assert_int_equal(rts_getWord(ROUND_TRIP("u32(u32)", rts_mkWord(UINT32_MAX))), UINT32_MAX);
    assert_true(rts_getInt(ROUND_TRIP("i64(i64)", rts_mkInt(INT64_MIN))) == INT64_MIN);
    assert_true(rts_getWord(ROUND_TRIP("u64(u64)", rts_mkWord(UINT64_MAX))) == UINT64_MAX);
    assert_true(rts_getFloat(ROUND_TRIP("f32(f32)", rts_mkFloat(-1.5f))) == -1.5f);
    assert_true(rts_getDouble(ROUND_TRIP("f64(f64)", rts_mkDouble(-2.25e300))) == -2.25e300);
    /* The program's own one-word constructor stands for an integer. */
    StgClosure *mine = strata_alloc_constr(&MyInt_info);
    STRATA_WORD(mine, 0) = 77;
    assert_int_equal(rts_getInt(ROUND_TRIP("long(long)", mine)), 77);
    int x = 5;
    assert_ptr_equal(rts_getPtr(ROUND_TRIP("ptr(ptr)", rts_mkPtr(&x))), &x);
    /* sptr: strata gives an object, C gets a stable pointer, strata gets
     * the object back. */
    a[1] = build_list(10);
    StgClosure *back = ROUND_TRIP("sptr(sptr)", a[1]);
    assert_ptr_equal(back, a[1]);
    assert_int_equal(sum_list(back), 55);
    STRATA_ROOTS_POP(a);
}

/* Callbacks see C's values exactly: sign extension, widening. */
static int64_t seen_int;
static uint64_t seen_word;
static StgClosure *record_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    if (args[0]->info == &stg_Int_info)
        seen_int = rts_getInt(args[0]);
    else
        seen_word = rts_getWord(args[0]);
    return args[0];
}
STRATA_FUN_INFO(record_info, "record", 0, 0, 1, record_entry);
static StgClosure record_closure = {&record_info};

static void test_ffi_callbacks_see_c_values_exactly(void **state)
{
    (void)state;
    HsFunPtr fp = rts_mkFunPtr(&record_closure, "i8(i8)");
    assert_int_equal(((int8_t (*)(int8_t))fp)(-1), -1);
    assert_int_equal(seen_int, -1);
    hs_free_fun_ptr(fp);
    fp = rts_mkFunPtr(&record_closure, "u16(u16)");
    assert_int_equal(((uint16_t (*)(uint16_t))fp)(0xfffe), 0xfffe);
    assert_int_equal(seen_word, 0xfffe);
    hs_free_fun_ptr(fp);
    fp = rts_mkFunPtr(&record_closure, "i32(i32)");
    assert_int_equal(((int32_t (*)(int32_t))fp)(INT32_MIN), INT32_MIN);
    assert_int_equal(seen_int, INT32_MIN);
    hs_free_fun_ptr(fp);
    fp = rts_mkFunPtr(&id_closure, "f32(f32)");
    assert_true(((float (*)(float))fp)(3.25f) == 3.25f);
    hs_free_fun_ptr(fp);
    fp = rts_mkFunPtr(&id_closure, "double(double)");
    assert_true(((double (*)(double))fp)(1e-300) == 1e-300);
    hs_free_fun_ptr(fp);
}

/* rts_mkFunPtr evaluates its closure: a thunk whose value is a function
 * (here an adder over a fresh heap Int) will do. */
static StgClosure *adder_thunk_entry(StgClosure **self)
{
    return make_adder(rts_getInt(STRATA_THUNK_FIELD(*self, 0)));
}
STRATA_THUNK_INFO(adder_thunk_info, "adder_thunk", 1, 0, adder_thunk_entry);

static void test_ffi_mkfunptr_evaluates_a_thunk(void **state)
{
    (void)state;
    STRATA_ROOTS(r, 1);
    r[0] = rts_mkInt(1000);
    StgClosure *t = strata_alloc_thunk(&adder_thunk_info);
    STRATA_THUNK_FIELD(t, 0) = r[0];
    HsFunPtr fp = rts_mkFunPtr(t, "i64(i64)");
    assert_non_null(fp);
    strata_perform_gc(1);   /* the function moves; its stable pointer follows */
    assert_int_equal(((int64_t (*)(int64_t))fp)(23), 1023);
    hs_free_fun_ptr(fp);
    STRATA_ROOTS_POP(r);
}

/* More arguments than registers, of mixed kinds. */
static double mixed(int8_t a, uint16_t b, int32_t c, int64_t d, float e, double f, void *g,
                    uint32_t h, double i, int16_t j, float k, uint64_t l)
{
    return a + b + c + (double)d + e + f + (double)(uintptr_t)g + h + i + j + k + (double)l;
}

static void test_ffi_dynamic_call_with_many_mixed_arguments(void **state)
{
    (void)state;
    STRATA_ROOTS(r, 13);
    r[0] = rts_mkInt(-3);
    r[1] = rts_mkWord(60000);
    r[2] = rts_mkInt(-100000);
    r[3] = rts_mkInt(1ll << 40);
    r[4] = rts_mkFloat(0.5f);
    r[5] = rts_mkDouble(0.25);
    r[6] = rts_mkPtr((void *)(uintptr_t)4096);
    r[7] = rts_mkWord(7);
    r[8] = rts_mkFloat(2.0f);   /* F# for f64: promoted */
    r[9] = rts_mkInt(-8);
    r[10] = rts_mkDouble(0.125);   /* D# for f32: converted */
    r[11] = rts_mkWord(1000);
    assert_int_equal(rts_dynamic_call((HsFunPtr)mixed,
                                      "f64(i8,u16,i32,i64,f32,f64,ptr,u32,f64,i16,f32,u64)", r,
                                      &r[12]),
                     STRATA_FFI_OK);
    double want = mixed(-3, 60000, -100000, 1ll << 40, 0.5f, 0.25, (void *)(uintptr_t)4096, 7,
                        2.0, -8, 0.125f, 1000);
    assert_true(rts_getDouble(r[12]) == want);
    STRATA_ROOTS_POP(r);
}

/* Arguments are evaluated first: a thunk argument is forced. */
static StgClosure *forty_two_entry(StgClosure **self)
{
    (void)self;
    return rts_mkInt(42);
}
STRATA_THUNK_INFO(forty_two_info, "forty_two", 0, 0, forty_two_entry);

static int64_t negate(int64_t x)
{
    return -x;
}

static void fill_bytes(unsigned char *p, size_t n, int c)
{
    memset(p, c, n);
}

static void test_ffi_dynamic_call_evaluates_and_writes_memory(void **state)
{
    (void)state;
    STRATA_ROOTS(r, 4);
    r[0] = strata_alloc_thunk(&forty_two_info);
    assert_int_equal(rts_dynamic_call((HsFunPtr)negate, "i64(i64)", r, &r[1]), STRATA_FFI_OK);
    assert_int_equal(rts_getInt(r[1]), -42);
    /* A pinned byte array's payload is passed as the address. */
    r[0] = strata_alloc_pinned_bytes(64);
    r[1] = rts_mkWord(64);
    r[2] = rts_mkInt(0xab);
    assert_int_equal(rts_dynamic_call((HsFunPtr)fill_bytes, "void(ptr,size_t,int)", r, NULL),
                     STRATA_FFI_OK);
    const unsigned char *p = STRATA_BYTES_PTR(r[0]);
    for (int i = 0; i < 64; i++)
        assert_int_equal(p[i], 0xab);
    STRATA_ROOTS_POP(r);
}

/* Nested dynamic calls whose signatures share a cache slot: the inner
 * one (in a thunk argument of the outer, and in a callback during the
 * outer call) must not replace the outer's signature under it. */
static char colliding[64];

static StgClosure *inner_call(int64_t x)
{
    STRATA_ROOTS(r, 2);
    r[0] = rts_mkInt(x);
    assert_int_equal(rts_dynamic_call((HsFunPtr)negate, colliding, r, &r[1]), STRATA_FFI_OK);
    StgClosure *res = r[1];
    STRATA_ROOTS_POP(r);
    return res;
}

static StgClosure *nested_thunk_entry(StgClosure **self)
{
    (void)self;
    return rts_mkDouble((double)rts_getInt(inner_call(-8)));   /* 8.0 */
}
STRATA_THUNK_INFO(nested_thunk_info, "nested", 0, 0, nested_thunk_entry);

static StgClosure *nested_callback_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    double x = rts_getDouble(args[0]);
    return rts_mkDouble(x + (double)rts_getInt(inner_call(-100)));
}
STRATA_FUN_INFO(nested_callback_info, "nested_callback", 0, 0, 1, nested_callback_entry);
static StgClosure nested_callback_closure = {&nested_callback_info};

static double call_and_halve(double (*cb)(double), double x)
{
    return cb(x) / 2;
}

/* .inv.busy-slot: two texts collide on one cache slot on purpose. */
static void test_ffi_nested_dynamic_calls_sharing_a_cache_slot(void **state)
{
    (void)state;
    const char *outer = "f64(ptr,f64)";
    unsigned slot = ffi_call_cache_slot(outer);
    /* "i64(i64)" with spaces in different places: same meaning, other
     * texts; one of them falls into the outer's slot. */
    bool found = false;
    for (int a = 0; a < 40 && !found; a++)
        for (int b = 0; b < 40 && !found; b++) {
            snprintf(colliding, sizeof colliding, "i64(%*si64%*s)", a, "", b, "");
            found = ffi_call_cache_slot(colliding) == slot;
        }
    assert_true(found);
    STRATA_ROOTS(r, 3);
    HsFunPtr cb = rts_mkFunPtr(&nested_callback_closure, "f64(f64)");
    r[0] = rts_mkPtr((void *)cb);
    r[1] = strata_alloc_thunk(&nested_thunk_info);
    for (int round = 0; round < 3; round++) {   /* cold and warm cache */
        assert_int_equal(rts_dynamic_call((HsFunPtr)call_and_halve, outer, r, &r[2]),
                         STRATA_FFI_OK);
        assert_true(rts_getDouble(r[2]) == (8.0 + 100.0) / 2);
    }
    hs_free_fun_ptr(cb);
    STRATA_ROOTS_POP(r);
}

/* ----------------------------------------------------------------------
 * Signatures
 * ---------------------------------------------------------------------- */

static void test_ffi_signature_parses_every_type(void **state)
{
    (void)state;
    FfiSignature sig;
    char why[256];
    assert_true(ffi_signature_parse(
        "void(i8,i16,i32,i64,u8,u16,u32,u64,f32,f64,ptr,sptr)", &sig, why, sizeof why));
    assert_int_equal(sig.result, SIG_VOID);
    assert_int_equal(sig.n_args, 12);
    const SigType want[] = {SIG_I8, SIG_I16, SIG_I32, SIG_I64, SIG_U8, SIG_U16,
                            SIG_U32, SIG_U64, SIG_F32, SIG_F64, SIG_PTR, SIG_SPTR};
    for (int i = 0; i < 12; i++) {
        assert_int_equal(sig.args[i], want[i]);
        assert_non_null(strstr("i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 ptr sptr",
                               ffi_signature_type_name(sig.args[i])));
    }
    assert_true(ffi_signature_parse(" double ( int , long,size_t,float ) ", &sig, why, sizeof why));
    assert_int_equal(sig.result, SIG_F64);
    assert_int_equal(sig.n_args, 4);
    assert_int_equal(sig.args[0], SIG_I32);
    assert_int_equal(sig.args[1], SIG_I64);
    assert_int_equal(sig.args[2], SIG_U64);
    assert_int_equal(sig.args[3], SIG_F32);
    assert_true(ffi_signature_parse("i32()", &sig, why, sizeof why));
    assert_int_equal(sig.n_args, 0);
    assert_true(ffi_signature_parse("uint(void)", &sig, why, sizeof why));
    assert_int_equal(sig.n_args, 0);
    assert_int_equal(sig.result, SIG_U32);
}

static void test_ffi_signature_errors_name_the_problem(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *want;
    } cases[] = {
        {NULL, "no signature (NULL)"},
        {"", "expected a result type at column 1, found the end of the signature"},
        {"(ptr)", "expected a result type at column 1, found \"(\""},
        {"i32", "expected \"(\" after the result type at column 4, found the end"},
        {"i32 ptr", "expected \"(\" after the result type at column 5, found \"ptr\""},
        {"i33(ptr)", "unknown type \"i33\" at column 1 (the types are void i8"},
        {"i32(ptr,pointer)", "unknown type \"pointer\" at column 9"},
        {"i32(ptr,,ptr)", "expected an argument type at column 9, found \",\""},
        {"i32(ptr ptr)", "expected \",\" or \")\" after an argument type at column 9, found \"ptr\""},
        {"i32(ptr", "expected \",\" or \")\" after an argument type at column 8, found the end"},
        {"i32(,)", "expected an argument type or \")\" at column 5, found \",\""},
        {"i32(void,ptr)", "\"void\" at column 5 is not an argument type"},
        {"i32(ptr, void)", "\"void\" at column 10 is not an argument type"},
        {"i32(ptr) junk", "unexpected \"junk\" after the closing \")\" at column 10"},
        {"i32(ptr))", "unexpected \")\" after the closing \")\" at column 9"},
        {"void(i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,i8,"
         "i8,i8,i8,i8,i8,i8,i8,i8)",
         "too many arguments (more than 32; the argument at column 102"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FfiSignature sig;
        char why[256] = "";
        bool ok = ffi_signature_parse(cases[i].text, &sig, why, sizeof why);
        if (ok || strstr(why, cases[i].want) == NULL)
            fail_msg("signature \"%s\": ok=%d, message \"%s\", expected \"%s\"",
                     cases[i].text ? cases[i].text : "(null)", ok, why, cases[i].want);
    }
}

/* ----------------------------------------------------------------------
 * Misuse with an error to return: a message and nothing done
 * ---------------------------------------------------------------------- */

static HsFunPtr made;
static StrataFfiStatus status;

static void mk_arity_mismatch(void *arg)
{
    (void)arg;
    made = rts_mkFunPtr(&cmp_closure, "i32(ptr)");
}

static void mk_not_a_function(void *arg)
{
    (void)arg;
    made = rts_mkFunPtr(&Nil_closure, "i32(ptr)");
}

static void mk_bad_signature(void *arg)
{
    (void)arg;
    made = rts_mkFunPtr(&cmp_closure, "i32(ptr,,ptr)");
}

static void mk_null_closure(void *arg)
{
    (void)arg;
    made = rts_mkFunPtr(NULL, "i32(ptr,ptr)");
}

static void expect_mk_rejected(void (*fn)(void *), const char *want)
{
    made = (HsFunPtr)abort;
    StgWord live = adjustor_live_count();
    char *err = harness_capture_stderr(fn, NULL);
    assert_null(made);
    if (strstr(err, want) == NULL)
        fail_msg("expected \"%s\" in: %s", want, err);
    free(err);
    assert_int_equal(adjustor_live_count(), live);
}

static void test_ffi_mkfunptr_rejects_wrong_signatures(void **state)
{
    (void)state;
    expect_mk_rejected(mk_arity_mismatch,
                       "rts_mkFunPtr: signature \"i32(ptr)\" has 1 argument, but function cmp "
                       "takes 2");
    expect_mk_rejected(mk_not_a_function,
                       "rts_mkFunPtr: the closure is not a function (closure type CONSTR, "
                       "table Nil)");
    expect_mk_rejected(mk_bad_signature,
                       "rts_mkFunPtr: bad signature \"i32(ptr,,ptr)\": expected an argument "
                       "type at column 9, found \",\"");
    expect_mk_rejected(mk_null_closure, "rts_mkFunPtr: NULL closure");
}

static bool callee_called;
static int32_t callee(int32_t x)
{
    callee_called = true;
    return x;
}

typedef struct {
    HsFunPtr fn;
    const char *sig;
    StgClosure **args;
    StgClosure **result;
} DynCall;

static void run_dyn_call(void *arg)
{
    DynCall *c = arg;
    status = rts_dynamic_call(c->fn, c->sig, c->args, c->result);
}

static void expect_call_rejected(DynCall c, StrataFfiStatus want_status, const char *want)
{
    callee_called = false;
    char *err = harness_capture_stderr(run_dyn_call, &c);
    assert_int_equal(status, want_status);
    assert_false(callee_called);        /* .inv.dyncall-phases: nothing called */
    if (strstr(err, want) == NULL)
        fail_msg("expected \"%s\" in: %s", want, err);
    free(err);
}

static void test_ffi_dynamic_call_rejects_bad_arguments(void **state)
{
    (void)state;
    STRATA_ROOTS(r, 3);
    r[0] = build_list(3);
    HsFunPtr fn = (HsFunPtr)callee;
    expect_call_rejected((DynCall){fn, "i32(i32)", r, &r[2]}, STRATA_FFI_BAD_ARGUMENT,
                         "rts_dynamic_call: argument 1 (i32) of \"i32(i32)\": expected an "
                         "integer (I#, W#, or a constructor of one word), got Cons (closure "
                         "type CONSTR_2_0)");
    r[0] = rts_mkDouble(1.0);
    expect_call_rejected((DynCall){fn, "i32(i32)", r, &r[2]}, STRATA_FFI_BAD_ARGUMENT,
                         "expected an integer (I#, W#, or a constructor of one word), got D#");
    r[0] = rts_mkInt(1);
    expect_call_rejected((DynCall){fn, "i32(f64)", r, &r[2]}, STRATA_FFI_BAD_ARGUMENT,
                         "argument 1 (f64) of \"i32(f64)\": expected a floating-point number "
                         "(D# or F#), got I#");
    expect_call_rejected((DynCall){fn, "i32(ptr)", r, &r[2]}, STRATA_FFI_BAD_ARGUMENT,
                         "expected an address (Ptr, a constructor of one word, or a pinned "
                         "byte array), got I#");
    r[0] = strata_alloc_bytes(16);   /* unpinned: it could move */
    expect_call_rejected((DynCall){fn, "i32(ptr)", r, &r[2]}, STRATA_FFI_BAD_ARGUMENT,
                         "an unpinned byte array may move during the call: allocate it with "
                         "strata_alloc_pinned_bytes");
    r[0] = rts_mkInt(1);
    r[1] = NULL;
    expect_call_rejected((DynCall){fn, "i32(i32,i32)", r, &r[2]}, STRATA_FFI_BAD_ARGUMENT,
                         "rts_dynamic_call: argument 2 (i32) of \"i32(i32,i32)\" is NULL");
    expect_call_rejected((DynCall){NULL, "i32(i32)", r, &r[2]}, STRATA_FFI_BAD_ARGUMENT,
                         "rts_dynamic_call: NULL function pointer");
    expect_call_rejected((DynCall){fn, "i32(i32)", r, NULL}, STRATA_FFI_BAD_ARGUMENT,
                         "signature \"i32(i32)\" returns i32, but result is NULL");
    expect_call_rejected((DynCall){fn, "i32(i32)", NULL, &r[2]}, STRATA_FFI_BAD_ARGUMENT,
                         "takes 1 arguments, but args is NULL");
    expect_call_rejected((DynCall){fn, "i32(i32", r, &r[2]}, STRATA_FFI_BAD_SIGNATURE,
                         "rts_dynamic_call: bad signature \"i32(i32\": expected \",\" or \")\"");
    /* A later argument's failure stops the call before any stable
     * pointer is made for an earlier sptr one. */
    r[1] = rts_mkDouble(2.0);
    expect_call_rejected((DynCall){fn, "i32(sptr,i32)", r, &r[2]}, STRATA_FFI_BAD_ARGUMENT,
                         "argument 2 (i32)");
    STRATA_ROOTS_POP(r);
}

static void *bogus_stable_ptr(void)
{
    callee_called = true;
    return (void *)(uintptr_t)0x7fff0001;
}

static void test_ffi_dynamic_call_rejects_a_bad_sptr_result(void **state)
{
    (void)state;
    STRATA_ROOTS(r, 1);
    r[0] = &Nil_closure;
    char *err;
    DynCall c = {(HsFunPtr)bogus_stable_ptr, "sptr()", NULL, &r[0]};
    callee_called = false;
    err = harness_capture_stderr(run_dyn_call, &c);
    assert_int_equal(status, STRATA_FFI_BAD_RESULT);
    assert_true(callee_called);
    assert_ptr_equal(r[0], &Nil_closure);   /* not written */
    assert_non_null(strstr(err, "rts_dynamic_call: the function returned 0x7fff0001 as its sptr "
                                "result (\"sptr()\"), which is not a live stable pointer"));
    free(err);
    STRATA_ROOTS_POP(r);
}

/* ----------------------------------------------------------------------
 * Freeing: double frees, unknown pointers, freeing from inside the call
 * ---------------------------------------------------------------------- */

static HsFunPtr to_free;
static void free_it(void *arg)
{
    (void)arg;
    hs_free_fun_ptr(to_free);
}

static void test_ffi_free_of_a_dead_pointer_is_reported(void **state)
{
    (void)state;
    hs_free_fun_ptr(NULL);   /* like free(NULL) */
    HsFunPtr fp = rts_mkFunPtr(&id_closure, "i64(i64)");
    hs_free_fun_ptr(fp);
    to_free = fp;
    char *err = harness_capture_stderr(free_it, NULL);
    assert_non_null(strstr(err, "hs_free_fun_ptr: "));
    assert_non_null(strstr(err, "is not a live function pointer made by rts_mkFunPtr (never "
                                "made, or already freed); ignored"));
    free(err);
    to_free = (HsFunPtr)callee;
    err = harness_capture_stderr(free_it, NULL);
    assert_non_null(strstr(err, "is not a live function pointer"));
    free(err);
}

/* A one-shot callback that frees its own function pointer. */
static HsFunPtr self_fp;
static StgClosure *one_shot_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    hs_free_fun_ptr(self_fp);
    STRATA_ROOTS(r, 1);
    r[0] = build_list(50);   /* allocate after the free: the closure is still there */
    StgClosure *res = rts_mkInt(rts_getInt(args[0]) + sum_list(r[0]));
    STRATA_ROOTS_POP(r);
    return res;
}
STRATA_FUN_INFO(one_shot_info, "one_shot", 0, 0, 1, one_shot_entry);
static StgClosure one_shot_closure = {&one_shot_info};

static void test_ffi_callback_may_free_itself(void **state)
{
    (void)state;
    for (int round = 0; round < 100; round++) {
        self_fp = rts_mkFunPtr(&one_shot_closure, "i64(i64)");
        assert_non_null(self_fp);
        assert_int_equal(((int64_t (*)(int64_t))self_fp)(round), round + 1275);
        assert_int_equal(adjustor_live_count(), 0);
        assert_int_equal(adjustor_pending_count(), 1);
        adjustor_check();
        /* The next entry into the FFI releases it (here the next make). */
    }
    adjustor_release_pending();
    assert_int_equal(adjustor_pending_count(), 0);
}

/* ----------------------------------------------------------------------
 * Threads that do not hold the runtime
 * ---------------------------------------------------------------------- */

static HsFunPtr thread_fp;
static HsFunPtr thread_made;
static StrataFfiStatus thread_status;

static void *foreign_uses(void *arg)
{
    (void)arg;
    StgClosure *args[1] = {&Nil_closure};
    StgClosure *result = NULL;
    thread_status = rts_dynamic_call((HsFunPtr)callee, "i32(i32)", args, &result);
    thread_made = rts_mkFunPtr(&id_closure, "i64(i64)");
    hs_free_fun_ptr(thread_fp);
    return NULL;
}

static void run_foreign_thread(void *arg)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, (void *(*)(void *))arg, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
}

static void test_ffi_foreign_thread_entry_points_refused(void **state)
{
    (void)state;
    thread_fp = rts_mkFunPtr(&id_closure, "i64(i64)");
    thread_made = (HsFunPtr)abort;
    callee_called = false;
    char *err = harness_capture_stderr(run_foreign_thread, (void *)foreign_uses);
    assert_int_equal(thread_status, STRATA_FFI_WRONG_THREAD);
    assert_false(callee_called);
    assert_null(thread_made);
    assert_non_null(strstr(err, "rts_dynamic_call: refused: called from thread "));
    assert_non_null(strstr(err, "which holds no capability (call rts_lock first"));
    assert_non_null(strstr(err, "hs_init ran on thread "));
    assert_non_null(strstr(err, "rts_mkFunPtr: refused: called from thread"));
    assert_non_null(strstr(err, "hs_free_fun_ptr: refused: called from thread"));
    free(err);
    /* Nothing was freed: the owner still can call and free it. */
    assert_int_equal(adjustor_live_count(), 1);
    assert_int_equal(((int64_t (*)(int64_t))thread_fp)(9), 9);
    hs_free_fun_ptr(thread_fp);
}

static void *foreign_calls_back(void *arg)
{
    (void)arg;
    ((int64_t (*)(int64_t))thread_fp)(1);
    return NULL;
}

static void callback_from_foreign_thread(void)
{
    harness_start("-A8k", "-DS", NULL);
    thread_fp = rts_mkFunPtr(&id_closure, "i64(i64)");
    pthread_t t;
    pthread_create(&t, NULL, foreign_calls_back, NULL);
    pthread_join(t, NULL);
}

static void test_ffi_callback_from_foreign_thread_refused(void **state)
{
    (void)state;
    harness_expect_failure(callback_from_foreign_thread, 1, 0,
                           "ffi: callback id :: i64(i64) refused: called from thread ");
    harness_expect_failure(callback_from_foreign_thread, 1, 0,
                           "callbacks run on threads that hold one: call rts_lock first, or rts_resume "
                           "after rts_suspend); "
                           "stopping the program");
}

/* ----------------------------------------------------------------------
 * Misuse with no error to return: a message and exit status 1
 * ---------------------------------------------------------------------- */

static void callback_after_hs_exit(void)
{
    harness_start(NULL);
    HsFunPtr fp = rts_mkFunPtr(&id_closure, "i64(i64)");
    hs_exit();
    ((int64_t (*)(int64_t))fp)(1);
}

static void callback_from_a_stopped_runtime(void)
{
    harness_start(NULL);
    HsFunPtr fp = rts_mkFunPtr(&id_closure, "i64(i64)");
    hs_exit();
    harness_start(NULL);
    ((int64_t (*)(int64_t))fp)(1);
}

static void callback_returns_a_list(void)
{
    harness_start("-A8k", "-DS", NULL);
    STRATA_ROOTS(r, 1);
    r[0] = build_list(3);
    HsFunPtr fp = rts_mkFunPtr(&id_closure, "i32(sptr)");
    StgStablePtr sp = getStablePtr(r[0]);
    ((int32_t (*)(StgStablePtr))fp)(sp);
}

static void callback_given_a_freed_sptr(void)
{
    harness_start(NULL);
    HsFunPtr fp = rts_mkFunPtr(&id_closure, "sptr(sptr)");
    StgStablePtr sp = getStablePtr(&Nil_closure);
    freeStablePtr(sp);
    ((StgStablePtr (*)(StgStablePtr))fp)(sp);
}

static void get_int_of_a_list(void)
{
    harness_start(NULL);
    rts_getInt(build_list(2));
}

static void get_double_of_an_int(void)
{
    harness_start(NULL);
    rts_getDouble(rts_mkInt(2));
}

static void test_ffi_misuse_without_error_channel_stops(void **state)
{
    (void)state;
    harness_expect_failure(callback_after_hs_exit, 1, 0,
                           "ffi: callback id :: i64(i64) refused: the runtime is not running "
                           "(called before hs_init or after hs_exit)");
    harness_expect_failure(callback_from_a_stopped_runtime, 1, 0,
                           "refused: it was made before hs_exit stopped the runtime");
    harness_expect_failure(callback_returns_a_list, 1, 0,
                           "ffi: callback id :: i32(sptr) returned a bad result (i32): expected "
                           "an integer (I#, W#, or a constructor of one word), got Cons");
    harness_expect_failure(callback_given_a_freed_sptr, 1, 0,
                           "ffi: callback id :: sptr(sptr) was called with argument 1 (sptr) = ");
    harness_expect_failure(callback_given_a_freed_sptr, 1, 0,
                           "which is not a live stable pointer (never made, or already freed); "
                           "stopping the program");
    harness_expect_failure(get_int_of_a_list, 1, 0, "rts_getInt: expected an integer");
    harness_expect_failure(get_double_of_an_int, 1, 0,
                           "rts_getDouble: expected a floating-point number (D# or F#), got I#");
}

/* After hs_exit a function pointer can still be freed, from any thread
 * (.inv.outlives-runtime). */
static void *foreign_frees(void *arg)
{
    (void)arg;
    hs_free_fun_ptr(thread_fp);
    return NULL;
}

static void test_ffi_free_after_hs_exit(void **state)
{
    (void)state;
    harness_start(NULL);
    thread_fp = rts_mkFunPtr(&id_closure, "i64(i64)");
    assert_int_equal(adjustor_live_count(), 1);
    hs_exit();
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, foreign_frees, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(adjustor_live_count(), 0);
    adjustor_check();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ffi_signature_parses_every_type),
        cmocka_unit_test(test_ffi_signature_errors_name_the_problem),
        cmocka_unit_test_setup_teardown(test_ffi_qsort_with_allocating_comparator, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ffi_dynamic_qsort_calls_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ffi_callback_allocates_heavily, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ffi_closure_with_free_variable_returns_sptr, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ffi_fun_ptrs_made_and_freed_many_times, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ffi_every_type_round_trips, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ffi_callbacks_see_c_values_exactly, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ffi_mkfunptr_evaluates_a_thunk, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ffi_dynamic_call_with_many_mixed_arguments, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ffi_dynamic_call_evaluates_and_writes_memory,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_ffi_nested_dynamic_calls_sharing_a_cache_slot,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_ffi_mkfunptr_rejects_wrong_signatures, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ffi_dynamic_call_rejects_bad_arguments, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ffi_dynamic_call_rejects_a_bad_sptr_result, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ffi_free_of_a_dead_pointer_is_reported, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_ffi_callback_may_free_itself, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ffi_foreign_thread_entry_points_refused, setup,
                                        teardown),
        cmocka_unit_test(test_ffi_callback_from_foreign_thread_refused),
        cmocka_unit_test(test_ffi_misuse_without_error_channel_stops),
        cmocka_unit_test(test_ffi_free_after_hs_exit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
