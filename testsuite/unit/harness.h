/*
 * testsuite/unit/harness.h -- shared helpers for the runtime's unit tests:
 * starting the runtime with RTS flags, and running a piece of code that
 * must fail in a child process so its exit status and message can be
 * checked (panics abort; user errors exit).
 */
#ifndef STRATA_TEST_HARNESS_H
#define STRATA_TEST_HARNESS_H

#include <setjmp.h>
#include <stdint.h>
#include <stdarg.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <strata.h>

#include "BlockAlloc.h"
#include "MBlock.h"

/* A flag that every harness_start adds after the test's own (NULL: none):
 * a test binary sets it to run its tests again under another setting
 * (harness_run_twice). */
static const char *harness_extra_flag;

static inline bool harness_nonmoving_rerun(void);

/* Starts the runtime as if run as "test +RTS <flags...> -RTS", with
 * harness_extra_flag last. */
static inline void harness_start(const char *first_flag, ...)
{
    static char *argv_store[32];
    int argc = 0;
    argv_store[argc++] = (char *)"unit-test";
    argv_store[argc++] = (char *)"+RTS";
    va_list ap;
    va_start(ap, first_flag);
    for (const char *f = first_flag; f != NULL && argc < 29; f = va_arg(ap, const char *))
        argv_store[argc++] = (char *)f;
    va_end(ap);
    if (harness_extra_flag != NULL)
        argv_store[argc++] = (char *)harness_extra_flag;
    for (int i = 2; i < argc; i++)
        if (strcmp(argv_store[i], "-G1") == 0 && harness_nonmoving_rerun()) {
            /* --nonmoving-gc refuses -G1 (RtsFlags.c): no old generation. */
            printf("SKIP: -G1 has no old generation to be non-moving (GHCRTS=%s)\n",
                   getenv("GHCRTS"));
            skip();
        }
    argv_store[argc++] = (char *)"-RTS";
    argv_store[argc] = NULL;
    char **argv = argv_store;
    hs_init(&argc, &argv);
}

/* Runs fn in a child process with its stderr captured into buf (cap
 * bytes, NUL-terminated); returns its wait status.  fn should not return
 * (if it does, the child exits 0). */
static inline int harness_run_child(void (*fn)(void), char *buf, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        signal(SIGABRT, SIG_DFL);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t k;
    while ((k = read(fds[0], buf + len, cap - 1 - len)) > 0)
        len += (size_t)k;
    buf[len] = '\0';
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* Runs fn(arg) in this process with stderr going to a temporary file;
 * returns what it wrote (malloc'd, NUL-terminated). */
static inline char *harness_capture_stderr(void (*fn)(void *), void *arg)
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 2) >= 0);
    fn(arg);
    fflush(stderr);
    assert_true(dup2(saved, 2) >= 0);
    close(saved);
    long len = ftell(tmp);
    assert_true(len >= 0);
    char *text = malloc((size_t)len + 1);
    assert_non_null(text);
    rewind(tmp);
    assert_int_equal(fread(text, 1, (size_t)len, tmp), (size_t)len);
    text[len] = '\0';
    fclose(tmp);
    return text;
}

/* Runs fn in a child with its stderr discarded; returns its wait status
 * (for tests of what must crash). */
static inline int harness_child_status(void (*fn)(void))
{
    static char discarded[65536];
    return harness_run_child(fn, discarded, sizeof discarded);
}

/* The seed of a randomized test: STRATA_TEST_SEED, or a fixed default;
 * printed so that a failing run can be repeated. */
static inline uint64_t harness_seed(const char *test)
{
    const char *env = getenv("STRATA_TEST_SEED");
    uint64_t seed = env != NULL ? strtoull(env, NULL, 0) : 20240601u;
    printf("%s: seed=%llu (set STRATA_TEST_SEED to repeat)\n", test, (unsigned long long)seed);
    return seed;
}

/* cmocka group set-up for tests of the allocators alone (no hs_init). */
#define HARNESS_MBLOCK_RESERVE_BYTES ((StgWord)4 << 30)   /* 4 GiB */
static inline int harness_mblock_setup(void **state)
{
    (void)state;
    if (mblock_init(HARNESS_MBLOCK_RESERVE_BYTES) != 0)
        return -1;
    block_alloc_init();
    return 0;
}

static inline int harness_mblock_teardown(void **state)
{
    (void)state;
    mblock_exit();
    return 0;
}

/* Whether the tests run again with the non-moving old generation
 * (scripts/test.sh sets GHCRTS=--nonmoving-gc): a test whose expectation
 * is about copying's own structures says what the other collector does. */
static inline bool harness_nonmoving_rerun(void)
{
    const char *env = getenv("GHCRTS");
    return env != NULL && (strstr(env, "--nonmoving-gc") != NULL || strstr(env, "-xn") != NULL);
}

/* Runs fn in a child; checks that it ended with exit status want_status
 * (or, if want_signal, that signal) and that its stderr contains want. */
static inline void harness_expect_failure(void (*fn)(void), int want_status, int want_signal,
                                          const char *want)
{
    static char buf[65536];
    int status = harness_run_child(fn, buf, sizeof buf);
    if (want_signal) {
        if (!WIFSIGNALED(status) || WTERMSIG(status) != want_signal)
            fail_msg("child should have died of signal %d; status=0x%x, stderr:\n%s",
                     want_signal, status, buf);
    } else {
        if (!WIFEXITED(status) || WEXITSTATUS(status) != want_status)
            fail_msg("child should have exited %d; status=0x%x, stderr:\n%s", want_status,
                     status, buf);
    }
    if (strstr(buf, want) == NULL)
        fail_msg("child's stderr lacks \"%s\":\n%s", want, buf);
    /* Messages carry the program's name once (rts_error adds it). */
    if (strstr(buf, "strata: strata:") != NULL)
        fail_msg("child's stderr names the program twice:\n%s", buf);
}

#endif /* STRATA_TEST_HARNESS_H */
