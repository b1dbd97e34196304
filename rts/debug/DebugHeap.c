/*
 * rts/debug/DebugHeap.c -- the debug stub's heap-reading handlers (DebugHeap.h).
 * Relies on the mutator being paused at a safe point (DebugServer.c: the
 * nursery's free pointer and the root stack are synced before it blocks),
 * on the storage manager's block lists (sm/heap/Heap.h), the root stacks
 * (rts/Roots.h), the stable pointer table and the static root list.
 * See docs/design/debugger.md and docs/debug-protocol.md.
 */
#include "DebugHeap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "DebugAllocSites.h"
#include "EraRuns.h"
#include "GrowArray.h"
#include "HeapIter.h"
#include "MBlock.h"
#include "MutList.h"
#include "Provenance.h"
#include "Roots.h"
#include "Segment.h"
#include "Threads.h"
#include "DebugServe.h"
#include "StablePtr.h"
#include "Storage.h"
#include "os/Process.h"
#include "strata/Debug.h"
#include "strata/Roots.h"

/* Largest static closure the stub will copy out (words). */
#define STATIC_CLOSURE_MAX_WORDS ((StgWord)1 << 20)

/* ----------------------------------------------------------------------
 * Reading memory that may not be mapped
 * ---------------------------------------------------------------------- */

/* Info tables, static closures and the strings of root sites live outside
 * the heap, at addresses a client sends us: they are copied without
 * faulting (see Note [Safe reads] in support/os/Process.c). */
bool debug_safe_read(void *dst, uint64_t addr, size_t n)
{
    return os_process_read_memory(dst, addr, n) == 0;
}

/* A NUL-terminated string at addr, cut to cap - 1 bytes; "" if unreadable.
 * Reads page by page so a string ending just before an unmapped page is
 * still found. */
static void safe_read_string(uint64_t addr, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    while (addr != 0 && len + 1 < cap) {
        size_t page_left = 4096 - (size_t)(addr % 4096);
        size_t want = cap - 1 - len < page_left ? cap - 1 - len : page_left;
        if (!debug_safe_read(out + len, addr, want)) {
            out[0] = '\0';
            return;
        }
        void *nul = memchr(out + len, '\0', want);
        if (nul != NULL)
            return;
        len += want;
        addr += want;
    }
    out[len] = '\0';
}

/* An info table at addr, if it is readable and plausible. */
static bool info_read(uint64_t addr, StgInfoTable *out)
{
    if (addr % sizeof(void *) != 0 || !debug_safe_read(out, addr, sizeof *out))
        return false;
    return out->type > INVALID_OBJECT && out->type < N_CLOSURE_TYPES;
}

/* ----------------------------------------------------------------------
 * Provenance
 * ---------------------------------------------------------------------- */

/* Copies src into an empty field dst (a derived string: the cache's own). */
static void fill_derived(char *dst, size_t len, const char *src, bool *derived)
{
    if (dst[0] != '\0' || src == NULL || src[0] == '\0')
        return;
    snprintf(dst, len, "%s", src);
    *derived = true;
}

void debug_info_provenance(uint64_t addr, const StgInfoTable *info, DebugProvenance *out)
{
    memset(out, 0, sizeof *out);
    out->source = DEBUG_PROV_NONE;
    StgInfoProv prov;
    bool prov_readable = info->prov != NULL &&
        debug_safe_read(&prov, (uint64_t)(uintptr_t)info->prov, sizeof prov);
    if (prov_readable) {
        out->source = DEBUG_PROV_EXPLICIT;
        safe_read_string((uint64_t)(uintptr_t)prov.table_name, out->table_name,
                         sizeof out->table_name);
        safe_read_string((uint64_t)(uintptr_t)prov.closure_desc, out->closure_desc,
                         sizeof out->closure_desc);
        safe_read_string((uint64_t)(uintptr_t)prov.ty_desc, out->ty_desc, sizeof out->ty_desc);
        safe_read_string((uint64_t)(uintptr_t)prov.label, out->label, sizeof out->label);
        safe_read_string((uint64_t)(uintptr_t)prov.module, out->module, sizeof out->module);
        safe_read_string((uint64_t)(uintptr_t)prov.src_file, out->src_file, sizeof out->src_file);
        safe_read_string((uint64_t)(uintptr_t)prov.src_span, out->src_span, sizeof out->src_span);
    } else if (info->prov != NULL) {
        return;   /* a prov pointer we cannot read: derive nothing from it either */
    }
    /* The fields explicit provenance leaves open come from ELF/DWARF
     * (profiling/Provenance.h).  The resolver reads the table and its
     * StgInfoProv, both just checked readable, and never the explicit
     * strings; what it derives lives in its own cache.  The mutator is
     * paused, so the resolver is not used concurrently. */
    const IpeInfo *r = ipe_resolve((const StgInfoTable *)(uintptr_t)addr);
    if (r == NULL)
        return;
    bool derived = false;
    fill_derived(out->table_name, sizeof out->table_name, r->table_name, &derived);
    fill_derived(out->label, sizeof out->label, r->label, &derived);
    fill_derived(out->module, sizeof out->module, r->module, &derived);
    if (out->src_file[0] == '\0') {
        fill_derived(out->src_file, sizeof out->src_file, r->src_file, &derived);
        fill_derived(out->src_span, sizeof out->src_span, r->src_span, &derived);
    }
    if (derived && out->source == DEBUG_PROV_NONE)
        out->source = DEBUG_PROV_DERIVED;
}

/* ----------------------------------------------------------------------
 * The block index of this pause
 * ---------------------------------------------------------------------- */

/* One entry per era segment of a block: a block of one era is one entry,
 * as it always was; a block of several (Note [Blocks of several eras] in
 * sm/block/EraRuns.h) is one entry per run, so the client, which gives an
 * object its entry's era, needs no notion of runs.  Only a block's first
 * entry carries its block count. */
typedef struct {
    const BlockDesc *bd;
    StgPtr from, to;            /* the segment's objects */
    uint64_t era;
    uint32_t n_blocks;          /* bd->blocks on the first segment, else 0 */
    uint8_t kind;               /* DEBUG_BLOCK_* */
    const Segment *seg;         /* DEBUG_BLOCK_SEGMENT: the segment, else NULL */
} IndexEntry;

static IndexEntry *index_entries;   /* sorted by from */
static size_t index_n, index_cap;
static bool index_built;

static void index_add(const IndexEntry *e)
{
    if (GROW_ARRAY_RESERVE_MIN(index_entries, index_cap, index_n + 1, 1024) != 0)
        return;   /* index_n stays: index_ok() reports the shortfall */
    index_entries[index_n++] = *e;
}

static int index_cmp(const void *a, const void *b)
{
    StgPtr x = ((const IndexEntry *)a)->from, y = ((const IndexEntry *)b)->from;
    return x < y ? -1 : x > y;
}

static size_t expected_blocks;

/* A segment of the non-moving generation: one entry per era run of its
 * slots (Note [The eras of a segment] in sm/heap/Segment.c), whose free
 * slots read as slop (Note [Segments] in sm/heap/Segment.h). */
static void index_segment(BlockDesc *bd)
{
    const Segment *seg = (const Segment *)bd->start;
    uint32_t n_runs = seg->runs != NULL ? seg->n_runs : 1;
    for (uint32_t r = 0; r < n_runs; r++) {
        unsigned first = seg->runs != NULL ? seg->runs[r].first : 0;
        unsigned end = r + 1 < n_runs ? seg->runs[r + 1].first : seg->n_slots;
        IndexEntry e = {.bd = bd, .n_blocks = r == 0 ? bd->blocks : 0,
                        .kind = DEBUG_BLOCK_SEGMENT, .seg = seg,
                        .era = seg->runs != NULL ? seg->runs[r].era : seg->era,
                        .from = segment_slot(seg, first), .to = segment_slot(seg, end)};
        expected_blocks++;
        index_add(&e);
    }
}

static void index_block(BlockDesc *bd, HeapBlockKind kind, Generation *gen, void *ctx)
{
    (void)gen;
    (void)ctx;
    static const uint8_t debug_kind[] = {
        [HEAP_BLOCK_SMALL] = DEBUG_BLOCK_SMALL,
        [HEAP_BLOCK_LARGE] = DEBUG_BLOCK_LARGE,
        [HEAP_BLOCK_PINNED] = DEBUG_BLOCK_PINNED,
        [HEAP_BLOCK_NURSERY] = DEBUG_BLOCK_NURSERY,
        [HEAP_BLOCK_SEGMENT] = DEBUG_BLOCK_SEGMENT,
    };
    if (kind == HEAP_BLOCK_SEGMENT) {
        index_segment(bd);
        return;
    }
    for (uint32_t i = 0; i <= bd->n_era_runs; i++) {
        IndexEntry e = {.bd = bd, .n_blocks = i == 0 ? bd->blocks : 0, .kind = debug_kind[kind]};
        block_era_segment(bd, i, &e.from, &e.to, &e.era);
        if (i > 0 && e.to <= e.from)
            continue;   /* a run nothing was allocated in */
        expected_blocks++;
        index_add(&e);
    }
}

static void index_build(void)
{
    if (index_built)
        return;
    index_n = 0;
    expected_blocks = 0;
    heap_for_each_block(index_block, NULL);
    qsort(index_entries, index_n, sizeof *index_entries, index_cmp);
    index_built = true;
}

static bool index_ok(char *err, size_t err_len)
{
    index_build();
    if (index_n == expected_blocks)
        return true;
    snprintf(err, err_len, "out of C heap indexing the heap's blocks (%zu of %zu entries)", index_n,
             expected_blocks);
    index_built = false;
    return false;
}

void debug_heap_forget(void)
{
    index_built = false;
}

/* The entry whose used area [start, free) holds addr, or NULL. */
static const IndexEntry *index_find(uint64_t addr)
{
    size_t lo = 0, hi = index_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uint64_t)(uintptr_t)index_entries[mid].from <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const IndexEntry *e = &index_entries[lo - 1];
    if (addr >= (uint64_t)(uintptr_t)e->to)
        return NULL;
    return e;
}

/* ----------------------------------------------------------------------
 * Closures
 * ---------------------------------------------------------------------- */

/* The size in words of the closure at c whose info table is info (a
 * validated copy); 0 if it is not a closure strata creates.  c is readable
 * for at least its header, and for the words the size depends on when
 * those are read through fields (heap objects are in mapped blocks). */
static StgWord closure_words(uint64_t c, const StgInfoTable *info)
{
    StgWord field = 0;
    switch (info->type) {
    case BLACKHOLE: {
        StgInfoTable thunk;
        if (!debug_safe_read(&field, c + WORD_SIZE, WORD_SIZE) || !info_read(field, &thunk))
            return 0;
        return THUNK_HEADER_WORDS + (StgWord)thunk.ptrs + thunk.nptrs;
    }
    case ARR_WORDS:
        if (!debug_safe_read(&field, c + WORD_SIZE, WORD_SIZE) ||
            field > STATIC_CLOSURE_MAX_WORDS * WORD_SIZE * 1024)
            return 0;
        return 2 + ROUND_UP_WORDS(field);
    case MUT_ARR_PTRS_CLEAN:
    case MUT_ARR_PTRS_DIRTY:
        if (!debug_safe_read(&field, c + 2 * WORD_SIZE, WORD_SIZE) ||
            field > STATIC_CLOSURE_MAX_WORDS * 1024)
            return 0;
        return 3 + field;
    case STACK:
        if (!debug_safe_read(&field, c + 2 * WORD_SIZE, WORD_SIZE) ||
            field > STATIC_CLOSURE_MAX_WORDS * 1024)
            return 0;
        return sizeof(StgStack) / WORD_SIZE + field;
    case IND:
    case IND_STATIC:
    case MUT_VAR_CLEAN:
    case MUT_VAR_DIRTY:
        return 2;
    case PAP:
    case AP: {
        StgHalfWord n_args;
        uint64_t at = c + (info->type == PAP ? offsetof(StgPAP, n_args) : offsetof(StgAP, n_args));
        if (!debug_safe_read(&n_args, at, sizeof n_args))
            return 0;
        return (info->type == PAP ? sizeof(StgPAP) : sizeof(StgAP)) / WORD_SIZE + n_args;
    }
    case WEAK:
        return sizeof(StgWeak) / WORD_SIZE;
    case TSO:
        return sizeof(StgTSO) / WORD_SIZE;
    default:
        _Static_assert(CONSTR < FUN_STATIC && FUN_STATIC + 1 == THUNK && THUNK < THUNK_STATIC,
                       "constructors, functions, then thunks, in GHC's order");
        if (info->type >= THUNK && info->type <= THUNK_STATIC)
            return THUNK_HEADER_WORDS + (StgWord)info->ptrs + info->nptrs;
        if (info->type >= CONSTR && info->type <= FUN_STATIC)
            return 1 + (StgWord)info->ptrs + info->nptrs;
        return 0;   /* not a closure strata creates */
    }
}

/* Finds the closure at addr: sets *words and returns OK, or an error
 * status with a message.  A heap address must be an object boundary in a
 * block in use; any other address must hold a readable static closure. */
static int closure_locate(uint64_t addr, StgWord *words, bool *in_heap, char *err,
                          size_t err_len)
{
    if (addr == 0 || addr % WORD_SIZE != 0) {
        snprintf(err, err_len, "closure address 0x%llx is not a word-aligned address",
                 (unsigned long long)addr);
        return DEBUG_STATUS_BAD_ADDRESS;
    }
    *in_heap = heap_alloced((const void *)(uintptr_t)addr);
    if (*in_heap) {
        const IndexEntry *e = index_find(addr);
        if (e == NULL) {
            snprintf(err, err_len,
                     "closure address 0x%llx is in the heap but not in the used part of a "
                     "block in use", (unsigned long long)addr);
            return DEBUG_STATUS_BAD_ADDRESS;
        }
        /* Walk the block to check addr is where an object starts. */
        StgPtr p = e->from, end = e->to;
        while (p < end && (uint64_t)(uintptr_t)p < addr) {
            if (*p == 0) {
                p++;
                continue;
            }
            StgInfoTable info;
            StgWord n;
            if (!info_read(*p, &info) || (n = closure_words((uint64_t)(uintptr_t)p, &info)) == 0)
                break;
            p += n;
        }
        StgInfoTable info;
        if ((uint64_t)(uintptr_t)p != addr || !info_read(*p, &info) ||
            (*words = closure_words(addr, &info)) == 0 || p + *words > end) {
            snprintf(err, err_len,
                     "closure address 0x%llx is not the start of an object (block 0x%llx)",
                     (unsigned long long)addr, (unsigned long long)(uintptr_t)e->from);
            return DEBUG_STATUS_BAD_ADDRESS;
        }
        return DEBUG_STATUS_OK;
    }
    if (addr >= (uint64_t)(uintptr_t)mblock_heap_base &&
        addr < (uint64_t)(uintptr_t)mblock_heap_end) {
        snprintf(err, err_len, "closure address 0x%llx is in the heap's free space",
                 (unsigned long long)addr);
        return DEBUG_STATUS_BAD_ADDRESS;
    }
    StgWord header;
    StgInfoTable info;
    if (!debug_safe_read(&header, addr, WORD_SIZE) || !info_read(header, &info) ||
        (*words = closure_words(addr, &info)) == 0 ||
        *words > STATIC_CLOSURE_MAX_WORDS) {
        snprintf(err, err_len,
                 "closure address 0x%llx is neither in the heap nor a readable static closure",
                 (unsigned long long)addr);
        return DEBUG_STATUS_BAD_ADDRESS;
    }
    return DEBUG_STATUS_OK;
}

static int handle_closures(const DebugRequest *req, DebugBuf *out, char *err, size_t err_len)
{
    debug_buf_put_u32(out, req->n_addrs);
    for (uint32_t i = 0; i < req->n_addrs; i++) {
        uint64_t addr = debug_request_addr(req, i);
        StgWord words;
        bool in_heap;
        int st = closure_locate(addr, &words, &in_heap, err, err_len);
        if (st != DEBUG_STATUS_OK)
            return st;
        debug_put_closure_header(out, addr, (uint32_t)words, in_heap);
        uint8_t *dst = debug_buf_reserve(out, words * WORD_SIZE);
        if (dst == NULL)
            break;
        if (in_heap)
            memcpy(dst, (const void *)(uintptr_t)addr, words * WORD_SIZE);
        else if (!debug_safe_read(dst, addr, words * WORD_SIZE)) {
            snprintf(err, err_len, "static closure 0x%llx (%lu words) is not all readable",
                     (unsigned long long)addr, (unsigned long)words);
            return DEBUG_STATUS_BAD_ADDRESS;
        }
    }
    return DEBUG_STATUS_OK;
}

/* ----------------------------------------------------------------------
 * Info tables
 * ---------------------------------------------------------------------- */

static void put_cstr(DebugBuf *out, const char *s)
{
    debug_buf_put_str(out, s, strlen(s));
}

/* The INFO record of the info table at addr (a DebugInfoPut). */
static bool put_info_at(uint64_t addr, DebugBuf *out)
{
    StgInfoTable info;
    if (!info_read(addr, &info))
        return false;
    char name[256];
    safe_read_string((uint64_t)(uintptr_t)info.name, name, sizeof name);
    DebugProvenance prov;
    debug_info_provenance(addr, &info, &prov);
    DebugInfoRecord rec = {addr, info.type, info.ptrs, info.nptrs, info.arity,
                           (uint8_t)prov.source, name, prov.table_name, prov.closure_desc,
                           prov.ty_desc, prov.label, prov.module, prov.src_file, prov.src_span};
    debug_put_info_record(out, &rec);
    return true;
}

/* ----------------------------------------------------------------------
 * Roots and saved objects
 * ---------------------------------------------------------------------- */

static StgStablePtr *saved;          /* mutator-owned; read while paused */
static size_t n_saved, cap_saved;

void debug_saved_add(StgClosure *c)
{
    if (GROW_ARRAY_RESERVE_MIN(saved, cap_saved, n_saved + 1, 16) != 0)
        return;
    saved[n_saved++] = getStablePtr(c);
}

void debug_saved_exit(void)
{
    /* The block index too: both end with the stub. */
    GROW_ARRAY_FREE(index_entries, index_n, index_cap);
    index_built = false;
    GROW_ARRAY_FREE(saved, n_saved, cap_saved);
}

static bool is_saved_handle(StgWord handle)
{
    for (size_t i = 0; i < n_saved; i++)
        if ((StgWord)saved[i] == handle)
            return true;
    return false;
}

typedef struct {
    DebugBuf *out;
    uint32_t count;
} RootWriter;

static void put_root_named(RootWriter *w, uint8_t kind, uint32_t index, uint32_t slot,
                           uint64_t addr, const char *func, const char *file, uint32_t line)
{
    debug_buf_put_u8(w->out, kind);
    debug_buf_put_u32(w->out, index);
    debug_buf_put_u32(w->out, slot);
    debug_buf_put_u64(w->out, addr);
    put_cstr(w->out, func);
    put_cstr(w->out, file);
    debug_buf_put_u32(w->out, line);
    w->count++;
}

/* A root, with the site that pushed it (frames) read safely. */
static void put_root(RootWriter *w, uint8_t kind, uint32_t index, uint32_t slot, uint64_t addr,
                     const StgRootSite *site)
{
    char func[256] = "", file[512] = "";
    StgRootSite s = {NULL, NULL, 0};
    if (site != NULL && debug_safe_read(&s, (uint64_t)(uintptr_t)site, sizeof s)) {
        safe_read_string((uint64_t)(uintptr_t)s.func, func, sizeof func);
        /* __FILE__ is relative to where the unit was compiled; the site's
         * own DWARF names the file from the source root (SourcePath.h). */
        const char *declared = provenance_declaring_file(site);
        if (declared != NULL)
            snprintf(file, sizeof file, "%s", declared);
        else
            safe_read_string((uint64_t)(uintptr_t)s.file, file, sizeof file);
    }
    put_root_named(w, kind, index, slot, addr, func, file, (uint32_t)s.line);
}

/* Note [Naming static roots]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A static closure is a C variable of the program (examples/leak.c's
 * session_cache); the only name it has is in the program's symbol table.
 * The stub names it, through the provenance resolver's per-file ELF and
 * DWARF indexes (profiling/Provenance.h), and sends the symbol, file and
 * line in the root's function, file and line fields, which frames use for
 * their site.  The stub, not the client, because it has the process's
 * mappings and load bias at hand and the indexes already built for info
 * tables, and because the name then travels in snapshots, which outlive
 * the process and its executable.  See docs/design/debugger.md. */
static void put_static_root(RootWriter *w, uint32_t index, StgClosure *p)
{
    StaticName name;
    if (!provenance_static_name(p, &name)) {
        put_root_named(w, DEBUG_ROOT_STATIC, index, 0, (uint64_t)(uintptr_t)p, "", "", 0);
        return;
    }
    char symbol[256];
    if (name.offset != 0)
        snprintf(symbol, sizeof symbol, "%s+0x%llx", name.symbol,
                 (unsigned long long)name.offset);
    else
        snprintf(symbol, sizeof symbol, "%s", name.symbol);
    put_root_named(w, DEBUG_ROOT_STATIC, index, 0, (uint64_t)(uintptr_t)p, symbol, name.file,
                   name.line);
}

static void put_stable_root(StgWord handle, StgClosure *p, void *env)
{
    if (p != NULL && !is_saved_handle(handle))
        put_root(env, DEBUG_ROOT_STABLE_PTR, (uint32_t)handle, 0, (uint64_t)(uintptr_t)p,
                 NULL);
}

/* Frames of every chunk of every attached thread (oldest thread first),
 * newest chunk first; frame numbers count from each thread's newest frame
 * down to its oldest, continuing from one thread to the next, and each
 * thread's TSO follows its frames as a THREAD root named by its id. */
typedef struct {
    RootWriter *w;
    uint32_t frame_no;
} FrameWalk;

static void put_thread_frame_roots(StrataThread *t, void *env)
{
    FrameWalk *fw = env;
    RootWriter *w = fw->w;
    for (StgStack *s = t->tso != NULL ? t->tso->stack : NULL; s != NULL; s = s->prev) {
        /* Frames are found oldest first; collect their starts to number
         * them newest first. */
        size_t n = 0;
        for (StgPtr f = s->stack; f < s->sp; f += ROOT_FRAME_HEADER_WORDS + f[1])
            n++;
        StgPtr *starts = malloc((n ? n : 1) * sizeof *starts);
        if (starts == NULL)
            return;
        size_t i = 0;
        for (StgPtr f = s->stack; f < s->sp; f += ROOT_FRAME_HEADER_WORDS + f[1])
            starts[i++] = f;
        while (i-- > 0) {
            StgPtr f = starts[i];
            for (StgWord k = 0; k < f[1]; k++) {
                StgWord v = f[ROOT_FRAME_HEADER_WORDS + k];
                if (v != 0)
                    put_root(w, DEBUG_ROOT_FRAME, fw->frame_no, (uint32_t)k, v,
                             (const StgRootSite *)f[0]);
            }
            fw->frame_no++;
        }
        free(starts);
    }
    if (t->tso != NULL)
        put_root(w, DEBUG_ROOT_THREAD, t->id, 0, (uint64_t)(uintptr_t)t->tso, NULL);
}

static void put_frame_roots(RootWriter *w)
{
    FrameWalk fw = {w, 0};
    threads_for_each(put_thread_frame_roots, &fw);
}

static void put_roots(DebugBuf *out)
{
    size_t count_at = out->len;
    debug_buf_put_u32(out, 0);
    RootWriter w = {out, 0};
    put_frame_roots(&w);
    for (size_t i = 0; i < n_saved; i++) {
        StgClosure *p = deRefStablePtr(saved[i]);
        if (p != NULL)
            put_root(&w, DEBUG_ROOT_SAVED, (uint32_t)i, 0, (uint64_t)(uintptr_t)p, NULL);
    }
    stable_ptr_for_each(put_stable_root, &w);
    for (StgWord i = 0; i < static_roots_count; i++)
        put_static_root(&w, (uint32_t)i, static_roots[i]);
    for (unsigned g = 1; g < storage_n_gens; g++)
        MUT_LIST_FOR_EACH(storage_gens[g].mut_list, p, {
            put_root(&w, DEBUG_ROOT_REMEMBERED, g, 0, (uint64_t)(uintptr_t)p, NULL);
        });
    debug_buf_set_u32(out, count_at, w.count);
}

/* ----------------------------------------------------------------------
 * Blocks
 * ---------------------------------------------------------------------- */

/* A segment's entry ends with its slots (docs/debug-protocol.md, BLOCKS):
 * u8 size class, u16 words per slot, u16 slots, u16 slots in use; every
 * other entry with 7 bytes 0, which is what a client from before segments
 * reads (and skips). */
static void put_segment_slots(DebugBuf *out, const Segment *seg)
{
    if (seg == NULL) {
        for (int k = 0; k < 7; k++)
            debug_buf_put_u8(out, 0);
        return;
    }
    debug_buf_put_u8(out, seg->size_class);
    debug_buf_put_u16(out, seg->slot_words);
    debug_buf_put_u16(out, seg->n_slots);
    debug_buf_put_u16(out, seg->n_used);
}

static void put_blocks(DebugBuf *out)
{
    debug_buf_put_u32(out, (uint32_t)index_n);
    for (size_t i = 0; i < index_n; i++) {
        const IndexEntry *e = &index_entries[i];
        debug_buf_put_u64(out, (uint64_t)(uintptr_t)e->from);
        debug_buf_put_u64(out, e->era);
        debug_buf_put_u64(out, (uint64_t)(e->to - e->from) * WORD_SIZE);
        debug_buf_put_u32(out, e->n_blocks);
        debug_buf_put_u16(out, e->bd->flags);
        debug_buf_put_u16(out, e->bd->gen_no);
        debug_buf_put_u8(out, e->kind);
        put_segment_slots(out, e->seg);
    }
}

static void put_block_contents(DebugBuf *out, const IndexEntry *e)
{
    debug_put_block_contents(out, (uint64_t)(uintptr_t)e->from,
                             (uint64_t)(e->to - e->from) * WORD_SIZE, e->from);
}

static int handle_block_contents(const DebugRequest *req, DebugBuf *out, char *err,
                                 size_t err_len)
{
    const IndexEntry *e = NULL;
    size_t lo = 0, hi = index_n;
    while (lo < hi) {   /* exact match on a block start, empty blocks too */
        size_t mid = lo + (hi - lo) / 2;
        uint64_t s = (uint64_t)(uintptr_t)index_entries[mid].from;
        if (s == req->addr) {
            e = &index_entries[mid];
            break;
        }
        if (s < req->addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (e == NULL) {
        snprintf(err, err_len, "block-contents: 0x%llx is not the start of a block in use",
                 (unsigned long long)req->addr);
        return DEBUG_STATUS_BAD_ADDRESS;
    }
    put_block_contents(out, e);
    return DEBUG_STATUS_OK;
}

/* ----------------------------------------------------------------------
 * Dispatch
 * ---------------------------------------------------------------------- */

int debug_heap_handle(const DebugRequest *req, DebugBuf *out, char *err, size_t err_len)
{
    if (!index_ok(err, err_len))
        return DEBUG_STATUS_RESOURCE;
    switch (req->cmd) {
    case DEBUG_CMD_ROOTS:
        put_roots(out);
        return DEBUG_STATUS_OK;
    case DEBUG_CMD_SAVED:
        debug_buf_put_u32(out, (uint32_t)n_saved);
        for (size_t i = 0; i < n_saved; i++)
            debug_buf_put_u64(out, (uint64_t)(uintptr_t)deRefStablePtr(saved[i]));
        return DEBUG_STATUS_OK;
    case DEBUG_CMD_CLOSURES:
        return handle_closures(req, out, err, err_len);
    case DEBUG_CMD_INFO:
        return debug_answer_info(req, out, err, err_len, put_info_at);
    case DEBUG_CMD_BLOCKS:
        put_blocks(out);
        return DEBUG_STATUS_OK;
    case DEBUG_CMD_BLOCK_CONTENTS:
        return handle_block_contents(req, out, err, err_len);
    case DEBUG_CMD_ALLOC_SITES:
        debug_alloc_sites_put(out);
        return DEBUG_STATUS_OK;
    default:
        snprintf(err, err_len, "command %u is not a heap request", (unsigned)req->cmd);
        return DEBUG_STATUS_UNKNOWN_COMMAND;
    }
}

/* The SNAPSHOT stream's source: this pause's block index and roots. */
static void snapshot_blocks(void *env, DebugBuf *out)
{
    (void)env;
    put_blocks(out);
}

static void snapshot_roots(void *env, DebugBuf *out)
{
    (void)env;
    put_roots(out);
}

static void snapshot_block(void *env, size_t i, uint64_t *start, uint64_t *used,
                           const void **bytes)
{
    (void)env;
    const IndexEntry *e = &index_entries[i];
    *start = (uint64_t)(uintptr_t)e->from;
    *used = (uint64_t)(e->to - e->from) * WORD_SIZE;
    *bytes = e->from;
}

bool debug_heap_snapshot(const DebugConn *c)
{
    char err[128];
    if (!index_ok(err, sizeof err))
        return debug_send_error(c, DEBUG_STATUS_RESOURCE, DEBUG_CMD_SNAPSHOT, err);
    DebugSnapshotSource s = {snapshot_blocks, snapshot_roots, index_n, snapshot_block, NULL};
    return debug_send_snapshot(c, &s);
}
