/*
 * support/Messages.h -- the runtime's three kinds of message (docs/HACKING.md,
 * Messages):
 * rts_panic for broken invariants, rts_error for user errors, and
 * debug_trace for opt-in tracing.  All go to stderr prefixed by the
 * program name.
 */
#ifndef STRATA_MESSAGES_H
#define STRATA_MESSAGES_H

#include <stdarg.h>
#include <stdbool.h>

/* The program name used as the message prefix (basename of argv[0]). */
extern const char *rts_prog_name;
void rts_set_prog_name(const char *argv0);

/* "<prog>: <message>\n" on stderr. */
void rts_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rts_verror(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* A broken invariant: prints "<prog>: internal error: <message>" with the
 * function and file:line, then aborts.  Never returns. */
#define rts_panic(...) rts_panic_at(__func__, __FILE__, __LINE__, __VA_ARGS__)
_Noreturn void rts_panic_at(const char *func, const char *file, int line,
                            const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Debug tracing classes, chosen by +RTS -D<letters> (only S is public). */
enum {
    DEBUG_SANITY = 1u << 0,  /* S: full heap checks around every GC */
    DEBUG_GC = 1u << 1,      /* g: one trace line per GC phase */
    DEBUG_BLOCK = 1u << 2,   /* b: block allocator */
};
extern unsigned rts_debug_flags;
#define debug_enabled(flag) ((rts_debug_flags & (flag)) != 0)
#define debug_trace(flag, ...)                                               \
    do {                                                                     \
        if (debug_enabled(flag))                                             \
            rts_debug_belch(__VA_ARGS__);                                    \
    } while (0)
void rts_debug_belch(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Assertions by build level (configure --enable-debug=N, docs/HACKING.md,
 * Assertions and checks):
 *   ASSERT            level >= 1: cheap checks at module boundaries (what a
 *                     caller hands in, what a module hands back);
 *   ASSERT_INTERNAL   level >= 2: a module's own invariants, on its hot
 *                     paths too (to-space, forwarding, the era of a copy's
 *                     block, remembered-set membership);
 *   ASSERT_EXPENSIVE  level >= 3: checks that walk or recount (every
 *                     copied object's layout, free lists).
 * A failed one panics with the expression, the function, file and line. */
#ifndef STRATA_DEBUG
#define STRATA_DEBUG 0
#endif
#define STRATA_ASSERT_AT(level, e)                                           \
    ((STRATA_DEBUG < (level) || (e)) ? (void)0 : rts_panic("assertion failed: %s", #e))
#define ASSERT(e) STRATA_ASSERT_AT(1, e)
#define ASSERT_INTERNAL(e) STRATA_ASSERT_AT(2, e)
#define ASSERT_EXPENSIVE(e) STRATA_ASSERT_AT(3, e)

#endif /* STRATA_MESSAGES_H */
