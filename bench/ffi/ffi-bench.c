/*
 * bench/ffi/ffi-bench.c -- what foreign calls cost (issue 8): a callback
 * made by rts_mkFunPtr called from a C loop, rts_dynamic_call of a small
 * C function, and libc's qsort with a strata comparator next to the same
 * sort with a C comparator.  Each figure is the best of REPS timed rounds
 * (the least disturbed by other load on the machine), in nanoseconds per
 * call or milliseconds per sort.  bench/ffi/run.sh builds and runs it.
 *
 *   ffi-bench [CALLS (default 2000000)] [QSORT_N (default 1000000)] [REPS (default 5)]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <strata.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- The functions being called ------------------------------------- */

/* inc(x) = x + 1, as a strata closure: one I# box for the argument, one
 * for the result. */
static StgClosure *inc_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    return rts_mkInt(rts_getInt(args[0]) + 1);
}
STRATA_FUN_INFO(inc_info, "inc", 0, 0, 1, inc_entry);
static StgClosure inc_closure = {&inc_info};

/* add3(a, b, c) = a + b + c with a double in the middle. */
static StgClosure *add3_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    return rts_mkInt(rts_getInt(args[0]) + (int64_t)rts_getDouble(args[1]) +
                     rts_getInt(args[2]));
}
STRATA_FUN_INFO(add3_info, "add3", 0, 0, 3, add3_entry);
static StgClosure add3_closure = {&add3_info};

static StgClosure *compare_entry(StgClosure **self, StgClosure **args)
{
    (void)self;
    int a = *(const int *)rts_getPtr(args[0]);
    int b = *(const int *)rts_getPtr(args[1]);
    return rts_mkInt((a > b) - (a < b));
}
STRATA_FUN_INFO(compare_info, "compare", 0, 0, 2, compare_entry);
static StgClosure compare_closure = {&compare_info};

/* The C counterparts; noinline so that the loops really call them. */
__attribute__((noinline)) static int64_t c_inc(int64_t x)
{
    return x + 1;
}

__attribute__((noinline)) static int64_t c_add3(int64_t a, double b, int64_t c)
{
    return a + (int64_t)b + c;
}

static int c_compare(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    return (a > b) - (a < b);
}

static unsigned long comparisons;
static int counting_compare(const void *pa, const void *pb)
{
    comparisons++;
    return c_compare(pa, pb);
}

/* ---- Measurements ----------------------------------------------------- */

typedef int64_t (*IncFn)(int64_t);
typedef int64_t (*Add3Fn)(int64_t, double, int64_t);

/* The function pointer is read through a volatile so that the compiler
 * cannot inline the C baseline. */
static double time_inc_calls(IncFn volatile fn, long calls)
{
    double t0 = now_ns();
    int64_t x = 0;
    for (long i = 0; i < calls; i++)
        x = fn(x);
    double t = now_ns() - t0;
    if (x != calls) {
        fprintf(stderr, "ffi-bench: inc computed %ld, expected %ld\n", (long)x, calls);
        exit(1);
    }
    return t / (double)calls;
}

static double time_add3_calls(Add3Fn volatile fn, long calls)
{
    double t0 = now_ns();
    int64_t x = 0;
    for (long i = 0; i < calls; i++)
        x = fn(x, 1.0, 1);
    double t = now_ns() - t0;
    if (x != 2 * calls) {
        fprintf(stderr, "ffi-bench: add3 computed %ld, expected %ld\n", (long)x, 2 * calls);
        exit(1);
    }
    return t / (double)calls;
}

static double time_dynamic_calls(HsFunPtr fn, const char *sig, long calls)
{
    STRATA_ROOTS(r, 2);
    r[0] = rts_mkInt(0);
    double t0 = now_ns();
    for (long i = 0; i < calls; i++) {
        if (rts_dynamic_call(fn, sig, &r[0], &r[1]) != STRATA_FFI_OK)
            exit(1);
        r[0] = r[1];
    }
    double t = now_ns() - t0;
    if (rts_getInt(r[0]) != calls) {
        fprintf(stderr, "ffi-bench: dynamic inc computed %ld, expected %ld\n",
                (long)rts_getInt(r[0]), calls);
        exit(1);
    }
    STRATA_ROOTS_POP(r);
    return t / (double)calls;
}

static double time_qsort(int *xs, const int *orig, size_t n, int (*cmp)(const void *, const void *))
{
    memcpy(xs, orig, n * sizeof *xs);
    double t0 = now_ns();
    qsort(xs, n, sizeof *xs, cmp);
    double t = now_ns() - t0;
    for (size_t i = 0; i < n; i++)
        if (xs[i] != (int)i) {
            fprintf(stderr, "ffi-bench: qsort result wrong at %zu\n", i);
            exit(1);
        }
    return t / 1e6;
}

static double min2(double a, double b)
{
    return a < b ? a : b;
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    long calls = argc > 1 ? strtol(argv[1], NULL, 10) : 2000000;
    size_t qn = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
    int reps = argc > 3 ? atoi(argv[3]) : 5;

    HsFunPtr inc_fp = rts_mkFunPtr(&inc_closure, "i64(i64)");
    HsFunPtr add3_fp = rts_mkFunPtr(&add3_closure, "i64(i64,f64,i64)");
    HsFunPtr cmp_fp = rts_mkFunPtr(&compare_closure, "int(ptr,ptr)");
    int *orig = malloc(qn * sizeof *orig), *xs = malloc(qn * sizeof *xs);
    if (!inc_fp || !add3_fp || !cmp_fp || !orig || !xs)
        return 1;
    for (size_t i = 0; i < qn; i++)
        orig[i] = (int)i;
    srand(1);
    for (size_t i = qn - 1; i > 0; i--) {   /* Fisher-Yates, fixed seed */
        size_t j = (size_t)rand() % (i + 1);
        int t = orig[i];
        orig[i] = orig[j];
        orig[j] = t;
    }

    double cb_c = 1e30, cb_s = 1e30, cb3_c = 1e30, cb3_s = 1e30, dyn_c = 1e30, dyn_s = 1e30;
    double qs_c = 1e30, qs_s = 1e30;
    for (int rep = 0; rep < reps; rep++) {
        cb_c = min2(cb_c, time_inc_calls(c_inc, calls));
        cb_s = min2(cb_s, time_inc_calls((IncFn)inc_fp, calls));
        cb3_c = min2(cb3_c, time_add3_calls(c_add3, calls));
        cb3_s = min2(cb3_s, time_add3_calls((Add3Fn)add3_fp, calls));
        dyn_c = min2(dyn_c, time_dynamic_calls((HsFunPtr)c_inc, "i64(i64)", calls));
        dyn_s = min2(dyn_s, time_dynamic_calls(inc_fp, "i64(i64)", calls));
        qs_c = min2(qs_c, time_qsort(xs, orig, qn, c_compare));
        qs_s = min2(qs_s, time_qsort(xs, orig, qn, (int (*)(const void *, const void *))cmp_fp));
    }
    comparisons = 0;
    time_qsort(xs, orig, qn, counting_compare);
    printf("| measurement | C | strata | strata - C |\n| --- | --- | --- | --- |\n");
    printf("| callback i64(i64), ns/call | %.1f | %.1f | %.1f |\n", cb_c, cb_s, cb_s - cb_c);
    printf("| callback i64(i64,f64,i64), ns/call | %.1f | %.1f | %.1f |\n", cb3_c, cb3_s,
           cb3_s - cb3_c);
    printf("| rts_dynamic_call i64(i64) of a C function, ns/call | %.1f (direct call) | %.1f | "
           "%.1f |\n", cb_c, dyn_c, dyn_c - cb_c);
    printf("| rts_dynamic_call i64(i64) of a strata callback, ns/call | - | %.1f | - |\n",
           dyn_s);
    printf("| qsort of %zu ints, ms | %.1f | %.1f | x%.2f |\n", qn, qs_c, qs_s, qs_s / qs_c);
    printf("| qsort: ns per comparison (%lu comparisons) | %.1f | %.1f | %.1f |\n",
           comparisons, qs_c * 1e6 / (double)comparisons, qs_s * 1e6 / (double)comparisons,
           (qs_s - qs_c) * 1e6 / (double)comparisons);

    hs_free_fun_ptr(inc_fp);
    hs_free_fun_ptr(add3_fp);
    hs_free_fun_ptr(cmp_fp);
    free(orig);
    free(xs);
    hs_exit();
    return 0;
}
