/*
 * profiling/CallStacks.c -- taking, naming and interning the call stacks
 * of sampled allocations (CallStacks.h).  Relies on the OS layer's
 * unwinder (os_process_call_stack), on provenance_code_frames for names,
 * on base/StrIndex for the three tables and on the eventlog for the
 * definitions.  See Note [Three tables of stacks] and
 * docs/design/alloc-sampling.md.
 */
#include "CallStacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "EventLog.h"
#include "GrowArray.h"
#include "Messages.h"
#include "Provenance.h"
#include "StrIndex.h"
#include "os/Clock.h"
#include "os/Process.h"
#include "os/Thread.h"

/* Note [Three tables of stacks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A sample's stack is first a list of return addresses.  Most samples
 * come from a few places, so the raw addresses are the first table's key
 * (pc_stacks): a sample whose addresses were seen before costs the
 * unwinding and one lookup.  A new list is named: each address, less one
 * (inside the call), becomes its source frames (an address in code that
 * inlined calls stands for several), and the frames at the top that are
 * the runtime's own allocation code (the slow path, the sampler, the
 * inline allocators of strata/Alloc.h: files under the runtime's sm/,
 * profiling/, support/ and includes/strata/) are cut off, so that a stack
 * starts at the code that asked for the object, as Go's heap profiles
 * start at the caller of the allocator.  Each frame (function, file,
 * line) is interned in the second table, and the list of frame numbers in
 * the third, whose number is the stack's: two address lists that name
 * the same frames (two return addresses on one line) are one stack.  A
 * new frame or stack is posted to the eventlog before the sample that
 * names it, under the same lock. */

static OsMutex stacks_lock = OS_MUTEX_INIT;
static StrIndex pc_stacks;        /* key: the return addresses */
static uint32_t *pc_stack_ids;    /* [pc_stacks.n]: the stack each one names */
static size_t cap_pc_stack_ids;
static StrIndex frames;           /* key: function NUL file NUL line (4 bytes) */
static StrIndex stacks;           /* key: the frame numbers, innermost first */
static CallStackStats stats;

/* Frames one address may stand for (inlined calls), and of a stack. */
#define FRAMES_PER_PC 16
#define STACK_MAX_FRAMES 128

/* Whether a frame is the runtime's allocation code (Note [Three tables
 * of stacks]): files as provenance shows them, relative to the runtime's
 * source tree. */
static bool is_allocator_frame(const CodeFrame *f)
{
    static const char *const dirs[] = {"sm/", "profiling/", "support/", "includes/strata/"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strncmp(f->file, dirs[i], strlen(dirs[i])) == 0)
            return true;
    /* Without DWARF: the unwinder itself (the C library's backtrace). */
    return f->file[0] == '\0' && strcmp(f->function, "backtrace") == 0;
}

static uint32_t intern_frame(const CodeFrame *f)
{
    char key[1024];
    size_t fn = strnlen(f->function, 480), file = strnlen(f->file, 480);
    memcpy(key, f->function, fn);
    key[fn] = '\0';
    memcpy(key + fn + 1, f->file, file);
    key[fn + 1 + file] = '\0';
    memcpy(key + fn + file + 2, &f->line, sizeof f->line);
    size_t len = fn + file + 2 + sizeof f->line;
    size_t id = str_index_find(&frames, key, len);
    if (id != STR_INDEX_NONE)
        return (uint32_t)id;
    id = str_index_add(&frames, key, len);
    if (id == STR_INDEX_NONE)
        rts_panic("alloc-sample: out of C heap (%zu frames)", frames.n);
    const char *copy = frames.strs[id].ptr;
    eventlog_post_alloc_frame((uint32_t)id, copy, copy + fn + 1, f->line);
    return (uint32_t)id;
}

/* The frames of the return address pc (an unknown one is its address). */
static size_t frames_of(void *pc, CodeFrame *out, char *hex, size_t hex_len)
{
    size_t n = provenance_code_frames((char *)pc - 1, out, FRAMES_PER_PC);
    if (n == 0) {
        snprintf(hex, hex_len, "%p", pc);
        out[n++] = (CodeFrame){.function = hex, .file = "", .line = 0};
    }
    return n;
}

/* Names a new list of return addresses and interns its stack. */
static uint32_t name_stack(void *const *pcs, size_t n_pcs)
{
    uint32_t ids[STACK_MAX_FRAMES];
    size_t n = 0;
    bool top = true;
    for (size_t i = 0; i < n_pcs && n < STACK_MAX_FRAMES; i++) {
        CodeFrame fr[FRAMES_PER_PC];
        char hex[32];
        size_t k = frames_of(pcs[i], fr, hex, sizeof hex);
        for (size_t j = 0; j < k && n < STACK_MAX_FRAMES; j++) {
            if (top && is_allocator_frame(&fr[j]))
                continue;
            top = false;
            ids[n++] = intern_frame(&fr[j]);
        }
    }
    size_t len = n * sizeof ids[0];
    size_t id = str_index_find(&stacks, (const char *)ids, len);
    if (id != STR_INDEX_NONE)
        return (uint32_t)id;
    id = str_index_add(&stacks, (const char *)ids, len);
    if (id == STR_INDEX_NONE)
        rts_panic("alloc-sample: out of C heap (%zu stacks)", stacks.n);
    eventlog_post_alloc_stack((uint32_t)id, ids, n);
    return (uint32_t)id;
}

/* The stack of a list of return addresses, named if it is new. */
static uint32_t intern_pcs_locked(void *const *pcs, size_t n)
{
    const char *key = (const char *)pcs;
    size_t i = str_index_find(&pc_stacks, key, n * sizeof *pcs);
    if (i != STR_INDEX_NONE)
        return pc_stack_ids[i];
    uint64_t t0 = clock_elapsed_ns();
    uint32_t id = name_stack(pcs, n);
    i = str_index_add(&pc_stacks, key, n * sizeof *pcs);
    if (i == STR_INDEX_NONE ||
        GROW_ARRAY_RESERVE_MIN(pc_stack_ids, cap_pc_stack_ids, i + 1, 64) != 0)
        rts_panic("alloc-sample: out of C heap (%zu address lists)", pc_stacks.n);
    pc_stack_ids[i] = id;
    stats.naming_ns += clock_elapsed_ns() - t0;
    return id;
}

uint32_t call_stack_here(void)
{
    void *pcs[CALL_STACK_MAX_PCS];
    uint64_t t0 = clock_elapsed_ns();
    size_t n = os_process_call_stack(pcs, CALL_STACK_MAX_PCS);
    uint64_t t1 = clock_elapsed_ns();
    os_mutex_lock(&stacks_lock);
    stats.unwinds++;
    stats.unwind_ns += t1 - t0;
    uint32_t id = intern_pcs_locked(pcs, n);
    os_mutex_unlock(&stacks_lock);
    return id;
}

bool call_stack_frames(uint32_t stack, const uint32_t **frame_ids, size_t *n_frames)
{
    if (stack >= stacks.n)
        return false;
    *frame_ids = (const uint32_t *)(const void *)stacks.strs[stack].ptr;
    *n_frames = stacks.strs[stack].len / sizeof(uint32_t);
    return true;
}

bool call_stack_frame(uint32_t frame, const char **function, const char **file, uint32_t *line)
{
    if (frame >= frames.n)
        return false;
    const char *key = frames.strs[frame].ptr;
    size_t fn = strlen(key);
    *function = key;
    *file = key + fn + 1;
    memcpy(line, key + fn + 1 + strlen(key + fn + 1) + 1, sizeof *line);
    return true;
}

static uint64_t index_bytes(const StrIndex *ix)
{
    uint64_t bytes = ix->cap * sizeof *ix->strs + ix->hash_cap * sizeof *ix->hash;
    for (size_t i = 0; i < ix->n; i++)
        bytes += ix->strs[i].len + 1;
    return bytes;
}

void call_stacks_stats(CallStackStats *out)
{
    os_mutex_lock(&stacks_lock);
    *out = stats;
    out->stacks = stacks.n;
    out->frames = frames.n;
    out->pc_stacks = pc_stacks.n;
    out->bytes_held = index_bytes(&stacks) + index_bytes(&frames) + index_bytes(&pc_stacks) +
                      cap_pc_stack_ids * sizeof *pc_stack_ids;
    os_mutex_unlock(&stacks_lock);
}

void call_stacks_exit(void)
{
    str_index_free(&pc_stacks);
    str_index_free(&frames);
    str_index_free(&stacks);
    free(pc_stack_ids);
    pc_stack_ids = NULL;
    cap_pc_stack_ids = 0;
    memset(&stats, 0, sizeof stats);
}
