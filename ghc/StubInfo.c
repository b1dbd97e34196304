/*
 * ghc/StubInfo.c -- the INFO request for a GHC heap (protocol version 2):
 * each info table normalised to what strata-debug decodes: constructor
 * names from GHC's con desc, the layout of GHC's own objects as pointer
 * and non-pointer counts or a word bitmap, a function's argument bitmap,
 * the table's SRT, and IPE provenance (-finfo-table-map) where the
 * program has it.  Relies on GHC's InfoTables.h, FunTypes.h and IPE.h.
 * See docs/design/ghc-stub.md and docs/debug-protocol.md ("Version 2").
 */
#include "GhcStub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bitmap_set(StubBitmap *m, uint32_t i)
{
    if (i < STUB_BITMAP_MAX_BITS)
        m->bytes[i / 8] |= (uint8_t)(1u << (i % 8));
}

bool stub_bitmap_is_ptr(const StubBitmap *m, uint32_t i)
{
    return i < m->bits && i < STUB_BITMAP_MAX_BITS && (m->bytes[i / 8] >> (i % 8) & 1) != 0;
}

void stub_bitmap_clear(StubBitmap *m)
{
    memset(m->bytes, 0, (m->bits + 7) / 8 < sizeof m->bytes ? (m->bits + 7) / 8 : sizeof m->bytes);
    m->bits = 0;
}

void stub_bitmap_small(StubBitmap *m, StgWord bitmap)
{
    stub_bitmap_clear(m);
    m->bits = (uint32_t)BITMAP_SIZE(bitmap);
    StgWord bits = BITMAP_BITS(bitmap);
    for (uint32_t i = 0; i < m->bits && i < BITS_IN(StgWord); i++)
        if (((bits >> i) & 1) == 0)
            bitmap_set(m, i);
}

void stub_bitmap_large(StubBitmap *m, uint64_t addr)
{
    stub_bitmap_clear(m);
    StgWord size;
    if (!stub_safe_read(&size, addr, sizeof size) || size > STUB_BITMAP_MAX_BITS)
        return;
    m->bits = (uint32_t)size;
    for (uint32_t w = 0; w * BITS_IN(StgWord) < size; w++) {
        StgWord bits;
        if (!stub_safe_read(&bits, addr + (1 + w) * sizeof(StgWord), sizeof bits)) {
            stub_bitmap_clear(m);
            return;
        }
        for (uint32_t b = 0; b < BITS_IN(StgWord) && w * BITS_IN(StgWord) + b < size; b++)
            if (((bits >> b) & 1) == 0)
                bitmap_set(m, w * BITS_IN(StgWord) + b);
    }
}

/* A function's arguments, as a PAP, an AP or a RET_FUN frame lays them
 * out: GHC's rule (scavenge_PAP_payload) by the function's type. */
void stub_fun_arg_bitmap(uint64_t info_ptr, StubBitmap *m)
{
    stub_bitmap_clear(m);
    StgFunInfoTable f;
    if (!stub_safe_read(&f, info_ptr - sizeof f, sizeof f))
        return;
    switch (f.f.fun_type) {
    case ARG_GEN:
        stub_bitmap_small(m, f.f.b.bitmap);
        break;
    case ARG_GEN_BIG:
        /* An offset from the end of the table (tables next to code). */
        stub_bitmap_large(m, info_ptr + (uint64_t)(int64_t)f.f.b.bitmap_offset);
        break;
    case ARG_BCO:
        break;   /* the bitmap is in the BCO itself (strata-debug reads it there) */
    default:
        if (f.f.fun_type <= ARG_PPPPPPPP)
            stub_bitmap_small(m, stg_arg_bitmaps[f.f.fun_type]);
        break;
    }
}

static void set_field(StubBitmap *m, size_t byte_offset)
{
    bitmap_set(m, (uint32_t)(byte_offset / sizeof(StgWord)));
}

/* The objects whose pointer fields are not all first, or not pointers in
 * strata-debug's sense (a weak pointer's fields keep nothing alive): their
 * size and pointer words, word 0 being the info pointer. */
static bool object_bitmap(uint32_t type, StubBitmap *m)
{
    switch (type) {
    case TSO:
        /* The fields GHC's collector follows (scavengeTSO); block_info is
         * always a closure in the threaded runtime. */
        m->bits = sizeofW(StgTSO);
        set_field(m, offsetof(StgTSO, _link));
        set_field(m, offsetof(StgTSO, stackobj));
        set_field(m, offsetof(StgTSO, block_info));
        set_field(m, offsetof(StgTSO, trec));
        set_field(m, offsetof(StgTSO, label));
        set_field(m, offsetof(StgTSO, blocked_exceptions));
        set_field(m, offsetof(StgTSO, bq));
        return true;
    case TREC_CHUNK:
        m->bits = sizeofW(StgTRecChunk);
        set_field(m, offsetof(StgTRecChunk, prev_chunk));
        for (size_t i = 0; i < TREC_CHUNK_NUM_ENTRIES; i++) {
            size_t e = offsetof(StgTRecChunk, entries) + i * sizeof(TRecEntry);
            set_field(m, e + offsetof(TRecEntry, tvar));
            set_field(m, e + offsetof(TRecEntry, expected_value));
            set_field(m, e + offsetof(TRecEntry, new_value));
        }
        return true;
    case WEAK:
        m->bits = sizeofW(StgWeak);
        return true;
    case COMPACT_NFDATA:
        m->bits = sizeofW(StgCompactNFData);
        set_field(m, offsetof(StgCompactNFData, result));
        return true;
    default:
        return false;
    }
}

/* Pointer and non-pointer words after the header, pointers first, for
 * the types strata-debug decodes that way. */
static void layout_counts(const StgInfoTable *info, uint16_t *ptrs, uint16_t *nptrs)
{
    *ptrs = *nptrs = 0;
    switch (info->type) {
    case MVAR_CLEAN: case MVAR_DIRTY:
        *ptrs = 3;   /* head, tail, value */
        return;
    case TVAR:
        *ptrs = 2;   /* current value, watch queue */
        *nptrs = 1;
        return;
    case BLOCKING_QUEUE:
        *ptrs = 4;   /* link, blackhole, owner, queue */
        return;
    case IND: case IND_STATIC: case BLACKHOLE: case MUT_VAR_CLEAN: case MUT_VAR_DIRTY:
    case THUNK_SELECTOR:
        *ptrs = 1;   /* indirectee, variable, selectee */
        return;
    case BCO:
        *ptrs = 3;   /* instructions, literals, free variables */
        return;
    default:
        if ((info->type >= CONSTR && info->type <= THUNK_STATIC) || info->type == PRIM ||
            info->type == MUT_PRIM) {
            *ptrs = (uint16_t)info->layout.payload.ptrs;
            *nptrs = (uint16_t)info->layout.payload.nptrs;
        }
    }
}

/* The constructor of GHC's con desc "package:Module.Sub.Con": what
 * follows the module's capitalised, dot-separated names. */
static const char *short_con_name(const char *desc)
{
    const char *colon = strrchr(desc, ':');
    const char *p = colon != NULL && colon[1] != '\0' ? colon + 1 : desc;
    for (;;) {
        const char *q = p;
        if (*q < 'A' || *q > 'Z')
            return p;
        while ((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') ||
               *q == '_' || *q == '\'')
            q++;
        if (*q != '.' || q[1] == '\0')
            return p;
        p = q + 1;
    }
}

typedef struct {
    char name[512], table_name[512], closure_desc[512], ty_desc[512], label[512];
    char module[512], src_file[512], src_span[128];
    uint8_t source;
} InfoNames;

bool stub_ipe(uint64_t info_ptr, InfoProvEnt *out)
{
    /* GHC's IPE map is keyed by the word in a closure's header (the
     * entry code, with tables next to code). */
    return lookupIPE((const StgInfoTable *)(uintptr_t)info_ptr, out);
}

/* Names and provenance: IPE where the program was built with
 * -finfo-table-map, the con desc for constructors, and in a -prof build
 * the table's own description. */
static void info_names(uint64_t info_ptr, const StgInfoTable *info, InfoNames *n)
{
    memset(n, 0, sizeof *n);
    n->source = DEBUG_PROV_NONE;
    if (info->type >= CONSTR && info->type <= CONSTR_NOCAF) {
        StgConInfoTable con;
        if (stub_safe_read(&con, info_ptr - sizeof con, sizeof con))
            stub_safe_string(info_ptr + (uint64_t)(int64_t)con.con_desc, n->name, sizeof n->name);
        snprintf(n->closure_desc, sizeof n->closure_desc, "%s", short_con_name(n->name));
    }
#if defined(PROFILING)
    if (n->closure_desc[0] == '\0')
        stub_safe_string(info_ptr + (uint64_t)(int64_t)info->prof.closure_desc_off,
                         n->closure_desc, sizeof n->closure_desc);
#endif
    /* The runtime's own tables have no IPE entry; a dead weak pointer's is
     * the one a client must tell from a live one's (both are WEAKs). */
    if (info_ptr == (uint64_t)(uintptr_t)&stg_DEAD_WEAK_info) {
        snprintf(n->name, sizeof n->name, "DEAD_WEAK");
        snprintf(n->table_name, sizeof n->table_name, "stg_DEAD_WEAK_info");
    }
    InfoProvEnt ipe;
    if (!stub_ipe(info_ptr, &ipe))
        return;
    n->source = DEBUG_PROV_EXPLICIT;
    const InfoProv *p = &ipe.prov;
    snprintf(n->table_name, sizeof n->table_name, "%s", p->table_name ? p->table_name : "");
    snprintf(n->ty_desc, sizeof n->ty_desc, "%s", p->ty_desc ? p->ty_desc : "");
    snprintf(n->label, sizeof n->label, "%s", p->label ? p->label : "");
    snprintf(n->module, sizeof n->module, "%s", p->module ? p->module : "");
    snprintf(n->src_file, sizeof n->src_file, "%s", p->src_file ? p->src_file : "");
    snprintf(n->src_span, sizeof n->src_span, "%s", p->src_span ? p->src_span : "");
    if (n->name[0] == '\0')
        snprintf(n->name, sizeof n->name, "%s", n->table_name);
}

/* The static closure the table's SRT field names, or 0: thunks,
 * functions and return frames have one (tables next to code on a 64-bit
 * target keep its offset from the end of the table in the srt field). */
uint64_t stub_info_srt(uint64_t info_ptr, const StgInfoTable *info)
{
    if (!hasSRT(closure_flags[info->type]) || info->srt == 0)
        return 0;
    return info_ptr + (uint64_t)(int64_t)info->srt;
}

static void put_info(DebugBuf *out, uint64_t info_ptr, const StgInfoTable *info)
{
    InfoNames *n = malloc(sizeof *n);
    StubBitmap *m = calloc(1, sizeof *m);
    if (n == NULL || m == NULL) {
        free(n);
        free(m);
        out->oom = true;
        return;
    }
    info_names(info_ptr, info, n);
    uint16_t ptrs, nptrs;
    layout_counts(info, &ptrs, &nptrs);
    uint32_t arity = 0;
    if (info->type >= FUN && info->type <= FUN_STATIC) {
        StgFunInfoTable f;
        if (stub_safe_read(&f, info_ptr - sizeof f, sizeof f))
            arity = f.f.arity;
        stub_fun_arg_bitmap(info_ptr, m);
    } else {
        object_bitmap(info->type, m);
    }
    DebugInfoRecord rec = {info_ptr, info->type, ptrs, nptrs, arity, n->source, n->name,
                           n->table_name, n->closure_desc, n->ty_desc, n->label, n->module,
                           n->src_file, n->src_span};
    debug_put_info_record(out, &rec);
    /* Version 2: the SRT, then the pointer bitmap. */
    debug_buf_put_u64(out, stub_info_srt(info_ptr, info));
    debug_buf_put_u32(out, m->bits);
    debug_buf_put_bytes(out, m->bytes, (m->bits + 7) / 8);
    free(n);
    free(m);
}

/* The INFO record of the info table at addr (a DebugInfoPut). */
static bool put_info_at(uint64_t addr, DebugBuf *out)
{
    StgInfoTable info;
    if (!stub_info_read(addr, &info))
        return false;
    put_info(out, addr, &info);
    return true;
}

int stub_info(const DebugRequest *req, DebugBuf *out, char *err, size_t err_len)
{
    return debug_answer_info(req, out, err, err_len, put_info_at);
}
