/*
 * testsuite/unit/test_debug.c -- the debug stub and the client library
 * together.  Each test forks a child that runs the runtime with the stub
 * (the mutator, allocating garbage so that it keeps reaching safe points)
 * while the parent is the client.  The child tells the parent what it knows
 * (its own census, a frame's line, its final result) through a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <strata.h>

#include "Census.h"
#include "DebugAnalysis.h"
#include "DebugClient.h"
#include "DebugDiff.h"
#include "DebugRequest.h"
#include "NonMoving.h"
#include "RtsFlags.h"
#include "os/Socket.h"
#include "os/Thread.h"

/* ----------------------------------------------------------------------
 * The child: a mutator with the stub
 * ---------------------------------------------------------------------- */

typedef struct {
    pid_t pid;
    int from_child;              /* child's reports, one line each */
    int to_child;                /* closing it tells the child to finish */
    char socket[108];
} Child;

static int child_out = -1, child_in = -1;

static void child_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void child_report(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (write(child_out, buf, (size_t)n) != n)
        _exit(3);
}

/* True once the parent closed its end of the pipe. */
static bool child_told_to_finish(void)
{
    struct pollfd p = {child_in, POLLIN, 0};
    return poll(&p, 1, 0) > 0;
}

STRATA_CONSTR_INFO(Leaky_info, "Leaky", 2, 1);
STRATA_CONSTR_INFO(Pair_info, "Pair", 2, 0);
STRATA_CONSTR_INFO(Num_info, "Num", 0, 1);

/* Short-lived garbage, never rooted, until the parent says stop. */
static void churn_until_told(void)
{
    for (unsigned long i = 0;; i++) {
        StgClosure *p = strata_alloc_constr(&Pair_info);
        (void)p;
        if (i % 4096 == 0 && child_told_to_finish())
            return;
    }
}

/* A list of n Leaky nodes, each with a byte array. */
static StgClosure *make_leaky_list(StgWord n)
{
    STRATA_ROOTS(r, 2);
    for (StgWord i = 0; i < n; i++) {
        r[1] = strata_alloc_bytes(24 + (i % 3) * 8);
        StgClosure *l = strata_alloc_constr(&Leaky_info);
        STRATA_FIELD(l, 0) = r[0];
        STRATA_FIELD(l, 1) = r[1];
        STRATA_WORD(l, 2) = i;
        r[0] = l;
    }
    StgClosure *head = r[0];
    STRATA_ROOTS_POP(r);
    return head;
}

static Child child_start(void (*body)(void), const char *flags)
{
    Child c;
    int up[2], down[2];
    assert_int_equal(pipe(up), 0);
    assert_int_equal(pipe(down), 0);
    snprintf(c.socket, sizeof c.socket, "/tmp/strata-test-debug-%d-%ld.sock", (int)getpid(),
             (long)random());
    fflush(stdout);
    fflush(stderr);
    c.pid = fork();
    assert_true(c.pid >= 0);
    if (c.pid == 0) {
        close(up[0]);
        close(down[1]);
        child_out = up[1];
        child_in = down[0];
        setenv("STRATA_DEBUG_SOCKET", c.socket, 1);
        /* flags: RTS options, separated by spaces */
        char words[256], *argv[16] = {"test_debug"};
        int argc = 1;
        if (flags != NULL) {
            snprintf(words, sizeof words, "%s", flags);
            argv[argc++] = "+RTS";
            for (char *w = strtok(words, " "); w != NULL && argc < 14; w = strtok(NULL, " "))
                argv[argc++] = w;
            argv[argc++] = "-RTS";
        }
        argv[argc] = NULL;
        char **av = argv;
        hs_init(&argc, &av);
        if (rts_debug_start() != 0)
            _exit(4);
        body();
        hs_exit();
        _exit(0);
    }
    close(up[1]);
    close(down[0]);
    c.from_child = up[0];
    c.to_child = down[1];
    return c;
}

/* One line from the child (blocking), NUL-terminated without '\n'. */
static void child_read_line(Child *c, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        ssize_t r = read(c->from_child, buf + n, 1);
        assert_true(r == 1);
        if (buf[n] == '\n')
            break;
        n++;
    }
    buf[n] = '\0';
}

static int child_finish(Child *c)
{
    if (c->to_child >= 0)
        close(c->to_child);
    int status;
    assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
    close(c->from_child);
    unlink(c->socket);
    return status;
}

static DbgClient *connect_paused(Child *c)
{
    char err[512];
    DbgClient *cl = dbg_connect(c->socket, err, sizeof err);
    if (cl == NULL)
        fail_msg("connect: %s", err);
    assert_int_equal(dbg_pause(cl, 20000, NULL), 0);
    return cl;
}

/* ----------------------------------------------------------------------
 * Census: the client's totals equal the profiler's
 * ---------------------------------------------------------------------- */

STRATA_THUNK_INFO(NumThunk_info, "NumThunk", 1, 0, NULL);

static void census_body(void)
{
    STRATA_ROOTS(r, 4);
    r[0] = make_leaky_list(3000);
    setUserEra(2);
    r[1] = strata_alloc_mut_array(700);   /* a large object */
    for (StgWord i = 0; i < 700; i += 7)
        strata_mut_array_write(r[1], i, make_leaky_list(2));
    setUserEra(3);
    for (int i = 0; i < 50; i++) {   /* pinned bytes: blocks count whole */
        r[2] = strata_alloc_pinned_bytes(100);
        if (i % 10 == 0)
            rts_debug_save(r[2]);
    }
    r[3] = strata_alloc_thunk(&NumThunk_info);
    STRATA_THUNK_FIELD(r[3], 0) = r[0];
    STRATA_ROOTS(dups, 1);   /* ten equal Nums: nine could be shared */
    dups[0] = strata_alloc_mut_array(10);
    for (StgWord i = 0; i < 10; i++) {
        StgClosure *num = strata_alloc_constr(&Num_info);
        STRATA_WORD(num, 0) = 42;
        strata_mut_array_write(dups[0], i, num);
    }
    strata_perform_gc(1);
    Census cs;
    census_init(&cs);
    census_take(&cs, HEAP_BY_CLOSURE_TYPE, ERA_RANGE_ALL);
    for (size_t i = 0; i < cs.n_buckets; i++)
        child_report("T %s %lu\n", cs.buckets[i].label, (unsigned long)cs.buckets[i].bytes);
    child_report("TOTAL %lu\n", (unsigned long)cs.total_bytes);
    census_free(&cs);
    census_init(&cs);
    census_take(&cs, HEAP_BY_ERA, (EraRange){2, 3});
    child_report("ERA23 %lu\n", (unsigned long)cs.total_bytes);
    census_free(&cs);
    child_report("END\n");
    churn_until_told();
    STRATA_ROOTS_POP(dups);
    STRATA_ROOTS_POP(r);
}

/* .inv.census-equal: the client's census of a paused heap equals the
 * profiler's for the same major GC. */
static void test_debug_census_equals_profiler(void **state)
{
    (void)state;
    Child ch = child_start(census_body, "-A64k");
    char line[512];
    char labels[64][128];
    unsigned long bytes[64], total = 0, era23 = 0;
    size_t n = 0;
    for (;;) {
        child_read_line(&ch, line, sizeof line);
        if (strcmp(line, "END") == 0)
            break;
        if (sscanf(line, "TOTAL %lu", &total) == 1 || sscanf(line, "ERA23 %lu", &era23) == 1)
            continue;
        assert_true(n < 64);
        assert_int_equal(sscanf(line, "T %127s %lu", labels[n], &bytes[n]), 2);
        n++;
    }
    DbgClient *c = connect_paused(&ch);
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    DbgCensus cs;
    assert_int_equal(dbg_census(c, r, DBG_BY_TYPE, NULL, &cs), 0);
    assert_int_equal(cs.total_bytes, total);
    assert_int_equal(cs.n, n);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < cs.n && strcmp(cs.buckets[k].label, labels[i]) != 0)
            k++;
        if (k == cs.n)
            fail_msg("profiler bucket %s missing from the client's census", labels[i]);
        assert_int_equal(cs.buckets[k].bytes, bytes[i]);
    }
    dbg_census_free(&cs);
    DbgEraRange eras = {true, 2, 3};
    assert_int_equal(dbg_census(c, r, DBG_BY_ERA, &eras, &cs), 0);
    assert_int_equal(cs.total_bytes, era23);
    for (size_t i = 0; i < cs.n; i++)
        assert_true(strcmp(cs.buckets[i].label, "2") == 0 ||
                    strcmp(cs.buckets[i].label, "3") == 0);
    dbg_census_free(&cs);

    /* Duplicates: the nine extra Nums, and no Leaky (their ids differ). */
    assert_int_equal(dbg_duplicates(c, r, &cs), 0);
    assert_int_equal(cs.n, 1);
    assert_non_null(strstr(cs.buckets[0].label, "Num 0x"));
    assert_int_equal(cs.buckets[0].objects, 9);
    assert_int_equal(cs.buckets[0].bytes, 9 * 2 * 8);
    dbg_census_free(&cs);
    /* Thunks: the one NumThunk. */
    assert_int_equal(dbg_thunks(c, r, &cs), 0);
    assert_int_equal(cs.n, 1);
    assert_int_equal(cs.total_objects, 1);
    assert_non_null(strstr(cs.buckets[0].label, "NumThunk"));
    dbg_census_free(&cs);

    /* A marks-only traversal (depth first, Note [Marks only] in Marks.c)
     * reaches the same objects and gives the same census, bucket for
     * bucket, in every grouping. */
    DbgReach *m = dbg_reach_marks(c);
    assert_non_null(m);
    size_t n_bfs;
    dbg_reach_objects(r, &n_bfs);
    assert_int_equal(dbg_reach_count(m), n_bfs);
    assert_int_equal(dbg_reach_dangling(m), dbg_reach_dangling(r));
    for (int by = DBG_BY_TYPE; by <= DBG_BY_MODULE; by++) {
        DbgCensus a, b;
        assert_int_equal(dbg_census(c, r, (DbgCensusBy)by, NULL, &a), 0);
        assert_int_equal(dbg_census(c, m, (DbgCensusBy)by, NULL, &b), 0);
        assert_int_equal(a.n, b.n);
        assert_int_equal(a.total_bytes, b.total_bytes);
        assert_int_equal(a.total_objects, b.total_objects);
        for (size_t i = 0; i < a.n; i++) {
            assert_string_equal(a.buckets[i].label, b.buckets[i].label);
            assert_int_equal(a.buckets[i].bytes, b.buckets[i].bytes);
            assert_int_equal(a.buckets[i].objects, b.buckets[i].objects);
        }
        dbg_census_free(&a);
        dbg_census_free(&b);
    }
    dbg_reach_free(m);

    /* Saved objects are roots of their own kind. */
    const DbgRoot *roots;
    size_t nr, saved = 0;
    assert_int_equal(dbg_roots(c, &roots, &nr), 0);
    for (size_t i = 0; i < nr; i++)
        saved += roots[i].kind == DEBUG_ROOT_SAVED;
    assert_int_equal(saved, 5);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
}

/* Threads: workers attached on other capabilities build lists in their own
 * frames, then suspend (no capability, frames still roots) until the end;
 * the client, pausing every capability, counts what the profiler counts
 * and lists each thread's TSO. */
static OsMutex workers_lock = OS_MUTEX_INIT;
static OsCond workers_changed = OS_COND_INIT;
static int workers_ready;
static bool workers_release;

static void *census_worker(void *arg)
{
    Capability *cap = rts_lock();
    STRATA_ROOTS(r, 1);
    r[0] = make_leaky_list(500 + 100 * (StgWord)(uintptr_t)arg);
    rts_suspend();
    os_mutex_lock(&workers_lock);
    workers_ready++;
    os_cond_broadcast(&workers_changed);
    while (!workers_release)
        os_cond_wait(&workers_changed, &workers_lock);
    os_mutex_unlock(&workers_lock);
    rts_resume();
    STRATA_ROOTS_POP(r);
    rts_unlock(cap);
    return NULL;
}

static void census_threads_body(void)
{
    OsThread t[2];
    rts_suspend();
    for (uintptr_t i = 0; i < 2; i++)
        if (os_thread_start(&t[i], census_worker, (void *)i) != 0)
            _exit(5);
    os_mutex_lock(&workers_lock);
    while (workers_ready < 2)
        os_cond_wait(&workers_changed, &workers_lock);
    os_mutex_unlock(&workers_lock);
    rts_resume();
    STRATA_ROOTS(r, 1);
    r[0] = make_leaky_list(300);
    strata_perform_gc(1);
    Census cs;
    census_init(&cs);
    census_take(&cs, HEAP_BY_CLOSURE_TYPE, ERA_RANGE_ALL);
    for (size_t i = 0; i < cs.n_buckets; i++)
        child_report("T %s %lu\n", cs.buckets[i].label, (unsigned long)cs.buckets[i].bytes);
    child_report("TOTAL %lu\n", (unsigned long)cs.total_bytes);
    census_free(&cs);
    child_report("END\n");
    churn_until_told();
    os_mutex_lock(&workers_lock);
    workers_release = true;
    os_cond_broadcast(&workers_changed);
    os_mutex_unlock(&workers_lock);
    rts_suspend();
    for (int i = 0; i < 2; i++)
        os_thread_join(t[i]);
    rts_resume();
    STRATA_ROOTS_POP(r);
}

static void test_debug_census_of_threads_equals_profiler(void **state)
{
    (void)state;
    Child ch = child_start(census_threads_body, "-N3");
    char line[512];
    char labels[64][128];
    unsigned long bytes[64], total = 0;
    size_t n = 0;
    for (;;) {
        child_read_line(&ch, line, sizeof line);
        if (strcmp(line, "END") == 0)
            break;
        if (sscanf(line, "TOTAL %lu", &total) == 1)
            continue;
        assert_true(n < 64);
        assert_int_equal(sscanf(line, "T %127s %lu", labels[n], &bytes[n]), 2);
        n++;
    }
    DbgClient *c = connect_paused(&ch);
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    DbgCensus cs;
    assert_int_equal(dbg_census(c, r, DBG_BY_TYPE, NULL, &cs), 0);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < cs.n && strcmp(cs.buckets[k].label, labels[i]) != 0)
            k++;
        if (k == cs.n)
            fail_msg("profiler bucket %s missing from the client's census", labels[i]);
        /* The main thread churns between the census and the pause: only
         * the workers' lists and the main list are fixed. */
        if (strcmp(labels[i], "Leaky") == 0)
            assert_int_equal(cs.buckets[k].bytes, bytes[i]);
    }
    dbg_census_free(&cs);
    const DbgRoot *roots;
    size_t n_roots;
    assert_int_equal(dbg_roots(c, &roots, &n_roots), 0);
    bool thread_seen[4] = {false}, frame_of[4] = {false};
    for (size_t i = 0; i < n_roots; i++) {
        if (roots[i].kind == DEBUG_ROOT_THREAD && roots[i].index < 4)
            thread_seen[roots[i].index] = true;
        if (roots[i].kind == DEBUG_ROOT_FRAME && roots[i].thread < 4)
            frame_of[roots[i].thread] = true;
    }
    assert_true(thread_seen[1] && thread_seen[2] && thread_seen[3]);
    /* Each worker's list is held by a frame labelled with its thread. */
    assert_true(frame_of[1] && frame_of[2] && frame_of[3]);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
}

/* ----------------------------------------------------------------------
 * Census by era: eras of equal size in numeric order (issue 22)
 * ---------------------------------------------------------------------- */

#define EQUAL_ERAS 12

/* One Num in each of eras 2..EQUAL_ERAS + 1, all live: twelve buckets of
 * one equal size, so only the tie-break orders them.  (Era 1 also holds
 * what the runtime made at start-up, the thread's stack.) */
static void equal_eras_body(void)
{
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array(EQUAL_ERAS);
    for (StgWord e = 1; e <= EQUAL_ERAS; e++) {
        setUserEra(e + 1);
        StgClosure *num = strata_alloc_constr(&Num_info);
        STRATA_WORD(num, 0) = e;
        strata_mut_array_write(r[0], e - 1, num);
    }
    child_report("END\n");
    churn_until_told();
    STRATA_ROOTS_POP(r);
}

static void test_debug_census_orders_eras_numerically(void **state)
{
    (void)state;
    Child ch = child_start(equal_eras_body, "-A64k");
    char line[64];
    child_read_line(&ch, line, sizeof line);
    DbgClient *c = connect_paused(&ch);
    DbgReach *r = dbg_reach_opts(c, false);
    assert_non_null(r);
    DbgEraRange eras = {true, 2, EQUAL_ERAS + 1};
    DbgCensus cs;
    assert_int_equal(dbg_census(c, r, DBG_BY_ERA, &eras, &cs), 0);
    assert_int_equal(cs.n, EQUAL_ERAS);
    for (size_t i = 0; i < cs.n; i++) {
        char want[24];
        snprintf(want, sizeof want, "%zu", i + 2);
        assert_int_equal(cs.buckets[i].bytes, cs.buckets[0].bytes);
        if (strcmp(cs.buckets[i].label, want) != 0)
            fail_msg("census bucket %zu is era %s, expected era %s", i, cs.buckets[i].label,
                     want);
    }
    dbg_census_free(&cs);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
}

/* ----------------------------------------------------------------------
 * Retainer paths end at the local-root frame that holds the leak
 * ---------------------------------------------------------------------- */

static void hold_leak(void)
{
    child_report("LINE %d\n", __LINE__ + 1);
    STRATA_ROOTS(leak, 1);
    leak[0] = make_leaky_list(500);
    child_report("END\n");
    churn_until_told();
    STRATA_ROOTS_POP(leak);
}

static void test_debug_retainer_path_names_frame(void **state)
{
    (void)state;
    Child ch = child_start(hold_leak, "-A16k");
    char line[128];
    int frame_line = 0;
    child_read_line(&ch, line, sizeof line);
    assert_int_equal(sscanf(line, "LINE %d", &frame_line), 1);
    child_read_line(&ch, line, sizeof line);
    DbgClient *c = connect_paused(&ch);
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    DbgQuery q = {.kind = DBG_MATCH_CONSTRUCTOR, .name = "Leaky"};
    uint64_t found[600];
    size_t n;
    assert_int_equal(dbg_search(c, r, &q, found, 600, &n), 0);
    assert_int_equal(n, 500);
    /* A misspelt name: the nearest live constructor names first. */
    DbgNameMatch near[4];
    assert_int_equal(dbg_constructor_names_near(c, r, "Leakyy", near, 4, &n), 0);
    assert_true(n >= 1);
    assert_string_equal(near[0].name, "Leaky");
    assert_int_equal(near[0].distance, 1);
    assert_int_equal(dbg_constructor_names_near(c, r, "Leaky", near, 4, &n), 0);
    assert_int_equal(near[0].distance, 0);
    assert_int_equal(dbg_search(c, r, &q, found, 600, &n), 0);
    DbgPath p;
    assert_int_equal(dbg_retainer_path(c, r, found[n - 1], &p), 0);
    assert_int_equal(p.n, 500);   /* the oldest node: behind all the others */
    DbgClosure cl;
    assert_int_equal(dbg_closure(c, p.addrs[0], &cl), 0);
    assert_string_equal(cl.info->name, "Leaky");
    /* Its fields: info, next (NULL: the oldest), bytes, id 0. */
    DbgField fields[8];
    assert_int_equal(dbg_closure_fields(c, &cl, fields, 8), 4);
    assert_false(fields[0].is_ptr);
    assert_true(fields[1].is_ptr && fields[1].value == 0);
    assert_true(fields[2].is_ptr && fields[2].value != 0);
    assert_false(fields[3].is_ptr);
    assert_int_equal(fields[3].value, 0);
    DbgClosure bytes;
    assert_int_equal(dbg_closure(c, fields[2].value, &bytes), 0);
    assert_string_equal(dbg_closure_type_name(bytes.info->type), "ARR_WORDS");
    const DbgRoot *roots;
    size_t nr;
    assert_int_equal(dbg_roots(c, &roots, &nr), 0);
    const DbgRoot *root = &roots[p.root];
    assert_int_equal(root->kind, DEBUG_ROOT_FRAME);
    assert_string_equal(root->func, "hold_leak");
    assert_non_null(strstr(root->file, "test_debug.c"));
    assert_int_equal(root->line, frame_line);
    dbg_path_free(&p);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
}

/* ----------------------------------------------------------------------
 * A static closure root is named from the program's symbol table
 * ---------------------------------------------------------------------- */

/* A global mutable variable, like examples/leak.c's session cache. */
static const int test_static_cache_line = __LINE__ + 1;
static StgMutVar test_static_cache = {&stg_MUT_VAR_CLEAN_info, NULL};

static void hold_in_static(void)
{
    strata_mut_var_write((StgClosure *)&test_static_cache, make_leaky_list(10));
    child_report("END\n");
    churn_until_told();
}

/* The root naming test_static_cache, checked; its index in roots. */
static size_t expect_named_static(DbgClient *c, uint64_t addr)
{
    const DbgRoot *named = dbg_static_root(c, addr);
    if (named == NULL)
        fail_msg("no static root names 0x%lx: %s", (unsigned long)addr, dbg_error(c));
    assert_int_equal(named->kind, DEBUG_ROOT_STATIC);
    assert_string_equal(named->func, "test_static_cache");
    assert_non_null(strstr(named->file, "test_debug.c"));
    assert_int_equal(named->line, test_static_cache_line);
    char name[512], want[512];
    dbg_static_root_name(named, name, sizeof name);
    snprintf(want, sizeof want, "test_static_cache (%s:%d)", named->file, test_static_cache_line);
    assert_string_equal(name, want);
    const DbgRoot *roots;
    size_t n;
    assert_int_equal(dbg_roots(c, &roots, &n), 0);
    return (size_t)(named - roots);
}

static void test_debug_static_root_named_from_symbols(void **state)
{
    (void)state;
    Child ch = child_start(hold_in_static, "-A16k");
    char line[64];
    child_read_line(&ch, line, sizeof line);
    DbgClient *c = connect_paused(&ch);
    uint64_t cache = (uint64_t)(uintptr_t)&test_static_cache;   /* fork: same address */
    size_t root = expect_named_static(c, cache);
    /* A retainer path of a Leaky ends at that root, through the variable. */
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    DbgQuery q = {.kind = DBG_MATCH_CONSTRUCTOR, .name = "Leaky"};
    uint64_t found[1];
    size_t n;
    assert_int_equal(dbg_search(c, r, &q, found, 1, &n), 0);
    assert_int_equal(n, 1);
    DbgPath p;
    assert_int_equal(dbg_retainer_path(c, r, found[0], &p), 0);
    assert_int_equal(p.addrs[p.n - 1], cache);
    assert_int_equal(p.root, root);
    dbg_path_free(&p);
    /* The variable (0 bytes of its own) retains what the list's head does;
     * of the two, the dominator is listed first, wherever the loader put it. */
    DbgDom *d = dbg_dominators(c, r);
    assert_non_null(d);
    DbgDomEntry top[64];
    assert_int_equal(dbg_dom_top(c, d, top, 64, &n), 0);
    size_t at_cache = n, at_head = n;
    for (size_t i = 0; i < n; i++) {
        if (top[i].addr == cache)
            at_cache = i;
        if (top[i].idom == cache)
            at_head = i;
    }
    if (at_cache == n || at_head == n)
        fail_msg("dominators lack the static (%zu) or the list's head (%zu)", at_cache, at_head);
    assert_int_equal(top[at_cache].own_bytes, 0);
    assert_int_equal(top[at_head].retained_bytes, top[at_cache].retained_bytes);
    assert_true(at_cache < at_head);
    dbg_dom_free(d);
    /* Unnamed: a heap object, and an address that is no root. */
    assert_null(dbg_static_root(c, found[0]));
    assert_null(dbg_static_root(c, cache + 8));
    /* The name travels in a snapshot. */
    char file[64];
    snprintf(file, sizeof file, "/tmp/strata-test-debug-%d-static.snap", (int)getpid());
    assert_int_equal(dbg_write_snapshot(c, r, file), 0);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
    char err[512];
    DbgClient *s = dbg_open_snapshot(file, err, sizeof err);
    if (s == NULL)
        fail_msg("%s", err);
    expect_named_static(s, cache);
    dbg_close(s);
    unlink(file);
}

/* ----------------------------------------------------------------------
 * Malformed requests
 * ---------------------------------------------------------------------- */

static void churn_body(void)
{
    STRATA_ROOTS(r, 1);
    r[0] = strata_alloc_mut_array(600);   /* a large object: never moves */
    child_report("ADDR %lu %lu\n", (unsigned long)(uintptr_t)r[0],
                 (unsigned long)(uintptr_t)&Leaky_info);
    churn_until_told();
    STRATA_ROOTS_POP(r);
}

static int raw_connect(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strcpy(a.sun_path, path);
    for (int tries = 0; connect(fd, (struct sockaddr *)&a, sizeof a) != 0; tries++) {
        assert_true(tries < 200);
        usleep(10000);
    }
    return fd;
}

/* Sends raw bytes, reads one response: returns its status, message in msg. */
static int raw_exchange(int fd, const void *req, size_t len, char *msg, size_t cap)
{
    /* The stub may already have answered and closed (BUSY, REFUSED): the
     * send may fail, and its answer is still there to read. */
    (void)send(fd, req, len, MSG_NOSIGNAL);
    uint8_t h[8];
    size_t got = 0;
    while (got < 8) {
        ssize_t r = read(fd, h + got, 8 - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    uint32_t flen = h[0] | h[1] << 8 | h[2] << 16 | (uint32_t)h[3] << 24;
    size_t body = flen - 4, k = 0;
    msg[0] = '\0';
    while (k < body) {
        char tmp[4096];
        ssize_t r = read(fd, tmp, body - k < sizeof tmp ? body - k : sizeof tmp);
        assert_true(r > 0);
        if (k < cap - 1) {
            size_t copy = (size_t)r < cap - 1 - k ? (size_t)r : cap - 1 - k;
            memcpy(msg + k, tmp, copy);
            msg[k + copy] = '\0';
        }
        k += (size_t)r;
    }
    return h[4] | h[5] << 8;
}

/* A request: command, payload. */
static size_t frame(uint8_t *out, uint16_t cmd, const void *payload, size_t len)
{
    uint32_t total = (uint32_t)(4 + len);
    memcpy(out, &total, 4);
    memcpy(out + 4, &cmd, 2);
    memset(out + 6, 0, 2);
    if (len > 0)
        memcpy(out + 8, payload, len);
    return 8 + len;
}

static void expect_error(int fd, const uint8_t *req, size_t len, int status, const char *text)
{
    char msg[512];
    int st = raw_exchange(fd, req, len, msg, sizeof msg);
    if (st != status || strstr(msg, text) == NULL)
        fail_msg("expected status %d with '%s', got %d: '%s'", status, text, st, msg);
}

/* The decoder alone (wire/DebugRequest.c), on NEW_ERA: a bare
 * request decodes; a payload, flags or a cut-short frame are refused with
 * the command's name. */
static void test_debug_decoder_new_era(void **state)
{
    (void)state;
    DebugRequest r;
    char err[256];
    assert_string_equal(debug_command_name(DEBUG_CMD_NEW_ERA), "new-era");
    const uint8_t bare[] = {DEBUG_CMD_NEW_ERA, 0, 0, 0};
    assert_int_equal(debug_request_decode(bare, sizeof bare, &r, err, sizeof err),
                     DEBUG_STATUS_OK);
    assert_int_equal(r.cmd, DEBUG_CMD_NEW_ERA);
    assert_string_equal(err, "");
    const uint8_t payload[] = {DEBUG_CMD_NEW_ERA, 0, 0, 0, 7};
    assert_int_equal(debug_request_decode(payload, sizeof payload, &r, err, sizeof err),
                     DEBUG_STATUS_BAD_LENGTH);
    assert_string_equal(err, "new-era: payload has 1 bytes, expected 0");
    const uint8_t flags[] = {DEBUG_CMD_NEW_ERA, 0, 1, 0};
    assert_int_equal(debug_request_decode(flags, sizeof flags, &r, err, sizeof err),
                     DEBUG_STATUS_BAD_ARGUMENT);
    assert_string_equal(err, "new-era: flags are 0x1, expected 0");
    assert_int_equal(debug_request_decode(bare, 3, &r, err, sizeof err),
                     DEBUG_STATUS_BAD_LENGTH);
    assert_non_null(strstr(err, "request length is 3 bytes"));
}

static void test_debug_malformed_requests(void **state)
{
    (void)state;
    Child ch = child_start(churn_body, "-A16k");
    char line[128];
    unsigned long obj, info;
    child_read_line(&ch, line, sizeof line);
    assert_int_equal(sscanf(line, "ADDR %lu %lu", &obj, &info), 2);
    int fd = raw_connect(ch.socket);
    uint8_t req[256];
    uint64_t a[2];
    uint32_t u;

    /* Heap requests before a pause; resume when not paused. */
    expect_error(fd, req, frame(req, DEBUG_CMD_BLOCKS, NULL, 0), DEBUG_STATUS_NOT_PAUSED,
                 "not paused");
    expect_error(fd, req, frame(req, DEBUG_CMD_RESUME, NULL, 0), DEBUG_STATUS_NOT_PAUSED,
                 "not paused");
    /* Unknown commands, flags, wrong payload lengths for every command. */
    expect_error(fd, req, frame(req, 999, NULL, 0), DEBUG_STATUS_UNKNOWN_COMMAND,
                 "unknown command 999");
    expect_error(fd, req, frame(req, 0, NULL, 0), DEBUG_STATUS_UNKNOWN_COMMAND,
                 "unknown command 0");
    size_t l = frame(req, DEBUG_CMD_VERSION, NULL, 0);
    req[6] = 1;
    expect_error(fd, req, l, DEBUG_STATUS_BAD_ARGUMENT, "flags");
    static const uint16_t empty_cmds[] = {DEBUG_CMD_VERSION, DEBUG_CMD_RESUME, DEBUG_CMD_ROOTS,
                                          DEBUG_CMD_SAVED, DEBUG_CMD_BLOCKS,
                                          DEBUG_CMD_SNAPSHOT, DEBUG_CMD_NEW_ERA};
    for (size_t i = 0; i < sizeof empty_cmds / sizeof *empty_cmds; i++)
        expect_error(fd, req, frame(req, empty_cmds[i], "xyz", 3), DEBUG_STATUS_BAD_LENGTH,
                     "payload has 3 bytes, expected 0");
    expect_error(fd, req, frame(req, DEBUG_CMD_PAUSE, "x", 1), DEBUG_STATUS_BAD_LENGTH,
                 "expected 4");
    u = 4000000;
    expect_error(fd, req, frame(req, DEBUG_CMD_PAUSE, &u, 4), DEBUG_STATUS_BAD_ARGUMENT,
                 "timeout");
    expect_error(fd, req, frame(req, DEBUG_CMD_BLOCK_CONTENTS, "abc", 3),
                 DEBUG_STATUS_BAD_LENGTH, "expected 8");
    expect_error(fd, req, frame(req, DEBUG_CMD_CLOSURES, "ab", 2), DEBUG_STATUS_BAD_LENGTH,
                 "at least 4");
    u = 0;
    expect_error(fd, req, frame(req, DEBUG_CMD_INFO, &u, 4), DEBUG_STATUS_BAD_ARGUMENT,
                 "count is 0");
    u = DEBUG_MAX_BATCH + 1;
    expect_error(fd, req, frame(req, DEBUG_CMD_CLOSURES, &u, 4), DEBUG_STATUS_BAD_ARGUMENT,
                 "count is");
    uint8_t p[20];
    u = 2;
    memcpy(p, &u, 4);
    memset(p + 4, 0, 8);
    expect_error(fd, req, frame(req, DEBUG_CMD_CLOSURES, p, 12), DEBUG_STATUS_BAD_LENGTH,
                 "for count 2");

    /* Now paused: bad addresses (.inv.no-unmapped-read). */
    u = 20000;
    char msg[512];
    assert_int_equal(raw_exchange(fd, req, frame(req, DEBUG_CMD_PAUSE, &u, 4), msg, sizeof msg),
                     DEBUG_STATUS_OK);
    const uint64_t bad_closures[] = {
        0,                      /* NULL */
        obj + 3,                /* unaligned */
        obj + 8,                /* inside an object */
        0x10,                   /* unmapped low memory */
        0xffff800000000000ull,  /* kernel half */
        (uint64_t)(uintptr_t)"mapped text, not a closure",
    };
    for (size_t i = 0; i < sizeof bad_closures / sizeof *bad_closures; i++) {
        uint8_t pl[12];
        u = 1;
        memcpy(pl, &u, 4);
        memcpy(pl + 4, &bad_closures[i], 8);
        expect_error(fd, req, frame(req, DEBUG_CMD_CLOSURES, pl, 12), DEBUG_STATUS_BAD_ADDRESS,
                     "closure address");
    }
    uint8_t pl[12];
    u = 1;
    memcpy(pl, &u, 4);
    a[0] = 0x20;
    memcpy(pl + 4, &a[0], 8);
    expect_error(fd, req, frame(req, DEBUG_CMD_INFO, pl, 12), DEBUG_STATUS_BAD_ADDRESS,
                 "not a readable info table");
    a[0] = obj + 8;
    expect_error(fd, req, frame(req, DEBUG_CMD_BLOCK_CONTENTS, &a[0], 8),
                 DEBUG_STATUS_BAD_ADDRESS, "not the start of a block");
    /* A good batch still works afterwards, the same connection. */
    u = 2;
    memcpy(p, &u, 4);
    a[0] = obj;
    a[1] = obj;
    memcpy(p + 4, a, 16);
    assert_int_equal(raw_exchange(fd, req, frame(req, DEBUG_CMD_CLOSURES, p, 20), msg,
                                  sizeof msg), DEBUG_STATUS_OK);
    memcpy(pl + 4, &info, 8);
    u = 1;
    memcpy(pl, &u, 4);
    assert_int_equal(raw_exchange(fd, req, frame(req, DEBUG_CMD_INFO, pl, 12), msg,
                                  sizeof msg), DEBUG_STATUS_OK);
    /* A length that cannot be a request closes the connection. */
    uint32_t huge = DEBUG_REQUEST_MAX_BYTES + 1;
    expect_error(fd, (const uint8_t *)&huge, 4, DEBUG_STATUS_BAD_LENGTH, "request length");
    close(fd);   /* disconnect while paused: resumes */

    /* A second client while one is connected is told it is busy
     * (.inv.one-client). */
    int fd1 = raw_connect(ch.socket);
    assert_int_equal(raw_exchange(fd1, req, frame(req, DEBUG_CMD_VERSION, NULL, 0), msg,
                                  sizeof msg), DEBUG_STATUS_OK);
    int fd2 = raw_connect(ch.socket);
    expect_error(fd2, req, frame(req, DEBUG_CMD_VERSION, NULL, 0), DEBUG_STATUS_BUSY, "busy");
    close(fd2);
    close(fd1);
    /* A client that leaves, and the next one connecting at once (one
     * command after another): the next is served, never told "busy". */
    for (int i = 0; i < 300; i++) {
        int fd3 = raw_connect(ch.socket);
        assert_int_equal(raw_exchange(fd3, req, frame(req, DEBUG_CMD_VERSION, NULL, 0), msg,
                                      sizeof msg), DEBUG_STATUS_OK);
        close(fd3);
    }
    assert_int_equal(child_finish(&ch), 0);
}

/* ----------------------------------------------------------------------
 * Pause and resume many times during heavy allocation
 * ---------------------------------------------------------------------- */

#define STRESS_LEN 200

/* Builds lists of Num and sums them: the result depends on every object
 * surviving the pauses intact (and the GCs between them). */
static void stress_body(void)
{
    STRATA_ROOTS(r, 2);
    StgWord total = 0;
    child_report("GO\n");
    StgWord round = 0;
    for (; !child_told_to_finish(); round++) {
        r[0] = NULL;
        for (StgWord i = 0; i < STRESS_LEN; i++) {
            r[1] = strata_alloc_constr(&Num_info);
            STRATA_WORD(r[1], 0) = round * i;
            StgClosure *cell = strata_alloc_constr(&Pair_info);
            STRATA_FIELD(cell, 0) = r[1];
            STRATA_FIELD(cell, 1) = r[0];
            r[0] = cell;
        }
        for (StgClosure *c = r[0]; c != NULL; c = STRATA_FIELD(c, 1))
            total += STRATA_WORD(STRATA_FIELD(c, 0), 0);
    }
    child_report("SUM %lu %lu\n", (unsigned long)total, (unsigned long)round);
    STRATA_ROOTS_POP(r);
}

static void test_debug_pause_resume_during_allocation(void **state)
{
    (void)state;
    Child ch = child_start(stress_body, "-A8k");
    char line[128];
    child_read_line(&ch, line, sizeof line);
    char err[512];
    DbgClient *c = dbg_connect(ch.socket, err, sizeof err);
    if (c == NULL)
        fail_msg("connect: %s", err);
    int pauses = 0;
    for (int i = 0; i < 200; i++) {
        if (dbg_pause(c, 20000, NULL) != 0)
            fail_msg("pause %d: %s", i, dbg_error(c));
        pauses++;
        /* A consistent heap every time: everything reachable decodes. */
        DbgReach *r = dbg_reach(c);
        if (r == NULL)
            fail_msg("pause %d: %s", i, dbg_error(c));
        assert_int_equal(dbg_reach_dangling(r), 0);
        dbg_reach_free(r);
        assert_int_equal(dbg_resume(c), 0);
    }
    assert_int_equal(pauses, 200);
    dbg_close(c);
    close(ch.to_child);
    ch.to_child = -1;
    child_read_line(&ch, line, sizeof line);
    unsigned long sum, rounds;
    assert_int_equal(sscanf(line, "SUM %lu %lu", &sum, &rounds), 2);
    assert_true(rounds > 0);
    unsigned long want = 0;
    for (unsigned long round = 0; round < rounds; round++)
        for (unsigned long i = 0; i < STRESS_LEN; i++)
            want += round * i;
    assert_int_equal(sum, want);
    assert_int_equal(child_finish(&ch), 0);
}


/* ----------------------------------------------------------------------
 * Compressed retainer paths: lists, trees and cycles, counts exact
 * ---------------------------------------------------------------------- */

STRATA_CONSTR_INFO(Red_info, "Red", 1, 1);
STRATA_CONSTR_INFO(Blue_info, "Blue", 1, 1);
STRATA_CONSTR_INFO(Ring_info, "Ring", 1, 1);

/* A complete binary tree of Pairs, depth levels of them, Num leaves. */
static StgClosure *make_tree(int depth)
{
    if (depth == 0)
        return strata_alloc_constr(&Num_info);
    STRATA_ROOTS(t, 2);
    t[0] = make_tree(depth - 1);
    t[1] = make_tree(depth - 1);
    StgClosure *p = strata_alloc_constr(&Pair_info);
    STRATA_FIELD(p, 0) = t[0];
    STRATA_FIELD(p, 1) = t[1];
    STRATA_ROOTS_POP(t);
    return p;
}

#define MIXED_LEN 23   /* from the tail: 5 Red, 5 Blue, 5 Red, 5 Blue, 3 Red */
#define TREE_DEPTH 8
#define RING_LEN 100

static void shapes_body(void)
{
    STRATA_ROOTS(r, 5);
    r[0] = make_leaky_list(500);
    for (int i = 0; i < MIXED_LEN; i++) {   /* built from the tail */
        StgClosure *x = strata_alloc_constr((i / 5) % 2 ? &Blue_info : &Red_info);
        STRATA_FIELD(x, 0) = r[1];
        STRATA_WORD(x, 1) = (StgWord)i;
        r[1] = x;
    }
    r[2] = make_tree(TREE_DEPTH);
    /* A ring: newest -> ... -> oldest -> MUT_VAR -> newest. */
    r[4] = strata_alloc_mut_var();
    r[3] = r[4];
    for (int i = 0; i < RING_LEN; i++) {
        StgClosure *x = strata_alloc_constr(&Ring_info);
        STRATA_FIELD(x, 0) = r[3];
        STRATA_WORD(x, 1) = (StgWord)i;
        r[3] = x;
    }
    strata_mut_var_write(r[4], r[3]);
    r[4] = NULL;
    child_report("END\n");
    churn_until_told();
    STRATA_ROOTS_POP(r);
}

/* The deepest (last found, breadth first) heap object a query matches;
 * 0 if none. */
static uint64_t deepest(DbgClient *c, const DbgReach *r, DbgMatchKind kind, const char *name)
{
    DbgQuery q = {.kind = kind, .name = name};
    static uint64_t found[4096];
    size_t n;
    assert_int_equal(dbg_search(c, r, &q, found, 4096, &n), 0);
    return n > 0 ? found[n - 1] : 0;
}

/* Checks the runs of addr's path after the match against want[] (name,
 * count pairs), and that the runs cover the path exactly. */
static void expect_runs(DbgClient *c, const DbgReach *r, uint64_t addr, const char *const *names,
                        const size_t *counts, size_t n_want)
{
    DbgPath p;
    assert_int_equal(dbg_retainer_path(c, r, addr, &p), 0);
    DbgPathRun *runs;
    size_t n;
    assert_int_equal(dbg_path_runs(c, &p, 1, &runs, &n), 0);
    if (n != n_want)
        fail_msg("path of %zu closures folds into %zu runs, expected %zu", p.n, n, n_want);
    size_t next = 1;
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(runs[i].info->name, names[i]);
        if (runs[i].n != counts[i])
            fail_msg("run %zu (%s) has %zu closures, expected %zu", i, names[i], runs[i].n,
                     counts[i]);
        assert_int_equal(runs[i].first, next);
        assert_int_equal(runs[i].first_addr, p.addrs[next]);
        assert_int_equal(runs[i].last_addr, p.addrs[next + runs[i].n - 1]);
        assert_false(runs[i].is_static);
        assert_true(runs[i].era_lo <= runs[i].era_hi && runs[i].gen_lo <= runs[i].gen_hi);
        next += runs[i].n;
    }
    assert_int_equal(next, p.n);
    free(runs);
    dbg_path_free(&p);
}

static void test_debug_path_runs_lists_trees_cycles(void **state)
{
    (void)state;
    Child ch = child_start(shapes_body, "-A16k");
    char line[64];
    child_read_line(&ch, line, sizeof line);
    DbgClient *c = connect_paused(&ch);
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    /* A list: the oldest node is held by the 499 newer ones. */
    expect_runs(c, r, deepest(c, r, DBG_MATCH_CONSTRUCTOR, "Leaky"), (const char *[]){"Leaky"},
                (size_t[]){499}, 1);
    /* Runs break where the info table changes. */
    expect_runs(c, r, deepest(c, r, DBG_MATCH_CONSTRUCTOR, "Red"),
                (const char *[]){"Red", "Blue", "Red", "Blue", "Red"},
                (size_t[]){4, 5, 5, 5, 3}, 5);
    /* A tree: a leaf below TREE_DEPTH Pairs (a shortest path: all leaves
     * are at that depth). */
    expect_runs(c, r, deepest(c, r, DBG_MATCH_CONSTRUCTOR, "Num"), (const char *[]){"Pair"},
                (size_t[]){TREE_DEPTH}, 1);
    /* A cycle: the shortest path does not go round it. */
    expect_runs(c, r, deepest(c, r, DBG_MATCH_CONSTRUCTOR, "Ring"), (const char *[]){"Ring"},
                (size_t[]){RING_LEN - 1}, 1);
    uint64_t mv = deepest(c, r, DBG_MATCH_TYPE, "MUT_VAR_DIRTY");
    if (mv == 0)
        mv = deepest(c, r, DBG_MATCH_TYPE, "MUT_VAR_CLEAN");
    assert_true(mv != 0);
    expect_runs(c, r, mv, (const char *[]){"Ring"}, (size_t[]){RING_LEN}, 1);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
}

/* ----------------------------------------------------------------------
 * Dominators: against brute force, on random graphs and a random heap
 * ---------------------------------------------------------------------- */

static uint64_t lcg_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Whether target is reachable from node 0 with node removed (never, if
 * target is removed). */
static bool reaches_without(uint32_t n, const uint64_t *off, const uint32_t *succ,
                            uint32_t removed, uint32_t target)
{
    bool seen[64] = {false};
    uint32_t queue[64], qn = 0;
    if (removed == 0)
        return false;
    seen[0] = true;
    queue[qn++] = 0;
    for (uint32_t q = 0; q < qn; q++)
        for (uint64_t e = off[queue[q]]; e < off[queue[q] + 1]; e++) {
            uint32_t w = succ[e];
            if (!seen[w] && w != removed) {
                seen[w] = true;
                queue[qn++] = w;
            }
        }
    (void)n;
    return seen[target];
}

static void test_debug_dominators_match_brute_force(void **state)
{
    (void)state;
    uint64_t seed = 20261124;
    printf("dominators: seed %lu\n", (unsigned long)seed);
    for (int round = 0; round < 500; round++) {
        uint32_t n = 1 + (uint32_t)(lcg_next(&seed) % 40);
        uint64_t off[41];
        uint32_t succ[41 * 4], idom[40];
        size_t m = 0;
        for (uint32_t v = 0; v < n; v++) {
            off[v] = m;
            uint32_t deg = (uint32_t)(lcg_next(&seed) % 4);
            for (uint32_t k = 0; k < deg; k++)
                succ[m++] = (uint32_t)(lcg_next(&seed) % n);
        }
        off[n] = m;
        assert_int_equal(dbg_graph_idom(n, off, succ, idom), 0);
        for (uint32_t v = 0; v < n; v++) {
            bool reachable = reaches_without(n, off, succ, UINT32_MAX, v);
            if (!reachable) {
                if (idom[v] != UINT32_MAX)
                    fail_msg("round %d: node %u is unreachable but has idom %u", round, v,
                             idom[v]);
                continue;
            }
            if (v == 0) {
                assert_int_equal(idom[0], 0);
                continue;
            }
            /* Strict dominators of v by brute force; idom is the one that
             * every other strict dominator dominates. */
            uint32_t want = UINT32_MAX;
            for (uint32_t d = 0; d < n; d++) {
                if (d == v || reaches_without(n, off, succ, d, v))
                    continue;
                bool lowest = true;
                for (uint32_t e = 0; e < n && lowest; e++)
                    if (e != v && e != d && !reaches_without(n, off, succ, e, v) &&
                        reaches_without(n, off, succ, e, d))
                        lowest = false;   /* e dominates v but not d: d is higher */
                if (lowest)
                    want = d;
            }
            if (idom[v] != want)
                fail_msg("round %d (n=%u): idom of %u is %u, brute force says %u", round, n,
                         v, idom[v], want);
        }
    }
}

#define RANDOM_NODES 300

/* A random graph of mutable arrays (1 to 4 slots, some NULL), five of them
 * rooted, the rest reachable or not as the edges fall. */
static void random_heap_body(void)
{
    STRATA_ROOTS(r, 2);
    uint64_t seed = 77;
    r[0] = strata_alloc_mut_array(RANDOM_NODES);
    for (StgWord i = 0; i < RANDOM_NODES; i++)
        strata_mut_array_write(r[0], i, strata_alloc_mut_array(1 + i % 4));
    StgClosure **nodes = (StgClosure **)((StgMutArrPtrs *)r[0])->payload;
    for (StgWord i = 0; i < RANDOM_NODES; i++)
        for (StgWord k = 0; k < 1 + i % 4; k++)
            if (lcg_next(&seed) % 5 != 0)
                strata_mut_array_write(nodes[i], k, nodes[lcg_next(&seed) % RANDOM_NODES]);
    r[1] = strata_alloc_mut_array(5);
    for (StgWord i = 0; i < 5; i++)
        strata_mut_array_write(r[1], i, nodes[i * 37]);
    r[0] = NULL;
    child_report("END\n");
    churn_until_told();
    STRATA_ROOTS_POP(r);
}

/* Live heap bytes reachable from the roots when skip is taken away. */
static uint64_t live_bytes_without(DbgClient *c, uint64_t skip)
{
    const DbgRoot *roots;
    size_t n_roots;
    assert_int_equal(dbg_roots(c, &roots, &n_roots), 0);
    size_t cap = 1 << 16, qn = 0, q = 0;
    uint64_t *queue = malloc(cap * sizeof *queue), bytes = 0;
    assert_non_null(queue);
    /* A small open-addressing set of seen addresses. */
    size_t set_cap = 1 << 16;
    uint64_t *set = calloc(set_cap, sizeof *set);
    assert_non_null(set);
    for (size_t i = 0; i < n_roots + 1; i++) {
        for (; q < qn; q++) {   /* what root i - 1 reaches */
            DbgClosure cl;
            if (dbg_closure(c, queue[q], &cl) != 0)
                continue;
            if (cl.block != NULL)
                bytes += (uint64_t)cl.n_words * 8;
            uint64_t ptrs[64];
            size_t np = dbg_closure_ptrs(c, &cl, ptrs, 64);
            assert_true(np <= 64);
            for (size_t k = 0; k < np; k++) {
                uint64_t a = ptrs[k];
                if (a == skip || a == 0 || a % 8 != 0)
                    continue;
                size_t h = (size_t)(a >> 3) & (set_cap - 1);
                while (set[h] != 0 && set[h] != a)
                    h = (h + 1) & (set_cap - 1);
                if (set[h] == a)
                    continue;
                DbgClosure t;
                if (dbg_closure(c, a, &t) != 0)
                    continue;
                set[h] = a;
                assert_true(qn < cap);
                queue[qn++] = a;
            }
        }
        if (i == n_roots)
            break;
        uint64_t a = roots[i].addr;
        if (roots[i].kind == DEBUG_ROOT_REMEMBERED || a == skip || a == 0)
            continue;
        size_t h = (size_t)(a >> 3) & (set_cap - 1);
        while (set[h] != 0 && set[h] != a)
            h = (h + 1) & (set_cap - 1);
        if (set[h] == a)
            continue;
        set[h] = a;
        queue[qn++] = a;
    }
    free(queue);
    free(set);
    return bytes;
}

static void test_debug_retained_sizes_match_brute_force(void **state)
{
    (void)state;
    Child ch = child_start(random_heap_body, "-A16k");
    char line[64];
    child_read_line(&ch, line, sizeof line);
    DbgClient *c = connect_paused(&ch);
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    DbgDom *d = dbg_dominators(c, r);
    assert_non_null(d);
    uint64_t total = live_bytes_without(c, 0);
    size_t n;
    const uint64_t *objs = dbg_reach_objects(r, &n);
    size_t arrays = 0;
    for (size_t i = 0; i < n; i++) {
        DbgClosure cl;
        assert_int_equal(dbg_closure(c, objs[i], &cl), 0);
        if (cl.block == NULL)
            continue;
        arrays += strcmp(dbg_type_label(cl.info), "MUT_ARR_PTRS_CLEAN") == 0 ||
                  strcmp(dbg_type_label(cl.info), "MUT_ARR_PTRS_DIRTY") == 0;
        uint64_t want = total - live_bytes_without(c, objs[i]);
        if (dbg_dom_retained(d, objs[i]) != want)
            fail_msg("object 0x%lx (%s) retains %lu bytes, brute force says %lu",
                     (unsigned long)objs[i], dbg_type_label(cl.info),
                     (unsigned long)dbg_dom_retained(d, objs[i]), (unsigned long)want);
    }
    assert_true(arrays > 50);   /* the random graph is there */
    /* The retained census: a label's retained bytes are its objects' that
     * no other object of the label dominates. */
    DbgCensus cs;
    assert_int_equal(dbg_census_retained(c, r, d, DBG_BY_TYPE, NULL, &cs), 0);
    for (size_t b = 0; b < cs.n; b++) {
        uint64_t want = 0;
        for (size_t i = 0; i < n; i++) {
            DbgClosure cl;
            assert_int_equal(dbg_closure(c, objs[i], &cl), 0);
            if (cl.block == NULL || strcmp(dbg_type_label(cl.info), cs.buckets[b].label) != 0)
                continue;
            bool topmost = true;
            for (uint64_t a = dbg_dom_idom(d, objs[i]); a != 0 && topmost; a = dbg_dom_idom(d, a)) {
                DbgClosure up;
                assert_int_equal(dbg_closure(c, a, &up), 0);
                topmost = up.block == NULL ||
                          strcmp(dbg_type_label(up.info), cs.buckets[b].label) != 0;
            }
            if (topmost)
                want += dbg_dom_retained(d, objs[i]);
        }
        if (cs.buckets[b].retained_bytes != want)
            fail_msg("census --retained: %s retains %lu, expected %lu", cs.buckets[b].label,
                     (unsigned long)cs.buckets[b].retained_bytes, (unsigned long)want);
        if (b > 0)
            assert_true(cs.buckets[b - 1].retained_bytes >= cs.buckets[b].retained_bytes);
    }
    dbg_census_free(&cs);
    dbg_dom_free(d);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
}

/* dbg_reach_search (parents without the discovery order, Note [Paths
 * without the order] in Reach.c) finds what dbg_reach and dbg_search
 * find, in the same order, with the same retainer paths: on the random
 * graph (cycles, shared children, nulls) and on the shapes heap (lists,
 * a tree, a ring through a MUT_VAR), every object and a narrower query. */
static void expect_search_equal(DbgClient *c, const DbgQuery *q, size_t limit)
{
    DbgReach *full = dbg_reach(c);
    assert_non_null(full);
    uint64_t *want = malloc(limit * sizeof *want);
    assert_non_null(want);
    size_t n_want;
    assert_int_equal(dbg_search(c, full, q, want, limit, &n_want), 0);
    DbgReach *r = dbg_reach_search(c, q, limit);
    assert_non_null(r);
    size_t n;
    const uint64_t *got = dbg_reach_found(r, &n);
    size_t n_order;
    dbg_reach_objects(r, &n_order);
    assert_int_equal(n_order, 0);   /* no order kept */
    assert_int_equal(n, n_want);
    assert_true(n > 0 || q->kind != DBG_MATCH_ANY);
    assert_int_equal(dbg_reach_count(r), dbg_reach_count(full));
    assert_int_equal(dbg_reach_dangling(r), dbg_reach_dangling(full));
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got[i], want[i]);
        DbgPath a, b;
        assert_int_equal(dbg_retainer_path(c, full, want[i], &a), 0);
        assert_int_equal(dbg_retainer_path(c, r, got[i], &b), 0);
        assert_int_equal(a.n, b.n);
        assert_int_equal(a.root, b.root);
        assert_memory_equal(a.addrs, b.addrs, a.n * sizeof *a.addrs);
        dbg_path_free(&a);
        dbg_path_free(&b);
    }
    free(want);
    dbg_reach_free(r);
    dbg_reach_free(full);
}

static void test_debug_search_paths_equal_full_traversal(void **state)
{
    (void)state;
    const char *flags[2] = {"-A16k", "-A64k"};
    void (*bodies[2])(void) = {random_heap_body, shapes_body};
    for (int k = 0; k < 2; k++) {
        Child ch = child_start(bodies[k], flags[k]);
        char line[64];
        child_read_line(&ch, line, sizeof line);
        DbgClient *c = connect_paused(&ch);
        expect_search_equal(c, &(DbgQuery){.kind = DBG_MATCH_ANY}, 1u << 20);
        expect_search_equal(c, &(DbgQuery){.kind = DBG_MATCH_TYPE, .name = "MUT_VAR_DIRTY"}, 3);
        expect_search_equal(c, &(DbgQuery){.kind = DBG_MATCH_TYPE, .name = "MUT_ARR_PTRS_DIRTY"},
                            40);
        expect_search_equal(c, &(DbgQuery){.kind = DBG_MATCH_CONSTRUCTOR, .name = "Ring"}, 7);
        expect_search_equal(c, &(DbgQuery){.kind = DBG_MATCH_CONSTRUCTOR, .name = "Blue"}, 100);
        dbg_close(c);
        assert_int_equal(child_finish(&ch), 0);
    }
}

/* ----------------------------------------------------------------------
 * The era boundary finds a planted holder of an old era
 * ---------------------------------------------------------------------- */

STRATA_CONSTR_INFO(Holder_info, "Holder", 1, 0);
STRATA_CONSTR_INFO(Decoy_info, "Decoy", 1, 0);

#define OLD_NODES 200   /* Leaky nodes of 4 words, no byte arrays */

static void planted_holder_body(void)
{
    STRATA_ROOTS(r, 4);
    setUserEra(1);
    for (int i = 0; i < OLD_NODES; i++) {
        StgClosure *l = strata_alloc_constr(&Leaky_info);
        STRATA_FIELD(l, 0) = r[0];
        STRATA_FIELD(l, 1) = NULL;
        STRATA_WORD(l, 2) = (StgWord)i;
        r[0] = l;
    }
    r[1] = strata_alloc_constr(&Num_info);   /* old, but also held directly */
    setUserEra(2);
    r[2] = strata_alloc_constr(&Holder_info);
    STRATA_FIELD(r[2], 0) = r[0];
    r[0] = NULL;   /* only the holder keeps the old list now */
    r[3] = strata_alloc_constr(&Decoy_info);
    STRATA_FIELD(r[3], 0) = r[1];
    strata_perform_gc(1);
    child_report("END\n");
    churn_until_told();
    STRATA_ROOTS_POP(r);
}

static void test_debug_boundary_ranks_planted_holder(void **state)
{
    (void)state;
    Child ch = child_start(planted_holder_body, "-A16k");
    char line[64];
    child_read_line(&ch, line, sizeof line);
    DbgClient *c = connect_paused(&ch);
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    DbgDom *d = dbg_dominators(c, r);
    assert_non_null(d);
    DbgQuery q = {.kind = DBG_MATCH_ANY, .eras = {true, 1, 1}};
    DbgBoundary b;
    assert_int_equal(dbg_boundary(c, d, &q, &b), 0);
    assert_true(b.n >= 2);
    assert_string_equal(b.groups[0].holder->name, "Holder");
    assert_int_equal(b.groups[0].retained_bytes, OLD_NODES * 4 * 8);
    assert_int_equal(b.groups[0].retained_objects, OLD_NODES);
    assert_int_equal(b.groups[0].n_holders, 1);
    assert_int_equal(b.groups[0].n_edges, 1);
    assert_int_equal(b.groups[0].era_lo, 2);
    assert_int_equal(b.groups[0].target_era_lo, 1);
    bool decoy = false;
    for (size_t i = 1; i < b.n; i++)
        if (strcmp(b.groups[i].holder->name, "Decoy") == 0) {
            decoy = true;
            assert_int_equal(b.groups[i].retained_bytes, 0);   /* shared with a root */
            assert_int_equal(b.groups[i].n_edges, 1);
        }
    assert_true(decoy);
    /* The tree without retained sizes (what the boundary command builds)
     * gives the same groups. */
    DbgDom *lean = dbg_dominators_opts(c, r, false);
    assert_non_null(lean);
    DbgBoundary b2;
    assert_int_equal(dbg_boundary(c, lean, &q, &b2), 0);
    assert_int_equal(b2.n, b.n);
    for (size_t i = 0; i < b.n; i++) {
        assert_ptr_equal(b2.groups[i].holder, b.groups[i].holder);
        assert_int_equal(b2.groups[i].retained_bytes, b.groups[i].retained_bytes);
        assert_int_equal(b2.groups[i].retained_objects, b.groups[i].retained_objects);
        assert_int_equal(b2.groups[i].n_edges, b.groups[i].n_edges);
    }
    dbg_boundary_free(&b2);
    dbg_dom_free(lean);
    /* From a marks-only traversal, building the tree itself
     * (dbg_boundary_reach): the same groups, in the same order. */
    DbgReach *marks = dbg_reach_marks(c);
    assert_non_null(marks);
    assert_int_equal(dbg_boundary_reach(c, marks, &q, &b2), 0);
    assert_int_equal(b2.n, b.n);
    for (size_t i = 0; i < b.n; i++) {
        assert_ptr_equal(b2.groups[i].holder, b.groups[i].holder);
        assert_int_equal(b2.groups[i].retained_bytes, b.groups[i].retained_bytes);
        assert_int_equal(b2.groups[i].retained_objects, b.groups[i].retained_objects);
        assert_int_equal(b2.groups[i].n_edges, b.groups[i].n_edges);
        assert_int_equal(b2.groups[i].n_holders, b.groups[i].n_holders);
        assert_int_equal(b2.groups[i].example_holder, b.groups[i].example_holder);
        assert_int_equal(b2.groups[i].example_target, b.groups[i].example_target);
    }
    dbg_boundary_free(&b2);
    /* Nothing of a later era points into era 2 (the newest holds the
     * holders): the tree is skipped, and the answer is as empty as the
     * tree's. */
    DbgQuery newest = {.kind = DBG_MATCH_ANY, .eras = {true, 2, 2}};
    assert_int_equal(dbg_boundary(c, d, &newest, &b2), 0);
    assert_int_equal(b2.n, 0);
    dbg_boundary_free(&b2);
    assert_int_equal(dbg_boundary_reach(c, marks, &newest, &b2), 0);
    assert_int_equal(b2.n, 0);
    assert_null(b2.groups);
    dbg_boundary_free(&b2);
    newest.eras = (DbgEraRange){true, 1, UINT64_MAX};
    assert_int_equal(dbg_boundary_reach(c, marks, &newest, &b2), 0);
    assert_int_equal(b2.n, 0);
    dbg_boundary_free(&b2);
    dbg_reach_free(marks);
    dbg_boundary_free(&b);
    /* A filter on the old objects: only the Decoy points at a Num. */
    q = (DbgQuery){.kind = DBG_MATCH_CONSTRUCTOR, .name = "Num", .eras = {true, 1, 1}};
    assert_int_equal(dbg_boundary(c, d, &q, &b), 0);
    assert_int_equal(b.n, 1);
    assert_string_equal(b.groups[0].holder->name, "Decoy");
    dbg_boundary_free(&b);
    /* No era range: an error, not a guess. */
    q.eras.on = false;
    assert_int_equal(dbg_boundary(c, d, &q, &b), -1);
    assert_non_null(strstr(dbg_error(c), "era range"));
    dbg_dom_free(d);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
}

/* ----------------------------------------------------------------------
 * The boundary without the dominator tree: shared old objects, and a
 * holder reachable only through another
 * ---------------------------------------------------------------------- */

STRATA_CONSTR_INFO(HolderA_info, "HolderA", 6, 0);
STRATA_CONSTR_INFO(HolderB_info, "HolderB", 3, 0);
STRATA_CONSTR_INFO(Inner_info, "Inner", 5, 0);

/* n Leaky nodes of the current era in front of the list in *slot (a root). */
static void leaky_list(StgClosure **slot, int n)
{
    for (int i = 0; i < n; i++) {
        StgClosure *l = strata_alloc_constr(&Leaky_info);
        STRATA_FIELD(l, 0) = *slot;
        STRATA_FIELD(l, 1) = NULL;
        STRATA_WORD(l, 2) = (StgWord)i;
        *slot = l;
    }
}

/* A constructor of the current era with the given fields (roots). */
static StgClosure *with_fields(const StgInfoTable *info, StgClosure *const *f, int n)
{
    StgClosure *x = strata_alloc_constr(info);
    for (int i = 0; i < n; i++)
        STRATA_FIELD(x, i) = f[i];
    return x;
}

/* Era 1: lists of Leaky: 20 (A's and B's), 10 in front of them (A's
 * alone), 30 (B's), 7 (A's and A2's), 5 (Inner's and D's); Nums: 4
 * (Inner's), 2 (Inner2's).  Era 3 (made before era 2, so that nothing old
 * is written to): Inner{the 4 Nums, the 5}, D{the 5}, Inner2{the 2
 * Nums}, all with Inner's info table.  Era 2: A = HolderA{the 10, the
 * 20, Inner, the 7, Inner2, D}, B = HolderB{the 20, the 30, Inner2},
 * A2 = HolderA{the 7}.  Only A, B and A2 are roots: Inner and D are
 * reached only through A, Inner2 through A and B. */
static void shared_holders_body(void)
{
    STRATA_ROOTS(r, 16);
    setUserEra(1);
    leaky_list(&r[1], 20);
    r[0] = r[1];
    leaky_list(&r[0], 10);
    leaky_list(&r[2], 30);
    leaky_list(&r[3], 7);
    leaky_list(&r[4], 5);
    for (int i = 5; i < 11; i++) {
        r[i] = strata_alloc_constr(&Num_info);
        STRATA_WORD(r[i], 0) = (StgWord)i;
    }
    setUserEra(3);
    r[11] = with_fields(&Inner_info, (StgClosure *[]){r[5], r[6], r[7], r[8], r[4]}, 5);
    r[12] = with_fields(&Inner_info, (StgClosure *[]){r[4], NULL, NULL, NULL, NULL}, 5);
    r[13] = with_fields(&Inner_info, (StgClosure *[]){r[9], r[10], NULL, NULL, NULL}, 5);
    setUserEra(2);
    r[14] = with_fields(&HolderA_info, (StgClosure *[]){r[0], r[1], r[11], r[3], r[13], r[12]}, 6);
    r[15] = with_fields(&HolderB_info, (StgClosure *[]){r[1], r[2], r[13]}, 3);
    r[0] = with_fields(&HolderA_info, (StgClosure *[]){r[3], NULL, NULL, NULL, NULL, NULL}, 6);
    for (int i = 1; i < 14; i++)
        r[i] = NULL;
    strata_perform_gc(1);
    child_report("END\n");
    churn_until_told();
    STRATA_ROOTS_POP(r);
}

/* dbg_boundary_reach (by labels, Note [A boundary without the dominator
 * tree]) against dbg_boundary over the whole tree: every field. */
static void expect_boundary_as_the_tree(DbgClient *c, DbgReach *marks, const DbgDom *d,
                                        const DbgQuery *q, DbgBoundary *b)
{
    DbgBoundary t;
    assert_int_equal(dbg_boundary(c, d, q, &t), 0);
    assert_int_equal(dbg_boundary_reach(c, marks, q, b), 0);
    assert_false(b->by_tree);   /* the labels answered */
    assert_int_equal(b->n, t.n);
    for (size_t i = 0; i < t.n; i++) {
        const DbgBoundaryGroup *x = &b->groups[i], *y = &t.groups[i];
        assert_ptr_equal(x->holder, y->holder);
        assert_int_equal(x->retained_bytes, y->retained_bytes);
        assert_int_equal(x->retained_objects, y->retained_objects);
        assert_int_equal(x->n_edges, y->n_edges);
        assert_int_equal(x->n_holders, y->n_holders);
        assert_int_equal(x->example_holder, y->example_holder);
        assert_int_equal(x->example_target, y->example_target);
        assert_int_equal(x->era_lo, y->era_lo);
        assert_int_equal(x->era_hi, y->era_hi);
        assert_int_equal(x->target_era_lo, y->target_era_lo);
        assert_int_equal(x->target_era_hi, y->target_era_hi);
    }
    dbg_boundary_free(&t);
}

static const DbgBoundaryGroup *group_named(const DbgBoundary *b, const char *name)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->groups[i].holder->name, name) == 0)
            return &b->groups[i];
    fail_msg("boundary: no group %s", name);
    return NULL;
}

static void test_debug_boundary_without_the_tree_matches_it(void **state)
{
    (void)state;
    Child ch = child_start(shared_holders_body, "-A16k");
    char line[64];
    child_read_line(&ch, line, sizeof line);
    DbgClient *c = connect_paused(&ch);
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    DbgDom *d = dbg_dominators(c, r);
    assert_non_null(d);
    DbgReach *marks = dbg_reach_marks(c);
    assert_non_null(marks);
    /* Leaky targets: A, B, A2 are reached from the roots, Inner and D
     * (holding the 5) only through A.  A keeps its 10, through Inner the
     * 4 Nums, and the 5 (Inner and D share them, both below A); the 20
     * are shared with B, the 7 with A2 (one group, but neither keeps them
     * alone), Inner2's Nums with B. */
    DbgQuery q = {.kind = DBG_MATCH_CONSTRUCTOR, .name = "Leaky", .eras = {true, 1, 1}};
    DbgBoundary b;
    expect_boundary_as_the_tree(c, marks, d, &q, &b);
    assert_int_equal(b.n, 3);
    assert_string_equal(b.groups[0].holder->name, "HolderB");
    assert_int_equal(b.groups[0].retained_bytes, 30 * 4 * 8);
    assert_int_equal(b.groups[0].retained_objects, 30);
    const DbgBoundaryGroup *g = group_named(&b, "HolderA");
    assert_int_equal(g->retained_bytes, (10 + 5) * 4 * 8 + 4 * 2 * 8);
    assert_int_equal(g->retained_objects, 19);
    assert_int_equal(g->n_holders, 2);
    assert_int_equal(g->n_edges, 4);
    g = group_named(&b, "Inner");
    assert_int_equal(g->retained_bytes, 4 * 2 * 8);
    assert_int_equal(g->n_holders, 2);
    dbg_boundary_free(&b);
    /* Any old target: Inner2 holds its Nums too (it is reached through A
     * and B, so neither keeps them). */
    q = (DbgQuery){.kind = DBG_MATCH_ANY, .eras = {true, 1, 1}};
    expect_boundary_as_the_tree(c, marks, d, &q, &b);
    assert_int_equal(b.n, 3);
    assert_int_equal(group_named(&b, "HolderA")->retained_bytes, (10 + 5) * 4 * 8 + 4 * 2 * 8);
    assert_int_equal(group_named(&b, "HolderB")->retained_bytes, 30 * 4 * 8);
    assert_int_equal(group_named(&b, "Inner")->retained_bytes, 6 * 2 * 8);
    assert_int_equal(group_named(&b, "Inner")->n_holders, 3);
    dbg_boundary_free(&b);
    /* Eras 1-2 (A, B, A2 are old now): every holder (Inner, D, Inner2) is
     * reached from a root, and the 5 are shared by Inner and D. */
    q.eras = (DbgEraRange){true, 1, 2};
    expect_boundary_as_the_tree(c, marks, d, &q, &b);
    assert_int_equal(b.n, 1);
    assert_int_equal(b.groups[0].retained_bytes, 6 * 2 * 8);
    assert_int_equal(b.groups[0].retained_objects, 6);
    dbg_boundary_free(&b);
    dbg_reach_free(marks);
    dbg_dom_free(d);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
}

/* ----------------------------------------------------------------------
 * Snapshots: the same analyses as live
 * ---------------------------------------------------------------------- */

static void dump_census(FILE *f, const DbgCensus *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        fprintf(f, "%s %lu %lu\n", cs->buckets[i].label, (unsigned long)cs->buckets[i].bytes,
                (unsigned long)cs->buckets[i].objects);
    fprintf(f, "total %lu %lu\n", (unsigned long)cs->total_bytes,
            (unsigned long)cs->total_objects);
}

/* Every analysis of the client, as text. */
static char *all_analyses(DbgClient *c)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    DbgCensus cs;
    for (int by = DBG_BY_TYPE; by <= DBG_BY_MODULE; by++) {
        assert_int_equal(dbg_census(c, r, (DbgCensusBy)by, NULL, &cs), 0);
        dump_census(f, &cs);
        dbg_census_free(&cs);
    }
    DbgEraRange eras = {true, 2, 2};
    assert_int_equal(dbg_census(c, r, DBG_BY_INFO, &eras, &cs), 0);
    dump_census(f, &cs);
    dbg_census_free(&cs);
    assert_int_equal(dbg_thunks(c, r, &cs), 0);
    dump_census(f, &cs);
    dbg_census_free(&cs);
    assert_int_equal(dbg_duplicates(c, r, &cs), 0);
    dump_census(f, &cs);
    dbg_census_free(&cs);
    DbgFrag fr;
    assert_int_equal(dbg_fragmentation(c, r, &fr), 0);
    fprintf(f, "frag %lu %lu %lu %lu\n", (unsigned long)fr.n_mblocks,
            (unsigned long)fr.n_mblocks_used, (unsigned long)fr.n_blocks,
            (unsigned long)fr.n_pinned_blocks);
    for (int i = 0; i < 10; i++)
        fprintf(f, "%lu ", (unsigned long)fr.histogram[i]);
    dbg_frag_free(&fr);
    DbgQuery q = {.kind = DBG_MATCH_CONSTRUCTOR, .name = "Leaky", .eras = {true, 1, 2}};
    uint64_t found[100];
    size_t n;
    assert_int_equal(dbg_search(c, r, &q, found, 100, &n), 0);
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        DbgPath p;
        assert_int_equal(dbg_retainer_path(c, r, found[i], &p), 0);
        fprintf(f, "path root %zu:", p.root);
        for (size_t k = 0; k < p.n; k++)
            fprintf(f, " %lx", (unsigned long)p.addrs[k]);
        fputc('\n', f);
        dbg_path_free(&p);
    }
    DbgDom *d = dbg_dominators(c, r);
    assert_non_null(d);
    assert_int_equal(dbg_census_retained(c, r, d, DBG_BY_TYPE, NULL, &cs), 0);
    for (size_t i = 0; i < cs.n; i++)
        fprintf(f, "retained %s %lu\n", cs.buckets[i].label,
                (unsigned long)cs.buckets[i].retained_bytes);
    dbg_census_free(&cs);
    DbgDomEntry top[20];
    assert_int_equal(dbg_dom_top(c, d, top, 20, &n), 0);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "dom %lx %lu %lu\n", (unsigned long)top[i].addr,
                (unsigned long)top[i].retained_bytes, (unsigned long)top[i].idom);
    DbgQuery any = {.kind = DBG_MATCH_ANY, .eras = {true, 1, 2}};
    DbgBoundary b;
    assert_int_equal(dbg_boundary(c, d, &any, &b), 0);
    for (size_t i = 0; i < b.n; i++)
        fprintf(f, "boundary %s %lu %lu\n", b.groups[i].holder->name,
                (unsigned long)b.groups[i].retained_bytes, (unsigned long)b.groups[i].n_edges);
    dbg_boundary_free(&b);
    dbg_dom_free(d);
    dbg_write_gml(c, r, f);
    dbg_reach_free(r);
    fclose(f);
    return text;
}

static void test_debug_snapshot_round_trip(void **state)
{
    (void)state;
    Child ch = child_start(census_body, "-A64k");
    char line[512];
    do
        child_read_line(&ch, line, sizeof line);
    while (strcmp(line, "END") != 0);
    DbgClient *c = connect_paused(&ch);
    char *live = all_analyses(c);
    char file[64];
    snprintf(file, sizeof file, "/tmp/strata-test-debug-%d.snap", (int)getpid());
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    assert_int_equal(dbg_write_snapshot(c, r, file), 0);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);

    char err[512];
    DbgClient *s = dbg_open_snapshot(file, err, sizeof err);
    if (s == NULL)
        fail_msg("%s", err);
    char *snap = all_analyses(s);
    assert_string_equal(live, snap);
    dbg_close(s);

    /* Any flipped byte is caught. */
    FILE *f = fopen(file, "r+b");
    assert_non_null(f);
    fseek(f, 200, SEEK_SET);
    int b = fgetc(f);
    fseek(f, 200, SEEK_SET);
    fputc(b ^ 0x40, f);
    fclose(f);
    assert_null(dbg_open_snapshot(file, err, sizeof err));
    assert_non_null(strstr(err, "corrupt snapshot: checksum mismatch"));
    unlink(file);
    free(live);
    free(snap);
}

/* ----------------------------------------------------------------------
 * Weak pointers: every WEAK of the heap, with its key's liveness
 * ---------------------------------------------------------------------- */

static void weak_finalizer(void *env)
{
    (void)env;
}

/* Four weaks, in a state minor collections (the churn's) do not change:
 *   A: rooted, key rooted (alive), value a Pair only A holds, a finalizer;
 *   D: nothing refers to it, key A's (alive: its weak list keeps it);
 *   C: rooted, key reachable only through its own value: dead at the
 *      major GC (DEAD_WEAK, finalizer run);
 *   B: rooted, made after the major GCs whose key, promoted by them, is
 *      unrooted: dead, but only a major GC would see it. */
static void weaks_body(void)
{
    STRATA_ROOTS(r, 4);
    setUserEra(5);
    r[0] = strata_alloc_constr(&Num_info);
    r[1] = strata_alloc_constr(&Num_info);
    r[2] = strata_alloc_constr(&Pair_info);
    r[2] = strata_mk_weak(r[0], r[2], weak_finalizer, NULL);          /* A */
    (void)strata_mk_weak(r[0], r[0], NULL, NULL);                      /* D */
    r[3] = strata_alloc_constr(&Num_info);
    r[3] = strata_mk_weak(r[3], r[3], weak_finalizer, NULL);          /* C */
    strata_perform_gc(1);   /* twice: survivors are promoted from their second GC */
    strata_perform_gc(1);
    StgClosure *value = strata_alloc_constr(&Pair_info);
    r[1] = strata_mk_weak(r[1], value, weak_finalizer, NULL);         /* B */
    child_report("END\n");
    churn_until_told();
    STRATA_ROOTS_POP(r);
}

/* The weaks as text: status, reachability, finalizer, value label, era. */
static char *weaks_text(DbgClient *c, int *counts)
{
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    DbgWeak *ws;
    size_t n;
    assert_int_equal(dbg_weaks(c, r, &ws, &n), 0);
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    counts[0] = counts[1] = counts[2] = 0;
    for (size_t i = 0; i < n; i++) {
        DbgClosure w, v;
        assert_int_equal(dbg_closure(c, ws[i].addr, &w), 0);
        assert_int_equal(w.info->type, WEAK);
        const char *label = "-";
        if (!ws[i].dead) {
            assert_int_equal(dbg_closure(c, ws[i].value, &v), 0);
            label = dbg_type_label(v.info);
            /* Only the weak holds a value: the traversal does not see it
             * (A's Pair; B's Pair), or sees it as the key (D). */
            if (strcmp(label, "Pair") == 0)
                assert_false(dbg_reach_has(r, ws[i].value));
        }
        counts[ws[i].dead ? 2 : ws[i].key_alive ? 0 : 1]++;
        fprintf(f, "0x%lx %s key=%s reachable=%d finalizer=%d value=%s era=%lu\n",
                (unsigned long)ws[i].addr, w.info->name,
                ws[i].dead ? "-" : ws[i].key_alive ? "alive" : "dead", ws[i].reachable,
                ws[i].has_finalizer, label, (unsigned long)w.era);
    }
    fclose(f);
    free(ws);
    dbg_reach_free(r);
    return text;
}

static void test_debug_weaks_with_key_liveness(void **state)
{
    (void)state;
    Child ch = child_start(weaks_body, "-A16k");
    char line[512];
    child_read_line(&ch, line, sizeof line);
    assert_string_equal(line, "END");
    DbgClient *c = connect_paused(&ch);
    int counts[3];
    char *live = weaks_text(c, counts);
    print_message("%s", live);
    assert_int_equal(counts[0], 2);   /* A, D */
    assert_int_equal(counts[1], 1);   /* B */
    assert_int_equal(counts[2], 1);   /* C */
    /* Each once, with what it holds. */
    assert_non_null(strstr(live, " WEAK key=alive reachable=1 finalizer=1 value=Pair era=5\n"));
    assert_non_null(strstr(live, " WEAK key=alive reachable=0 finalizer=0 value=Num era=5\n"));
    assert_non_null(strstr(live, " WEAK key=dead reachable=1 finalizer=1 value=Pair era=5\n"));
    assert_non_null(strstr(live, " DEAD_WEAK key=- reachable=1 finalizer=0 value=- era=5\n"));

    /* A snapshot answers the same, though D and the values are not
     * reachable. */
    char file[64];
    snprintf(file, sizeof file, "/tmp/strata-test-debug-weaks-%d.snap", (int)getpid());
    DbgReach *r = dbg_reach(c);
    assert_non_null(r);
    assert_int_equal(dbg_write_snapshot(c, r, file), 0);
    dbg_reach_free(r);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
    char err[512];
    DbgClient *s = dbg_open_snapshot(file, err, sizeof err);
    if (s == NULL)
        fail_msg("%s", err);
    int snap_counts[3];
    char *snap = weaks_text(s, snap_counts);
    assert_string_equal(live, snap);
    dbg_close(s);
    unlink(file);
    free(live);
    free(snap);
}

/* ----------------------------------------------------------------------
 * A program that does not allocate cannot be paused: TIMEOUT, and it runs on
 * ---------------------------------------------------------------------- */

static void idle_then_churn_body(void)
{
    child_report("IDLE\n");
    char go;
    if (read(child_in, &go, 1) != 1)   /* blocks without allocating */
        _exit(5);
    churn_until_told();
}

static void test_debug_pause_times_out_without_allocation(void **state)
{
    (void)state;
    Child ch = child_start(idle_then_churn_body, NULL);
    char line[64];
    child_read_line(&ch, line, sizeof line);
    char err[512];
    DbgClient *c = dbg_connect(ch.socket, err, sizeof err);
    if (c == NULL)
        fail_msg("connect: %s", err);
    assert_int_equal(dbg_pause(c, 200, NULL), -1);
    assert_non_null(strstr(dbg_error(c), "did not reach a safe point within 200 ms"));
    const DbgBlock *bs;
    size_t n;
    assert_int_equal(dbg_blocks(c, &bs, &n), -1);   /* withdrawn: not paused */
    assert_non_null(strstr(dbg_error(c), "not paused"));
    assert_int_equal(write(ch.to_child, "g", 1), 1);
    assert_int_equal(dbg_pause(c, 20000, NULL), 0);
    assert_int_equal(dbg_blocks(c, &bs, &n), 0);
    assert_true(n > 0);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
}

/* ----------------------------------------------------------------------
 * A diff whose one new object lies at the far end of an old list
 * ---------------------------------------------------------------------- */

STRATA_CONSTR_INFO(Fresh_info, "Fresh", 2, 0);
#define DEEP_CELLS 2000

/* Era 1: a list whose last cell holds a mutable variable holding a Num.
 * Era 2: the variable holds a Fresh, and the Num only through it. */
static void deep_new_body(void)
{
    setUserEra(1);
    STRATA_ROOTS(r, 2);
    r[1] = strata_alloc_mut_var();
    StgClosure *num = strata_alloc_constr(&Num_info);
    STRATA_WORD(num, 0) = 7;
    strata_mut_var_write(r[1], num);
    for (int i = 0; i < DEEP_CELLS; i++) {
        StgClosure *cell = strata_alloc_constr(&Pair_info);
        STRATA_FIELD(cell, 0) = r[0];
        STRATA_FIELD(cell, 1) = i == 0 ? r[1] : NULL;
        r[0] = cell;
    }
    setUserEra(2);
    StgClosure *fresh = strata_alloc_constr(&Fresh_info);
    STRATA_FIELD(fresh, 0) = STRATA_MUT_VAR_READ(r[1]);
    STRATA_FIELD(fresh, 1) = NULL;
    strata_mut_var_write(r[1], fresh);
    r[1] = NULL;
    child_report("END\n");
    churn_until_told();
    STRATA_ROOTS_POP(r);
}

/* The walk's first phase goes down the whole list to its one entry (Note
 * [One walk of B] in DiffNewObjects.c), the path is the shortest, and the Num
 * that only Fresh holds is in Fresh's retained size. */
static void test_debug_diff_finds_a_deep_new_object(void **state)
{
    (void)state;
    Child ch = child_start(deep_new_body, "-A16k");
    char line[64];
    child_read_line(&ch, line, sizeof line);
    DbgClient *c = connect_paused(&ch);
    DbgDiff d;
    assert_int_equal(dbg_diff_begin(c, DBG_BY_INFO, &d), 0);
    d.a_era = 1;   /* the same heap stands in for A, taken in era 1 */
    assert_int_equal(dbg_diff_finish(c, &d), 0);
    assert_int_equal(d.new_total_objects, 1);
    size_t n;
    size_t *ix = dbg_diff_new_order(&d, &n);
    assert_non_null(ix);
    assert_int_equal(n, 1);
    const DbgDiffRow *row = &d.infos.rows[ix[0]];
    free(ix);
    assert_string_equal(row->info->name, "Fresh");
    assert_int_equal(row->new_bytes, 24);
    assert_int_equal(row->retained_bytes, 24 + 16);
    DbgPath p;
    assert_int_equal(dbg_diff_path(c, &d, row->example, &p), 0);
    assert_int_equal(p.n, DEEP_CELLS + 2);   /* Fresh, the variable, the cells */
    const DbgRoot *roots;
    size_t nr;
    assert_int_equal(dbg_roots(c, &roots, &nr), 0);
    assert_int_equal(roots[p.root].kind, DEBUG_ROOT_FRAME);
    assert_string_equal(roots[p.root].func, "deep_new_body");
    dbg_path_free(&p);
    dbg_diff_free(&d);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
}

/* ----------------------------------------------------------------------
 * The listening socket's path
 * ---------------------------------------------------------------------- */

/* os_socket_listen_unix never replaces what is at its path, even when no
 * caller checked first (or something appeared after the check): a file
 * and a symbolic link stay as they were and the call fails with EEXIST;
 * only a stale socket (nobody listening) is replaced. */
static void test_debug_listener_never_replaces_a_file(void **state)
{
    (void)state;
    char path[96], target[96];
    snprintf(path, sizeof path, "/tmp/strata-test-debug-%d-path", (int)getpid());
    snprintf(target, sizeof target, "/tmp/strata-test-debug-%d-target", (int)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("keep\n", f);
    fclose(f);
    OsListener l;
    assert_int_equal(os_socket_listen_unix(path, 4, &l), EEXIST);
    char got[16] = {0};
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(got, sizeof got, f));
    fclose(f);
    assert_string_equal(got, "keep\n");
    unlink(path);
    assert_int_equal(symlink(target, path), 0);   /* dangling, then to a file */
    assert_int_equal(os_socket_listen_unix(path, 4, &l), EEXIST);
    f = fopen(target, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(os_socket_listen_unix(path, 4, &l), EEXIST);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(lstat(target, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    unlink(path);
    unlink(target);
    /* A stale socket: bound, never listening, closed. */
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
    assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    close(fd);
    assert_int_equal(os_socket_listen_unix(path, 4, &l), 0);
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_true((uint64_t)st.st_ino == l.ino);
    os_socket_close(l.fd);
    unlink(path);
}

/* ----------------------------------------------------------------------
 * The non-moving generation: a pause while a cycle's sweep is held
 * ---------------------------------------------------------------------- */

enum { SWEPT_LISTS = 64, SWEPT_LEN = 50, LEAKY_WORDS = 4 /* header, 2 pointers, a word */ };

/* Lists of Leaky nodes in the non-moving generation, half of them
 * forgotten; a concurrent cycle (started by growing the generation with a
 * rooted chain of Pairs) finds them dead and is held before its sweep
 * frees them.  The parent pauses it there; then, told to go on, the
 * cycle ends and the parent pauses it again. */
static void held_sweep_body(void)
{
    STRATA_ROOTS(r, 2);
    r[0] = strata_alloc_mut_array(SWEPT_LISTS);
    for (StgWord i = 0; i < SWEPT_LISTS; i++) {
        StgClosure *l = make_leaky_list(SWEPT_LEN);
        strata_mut_array_write(r[0], i, l);
    }
    strata_perform_gc(1);   /* all in the generation: an exact cycle */
    for (StgWord i = 0; i < SWEPT_LISTS; i += 2)
        strata_mut_array_write(r[0], i, NULL);
    nonmoving_hold(NONMOVING_SWEEPING);
    r[1] = NULL;
    for (long i = 0; nonmoving_phase_now() == NONMOVING_IDLE; i++) {
        if (i > 10000000)
            _exit(6);
        StgClosure *p = strata_alloc_constr(&Pair_info);
        STRATA_FIELD(p, 0) = NULL;
        STRATA_FIELD(p, 1) = r[1];
        r[1] = p;
    }
    r[1] = NULL;
    while (nonmoving_phase_now() != NONMOVING_SWEEPING)
        (void)strata_alloc_constr(&Pair_info);
    uint64_t cycles = nonmoving_stats()->cycles;
    child_report("HELD\n");
    churn_until_told();
    char go;
    if (read(child_in, &go, 1) != 1)
        _exit(5);
    nonmoving_hold(NONMOVING_IDLE);
    while (nonmoving_stats()->cycles == cycles)
        (void)strata_alloc_constr(&Pair_info);
    child_report("ENDED\n");
    churn_until_told();
    STRATA_ROOTS_POP(r);
}

/* Slots in use in the segments of slot_words words, as the debugger's
 * fragmentation view counts them (a segment at its first entry). */
static uint64_t segment_slots_in_use(DbgClient *c, uint16_t slot_words)
{
    const DbgBlock *b;
    size_t n;
    assert_int_equal(dbg_blocks(c, &b, &n), 0);
    uint64_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (b[i].kind == DEBUG_BLOCK_SEGMENT && b[i].n_blocks > 0 && b[i].slot_words == slot_words)
            used += b[i].n_used;
    return used;
}

/* The debugger's pause finishes a running sweep (storage_finish_sweep):
 * paused while the sweep is held, it lists the segments as they are once
 * the cycle has ended, never the dead the sweep has not freed yet. */
static void test_debug_pause_during_a_sweep_lists_what_lives(void **state)
{
    (void)state;
    Child ch = child_start(held_sweep_body, "--nonmoving-gc -DS -A64k");
    char line[64];
    child_read_line(&ch, line, sizeof line);
    assert_string_equal(line, "HELD");
    DbgClient *c = connect_paused(&ch);
    uint64_t during = segment_slots_in_use(c, LEAKY_WORDS);
    dbg_close(c);
    assert_int_equal(write(ch.to_child, "g", 1), 1);
    child_read_line(&ch, line, sizeof line);
    assert_string_equal(line, "ENDED");
    c = connect_paused(&ch);
    uint64_t after = segment_slots_in_use(c, LEAKY_WORDS);
    dbg_close(c);
    assert_int_equal(child_finish(&ch), 0);
    assert_int_equal(during, after);
    assert_true(after >= SWEPT_LISTS / 2 * SWEPT_LEN && after < SWEPT_LISTS * SWEPT_LEN);
}

int main(void)
{
    srandom((unsigned)getpid());
    signal(SIGPIPE, SIG_IGN);   /* children that exit close their pipes */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_debug_listener_never_replaces_a_file),
        cmocka_unit_test(test_debug_census_equals_profiler),
        cmocka_unit_test(test_debug_census_of_threads_equals_profiler),
        cmocka_unit_test(test_debug_census_orders_eras_numerically),
        cmocka_unit_test(test_debug_retainer_path_names_frame),
        cmocka_unit_test(test_debug_static_root_named_from_symbols),
        cmocka_unit_test(test_debug_decoder_new_era),
        cmocka_unit_test(test_debug_malformed_requests),
        cmocka_unit_test(test_debug_pause_resume_during_allocation),
        cmocka_unit_test(test_debug_snapshot_round_trip),
        cmocka_unit_test(test_debug_path_runs_lists_trees_cycles),
        cmocka_unit_test(test_debug_dominators_match_brute_force),
        cmocka_unit_test(test_debug_retained_sizes_match_brute_force),
        cmocka_unit_test(test_debug_search_paths_equal_full_traversal),
        cmocka_unit_test(test_debug_boundary_ranks_planted_holder),
        cmocka_unit_test(test_debug_boundary_without_the_tree_matches_it),
        cmocka_unit_test(test_debug_pause_times_out_without_allocation),
        cmocka_unit_test(test_debug_weaks_with_key_liveness),
        cmocka_unit_test(test_debug_diff_finds_a_deep_new_object),
        cmocka_unit_test(test_debug_pause_during_a_sweep_lists_what_lives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
