/*
 * utils/debug-client/Decode.c -- closures decoded with their info tables:
 * sizes and pointer fields by closure type, the same layout rules as the
 * runtime's (sm/heap/ClosureSize.h, docs/design/objects.md, and the table in
 * docs/debug-protocol.md), and the names tools print.
 */
#include <stdio.h>
#include <string.h>

#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "GhcLayout.h"
#include "HeapLookup.h"
#include "strata/Closures.h"
#include "strata/Debug.h"

int dbg_static_words(DbgClient *c, uint64_t addr, const uint64_t **words, uint32_t *n);
const char *strata_closure_type_name(StgHalfWord type);

/* ----------------------------------------------------------------------
 * Names
 * ---------------------------------------------------------------------- */

const char *dbg_closure_type_name(uint32_t type)
{
    return type < N_CLOSURE_TYPES ? strata_closure_type_name(type) : "INVALID_OBJECT";
}

bool dbg_type_is_thunk(uint32_t t)
{
    return t >= THUNK && t <= THUNK_SELECTOR;
}

bool dbg_type_is_constr(uint32_t t)
{
    return t >= CONSTR && t <= CONSTR_NOCAF;
}

const char *dbg_type_label(const DbgInfo *info)
{
    if (dbg_type_is_constr(info->type))
        return info->name[0] ? info->name : "<unknown>";
    return dbg_closure_type_name(info->type);
}

const char *dbg_info_site(const DbgInfo *info, char *buf, size_t len)
{
    if (info->src_file[0] == '\0')
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, ", %s%s%s", info->src_file, info->src_span[0] ? ":" : "",
                 info->src_span);
    return buf;
}

int dbg_closure_type_by_name(const char *name)
{
    for (uint32_t t = 1; t < N_CLOSURE_TYPES; t++)
        if (strcmp(dbg_closure_type_name(t), name) == 0)
            return (int)t;
    return -1;
}

const char *dbg_root_kind_name(uint8_t kind)
{
    switch (kind) {
    case DEBUG_ROOT_FRAME: return "local-root frame";
    case DEBUG_ROOT_STABLE_PTR: return "stable pointer";
    case DEBUG_ROOT_STATIC: return "static closure";
    case DEBUG_ROOT_SAVED: return "saved object";
    case DEBUG_ROOT_REMEMBERED: return "remembered set";
    case DEBUG_ROOT_THREAD: return "thread";
    case DEBUG_ROOT_WEAK: return "weak pointer";
    default: return "unknown root";
    }
}

const char *dbg_block_kind_name(uint8_t kind)
{
    switch (kind) {
    case DEBUG_BLOCK_SMALL: return "small";
    case DEBUG_BLOCK_LARGE: return "large";
    case DEBUG_BLOCK_PINNED: return "pinned";
    case DEBUG_BLOCK_NURSERY: return "nursery";
    case DEBUG_BLOCK_COMPACT: return "compact";
    case DEBUG_BLOCK_SEGMENT: return "segment";
    default: return "unknown";
    }
}

/* ----------------------------------------------------------------------
 * Sizes and fields
 * ---------------------------------------------------------------------- */

/* Words of a closure given its first words (avail of them readable); 0 if
 * unknown or inconsistent. */
static uint64_t closure_size(DbgClient *c, const DbgInfo *info, const uint64_t *w,
                             uint64_t avail)
{
    if (dbg_heap_is_ghc(c))
        return ghc_closure_words(c, info, w, avail);
    uint32_t t = info->type;
    if (t >= CONSTR && t <= FUN_STATIC)
        return 1 + (uint64_t)info->ptrs + info->nptrs;
    if (t >= THUNK && t <= THUNK_STATIC)
        return THUNK_HEADER_WORDS + (uint64_t)info->ptrs + info->nptrs;
    switch (t) {
    case BLACKHOLE: {
        if (avail < 2)
            return 0;
        const DbgInfo *thunk = dbg_info(c, w[1]);
        return thunk ? THUNK_HEADER_WORDS + (uint64_t)thunk->ptrs + thunk->nptrs : 0;
    }
    case IND: case IND_STATIC: case MUT_VAR_CLEAN: case MUT_VAR_DIRTY:
        return 2;
    case ARR_WORDS:
        return avail < 2 ? 0 : 2 + (w[1] + 7) / 8;
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
        return avail < 3 ? 0 : 3 + w[2];
    case PAP:   /* arity and n_args share word 1, n_args the high half */
        return avail < 2 ? 0 : sizeof(StgPAP) / 8 + (w[1] >> 32);
    case AP:    /* ... and word 2 of an AP, after its thunk header */
        return avail < 3 ? 0 : sizeof(StgAP) / 8 + (w[2] >> 32);
    case WEAK:
        return sizeof(StgWeak) / 8;
    case TSO:
        return sizeof(StgTSO) / 8;
    case STACK:
        return avail < 3 ? 0 : sizeof(StgStack) / 8 + w[2];
    default:
        return 0;
    }
}

static int decode_at(DbgClient *c, uint64_t addr, const uint64_t *w, uint64_t avail,
                     const DbgBlock *b, DbgClosure *out)
{
    if (avail == 0 || w[0] == 0)
        return dbg_fail(c, "no closure at 0x%llx", (unsigned long long)addr);
    const DbgInfo *info = info_of(c, w[0]);
    if (info == NULL)
        return dbg_fail(c, "closure 0x%llx: bad info pointer 0x%llx (%s)",
                        (unsigned long long)addr, (unsigned long long)w[0], c->err);
    uint64_t size = closure_size(c, info, w, avail);
    if (size == 0 || size > avail)
        return dbg_fail(c, "closure 0x%llx (%s): size %llu does not fit (%llu words left)",
                        (unsigned long long)addr, dbg_closure_type_name(info->type),
                        (unsigned long long)size, (unsigned long long)avail);
    /* A GHC object's era is in its own header (GhcLayout.c), not its block's. */
    uint64_t era = b == NULL ? 0 : dbg_heap_is_ghc(c) ? ghc_closure_era(c, w, avail) : b->era;
    *out = (DbgClosure){addr, w, (uint32_t)size, info, b, era};
    return 0;
}

int dbg_closure_in(DbgClient *c, const DbgBlock *b, uint64_t addr, DbgClosure *out)
{
    const uint8_t *data = b->data != NULL ? b->data : dbg_block_data(c, b);
    if (data == NULL)
        return -1;
    uint64_t off = addr - b->start;
    return decode_at(c, addr, (const uint64_t *)(const void *)(data + off),
                     (b->used_bytes - off) / 8, b, out);
}

int dbg_closure(DbgClient *c, uint64_t addr, DbgClosure *out)
{
    if (addr % 8 != 0)
        return dbg_fail(c, "0x%llx is not word aligned", (unsigned long long)addr);
    const uint64_t *w;
    uint64_t avail;
    const DbgBlock *b;
    if (dbg_words_at(c, addr, &w, &avail, &b) != 0)
        return -1;
    return decode_at(c, addr, w, avail, b, out);
}

/* Calls f(env, i) for every word index i of cl that is a pointer field
 * (NULL or not), in order. */
static void for_each_ptr_word(DbgClient *c, const DbgClosure *cl,
                              void (*f)(void *env, uint64_t i), void *env)
{
    if (dbg_heap_is_ghc(c)) {
        ghc_for_each_ptr_word(c, cl, f, env);
        return;
    }
    const uint64_t *w = cl->words;
    uint32_t t = cl->info->type;
    uint64_t first = 0, count = 0;
    if (t >= CONSTR && t <= FUN_STATIC) {
        first = 1;
        count = cl->info->ptrs;
    } else if (t >= THUNK && t <= THUNK_STATIC) {
        first = THUNK_HEADER_WORDS;
        count = cl->info->ptrs;
    } else {
        switch (t) {
        case BLACKHOLE: {
            const DbgInfo *thunk = dbg_info(c, w[1]);
            first = THUNK_HEADER_WORDS;
            count = thunk ? thunk->ptrs : 0;
            break;
        }
        case IND: case IND_STATIC: case MUT_VAR_CLEAN: case MUT_VAR_DIRTY:
            first = 1;
            count = 1;
            break;
        case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
            first = 3;
            count = w[1] <= w[2] ? w[1] : w[2];
            break;
        case PAP:   /* fun, then the arguments */
            first = 2;
            count = 1 + (w[1] >> 32);
            break;
        case AP:
            first = 3;
            count = 1 + (w[2] >> 32);
            break;
        case WEAK:
            /* Key and value keep nothing alive (the collector's view):
             * no pointer fields for reachability. */
            break;
        case TSO:
            first = 1;
            count = 2;
            break;
        case STACK: {
            /* prev, then the slots of the frames in [stack, sp). */
            f(env, 1);
            uint64_t end = w[3] > cl->addr ? (w[3] - cl->addr) / 8 : 0;
            if (end > cl->n_words)
                end = cl->n_words;
            for (uint64_t fr = 4; fr + 2 <= end; fr += 2 + w[fr + 1]) {
                uint64_t slots = w[fr + 1];
                if (fr + 2 + slots > end)
                    break;
                for (uint64_t k = 0; k < slots; k++)
                    f(env, fr + 2 + k);
            }
            return;
        }
        default:
            return;
        }
    }
    if (first + count > cl->n_words)
        count = cl->n_words > first ? cl->n_words - first : 0;
    for (uint64_t i = 0; i < count; i++)
        f(env, first + i);
}

typedef struct {
    const uint64_t *words;
    uint64_t *out;
    size_t cap, n;
} PtrCollect;

static void collect_ptr(void *env, uint64_t i)
{
    PtrCollect *p = env;
    if (p->words[i] == 0)
        return;
    if (p->n < p->cap)
        p->out[p->n] = p->words[i];
    p->n++;
}

size_t dbg_closure_ptrs(DbgClient *c, const DbgClosure *cl, uint64_t *out, size_t cap)
{
    if (dbg_heap_is_ghc(c))
        return ghc_closure_ptrs(c, cl, out, cap);
    uint32_t t = cl->info->type;
    if ((t >= CONSTR && t <= FUN_STATIC) || (t >= THUNK && t <= THUNK_STATIC)) {
        /* The common layouts, without a call per field: the same fields
         * as for_each_ptr_word's. */
        uint64_t first = t >= THUNK ? THUNK_HEADER_WORDS : 1, count = cl->info->ptrs;
        if (first + count > cl->n_words)
            count = cl->n_words > first ? cl->n_words - first : 0;
        size_t n = 0;
        for (uint64_t i = 0; i < count; i++) {
            uint64_t p = cl->words[first + i];
            if (p == 0)
                continue;
            if (n < cap)
                out[n] = p;
            n++;
        }
        return n;
    }
    PtrCollect p = {cl->words, out, cap, 0};
    for_each_ptr_word(c, cl, collect_ptr, &p);
    return p.n;
}

typedef struct {
    DbgField *out;
    size_t cap;
} FieldMark;

static void mark_field(void *env, uint64_t i)
{
    FieldMark *m = env;
    if (i < m->cap)
        m->out[i].is_ptr = true;
}

size_t dbg_closure_fields(DbgClient *c, const DbgClosure *cl, DbgField *out, size_t cap)
{
    for (size_t i = 0; i < cl->n_words && i < cap; i++)
        out[i] = (DbgField){(uint32_t)i, false, cl->words[i]};
    FieldMark m = {out, cap};
    for_each_ptr_word(c, cl, mark_field, &m);
    return cl->n_words;
}

int dbg_block_objects(DbgClient *c, const DbgBlock *b,
                      bool (*f)(DbgClient *c, const DbgClosure *cl, void *env), void *env)
{
    const uint8_t *data = dbg_block_data(c, b);
    if (data == NULL)
        return b->used_bytes == 0 ? 0 : -1;
    const uint64_t *w = (const uint64_t *)(const void *)data;
    uint64_t n = b->used_bytes / 8;
    for (uint64_t i = 0; i < n;) {
        if (w[i] == 0) {   /* slop, or what a snapshot left out */
            i++;
            continue;
        }
        DbgClosure cl;
        if (decode_at(c, b->start + i * 8, w + i, n - i, b, &cl) != 0)
            return -1;
        if (!f(c, &cl, env))
            return 0;
        i += cl.n_words;
    }
    return 0;
}
