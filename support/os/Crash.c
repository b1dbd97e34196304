/*
 * support/os/Crash.c -- the fatal-signal handler (Crash.h).
 *
 * Note [A crash says what to do next]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Heap corruption in a release build (a write past an object's end, a
 * heap pointer kept across a collection) usually ends in a SIGSEGV in the
 * collector, far from the bug.  +RTS -DS names the damaged object, but a
 * bare SIGSEGV does not say so.  The handler writes one line with write(2)
 * (no stdio, no allocation: it runs in a signal handler, maybe with a
 * lock of the C library held):
 *
 *     prog: fatal signal SIGSEGV in the garbage collector; the heap may be
 *     damaged: rerun with +RTS -DS to find the damaged object
 *
 * ("in the program" when no collection was running), puts back the
 * signal's previous action and lets it happen again: a fault the hardware
 * raised repeats when the handler returns; a signal another process sent
 * (si_code SI_USER or below) is raised again.  So the exit status, the core
 * dump, gdb's stop and a sanitizer's report are what they were without it.
 *
 * Note [A sanitizer's report says what to do next]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * In the sanitizer build the same damage seldom reaches a signal: the
 * collector's load of a stale object's misaligned header, or of an info
 * table through an overwritten header, is undefined behaviour, and
 * UBSan (-fno-sanitize-recover) or ASan stops the program with its own
 * report first.  Both call a hook as a report begins, __ubsan_on_report
 * and __asan_on_error, weak functions in their runtimes that a program may
 * define; this file defines them (sanitizer builds only, with default
 * visibility so that the runtime finds them) to write the same line,
 * naming the report instead of the signal, before the report itself:
 *
 *     prog: UndefinedBehaviorSanitizer report in the garbage collector;
 *     the heap may be damaged: rerun with +RTS -DS to find the damaged object
 *
 * Only while the handler is installed (between hs_init and hs_exit); a
 * LeakSanitizer report at exit calls neither hook.
 */
#include "Crash.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])

static struct sigaction previous[N_FATAL];
static int installed;
static const char *const *prog_name;
static const volatile sig_atomic_t *collecting;

static const char *signal_name(int sig)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    default: return "a fatal signal";
    }
}

/* Appends s to buf (of size BUF_SIZE) at *len; async-signal-safe. */
#define BUF_SIZE 512
static void append(char *buf, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (n > BUF_SIZE - 1 - *len)
        n = BUF_SIZE - 1 - *len;
    memcpy(buf + *len, s, n);
    *len += n;
}

/* Writes "prog: WHAT in the garbage collector (or: in the program); the
 * heap may be damaged: rerun with +RTS -DS ..." with one write(2). */
static void say_rerun_with_sanity_checks(const char *what)
{
    char buf[BUF_SIZE];
    size_t len = 0;
    append(buf, &len, *prog_name);
    append(buf, &len, ": ");
    append(buf, &len, what);
    append(buf, &len, *collecting ? " in the garbage collector" : " in the program");
    append(buf, &len, "; the heap may be damaged: rerun with +RTS -DS to find the damaged "
                      "object\n");
    ssize_t w = write(STDERR_FILENO, buf, len);
    (void)w;
}

static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    int saved_errno = errno;
    char what[BUF_SIZE] = "fatal signal ";
    size_t len = strlen(what);
    append(what, &len, signal_name(sig));
    what[len] = '\0';
    say_rerun_with_sanity_checks(what);
    for (size_t i = 0; i < N_FATAL; i++)
        if (fatal_signals[i] == sig)
            sigaction(sig, &previous[i], NULL);
    errno = saved_errno;
    if (info == NULL || info->si_code <= 0)
        raise(sig);   /* sent, not raised by the instruction: send it again */
}

#ifdef STRATA_ASAN
/* Note [A sanitizer's report says what to do next] */
__attribute__((visibility("default"))) void __asan_on_error(void);
__attribute__((visibility("default"))) void __ubsan_on_report(void);

void __asan_on_error(void)
{
    if (installed)
        say_rerun_with_sanity_checks("AddressSanitizer report");
}

void __ubsan_on_report(void)
{
    if (installed)
        say_rerun_with_sanity_checks("UndefinedBehaviorSanitizer report");
}
#endif

int os_crash_handler_install(const char *const *prog,
                             const volatile sig_atomic_t *in_collector)
{
    if (installed)
        return 0;
    prog_name = prog;
    collecting = in_collector;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal_signal;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_FATAL; i++)
        if (sigaction(fatal_signals[i], &sa, &previous[i]) != 0) {
            int e = errno;
            while (i-- > 0)
                sigaction(fatal_signals[i], &previous[i], NULL);
            return e;
        }
    installed = 1;
    return 0;
}

void os_crash_handler_remove(void)
{
    if (!installed)
        return;
    for (size_t i = 0; i < N_FATAL; i++)
        sigaction(fatal_signals[i], &previous[i], NULL);
    installed = 0;
}
