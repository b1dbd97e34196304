/*
 * bench/alloc-sample/stack-cost.c -- what one sampled allocation's call
 * stack costs, for the choice between the unwinder and the STRATA_ROOTS
 * frame chain (docs/design/alloc-sampling.md, "Taking a stack"):
 *
 *   stack-cost unwind DEPTH N   N stacks taken by os_process_call_stack at
 *                               DEPTH nested calls: ns per stack, frames
 *   stack-cost intern DEPTH N   N stacks taken and interned (call_stack_here:
 *                               the unwinder and the lookup of a stack seen
 *                               before): ns per stack
 *   stack-cost roots DEPTH N    N walks of the local-root frame chain at
 *                               DEPTH nested functions that each push a
 *                               frame: ns per walk, frames
 *   stack-cost sample N         N 3-word allocations with every one
 *                               sampled (--alloc-sample=8 semantics,
 *                               everything the hook does), against N
 *                               unsampled: ns per sample
 *
 * Times are process CPU time.  bench/alloc-sample/run prints a table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <strata.h>

#include "CallStacks.h"
#include "SampledObjects.h"
#include "Storage.h"
#include "os/Process.h"

STRATA_CONSTR_INFO(Cell_info, "Cell", 1, 1);

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static long n_iters;
static volatile size_t sink;

/* The measured work at the bottom of DEPTH calls. */
typedef size_t (*Work)(void);

static size_t unwind_once(void)
{
    void *pcs[CALL_STACK_MAX_PCS];
    return os_process_call_stack(pcs, CALL_STACK_MAX_PCS);
}

static size_t intern_once(void)
{
    const uint32_t *frames;
    size_t n = 0;
    (void)call_stack_frames(call_stack_here(NULL), &frames, &n);
    return n;   /* frames kept, the runtime's own cut off */
}

/* The frame chain of the current root stack chunk: each frame is its
 * site, its slot count, its slots (strata/Roots.h). */
static size_t roots_once(void)
{
    size_t frames = 0;
    for (StgPtr f = strata_regs.sp_base; f < strata_regs.sp; f += ROOT_FRAME_HEADER_WORDS + f[1]) {
        const StgRootSite *site = (const StgRootSite *)f[0];
        sink += (size_t)site->func[0] + (size_t)site->line;
        frames++;
    }
    return frames;
}

static __attribute__((noinline)) size_t nest(int depth, Work work, double *ns)
{
    STRATA_ROOTS(r, 1);   /* every level pushes a frame, as roots_once walks */
    size_t frames;
    if (depth > 1) {
        frames = nest(depth - 1, work, ns);
    } else {
        double t0 = cpu_ns();
        frames = 0;
        for (long i = 0; i < n_iters; i++)
            frames = work();
        *ns = (cpu_ns() - t0) / (double)n_iters;
    }
    r[0] = NULL;
    STRATA_ROOTS_POP(r);
    return frames;
}

static void allocate(long n)
{
    for (long i = 0; i < n; i++) {
        StgClosure *c = strata_alloc_constr(&Cell_info);
        STRATA_WORD(c, 1) = (StgWord)i;
    }
}

int main(int argc, char **argv)
{
    hs_init(&argc, &argv);
    if (argc < 3) {
        fprintf(stderr, "usage: stack-cost unwind|intern|roots DEPTH N | sample N\n");
        return 2;
    }
    const char *mode = argv[1];
    if (strcmp(mode, "sample") == 0) {
        long n = atol(argv[2]);
        double t0 = cpu_ns();
        allocate(n);
        double off = cpu_ns() - t0;
        sampled_objects_start(WORD_SIZE);   /* every object */
        t0 = cpu_ns();
        allocate(n);
        double on = cpu_ns() - t0;
        printf("mode=sample n=%ld ns_per_sample=%.0f ns_per_allocation_off=%.1f\n", n,
               (on - off) / (double)n, off / (double)n);
        hs_exit();
        return 0;
    }
    int depth = atoi(argv[2]);
    n_iters = argc > 3 ? atol(argv[3]) : 100000;
    Work work = strcmp(mode, "unwind") == 0   ? unwind_once
                : strcmp(mode, "intern") == 0 ? intern_once
                                              : roots_once;
    double ns = 0;
    size_t frames = nest(depth, work, &ns);
    printf("mode=%s depth=%d ns=%.0f frames=%zu\n", mode, depth, ns, frames);
    hs_exit();
    return 0;
}
