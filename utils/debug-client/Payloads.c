/*
 * utils/debug-client/Payloads.c -- the wire payloads' decoders
 * (docs/debug-protocol.md), shared by the socket (Client.c) and the
 * snapshot reader (Snapshot.c): the target, the block list, the roots,
 * the info tables and the static closures, into the client's state; and
 * freeing that state.
 */
#include <stdlib.h>
#include <string.h>

#include "BlockIndex.h"
#include "BlockStore.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Payloads.h"
#include "strata/Block.h"
#include "strata/Debug.h"

/* The heaps a version 2 stub may serve: GHC 9.10's (Note [One GHC version]
 * in ghc/GhcStub.h; GhcLayout.c decodes its layouts;
 * .inv.ghc-stub-one-version). */
static bool heap_known(const char *heap)
{
    return strncmp(heap, "ghc-9.10.", strlen("ghc-9.10.")) == 0;
}

/* Version 2's fields after version 1's: the heap, its header words and
 * flags. */
static int parse_heap(DbgClient *c, DebugCursor *cur)
{
    DbgTarget *t = &c->target;
    t->heap = debug_get_str(cur);
    t->header_words = debug_get_u32(cur);
    t->heap_flags = debug_get_u32(cur);
    if (cur->bad)
        return dbg_fail(c, "malformed version record (version 2's heap fields)");
    if (!heap_known(t->heap))
        return dbg_fail(c, "the program's heap is %s's, which this strata-debug cannot read: it "
                        "reads strata's heap and GHC 9.10's (build the program with the "
                        "strata-ghc-debug.c installed with it, and ghc 9.10)", t->heap);
    if (t->header_words != 1 && t->header_words != 3)
        return dbg_fail(c, "malformed version record: %u header words (expected 1, or 3 for a "
                        "-prof program)", t->header_words);
    return 0;
}

int dbg_parse_target(DbgClient *c, DebugCursor *cur)
{
    DbgTarget *t = &c->target;
    free(t->program);
    free(t->strata_version);
    free(t->heap);
    t->heap = NULL;
    t->header_words = 1;
    t->heap_flags = 0;
    t->protocol = debug_get_u32(cur);
    t->word_size = debug_get_u32(cur);
    t->block_size = debug_get_u32(cur);
    t->mblock_size = debug_get_u32(cur);
    t->pid = debug_get_u32(cur);
    t->paused = debug_get_u32(cur) != 0;
    t->era = debug_get_u64(cur);
    t->n_mblocks = debug_get_u64(cur);
    t->program = debug_get_str(cur);
    t->strata_version = debug_get_str(cur);
    if (cur->bad)
        return dbg_fail(c, "malformed version record");
    if ((t->protocol != DEBUG_PROTOCOL_VERSION && t->protocol != DEBUG_PROTOCOL_VERSION_HEAP) ||
        t->word_size != 8)
        return dbg_fail(c, "unsupported target: protocol %u, word size %u (expected %u or %u, 8)",
                        t->protocol, t->word_size, DEBUG_PROTOCOL_VERSION,
                        DEBUG_PROTOCOL_VERSION_HEAP);
    if (t->protocol == DEBUG_PROTOCOL_VERSION_HEAP && parse_heap(c, cur) != 0)
        return -1;
    c->have_target = true;
    return 0;
}

static int block_cmp(const void *a, const void *b)
{
    uint64_t x = ((const DbgBlock *)a)->start, y = ((const DbgBlock *)b)->start;
    return x < y ? -1 : x > y;
}

/* A stub from before block kind 6 listed a segment of the non-moving
 * generation (BF_NONMOVING without BF_LARGE or BF_PINNED) as small
 * objects, one entry per era run; its runs lie in the segment's 8 blocks. */
#define OLDER_STUB_SEGMENT_BLOCKS 8u
static bool older_stub_segment(const DbgBlock *b)
{
    return b->kind == DEBUG_BLOCK_SMALL &&
           (b->flags & (BF_NONMOVING | BF_LARGE | BF_PINNED)) == BF_NONMOVING;
}

/* A segment's slot fields that cannot be: no slots, a slot under two
 * words, more in use than it has, or more slot bytes than its blocks. */
static int bad_segment(DbgClient *c, const DbgBlock *b, uint32_t i)
{
    uint64_t slot_bytes = (uint64_t)b->n_slots * b->slot_words * 8;
    if (b->slot_words >= 2 && b->n_slots > 0 && b->n_used <= b->n_slots &&
        (b->n_blocks == 0 || slot_bytes <= (uint64_t)b->n_blocks * 4096))
        return 0;
    return dbg_fail(c, "malformed block entry %u: a segment of %u slots of %u words, %u in use, "
                    "in %u blocks", i, b->n_slots, b->slot_words, b->n_used, b->n_blocks);
}

int dbg_parse_blocks(DbgClient *c, DebugCursor *cur)
{
    uint32_t n = debug_get_u32(cur);
    if (cur->bad || cur->left < (size_t)n * DEBUG_BLOCK_ENTRY_BYTES)
        return dbg_fail(c, "malformed block list (%u entries in %zu bytes)", n, cur->left);
    DbgBlock *bs = calloc(n ? n : 1, sizeof *bs);
    uint8_t **data = calloc(n ? n : 1, sizeof *data);
    if (bs == NULL || data == NULL) {
        free(bs);
        free(data);
        return dbg_fail(c, "out of memory for %u blocks", n);
    }
    for (uint32_t i = 0; i < n; i++) {
        DbgBlock *b = &bs[i];
        b->start = debug_get_u64(cur);
        b->era = debug_get_u64(cur);
        b->used_bytes = debug_get_u64(cur);
        b->n_blocks = debug_get_u32(cur);
        b->flags = debug_get_u16(cur);
        b->gen = debug_get_u16(cur);
        b->kind = debug_get_u8(cur);
        b->size_class = debug_get_u8(cur);
        b->slot_words = debug_get_u16(cur);
        b->n_slots = debug_get_u16(cur);
        b->n_used = debug_get_u16(cur);
        if (b->kind != DEBUG_BLOCK_SEGMENT)
            b->size_class = 0, b->slot_words = b->n_slots = b->n_used = 0;
        else if (bad_segment(c, b, i) != 0) {
            free(bs);
            free(data);
            return -1;
        }
        /* A later era segment of a block counts no blocks of its own (the
         * protocol's block entries); a segment's runs lie in its slots. */
        uint64_t room = (uint64_t)(b->n_blocks > 0 ? b->n_blocks : 1) * 4096;
        if (b->kind == DEBUG_BLOCK_SEGMENT)
            room = (uint64_t)b->n_slots * b->slot_words * 8;
        else if (b->n_blocks == 0 && older_stub_segment(b))
            room = (uint64_t)OLDER_STUB_SEGMENT_BLOCKS * 4096;
        if (b->used_bytes > room || b->start % 8 != 0 ||
            b->start + b->used_bytes < b->start) {
            dbg_fail(c, "malformed block entry %u (start 0x%llx, %llu bytes used of %u blocks)",
                     i, (unsigned long long)b->start, (unsigned long long)b->used_bytes,
                     b->n_blocks);
            free(bs);
            free(data);
            return -1;
        }
    }
    qsort(bs, n, sizeof *bs, block_cmp);
    for (uint32_t i = 1; i < n; i++)
        if (bs[i].start < bs[i - 1].start + bs[i - 1].used_bytes) {
            dbg_fail(c, "malformed block list: blocks 0x%llx and 0x%llx overlap",
                     (unsigned long long)bs[i - 1].start, (unsigned long long)bs[i].start);
            free(bs);
            free(data);
            return -1;
        }
    dbg_drop_blocks(c);
    c->blocks = bs;
    c->block_data = data;
    c->n_blocks = n;
    c->have_blocks = true;
    if (block_index_build(&c->block_index, bs, n) != 0) {
        dbg_drop_blocks(c);
        return dbg_fail(c, "out of memory for the index of %u blocks", n);
    }
    return 0;
}

void dbg_free_roots(DbgClient *c)
{
    for (size_t i = 0; i < c->n_roots; i++) {
        free((char *)c->roots[i].func);
        free((char *)c->roots[i].file);
    }
    free(c->roots);
    c->roots = NULL;
    c->n_roots = 0;
    c->have_roots = false;
    word_map_free(&c->named_statics);
}

/* Frees the cached static closures (the map's values). */
void dbg_free_statics(DbgClient *c)
{
    size_t pos = 0;
    uint64_t key, val;
    while (word_map_next(&c->statics, &pos, &key, &val)) {
        StaticObj *s = (StaticObj *)(uintptr_t)val;
        free(s->words);
        free(s);
    }
}

int dbg_parse_roots(DbgClient *c, DebugCursor *cur)
{
    dbg_free_roots(c);
    uint32_t n = debug_get_u32(cur);
    if (cur->bad || n > cur->left / 25)
        return dbg_fail(c, "malformed root list (%u roots in %zu bytes)", n, cur->left);
    c->roots = calloc(n ? n : 1, sizeof *c->roots);
    if (c->roots == NULL)
        return dbg_fail(c, "out of memory for %u roots", n);
    for (uint32_t i = 0; i < n && !cur->bad; i++) {
        DbgRoot *r = &c->roots[i];
        r->kind = debug_get_u8(cur);
        r->index = debug_get_u32(cur);
        r->slot = debug_get_u32(cur);
        r->addr = debug_get_u64(cur);
        r->func = debug_get_str(cur);
        r->file = debug_get_str(cur);
        r->line = debug_get_u32(cur);
        c->n_roots = i + 1;
    }
    if (cur->bad) {
        dbg_free_roots(c);
        return dbg_fail(c, "malformed root list (truncated)");
    }
    /* Each thread's frames come just before its THREAD root (rts/debug/
     * DebugHeap.c): the frames take the id of the next THREAD root. */
    uint32_t thread = 0;
    for (uint32_t i = n; i-- > 0;) {
        DbgRoot *r = &c->roots[i];
        if (r->kind == DEBUG_ROOT_THREAD)
            thread = r->index;
        else if (r->kind == DEBUG_ROOT_FRAME)
            r->thread = thread;
    }
    /* Static closures the stub could name (Note [Naming static roots] in
     * rts/debug/DebugHeap.c); the first root of an address wins. */
    for (uint32_t i = 0; i < n; i++) {
        const DbgRoot *r = &c->roots[i];
        if (r->kind != DEBUG_ROOT_STATIC || r->func[0] == '\0' || r->addr == 0 ||
            word_map_get(&c->named_statics, r->addr) != NULL)
            continue;
        if (word_map_put(&c->named_statics, r->addr, (uint64_t)i + 1) != 0) {
            dbg_free_roots(c);
            return dbg_fail(c, "out of memory for %u roots", n);
        }
    }
    c->have_roots = true;
    return 0;
}

static void free_info(DbgInfo *in)
{
    if (in == NULL)
        return;
    free((char *)in->name);
    free((char *)in->table_name);
    free((char *)in->closure_desc);
    free((char *)in->ty_desc);
    free((char *)in->label);
    free((char *)in->module);
    free((char *)in->src_file);
    free((char *)in->src_span);
    free((void *)in->bitmap);
    free(in);
}

/* Version 2's fields of an INFO record: the SRT and the pointer bitmap. */
static int parse_info_heap(DebugCursor *cur, DbgInfo *in)
{
    in->srt = debug_get_u64(cur);
    in->bitmap_bits = debug_get_u32(cur);
    size_t bytes = ((size_t)in->bitmap_bits + 7) / 8;
    const uint8_t *bits = debug_get_bytes(cur, bytes);
    if (cur->bad)
        return -1;
    uint8_t *copy = malloc(bytes ? bytes : 1);
    if (copy == NULL)
        return -1;
    memcpy(copy, bits, bytes);
    in->bitmap = copy;
    return 0;
}

int dbg_parse_infos(DbgClient *c, DebugCursor *cur)
{
    uint32_t n = debug_get_u32(cur);
    for (uint32_t i = 0; i < n && !cur->bad; i++) {
        DbgInfo *in = calloc(1, sizeof *in);
        if (in == NULL)
            return dbg_fail(c, "out of memory for info tables");
        in->addr = debug_get_u64(cur);
        in->type = debug_get_u32(cur);
        in->ptrs = debug_get_u16(cur);
        in->nptrs = debug_get_u16(cur);
        in->arity = debug_get_u32(cur);
        in->prov_source = debug_get_u8(cur);
        in->name = debug_get_str(cur);
        in->table_name = debug_get_str(cur);
        in->closure_desc = debug_get_str(cur);
        in->ty_desc = debug_get_str(cur);
        in->label = debug_get_str(cur);
        in->module = debug_get_str(cur);
        in->src_file = debug_get_str(cur);
        in->src_span = debug_get_str(cur);
        if (c->target.protocol == DEBUG_PROTOCOL_VERSION_HEAP && parse_info_heap(cur, in) != 0) {
            free_info(in);
            return dbg_fail(c, "malformed info table record %u (version 2's fields)", i);
        }
        if (cur->bad || in->type == 0 || in->type >= 65 || in->addr == 0) {
            free_info(in);
            return dbg_fail(c, "malformed info table record %u", i);
        }
        uint64_t *old = word_map_get(&c->infos, in->addr);
        if (old != NULL) {
            free_info(in);
            continue;
        }
        if (word_map_put(&c->infos, in->addr, (uint64_t)(uintptr_t)in) != 0) {
            free_info(in);
            return dbg_fail(c, "out of memory for info tables");
        }
    }
    return cur->bad ? dbg_fail(c, "malformed info table list (truncated)") : 0;
}

int dbg_add_static(DbgClient *c, uint64_t addr, const uint8_t *words, uint32_t n_words)
{
    if (word_map_get(&c->statics, addr) != NULL)
        return 0;
    StaticObj *s = malloc(sizeof *s);
    uint64_t *w = malloc((n_words ? n_words : 1) * sizeof *w);
    if (s == NULL || w == NULL) {
        free(s);
        free(w);
        return dbg_fail(c, "out of memory for a static closure");
    }
    for (uint32_t i = 0; i < n_words; i++)
        w[i] = debug_load_u64(words + (size_t)i * 8);
    *s = (StaticObj){addr, n_words, w};
    if (word_map_put(&c->statics, addr, (uint64_t)(uintptr_t)s) != 0) {
        free(s);
        free(w);
        return dbg_fail(c, "out of memory for a static closure");
    }
    return 0;
}

void dbg_free_state(DbgClient *c)
{
    free(c->target.program);
    free(c->target.strata_version);
    free(c->target.heap);
    dbg_drop_blocks(c);
    dbg_free_roots(c);
    dbg_free_alloc_sites(c);
    size_t pos = 0;
    uint64_t key, val;
    while (word_map_next(&c->infos, &pos, &key, &val))
        free_info((DbgInfo *)(uintptr_t)val);
    word_map_free(&c->infos);
    c->last_info_addr = 0;
    c->last_info = NULL;
    dbg_free_statics(c);
    word_map_free(&c->statics);
    word_map_free(&c->bad_statics);
    debug_buf_free(&c->resp);
}

/* ----------------------------------------------------------------------
 * Allocation sites (ALLOC_SITES)
 * ---------------------------------------------------------------------- */

void dbg_free_alloc_sites(DbgClient *c)
{
    free(c->sites);
    free(c->site_frames);
    free(c->site_strings);
    c->sites = NULL;
    c->site_frames = NULL;
    c->site_strings = NULL;
    c->n_sites = 0;
    c->have_sites = false;
    word_map_free(&c->site_of);
}

/* Copies a wire string into the strings buffer at *at. */
static const char *take_str(DebugCursor *cur, char *strings, size_t *at)
{
    uint16_t n = debug_get_u16(cur);
    if (cur->bad || cur->left < n) {
        cur->bad = true;
        return "";
    }
    char *s = strings + *at;
    memcpy(s, cur->p, n);
    s[n] = '\0';
    cur->p += n;
    cur->left -= n;
    *at += (size_t)n + 1;
    return s;
}

int dbg_parse_alloc_sites(DbgClient *c, DebugCursor *cur)
{
    dbg_free_alloc_sites(c);
    /* Every byte of the payload bounds the frames and strings it holds:
     * a frame takes 8 bytes at least, a string's NUL is its 2-byte count. */
    size_t payload = cur->left;
    uint32_t n = debug_get_u32(cur);
    if (cur->bad || n > cur->left / 34)
        return dbg_fail(c, "malformed allocation sites (%u sites in %zu bytes)", n, cur->left);
    c->sites = calloc(n ? n : 1, sizeof *c->sites);
    c->site_frames = calloc(payload / 8 + 1, sizeof *c->site_frames);
    c->site_strings = malloc(payload + 1);
    if (c->sites == NULL || c->site_frames == NULL || c->site_strings == NULL) {
        dbg_free_alloc_sites(c);
        return dbg_fail(c, "out of memory for %u allocation sites", n);
    }
    size_t frames = 0, at = 0;
    for (uint32_t i = 0; i < n && !cur->bad; i++) {
        DbgAllocSite *s = &c->sites[i];
        s->addr = debug_get_u64(cur);
        s->sample = debug_get_u64(cur);
        s->era = debug_get_u64(cur);
        s->size_bytes = debug_get_u64(cur);
        s->n_frames = debug_get_u16(cur);
        s->frames = &c->site_frames[frames];
        for (size_t k = 0; k < s->n_frames && !cur->bad; k++) {
            DbgFrame *f = &c->site_frames[frames++];
            f->function = take_str(cur, c->site_strings, &at);
            f->file = take_str(cur, c->site_strings, &at);
            f->line = debug_get_u32(cur);
        }
        c->n_sites = i + 1;
        if (!cur->bad && word_map_put(&c->site_of, s->addr, (uint64_t)i + 1) != 0) {
            dbg_free_alloc_sites(c);
            return dbg_fail(c, "out of memory for %u allocation sites", n);
        }
    }
    if (cur->bad) {
        dbg_free_alloc_sites(c);
        return dbg_fail(c, "malformed allocation sites (truncated)");
    }
    c->have_sites = true;
    return 0;
}
