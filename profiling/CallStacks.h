/*
 * profiling/CallStacks.h -- the call stacks of sampled allocations: the
 * calling thread's C stack taken by the unwinder, named from the
 * program's own DWARF and symbols (provenance_code_frames: function, file,
 * line, inlined calls expanded), with the runtime's allocation code cut
 * off its top, and interned in one table: each distinct stack and each
 * distinct frame gets a small number, defined in the eventlog (ALLOC_STACK,
 * ALLOC_FRAME) before the first sample that names it.  Thread-safe: one
 * lock.  See docs/design/alloc-sampling.md, "Naming a stack".
 */
#ifndef STRATA_CALL_STACKS_H
#define STRATA_CALL_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Return addresses kept of a stack, innermost first (the outermost are
 * left out): Go keeps 32 too.  Each costs about 150 ns to unwind. */
#define CALL_STACK_MAX_PCS 32

/* The stack of whoever called the allocation slow path on this thread,
 * interned: its number.  caller, if not NULL, is the slow path's return
 * address: the frames inside it (the sampler's own) are not named (Note
 * [Naming from the caller] in CallStacks.c).  Stacks are numbered from 0
 * in the order first seen; a stack the unwinder could not take is the
 * empty stack. */
uint32_t call_stack_here(const void *caller);

/* For tests: false names every frame, the sampler's own too, and cuts
 * them by their files alone (as before callers were passed); true (the
 * default) starts at the caller. */
void call_stacks_name_from_caller(bool on);

/* The frames of stack: *n_frames frame numbers, innermost first, into
 * the table (valid until the next stack is interned: call with the world
 * stopped or paused, as the debug stub does).  False for an unknown
 * stack. */
bool call_stack_frames(uint32_t stack, const uint32_t **frames, size_t *n_frames);

/* Frame number frame: its function, file (either may be "") and line (0
 * if unknown).  False for an unknown frame. */
bool call_stack_frame(uint32_t frame, const char **function, const char **file,
                      uint32_t *line);

/* Stacks and frames interned so far, and the C heap the table holds. */
typedef struct {
    uint64_t stacks, frames, pc_stacks;
    uint64_t bytes_held;
    uint64_t unwinds;            /* stacks taken */
    uint64_t naming_ns;          /* time spent naming new ones (DWARF included) */
} CallStackStats;
void call_stacks_stats(CallStackStats *out);

/* Frees the table (hs_exit). */
void call_stacks_exit(void);

#endif /* STRATA_CALL_STACKS_H */
