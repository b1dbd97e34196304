/*
 * testsuite/unit/test_call_stacks.c -- the stacks of sampled allocations
 * (profiling/CallStacks.c) as a user reads them: each starts at the line
 * that asked for the object, whichever entry point it called (the inline
 * allocator, a large object, a pinned byte array, a runtime function that
 * calls the slow path itself), goes on to its caller's line, holds none
 * of the runtime's own frames and ends at main.  And naming only from the
 * slow path's caller (Note [Naming from the caller]) gives the very frames
 * that naming every address and cutting by files gives; and a code index
 * that reads a function only when asked (Note [Reading a function when
 * asked]) names every address of this program as one read whole does.
 */
#include "harness.h"

#include "CallStacks.h"
#include "DwarfCode.h"
#include "SampledObjects.h"
#include "Storage.h"

STRATA_CONSTR_INFO(Node_info, "Node", 1, 1);   /* next; a word */

/* The lines the sites record: where the object was asked for, and where
 * the site was called from. */
static int site_line, call_line;
static StgClosure *volatile sink;

__attribute__((noinline)) static StgClosure *small_site(void)
{
    StgClosure *c;
    site_line = __LINE__, c = strata_alloc_constr(&Node_info);
    c->payload[0] = NULL;   /* after the call: not a tail call */
    sink = c;
    return c;
}

__attribute__((noinline)) static StgClosure *large_site(void)
{
    StgPtr p;
    site_line = __LINE__, p = strata_alloc_words(STRATA_LARGE_OBJECT_WORDS + 8);
    StgClosure *c = (StgClosure *)p;
    c->info = &Node_info;
    c->payload[0] = NULL;
    sink = c;
    return c;
}

__attribute__((noinline)) static StgClosure *pinned_site(void)
{
    StgClosure *c;
    site_line = __LINE__, c = strata_alloc_pinned_bytes(200);
    sink = c;
    return c;
}

__attribute__((noinline)) static StgClosure *array_site(void)
{
    StgClosure *c;
    site_line = __LINE__, c = strata_alloc_mut_array(6);
    sink = c;
    return c;
}

typedef StgClosure *(*Site)(void);

#define MAX_FRAMES 64

/* A stack as text, frame by frame. */
typedef struct {
    size_t n;
    char function[MAX_FRAMES][128], file[MAX_FRAMES][256];
    uint32_t line[MAX_FRAMES];
    int site_line, call_line;
} Stack;

/* Calls site until what it allocates is sampled; that sample's stack. */
static void sampled_stack(Site site, Stack *out)
{
    SampledObject so;
    bool sampled = false;
    for (int tries = 0; tries < 10000 && !sampled; tries++) {
        StgClosure *c;
        call_line = __LINE__, c = site();
        sampled = sampled_object_find(c, &so);
    }
    assert_true(sampled);
    const uint32_t *ids;
    size_t n;
    assert_true(call_stack_frames(so.stack, &ids, &n));
    assert_true(n <= MAX_FRAMES);
    out->n = n;
    out->site_line = site_line;
    out->call_line = call_line;
    for (size_t i = 0; i < n; i++) {
        const char *function, *file;
        assert_true(call_stack_frame(ids[i], &function, &file, &out->line[i]));
        snprintf(out->function[i], sizeof out->function[i], "%s", function);
        snprintf(out->file[i], sizeof out->file[i], "%s", file);
    }
}

/* A run of its own (fresh tables), naming from the caller or not. */
static void stack_of_run(Site site, bool from_caller, Stack *out)
{
    harness_start("--alloc-sample=8", NULL);
    call_stacks_name_from_caller(from_caller);
    sampled_stack(site, out);
    hs_exit();
    call_stacks_name_from_caller(true);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void print_stack(const Stack *s)
{
    for (size_t i = 0; i < s->n; i++)
        printf("  #%zu %s (%s:%u)\n", i, s->function[i], s->file[i], (unsigned)s->line[i]);
}

static void check_stack(const Stack *s, const char *site, const char *caller)
{
    print_stack(s);
    assert_true(s->n >= 3);
    assert_string_equal(s->function[0], site);
    assert_true(ends_with(s->file[0], "test_call_stacks.c"));
    assert_int_equal(s->line[0], s->site_line);
    assert_string_equal(s->function[1], "sampled_stack");
    assert_int_equal(s->line[1], s->call_line);
    assert_string_equal(s->function[2], caller);   /* inlined or not */
    /* None of the runtime's frames, and nothing below main. */
    for (size_t i = 0; i < s->n; i++) {
        static const char *const runtime[] = {"sm/", "profiling/", "support/",
                                              "includes/strata/"};
        for (size_t d = 0; d < sizeof runtime / sizeof runtime[0]; d++)
            assert_null(strstr(s->file[i], runtime[d]));
    }
    assert_string_equal(s->function[s->n - 1], "main");
}

static void check_site(Site site, const char *name)
{
    Stack stacks[2];   /* [1]: named from the caller; [0]: every frame named */
    for (int from_caller = 1; from_caller >= 0; from_caller--)
        stack_of_run(site, from_caller, &stacks[from_caller]);
    const Stack *lazy = &stacks[1], *whole = &stacks[0];
    check_stack(lazy, name, "stack_of_run");
    check_stack(whole, name, "stack_of_run");
    assert_int_equal(lazy->n, whole->n);
    for (size_t i = 0; i < whole->n; i++) {
        assert_string_equal(lazy->function[i], whole->function[i]);
        assert_string_equal(lazy->file[i], whole->file[i]);
        assert_int_equal(lazy->line[i], whole->line[i]);
    }
}

static void test_call_stacks_start_at_an_inline_allocation(void **state)
{
    (void)state;
    check_site(small_site, "small_site");
}

static void test_call_stacks_start_at_a_large_allocation(void **state)
{
    (void)state;
    check_site(large_site, "large_site");
}

static void test_call_stacks_start_at_a_pinned_allocation(void **state)
{
    (void)state;
    check_site(pinned_site, "pinned_site");
}

static void test_call_stacks_start_at_a_runtime_entry_point(void **state)
{
    (void)state;
    check_site(array_site, "array_site");
}

static void check_same_frames(DwarfCode *lazy, DwarfCode *whole, uint64_t vaddr)
{
    CodeFrame a[16], b[16];
    size_t na = dwarf_code_frames(lazy, vaddr, a, 16);
    size_t nb = dwarf_code_frames(whole, vaddr, b, 16);
    if (na != nb)
        printf("at 0x%llx: %zu frames, read whole %zu\n", (unsigned long long)vaddr, na, nb);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++) {
        if (strcmp(a[i].function, b[i].function) != 0 || strcmp(a[i].file, b[i].file) != 0 ||
            a[i].line != b[i].line)
            printf("at 0x%llx frame %zu: %s (%s:%u), read whole %s (%s:%u)\n",
                   (unsigned long long)vaddr, i, a[i].function, a[i].file, (unsigned)a[i].line,
                   b[i].function, b[i].file, (unsigned)b[i].line);
        assert_string_equal(a[i].function, b[i].function);
        assert_string_equal(a[i].file, b[i].file);
        assert_int_equal(a[i].line, b[i].line);
    }
}

/* Every line row's address of this program, and the one after it, in a
 * scrambled order (functions read in any order, a few at a time). */
static void test_call_stacks_functions_read_when_asked_name_as_read_whole(void **state)
{
    (void)state;
    DwarfCode lazy = {0}, whole = {.whole_units = true};
    assert_true(dwarf_code_open("/proc/self/exe", &lazy));
    assert_true(dwarf_code_open("/proc/self/exe", &whole));
    assert_non_null(whole.aranges);   /* else both read every unit whole */
    CodeFrame f[16];
    for (size_t i = 0; i < whole.n_aranges; i++)
        (void)dwarf_code_frames(&whole, whole.aranges[i].lo, f, 16);   /* every unit */
    size_t n = 0;
    for (size_t u = 0; u < whole.n_units; u++)
        n += whole.units[u].n_lines;
    uint64_t *addrs = malloc(2 * n * sizeof *addrs);
    assert_non_null(addrs);
    size_t k = 0;
    for (size_t u = 0; u < whole.n_units; u++)
        for (size_t j = 0; j < whole.units[u].n_lines; j++) {
            addrs[k++] = whole.units[u].lines[j].addr;
            addrs[k++] = whole.units[u].lines[j].addr + 1;
        }
    assert_true(k > 1000);
    const size_t step = 7919;   /* a prime: i * step mod k visits every index once */
    while (k % step == 0)
        k--;
    for (size_t i = 0; i < k; i++)
        check_same_frames(&lazy, &whole, addrs[i * step % k]);
    size_t unread = 0;
    for (size_t u = 0; u < lazy.n_units; u++)
        for (size_t j = 0; j < lazy.units[u].n_scopes; j++)
            unread += lazy.units[u].scopes[j].unread != 0;
    printf("%zu addresses; %zu function ranges never asked for stay unread\n", k, unread);
    dwarf_code_check(&lazy);
    dwarf_code_check(&whole);
    free(addrs);
    dwarf_code_free(&lazy);
    dwarf_code_free(&whole);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_call_stacks_start_at_an_inline_allocation),
        cmocka_unit_test(test_call_stacks_start_at_a_large_allocation),
        cmocka_unit_test(test_call_stacks_start_at_a_pinned_allocation),
        cmocka_unit_test(test_call_stacks_start_at_a_runtime_entry_point),
        cmocka_unit_test(test_call_stacks_functions_read_when_asked_name_as_read_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
