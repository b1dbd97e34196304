/*
 * utils/debug-client/Snapshot.c -- snapshot files: the reachable heap
 * (and every pinned block that holds a live object, whole, as the census
 * counts it), the metadata of every block, the roots and the info tables,
 * in the protocol's own payload encodings, closed by a checksum.  The
 * format is in docs/strata-debug.md.  Reading one gives a DbgClient that
 * answers exactly as the live program did at that pause.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "AllocSites.h"
#include "Analysis.h"
#include "BlockIndex.h"
#include "BlockStore.h"
#include "Client.h"
#include "ClientState.h"
#include "DebugServe.h"
#include "DebugTypes.h"
#include "Decode.h"
#include "GhcSnapshot.h"
#include "Marks.h"
#include "Payloads.h"
#include "PrivateFile.h"
#include "Snapshot.h"
#include "SnapshotSegments.h"
#include "strata/Debug.h"

#define SNAP_MAGIC "STRDBGS1"
/* Version 2 added the moment of the pause (u64 Unix ns after the VERSION
 * reply), version 3 the era the program resumes in (u64 after it: a
 * new era asked for in the pause, else 0), version 4 the allocation sites
 * of the sampled objects (the ALLOC_SITES reply, after the info tables);
 * older snapshots still read, what they lack unknown (0, no sites). */
#define SNAP_VERSION 4u

/* FNV-1a over little-endian 64-bit words (the tail zero-padded), then the
 * length: a byte at a time was a tenth of reading a large snapshot. */
static uint64_t checksum(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        h = (h ^ debug_load_u64(p + i)) * 1099511628211ull;
    uint64_t tail = 0;
    for (size_t k = 0; i + k < n; k++)
        tail |= (uint64_t)p[i + k] << (8 * k);
    h = (h ^ tail) * 1099511628211ull;
    return (h ^ n) * 1099511628211ull;
}

/* ----------------------------------------------------------------------
 * Writing
 * ---------------------------------------------------------------------- */

static void put_target(DebugBuf *b, const DbgTarget *t)
{
    debug_buf_put_u32(b, t->protocol);
    debug_buf_put_u32(b, t->word_size);
    debug_buf_put_u32(b, t->block_size);
    debug_buf_put_u32(b, t->mblock_size);
    debug_buf_put_u32(b, t->pid);
    debug_buf_put_u32(b, 1);
    debug_buf_put_u64(b, t->era);
    debug_buf_put_u64(b, t->n_mblocks);
    debug_buf_put_str(b, t->program, t->program ? strlen(t->program) : 0);
    debug_buf_put_str(b, t->strata_version, t->strata_version ? strlen(t->strata_version) : 0);
    if (t->protocol == DEBUG_PROTOCOL_VERSION_HEAP) {   /* another runtime's heap */
        debug_buf_put_str(b, t->heap, strlen(t->heap));
        debug_buf_put_u32(b, t->header_words);
        debug_buf_put_u32(b, t->heap_flags);
    }
}

static void put_blocks(DebugBuf *b, const DbgBlock *bs, size_t n)
{
    debug_buf_put_u32(b, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        debug_buf_put_u64(b, bs[i].start);
        debug_buf_put_u64(b, bs[i].era);
        debug_buf_put_u64(b, bs[i].used_bytes);
        debug_buf_put_u32(b, bs[i].n_blocks);
        debug_buf_put_u16(b, bs[i].flags);
        debug_buf_put_u16(b, bs[i].gen);
        debug_buf_put_u8(b, bs[i].kind);
        debug_buf_put_u8(b, bs[i].size_class);
        debug_buf_put_u16(b, bs[i].slot_words);
        debug_buf_put_u16(b, bs[i].n_slots);
        debug_buf_put_u16(b, bs[i].n_used);
    }
}

static void put_str(DebugBuf *b, const char *s)
{
    debug_buf_put_str(b, s, s ? strlen(s) : 0);
}

static void put_roots(DebugBuf *b, const DbgRoot *rs, size_t n)
{
    debug_buf_put_u32(b, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        debug_buf_put_u8(b, rs[i].kind);
        debug_buf_put_u32(b, rs[i].index);
        debug_buf_put_u32(b, rs[i].slot);
        debug_buf_put_u64(b, rs[i].addr);
        put_str(b, rs[i].func);
        put_str(b, rs[i].file);
        debug_buf_put_u32(b, rs[i].line);
    }
}

static void put_info(DebugBuf *b, const DbgInfo *in, uint32_t protocol)
{
    DebugInfoRecord r = {in->addr, in->type, in->ptrs, in->nptrs, in->arity, in->prov_source,
                         in->name, in->table_name, in->closure_desc, in->ty_desc, in->label,
                         in->module, in->src_file, in->src_span};
    debug_put_info_record(b, &r);
    if (protocol == DEBUG_PROTOCOL_VERSION_HEAP) {
        debug_buf_put_u64(b, in->srt);
        debug_buf_put_u32(b, in->bitmap_bits);
        debug_buf_put_bytes(b, in->bitmap, (in->bitmap_bits + 7) / 8);
    }
}

/* Writes FILE.tmp, owner-only, and renames it over FILE: a reader never
 * sees half a snapshot.  See Note [Files with heap contents] in
 * PrivateFile.c. */
static int write_file(DbgClient *c, const char *file, const DebugBuf *b)
{
    char tmp[4096], err[4200];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", file) >= sizeof tmp)
        return dbg_fail(c, "%s: path too long", file);
    if (dbg_check_private_path(file, err, sizeof err) != 0)
        return dbg_fail(c, "%s", err);
    int fd = dbg_create_private(tmp, err, sizeof err);
    if (fd < 0)
        return dbg_fail(c, "%s", err);
    FILE *f = fdopen(fd, "wb");
    if (f == NULL) {
        close(fd);
        remove(tmp);
        return dbg_fail(c, "%s: cannot write the snapshot: %s", tmp, strerror(errno));
    }
    bool ok = fwrite(b->data, 1, b->len, f) == b->len;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, file) != 0) {
        remove(tmp);
        return dbg_fail(c, "%s: cannot write the snapshot: %s", file, strerror(errno));
    }
    return 0;
}

/* Records the info table of the closure at addr (and of the thunk a
 * BLACKHOLE overwrote) in infos. */
static int add_infos(DbgClient *c, WordMap *infos, uint64_t addr)
{
    DbgClosure cl;
    if (dbg_closure(c, addr, &cl) != 0)
        return -1;
    word_map_put(infos, cl.info->addr, (uint64_t)(uintptr_t)cl.info);
    if (cl.info->type == 38 /* BLACKHOLE */) {
        const DbgInfo *t = dbg_info(c, cl.words[1]);
        if (t != NULL)
            word_map_put(infos, t->addr, (uint64_t)(uintptr_t)t);
    }
    return 0;
}

/* Note [Weak pointers in a snapshot]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A snapshot keeps the reachable heap, but the collector keeps a weak
 * alive through its weak list, not through a pointer (Note [Weak pointers
 * in the debugger] in Analysis.c), and a weak's value is reached only
 * through the weak.  So each WEAK closure of the heap is saved, and its
 * value (the one closure, for its label; what the value points to only
 * if reachable anyway).  The key is not saved: the weaks command needs
 * its address and whether the traversal reached it, which the snapshot
 * answers the same way.  The extra closures are unreachable, so no other
 * analysis sees them. */
static int keep_weaks(DbgClient *c, const DbgReach *r, WordMap *kept, uint64_t **statics,
                      size_t *n_statics)
{
    DbgWeak *ws;
    size_t nw;
    if (dbg_weaks(c, r, &ws, &nw) != 0)
        return -1;
    *statics = calloc(nw ? nw : 1, sizeof **statics);
    int st = *statics == NULL ? -1 : 0;
    for (size_t i = 0; i < nw && st == 0; i++) {
        st = word_map_put(kept, ws[i].addr, 1) != 0 ? -1 : 0;
        uint64_t v = ws[i].value;
        if (st != 0 || v == 0 || dbg_reach_has(r, v) || word_map_get(kept, v) != NULL)
            continue;
        st = word_map_put(kept, v, 1) != 0 ? -1 : 0;
        if (dbg_block_of(c, v) == NULL)
            (*statics)[(*n_statics)++] = v;
    }
    free(ws);
    if (st != 0) {
        word_map_free(kept);
        free(*statics);
        *statics = NULL;
        return dbg_fail(c, "out of memory for the weak pointers of the snapshot");
    }
    return 0;
}

/* The segments of the heap blocks: runs of adjacent saved objects (saved:
 * reached, or kept for a weak pointer), and a pinned block with any saved
 * object whole (marked in pinned_done).  0, or -1 (said). */
static int put_block_segments(DbgClient *c, const DbgReach *r, DebugBuf *b, const DbgBlock *bs,
                              size_t nb, const WordMap *weak_kept, uint8_t *pinned_done,
                              uint64_t *n_segments)
{
    int st = 0;
    for (size_t i = 0; i < nb && st == 0; i++) {
        const DbgBlock *blk = &bs[i];
        const uint64_t *w = (const uint64_t *)(const void *)blk->data;
        uint64_t words = blk->used_bytes / 8;
        bool any = false;
        SegmentRun run;
        segment_run_start(&run, b, blk, n_segments);
        for (uint64_t k = 0; k < words && st == 0;) {
            if (w[k] == 0) {
                k++;
                continue;
            }
            DbgClosure cl;
            if ((st = dbg_closure(c, blk->start + k * 8, &cl)) != 0)
                break;
            bool live = dbg_reach_has(r, cl.addr) || word_map_get(weak_kept, cl.addr) != NULL;
            any = any || live;
            if (live && blk->kind != DEBUG_BLOCK_PINNED)
                segment_run_add(&run, k, cl.n_words);
            k += cl.n_words;
        }
        segment_run_end(&run);
        if (any && blk->kind == DEBUG_BLOCK_PINNED) {
            pinned_done[i] = 1;
            dbg_snapshot_put_segment(b, blk->start, 1, w, words, n_segments);
        }
    }
    return st;
}

/* The info tables of every object of the pinned blocks saved whole (their
 * unreachable objects too).  0, or -1 (said). */
static int add_pinned_infos(DbgClient *c, WordMap *infos, const DbgBlock *bs, size_t nb,
                            const uint8_t *pinned_done)
{
    int st = 0;
    for (size_t i = 0; i < nb && st == 0; i++) {
        if (!pinned_done[i])
            continue;
        const uint64_t *w = (const uint64_t *)(const void *)bs[i].data;
        for (uint64_t k = 0; k < bs[i].used_bytes / 8;) {
            if (w[k] == 0) {
                k++;
                continue;
            }
            DbgClosure cl;
            if ((st = dbg_closure(c, bs[i].start + k * 8, &cl)) != 0)
                break;
            word_map_put(infos, cl.info->addr, (uint64_t)(uintptr_t)cl.info);
            k += cl.n_words;
        }
    }
    return st;
}

/* Segments: runs of adjacent saved objects in each block (a pinned block
 * with any: whole), then the static closures saved; and into infos every
 * info table an object in a saved area uses.  Saved are the live objects,
 * and every weak pointer with its value (the weaks command needs them; see
 * Note [Weak pointers in a snapshot]).  0, or -1 (said). */
static int put_segments(DbgClient *c, const DbgReach *r, DebugBuf *b, WordMap *infos)
{
    const DbgBlock *bs;
    size_t nb, n;
    dbg_blocks(c, &bs, &nb);
    const uint64_t *objs = dbg_reach_objects(r, &n);
    WordMap weak_kept = {0};
    uint64_t *weak_statics = NULL;
    size_t n_weak_statics = 0;
    if (keep_weaks(c, r, &weak_kept, &weak_statics, &n_weak_statics) != 0)
        return -1;
    uint8_t *pinned_done = calloc(nb ? nb : 1, 1);
    if (pinned_done == NULL) {
        word_map_free(&weak_kept);
        free(weak_statics);
        return dbg_fail(c, "out of memory");
    }
    size_t seg_count_at = b->len;
    uint64_t n_segments = 0;
    debug_buf_put_u64(b, 0);
    int st = dbg_heap_is_ghc(c)
                 ? ghc_put_block_segments(c, r, b, &weak_kept, pinned_done, &n_segments)
                 : put_block_segments(c, r, b, bs, nb, &weak_kept, pinned_done, &n_segments);
    for (size_t i = 0; i < n && st == 0; i++) {
        DbgClosure cl;
        if ((st = dbg_closure(c, objs[i], &cl)) == 0 && cl.block == NULL)
            dbg_snapshot_put_segment(b, cl.addr, 2, cl.words, cl.n_words, &n_segments);
    }
    for (size_t i = 0; i < n_weak_statics && st == 0; i++) {
        DbgClosure cl;
        if ((st = dbg_closure(c, weak_statics[i], &cl)) == 0)
            dbg_snapshot_put_segment(b, cl.addr, 2, cl.words, cl.n_words, &n_segments);
    }
    /* Info tables: every one an object in a saved area uses. */
    for (size_t i = 0; i < n && st == 0; i++)
        st = add_infos(c, infos, objs[i]);
    size_t pos = 0;
    uint64_t key, val;
    while (st == 0 && word_map_next(&weak_kept, &pos, &key, &val))
        st = add_infos(c, infos, key);
    word_map_free(&weak_kept);
    free(weak_statics);
    if (st == 0)
        st = add_pinned_infos(c, infos, bs, nb, pinned_done);
    free(pinned_done);
    if (st == 0) {
        DebugBuf tmp = *b;   /* patch the segment count in place */
        tmp.len = seg_count_at;
        debug_buf_put_u64(&tmp, n_segments);
    }
    return st;
}

/* The ALLOC_SITES reply (docs/debug-protocol.md, command 12). */
static void put_alloc_sites(DebugBuf *b, const DbgAllocSite *sites, size_t n)
{
    debug_buf_put_u32(b, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        const DbgAllocSite *s = &sites[i];
        debug_buf_put_u64(b, s->addr);
        debug_buf_put_u64(b, s->sample);
        debug_buf_put_u64(b, s->era);
        debug_buf_put_u64(b, s->size_bytes);
        debug_buf_put_u16(b, (uint16_t)s->n_frames);
        for (size_t k = 0; k < s->n_frames; k++) {
            debug_buf_put_str(b, s->frames[k].function, strlen(s->frames[k].function));
            debug_buf_put_str(b, s->frames[k].file, strlen(s->frames[k].file));
            debug_buf_put_u32(b, s->frames[k].line);
        }
    }
}

int dbg_write_snapshot(DbgClient *c, const DbgReach *r, const char *file)
{
    const DbgBlock *bs;
    const DbgRoot *rs;
    size_t nb, nr;
    if (dbg_blocks(c, &bs, &nb) != 0 || dbg_roots(c, &rs, &nr) != 0)
        return -1;
    DebugBuf b = {0};
    debug_buf_put_bytes(&b, SNAP_MAGIC, 8);
    debug_buf_put_u32(&b, SNAP_VERSION);
    put_target(&b, dbg_target(c));
    debug_buf_put_u64(&b, dbg_target(c)->paused_at);
    debug_buf_put_u64(&b, dbg_target(c)->resumes_in_era);
    put_blocks(&b, bs, nb);
    put_roots(&b, rs, nr);
    WordMap infos = {0};
    if (put_segments(c, r, &b, &infos) != 0) {
        word_map_free(&infos);
        debug_buf_free(&b);
        return -1;
    }
    debug_buf_put_u32(&b, (uint32_t)infos.n);
    size_t pos = 0;
    uint64_t key, val;
    while (word_map_next(&infos, &pos, &key, &val))
        put_info(&b, (const DbgInfo *)(uintptr_t)val, dbg_target(c)->protocol);
    word_map_free(&infos);
    const DbgAllocSite *sites;
    size_t n_sites;
    if (dbg_alloc_sites(c, &sites, &n_sites) != 0) {
        debug_buf_free(&b);
        return -1;
    }
    put_alloc_sites(&b, sites, n_sites);
    uint64_t sum = b.oom ? 0 : checksum(b.data, b.len);
    debug_buf_put_u64(&b, sum);
    if (b.oom) {
        debug_buf_free(&b);
        return dbg_fail(c, "out of memory building the snapshot");
    }
    int st = write_file(c, file, &b);
    debug_buf_free(&b);
    return st;
}

/* ----------------------------------------------------------------------
 * Reading
 * ---------------------------------------------------------------------- */

/* Note [Reading a snapshot through a mapping]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A regular file is mapped rather than read: the checksum and the parser
 * read the page cache's own pages, with no copy into a buffer the size of
 * the file and no page faults to fill one (half of loading a large
 * snapshot).  The segments' words cannot be used where they lie (a
 * segment's header is 13 bytes, so its words are seldom aligned), so they
 * are still copied into the blocks; the pages copied from are dropped from
 * the mapping as the copying goes (MADV_DONTNEED: the page cache keeps
 * them), so the reader holds about one heap, not two.  A file cut short
 * while it is read then stops the reader (SIGBUS), and one rewritten in
 * place may be read half old, half new after its checksum passed;
 * strata-debug itself writes a snapshot by renaming a new file over the
 * old (write_file), which leaves a reader's mapping alone. */
#define DROP_STEP ((size_t)32 << 20)

/* Drops the pages of the mapping map (NULL: none) wholly before p. */
static void drop_read(const uint8_t *map, const uint8_t *p, size_t *dropped)
{
    if (map == NULL || (size_t)(p - map) < *dropped + DROP_STEP)
        return;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t upto = (size_t)(p - map) / page * page;
    (void)madvise((void *)(uintptr_t)(map + *dropped), upto - *dropped, MADV_DONTNEED);
    *dropped = upto;   /* a hint: an error only keeps the pages */
}

/* Block i's copy, zeroed (Note [Block contents in chunks] in BlockStore.c). */
static int block_copy(DbgClient *c, size_t i)
{
    c->block_data[i] = dbg_block_space(c, c->blocks[i].used_bytes);
    if (c->block_data[i] == NULL)
        return dbg_fail(c, "out of memory for block 0x%llx",
                        (unsigned long long)c->blocks[i].start);
    c->blocks[i].data = c->block_data[i];
    return 0;
}

static int read_segments(DbgClient *c, DebugCursor *cur, const uint8_t *map)
{
    size_t dropped = 0;
    uint64_t n = debug_get_u64(cur);
    if (cur->bad || n > cur->left / 13)
        return dbg_fail(c, "bad segment count %llu", (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t addr = debug_get_u64(cur);
        uint32_t words = debug_get_u32(cur);
        uint8_t where = debug_get_u8(cur);
        const uint8_t *data = debug_get_bytes(cur, (size_t)words * 8);
        if (data == NULL || words == 0)
            return dbg_fail(c, "segment %llu is truncated or empty", (unsigned long long)i);
        if (where == 2) {
            if (dbg_add_static(c, addr, data, words) != 0)
                return -1;
            continue;
        }
        const DbgBlock *b = dbg_block_of(c, addr);
        if (where != 1 || b == NULL ||
            addr + (uint64_t)words * 8 > b->start + b->used_bytes)
            return dbg_fail(c, "segment at 0x%llx (%u words) lies outside every block",
                            (unsigned long long)addr, words);
        /* A block's copy is made as its first segment comes, so that it
         * fills while the mapping's pages go. */
        if (b->data == NULL && block_copy(c, (size_t)(b - c->blocks)) != 0)
            return -1;
        memcpy(c->block_data[b - c->blocks] + (addr - b->start), data, (size_t)words * 8);
        drop_read(map, data + (size_t)words * 8, &dropped);
    }
    for (size_t i = 0; i < c->n_blocks; i++)   /* blocks with nothing saved: zeros */
        if (c->blocks[i].used_bytes != 0 && c->blocks[i].data == NULL && block_copy(c, i) != 0)
            return -1;
    return 0;
}

uint64_t dbg_snapshot_checksum(const uint8_t *data, size_t len)
{
    return checksum(data, len);
}

/* Note [Reading a snapshot refuses before it reads]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A snapshot FILE may be anything: /dev/zero, a FIFO whose writer never
 * stops, a header that declares an absurd heap.  So the header is read
 * first (magic, version, and the target record's fixed part, SNAP_HEAD
 * bytes), and refused at once if wrong.  The heap it declares (megablocks
 * in use times the megablock size) bounds the rest: a snapshot saves at
 * most every object of that heap, each run of objects with a 16-byte
 * header (at most doubling it), plus block metadata, roots and info tables
 * (SNAP_SLACK_BYTES).  Reading stops at that bound, at the first failed
 * allocation, or at end of file, whichever comes first, so memory never
 * exceeds the bound however long the input. */
#define SNAP_HEAD 52                            /* magic, version, target's fixed fields */
#define SNAP_OFF_MBLOCK_SIZE (8 + 4 + 12)
#define SNAP_OFF_N_MBLOCKS (8 + 4 + 24 + 8)
#define SNAP_MAX_HEAP ((uint64_t)1 << 40)       /* the largest heap a header may declare */
#define SNAP_SLACK_BYTES ((uint64_t)16 << 20)

/* The most bytes the snapshot whose header is head may hold, or 0 after
 * writing why the header is refused into err. */
static uint64_t snapshot_bound(const uint8_t *head, size_t got, const char *file, char *err,
                               size_t err_len)
{
    if (got < 8 || memcmp(head, SNAP_MAGIC, 8) != 0) {
        snprintf(err, err_len, "%s: not a strata-debug snapshot (bad magic)", file);
        return 0;
    }
    if (got < SNAP_HEAD) {
        snprintf(err, err_len, "%s: corrupt snapshot: truncated header (%zu bytes)", file, got);
        return 0;
    }
    uint32_t version = debug_load_u32(head + 8);
    if (version < 1 || version > SNAP_VERSION) {
        snprintf(err, err_len, "%s: snapshot version %u, this strata-debug reads versions 1 "
                 "to %u (a newer strata-debug wrote it?)", file, version, SNAP_VERSION);
        return 0;
    }
    uint64_t mblock = debug_load_u32(head + SNAP_OFF_MBLOCK_SIZE);
    uint64_t n = debug_load_u64(head + SNAP_OFF_N_MBLOCKS);
    if (mblock == 0 || (mblock & (mblock - 1)) != 0 || n > SNAP_MAX_HEAP / mblock) {
        snprintf(err, err_len, "%s: corrupt snapshot: its header declares %llu megablocks of "
                 "%llu bytes (more than %llu GiB of heap, or no megablock size)", file,
                 (unsigned long long)n, (unsigned long long)mblock,
                 (unsigned long long)(SNAP_MAX_HEAP >> 30));
        return 0;
    }
    return 2 * n * mblock + SNAP_SLACK_BYTES;
}

/* Reads the rest of f after its header into b, up to bound bytes in all.
 * Returns 0, or -1 after writing why into err. */
static int read_snapshot_body(FILE *f, DebugBuf *b, uint64_t bound, const char *file,
                              char *err, size_t err_len)
{
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
        if ((uint64_t)st.st_size > bound) {
            snprintf(err, err_len, "%s: corrupt snapshot: %llu bytes, more than the %llu its "
                     "header's heap allows", file, (unsigned long long)st.st_size,
                     (unsigned long long)bound);
            return -1;
        }
        size_t keep = b->len;
        debug_buf_reserve(b, (size_t)st.st_size - keep);   /* one allocation */
        b->len = keep;
    }
    uint8_t chunk[65536];
    size_t got;
    while (!b->oom && (got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b->len + got > bound) {
            snprintf(err, err_len, "%s: corrupt snapshot: longer than the %llu bytes its "
                     "header's heap allows (an endless stream?)", file,
                     (unsigned long long)bound);
            return -1;
        }
        debug_buf_put_bytes(b, chunk, got);
    }
    if (b->oom || ferror(f)) {
        snprintf(err, err_len, "%s: cannot read (%s after %zu bytes)", file,
                 b->oom ? "no memory" : "I/O error", b->len);
        return -1;
    }
    return 0;
}

static DbgClient *open_bytes(const uint8_t *data, size_t len, const uint8_t *map,
                             const char *name, char *err, size_t err_len);

/* Reads the snapshot f through a mapping (Note [Reading a snapshot through
 * a mapping]), if it is a regular file of at most bound bytes that maps:
 * true, with the client (or NULL after writing why into err) in *out. */
static bool open_mapped(FILE *f, uint64_t bound, const char *file, char *err, size_t err_len,
                        DbgClient **out)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 8 ||
        (uint64_t)st.st_size > bound)
        return false;
    size_t len = (size_t)st.st_size;
    void *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fileno(f), 0);
    if (map == MAP_FAILED)
        return false;
    (void)madvise(map, len, MADV_SEQUENTIAL);
    *out = open_bytes(map, len, map, file, err, err_len);
    munmap(map, len);
    return true;
}

DbgClient *dbg_open_snapshot(const char *file, char *err, size_t err_len)
{
    FILE *f = fopen(file, "rb");
    if (f == NULL) {
        snprintf(err, err_len, "%s: cannot open: %s", file, strerror(errno));
        return NULL;
    }
    /* See Note [Reading a snapshot refuses before it reads]. */
    uint8_t head[SNAP_HEAD];
    size_t got = fread(head, 1, sizeof head, f);
    DebugBuf b = {0};
    uint64_t bound = 0;
    if (ferror(f))
        snprintf(err, err_len, "%s: cannot read (I/O error)", file);
    else
        bound = snapshot_bound(head, got, file, err, err_len);
    DbgClient *c;
    if (bound != 0 && open_mapped(f, bound, file, err, err_len, &c)) {
        fclose(f);
        return c;
    }
    if (bound != 0)
        debug_buf_put_bytes(&b, head, got);
    bool ok = bound != 0 && read_snapshot_body(f, &b, bound, file, err, err_len) == 0;
    fclose(f);
    if (!ok) {
        debug_buf_free(&b);
        return NULL;
    }
    c = dbg_open_snapshot_bytes(b.data, b.len, file, err, err_len);
    debug_buf_free(&b);
    return c;
}

DbgClient *dbg_open_snapshot_bytes(const uint8_t *data, size_t len, const char *name, char *err,
                                   size_t err_len)
{
    return open_bytes(data, len, NULL, name, err, err_len);
}

/* dbg_open_snapshot_bytes; data is the mapping map if that is not NULL. */
static DbgClient *open_bytes(const uint8_t *data, size_t len, const uint8_t *map,
                             const char *name, char *err, size_t err_len)
{
    DbgClient *c = calloc(1, sizeof *c);
    if (c == NULL) {
        snprintf(err, err_len, "%s: cannot read (no memory)", name);
        return NULL;
    }
    c->fd = -1;
    c->snapshot = true;
    if (len < 8 + 4 + 8 || memcmp(data, SNAP_MAGIC, 8) != 0) {
        dbg_fail(c, "not a strata-debug snapshot (bad magic)");
        goto fail;
    }
    if (checksum(data, len - 8) != debug_load_u64(data + len - 8)) {
        dbg_fail(c, "corrupt snapshot: checksum mismatch (truncated or modified)");
        goto fail;
    }
    DebugCursor cur = {data + 8, len - 16, false};
    uint32_t version = debug_get_u32(&cur);
    if (version < 1 || version > SNAP_VERSION) {
        dbg_fail(c, "snapshot version %u, this strata-debug reads versions 1 to %u (a "
                 "newer strata-debug wrote it?)", version, SNAP_VERSION);
        goto fail;
    }
    if (dbg_parse_target(c, &cur) != 0)
        goto fail;
    c->target.paused_at = version >= 2 ? debug_get_u64(&cur) : 0;
    c->target.resumes_in_era = version >= 3 ? debug_get_u64(&cur) : 0;
    if (dbg_parse_blocks(c, &cur) != 0 ||
        dbg_parse_roots(c, &cur) != 0 || read_segments(c, &cur, map) != 0 ||
        dbg_parse_infos(c, &cur) != 0)
        goto fail;
    c->have_sites = version < 4;   /* an older snapshot: no sites */
    if (version >= 4 && dbg_parse_alloc_sites(c, &cur) != 0)
        goto fail;
    if (cur.left != 0) {
        dbg_fail(c, "%zu bytes of garbage after the %s", cur.left,
                 version >= 4 ? "allocation sites" : "info tables");
        goto fail;
    }
    c->target.paused = true;
    return c;
fail:
    snprintf(err, err_len, "%s: %s", name, c->err);
    dbg_free_state(c);
    free(c);
    return NULL;
}
