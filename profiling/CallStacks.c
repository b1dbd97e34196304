/*
 * profiling/CallStacks.c -- taking, naming and interning the call stacks
 * of sampled allocations (CallStacks.h).  Relies on the OS layer's
 * unwinder (os_call_stack: cached CFI rules, Note [Cached unwind rules]),
 * on provenance_code_frames for names, on base/StrIndex for the three
 * tables and on the eventlog for the definitions.  See Note [Three tables of stacks] and
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
#include "WordMapOrPanic.h"
#include "os/Clock.h"
#include "os/Process.h"
#include "os/Thread.h"
#include "os/Unwind.h"

/* Note [Three tables of stacks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A sample's stack is first a list of return addresses.  Most samples
 * come from a few places, so the raw addresses are the first table's key
 * (address lists, hashed a word at a time): a sample whose addresses were
 * seen before costs the unwinding and one lookup.  A new list is named:
 * each address, less one (inside the call), becomes its source frames (an
 * address in code that inlined calls stands for several; each address is
 * named once, and its frames kept by address), and the frames at the top
 * that are the runtime's own allocation code (the slow path, the sampler,
 * the inline allocators of strata/Alloc.h: files under the runtime's sm/,
 * profiling/, support/ and includes/strata/) are cut off, so that a stack
 * starts at the code that asked for the object, as Go's heap profiles
 * start at the caller of the allocator.  Each frame (function, file,
 * line) is interned in the second table, and the list of frame numbers in
 * the third, whose number is the stack's: two address lists that name
 * the same frames (two return addresses on one line; a recursion reached
 * at two depths past the frames kept) are one stack.  A new frame or stack
 * is posted to the eventlog before the sample that names it, under the
 * same lock. */

/* Note [Naming from the caller]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The innermost addresses of every sample's stack are the sampler's own
 * (the unwinder, call_stack_here, the hook, the slow path).  Naming them
 * only to cut them off read the DWARF of five of the runtime's units --
 * all their functions and line tables, and libdwarf's walk over every
 * unit header before the furthest of them -- about 25M instructions once
 * a run, more than the user's own frames cost.  So the slow path passes
 * its return address (AllocSampleInfo.caller), and naming starts at its
 * first occurrence in the list: the addresses inside it are kept in the
 * list's key but never named.  From there frames are named and cut by
 * their files as before (a runtime entry point that called the slow path,
 * such as strata_alloc_mut_array; the inline allocators of strata/Alloc.h
 * inlined into the caller).  A list without the caller (an unwinder that
 * stopped early) is named whole.  Naming also stops after the frame of
 * `main`: below it lies only the C library's start-up
 * (__libc_start_call_main, __libc_start_main_impl, _start), which gdb's
 * backtrace leaves out too and which cost a read of the C library's
 * symbols.  A thread's stack, which has no `main`, is named to its end. */

/* One address list seen: its addresses (in `addresses`) and its stack. */
typedef struct {
    uint32_t first, n;            /* addresses[first .. first + n) */
    uint32_t stack;
} PcList;

static OsMutex stacks_lock = OS_MUTEX_INIT;
static WordMap pc_list_of;        /* hash of a list (+1 per collision) -> index + 1 */
static PcList *pc_lists;
static size_t n_pc_lists, cap_pc_lists;
static void **addresses;          /* every list's addresses, in turn */
static size_t n_addresses, cap_addresses;
static WordMap frames_of_pc;      /* return address -> (first << 8 | n) into pc_frame_ids */
static uint32_t *pc_frame_ids;
static size_t n_pc_frame_ids, cap_pc_frame_ids;
static StrIndex frames;           /* key: function NUL file NUL line (4 bytes) */
static uint8_t *frame_kind;       /* [frames.n]: FRAME_* bits */
static size_t cap_frame_kind;
static bool name_from_caller = true;   /* Note [Naming from the caller] */
static StrIndex stacks;           /* key: the frame numbers, innermost first */
static CallStackStats stats;

/* Frames one address may stand for (inlined calls), and of a stack. */
#define FRAMES_PER_PC 16
#define STACK_MAX_FRAMES 128

/* What a frame is, for the cuts of Note [Three tables of stacks] and
 * Note [Naming from the caller]. */
#define FRAME_ALLOCATOR 1u        /* the runtime's allocation code */
#define FRAME_MAIN 2u             /* the program's main: the outermost named */

/* Whether a frame is the runtime's allocation code (Note [Three tables
 * of stacks]): files as provenance shows them, relative to the runtime's
 * source tree. */
static bool is_allocator_frame(const CodeFrame *f)
{
    static const char *const dirs[] = {"sm/", "profiling/", "support/", "includes/strata/"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (strncmp(f->file, dirs[i], strlen(dirs[i])) == 0)
            return true;
    /* The unwinder itself, outside the source tree: the C library's
     * backtrace, or the sanitizers' wrapper of it (__interceptor_backtrace,
     * named from libasan's DWARF with an absolute path). */
    size_t n = strlen(f->function), suffix = strlen("backtrace");
    return (f->file[0] == '\0' || f->file[0] == '/') && n >= suffix &&
           strcmp(f->function + n - suffix, "backtrace") == 0;
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
    if (id == STR_INDEX_NONE ||
        GROW_ARRAY_RESERVE_MIN(frame_kind, cap_frame_kind, id + 1, 256) != 0)
        rts_panic("alloc-sample: out of C heap (%zu frames)", frames.n);
    frame_kind[id] = (uint8_t)((is_allocator_frame(f) ? FRAME_ALLOCATOR : 0) |
                               (strcmp(f->function, "main") == 0 ? FRAME_MAIN : 0));
    const char *copy = frames.strs[id].ptr;
    eventlog_post_alloc_frame((uint32_t)id, copy, copy + fn + 1, f->line);
    return (uint32_t)id;
}

/* The frame numbers of the return address pc, named on first sight (an
 * unknown one is its address): *n of them at *ids. */
static const uint32_t *frames_at(void *pc, size_t *n)
{
    bool found;
    uint64_t *slot = word_map_slot_or_panic(&frames_of_pc, (uint64_t)(uintptr_t)pc, &found);
    if (!found) {
        CodeFrame fr[FRAMES_PER_PC];
        char hex[32];
        size_t k = provenance_code_frames((char *)pc - 1, fr, FRAMES_PER_PC);
        if (k == 0) {
            snprintf(hex, sizeof hex, "%p", pc);
            fr[k++] = (CodeFrame){.function = hex, .file = "", .line = 0};
        }
        if (GROW_ARRAY_RESERVE_MIN(pc_frame_ids, cap_pc_frame_ids, n_pc_frame_ids + k, 256) != 0)
            rts_panic("alloc-sample: out of C heap (%zu frames of addresses)", n_pc_frame_ids);
        uint64_t first = n_pc_frame_ids;
        for (size_t j = 0; j < k; j++)
            pc_frame_ids[n_pc_frame_ids++] = intern_frame(&fr[j]);
        /* slot is still good: naming inserts into other tables only. */
        *slot = first << 8 | k;
    }
    *n = (size_t)(*slot & 0xff);
    return &pc_frame_ids[*slot >> 8];
}

/* Where naming starts: the caller's first place in the list (Note
 * [Naming from the caller]), or the top. */
static size_t first_named(void *const *pcs, size_t n_pcs, const void *caller)
{
    if (caller != NULL && name_from_caller)
        for (size_t i = 0; i < n_pcs; i++)
            if (pcs[i] == caller)
                return i;
    return 0;
}

/* Names a new list of return addresses and interns its stack. */
static uint32_t name_stack(void *const *pcs, size_t n_pcs, const void *caller)
{
    uint32_t ids[STACK_MAX_FRAMES];
    size_t n = 0;
    bool top = true, past_main = false;
    for (size_t i = first_named(pcs, n_pcs, caller);
         i < n_pcs && n < STACK_MAX_FRAMES && !past_main; i++) {
        size_t k;
        const uint32_t *fr = frames_at(pcs[i], &k);
        for (size_t j = 0; j < k && n < STACK_MAX_FRAMES; j++) {
            past_main = past_main || (frame_kind[fr[j]] & FRAME_MAIN) != 0;
            if (top && (frame_kind[fr[j]] & FRAME_ALLOCATOR) != 0)
                continue;
            top = false;
            ids[n++] = fr[j];
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

/* A list's hash, a word at a time (murmur3's finaliser per word). */
static uint64_t hash_pcs(void *const *pcs, size_t n)
{
    uint64_t h = n;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = (uint64_t)(uintptr_t)pcs[i];
        k ^= k >> 33;
        k *= 0xff51afd7ed558ccdull;
        k ^= k >> 33;
        h = (h ^ k) * 0xc4ceb9fe1a85ec53ull;
    }
    return h;
}

/* The stack of a list of return addresses, named if it is new.  Lists
 * whose hashes collide take the next key (hash + 1, + 2, ...). */
static uint32_t intern_pcs_locked(void *const *pcs, size_t n, const void *caller)
{
    for (uint64_t key = hash_pcs(pcs, n);; key++) {
        bool found;
        uint64_t *slot = word_map_slot_or_panic(&pc_list_of, key, &found);
        if (found) {
            const PcList *l = &pc_lists[*slot - 1];
            if (l->n == n && memcmp(&addresses[l->first], pcs, n * sizeof *pcs) == 0)
                return l->stack;
            continue;
        }
        if (GROW_ARRAY_RESERVE_MIN(pc_lists, cap_pc_lists, n_pc_lists + 1, 64) != 0 ||
            GROW_ARRAY_RESERVE_MIN(addresses, cap_addresses, n_addresses + n, 256) != 0)
            rts_panic("alloc-sample: out of C heap (%zu address lists)", n_pc_lists);
        *slot = n_pc_lists + 1;   /* before naming, which inserts into other maps only */
        uint64_t t0 = clock_elapsed_ns();
        PcList *l = &pc_lists[n_pc_lists++];
        *l = (PcList){.first = (uint32_t)n_addresses, .n = (uint32_t)n};
        memcpy(&addresses[n_addresses], pcs, n * sizeof *pcs);
        n_addresses += n;
        l->stack = name_stack(pcs, n, caller);
        stats.naming_ns += clock_elapsed_ns() - t0;
        return l->stack;
    }
}

uint32_t call_stack_here(const void *caller)
{
    void *pcs[CALL_STACK_MAX_PCS];
    size_t n = os_call_stack(pcs, CALL_STACK_MAX_PCS);
    os_mutex_lock(&stacks_lock);
    stats.unwinds++;
    uint32_t id = intern_pcs_locked(pcs, n, caller);
    os_mutex_unlock(&stacks_lock);
    return id;
}

void call_stacks_name_from_caller(bool on)
{
    name_from_caller = on;
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
    out->pc_stacks = n_pc_lists;
    out->bytes_held = index_bytes(&stacks) + index_bytes(&frames) +
                      word_map_bytes(&pc_list_of) + word_map_bytes(&frames_of_pc) +
                      cap_pc_lists * sizeof *pc_lists + cap_addresses * sizeof *addresses +
                      cap_pc_frame_ids * sizeof *pc_frame_ids + cap_frame_kind;
    os_mutex_unlock(&stacks_lock);
}

void call_stacks_exit(void)
{
    word_map_free(&pc_list_of);
    word_map_free(&frames_of_pc);
    free(pc_lists);
    free(addresses);
    free(pc_frame_ids);
    free(frame_kind);
    pc_lists = NULL;
    addresses = NULL;
    pc_frame_ids = NULL;
    frame_kind = NULL;
    n_pc_lists = cap_pc_lists = n_addresses = cap_addresses = 0;
    n_pc_frame_ids = cap_pc_frame_ids = cap_frame_kind = 0;
    str_index_free(&frames);
    str_index_free(&stacks);
    memset(&stats, 0, sizeof stats);
}
