/*
 * utils/debug-client/GhcLayout.c -- closures of a GHC 9.10 heap, as the
 * GHC stub (ghc/, docs/design/ghc-stub.md) serves them: sizes and pointer
 * fields by closure type, after a header of target.header_words words (the
 * info pointer, and GHC's profiling header in a -prof program); pointers
 * untagged; a thunk's or function's SRT as one more pointer; a partial
 * application's arguments by its function's argument bitmap.  What GHC
 * lays out by struct the stub normalises in INFO (pointer and non-pointer
 * counts, or a word bitmap), so only the layouts with a length field are
 * written down here.  Decode.c calls these for a GHC heap.
 */
#include <string.h>

#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "GhcLayout.h"
#include "strata/ClosureTypes.h"
#include "strata/DebugProtocol.h"

/* A closure's size from its first avail words, or 0 when it is unknown or
 * does not fit.  h is the header's words. */
uint64_t ghc_closure_words(DbgClient *c, const DbgInfo *info, const uint64_t *w, uint64_t avail)
{
    uint64_t h = c->target.header_words;
    uint64_t fixed = (uint64_t)info->ptrs + info->nptrs;
    switch (info->type) {
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0: case THUNK_1_1:
    case THUNK_0_2: case THUNK_SELECTOR:
        return h + 1 + fixed;   /* GHC's thunk header has a padding word */
    case THUNK_STATIC: case IND_STATIC:
        return h + 3;           /* a CAF: indirectee, static link, saved_info */
    case AP:
        return avail < h + 2 ? 0 : h + 3 + (w[h + 1] >> 32);   /* pad, arity|n_args, fun */
    case PAP:
        return avail < h + 1 ? 0 : h + 2 + (w[h] >> 32);       /* arity|n_args, fun */
    case AP_STACK:
        return avail < h + 2 ? 0 : h + 3 + w[h + 1];           /* pad, size, fun */
    case BCO:
        return avail < h + 4 ? 0 : w[h + 3] >> 32;             /* its own size */
    case ARR_WORDS:
        return avail < h + 1 ? 0 : h + 1 + (w[h] + 7) / 8;
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
    case MUT_ARR_PTRS_FROZEN_DIRTY: case MUT_ARR_PTRS_FROZEN_CLEAN:
        return avail < h + 2 ? 0 : h + 2 + w[h + 1];           /* ptrs, size (cards too) */
    case SMALL_MUT_ARR_PTRS_CLEAN: case SMALL_MUT_ARR_PTRS_DIRTY:
    case SMALL_MUT_ARR_PTRS_FROZEN_DIRTY: case SMALL_MUT_ARR_PTRS_FROZEN_CLEAN:
        return avail < h + 1 ? 0 : h + 1 + w[h];
    case STACK:
        return avail < h + 1 ? 0 : h + 2 + (w[h] & 0xffffffffu);   /* size, sp */
    case CONTINUATION:
        return avail < h + 3 ? 0 : h + 3 + w[h + 2];
    case WEAK: case TSO: case TREC_CHUNK: case COMPACT_NFDATA:
        return info->bitmap_bits;   /* the stub sends their layout as a bitmap */
    default:
        if (info->type >= CONSTR && info->type <= FUN_STATIC)
            return h + fixed;
        switch (info->type) {
        case PRIM: case MUT_PRIM: case MVAR_CLEAN: case MVAR_DIRTY: case TVAR:
        case BLOCKING_QUEUE: case IND: case BLACKHOLE:
        case MUT_VAR_CLEAN: case MUT_VAR_DIRTY:
            return h + fixed;   /* counts normalised by the stub */
        default:
            return 0;           /* stack frames, WHITEHOLE: not heap objects here */
        }
    }
}

/* Bit i of an LSB-first bitmap. */
static bool bit(const uint8_t *bits, uint64_t i)
{
    return (bits[i / 8] >> (i % 8) & 1) != 0;
}

/* The argument bitmap of the function at fun (a FUN, or a BCO whose own
 * large bitmap marks non-pointers), for a PAP's or an AP's payload: calls
 * f for each of the first n argument words that is a pointer, starting at
 * word first of cl. */
static void pap_args(DbgClient *c, uint64_t fun, uint64_t first, uint64_t n,
                     void (*f)(void *env, uint64_t i), void *env)
{
    const uint64_t *w;
    uint64_t avail;
    const DbgBlock *b;
    const DbgInfo *info;
    if (dbg_words_at(c, fun & ~(uint64_t)7, &w, &avail, &b) != 0 || avail == 0 ||
        (info = dbg_info(c, w[0])) == NULL)
        return;   /* arguments of an unreadable function are not followed */
    if (info->type == BCO) {
        uint64_t h = c->target.header_words, at = h + 4;   /* StgLargeBitmap */
        if (avail <= at)
            return;
        uint64_t size = w[at];
        for (uint64_t i = 0; i < n && i < size && at + 1 + i / 64 < avail; i++)
            if ((w[at + 1 + i / 64] >> (i % 64) & 1) == 0)
                f(env, first + i);
        return;
    }
    for (uint64_t i = 0; i < n && i < info->bitmap_bits; i++)
        if (bit(info->bitmap, i))
            f(env, first + i);
}

static void word_range(uint64_t first, uint64_t count, void (*f)(void *env, uint64_t i),
                       void *env)
{
    for (uint64_t i = 0; i < count; i++)
        f(env, first + i);
}

void ghc_for_each_ptr_word(DbgClient *c, const DbgClosure *cl, void (*f)(void *env, uint64_t i),
                           void *env)
{
    const uint64_t *w = cl->words;
    const DbgInfo *in = cl->info;
    uint64_t h = c->target.header_words, n = cl->n_words;
    switch (in->type) {
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0: case THUNK_1_1:
    case THUNK_0_2: case THUNK_STATIC: case THUNK_SELECTOR:
        word_range(h + 1, in->ptrs, f, env);
        return;
    case AP:
        f(env, h + 2);
        pap_args(c, w[h + 2], h + 3, n - (h + 3), f, env);
        return;
    case PAP:
        f(env, h + 1);
        pap_args(c, w[h + 1], h + 2, n - (h + 2), f, env);
        return;
    case AP_STACK:
        f(env, h + 2);   /* the saved stack frames are not decoded */
        return;
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
    case MUT_ARR_PTRS_FROZEN_DIRTY: case MUT_ARR_PTRS_FROZEN_CLEAN:
        word_range(h + 2, w[h] <= n - (h + 2) ? w[h] : n - (h + 2), f, env);
        return;
    case SMALL_MUT_ARR_PTRS_CLEAN: case SMALL_MUT_ARR_PTRS_DIRTY:
    case SMALL_MUT_ARR_PTRS_FROZEN_DIRTY: case SMALL_MUT_ARR_PTRS_FROZEN_CLEAN:
        word_range(h + 1, n - (h + 1), f, env);
        return;
    case ARR_WORDS: case STACK: case CONTINUATION:
        return;   /* a stack's frames are roots (the stub lists them) */
    case WEAK: case TSO: case TREC_CHUNK: case COMPACT_NFDATA:
        for (uint64_t i = 0; i < n && i < in->bitmap_bits; i++)
            if (bit(in->bitmap, i))
                f(env, i);
        return;
    default:
        word_range(h, in->ptrs, f, env);   /* counts normalised by the stub */
        return;
    }
}

typedef struct {
    const uint64_t *words;
    uint32_t n_words;
    uint64_t *out;
    size_t cap, n;
} GhcPtrs;

static void take(GhcPtrs *p, uint64_t v)
{
    v &= ~(uint64_t)7;   /* GHC keeps a constructor's tag in a pointer's low bits */
    if (v == 0)
        return;
    if (p->n < p->cap)
        p->out[p->n] = v;
    p->n++;
}

static void take_word(void *env, uint64_t i)
{
    GhcPtrs *p = env;
    if (i < p->n_words)
        take(p, p->words[i]);
}

size_t ghc_closure_ptrs(DbgClient *c, const DbgClosure *cl, uint64_t *out, size_t cap)
{
    GhcPtrs p = {cl->words, cl->n_words, out, cap, 0};
    uint32_t t = cl->info->type;
    _Static_assert(CONSTR == 1 && FUN_STATIC + 1 == THUNK && THUNK_STATIC == 21,
                   "constructors, functions, then thunks, in GHC's order");
    if (t >= CONSTR && t <= THUNK_STATIC) {
        /* The common layouts without a call per field: the fields
         * ghc_for_each_ptr_word gives them. */
        uint64_t first = c->target.header_words + (t >= THUNK), end = first + cl->info->ptrs;
        for (uint64_t i = first; i < end && i < cl->n_words; i++)
            take(&p, cl->words[i]);
    } else {
        ghc_for_each_ptr_word(c, cl, take_word, &p);
    }
    if (cl->info->srt != 0)
        take(&p, cl->info->srt);   /* the static closures the code refers to */
    return p.n;
}

uint64_t ghc_closure_era(DbgClient *c, const uint64_t *w, uint64_t avail)
{
    /* A -prof header is the cost-centre stack, then the era (+RTS -he). */
    return (c->target.heap_flags & DEBUG_HEAP_ERAS_IN_HEADERS) && avail >= 3 ? w[2] : 0;
}

/* A live weak pointer's fields (GHC's StgWeak after the header:
 * cfinalizers, key, value, finalizer, link); "no finalizer" is GHC's
 * NO_FINALIZER closure in both finalizer fields. */
static bool is_no_finalizer(DbgClient *c, uint64_t addr)
{
    const uint64_t *w;
    uint64_t avail;
    const DbgBlock *b;
    const DbgInfo *info;
    return addr == 0 ||
           (dbg_words_at(c, addr & ~(uint64_t)7, &w, &avail, &b) == 0 && avail > 0 &&
            (info = dbg_info(c, w[0])) != NULL && strcmp(info->name, "NO_FINALIZER") == 0);
}

void ghc_weak_fields(DbgClient *c, const DbgClosure *cl, uint64_t *key, uint64_t *value,
                     bool *has_finalizer)
{
    uint64_t h = c->target.header_words;
    *key = cl->words[h + 1] & ~(uint64_t)7;
    *value = cl->words[h + 2] & ~(uint64_t)7;
    *has_finalizer = cl->n_words > h + 3 &&
                     (!is_no_finalizer(c, cl->words[h + 3]) || !is_no_finalizer(c, cl->words[h]));
}
