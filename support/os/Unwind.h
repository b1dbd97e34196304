/*
 * support/os/Unwind.h -- the calling thread's call stack, cheaply: a walk
 * of the stack by the call frame information (.eh_frame) with each return
 * address's unwind rule cached (Note [Cached unwind rules] in Unwind.c).
 */
#ifndef STRATA_OS_UNWIND_H
#define STRATA_OS_UNWIND_H

#include <stdbool.h>
#include <stddef.h>

/* The return addresses of the calling thread's stack, innermost first,
 * at most max, as os_process_call_stack gives them (the first is an
 * address inside this function).  Walks the stack with cached rules
 * where it can; where a frame's rule is one the walk does not read
 * (stack realignment, signal frames), or off x86-64, it is
 * os_process_call_stack.  Not async-signal-safe. */
size_t os_call_stack(void **pcs, size_t max);

/* Turns the rule cache off (false) or back on, for this thread: the
 * walk then reads every frame's rule from .eh_frame again.  For tests
 * that compare the two. */
void os_call_stack_cache(bool on);

#endif /* STRATA_OS_UNWIND_H */
