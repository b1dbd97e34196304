/*
 * utils/debug-client/Client.c -- the client library's transport (requests
 * over the debug socket, docs/debug-protocol.md), its caches (blocks,
 * info tables, static closures: each fetched once) and the wire payload
 * decoders shared with the snapshot reader (Snapshot.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ClientPrivate.h"
#include "GrowArray.h"
#include "strata/Debug.h"

int dbg_fail(DbgClient *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, sizeof c->err, fmt, ap);
    va_end(ap);
    return -1;
}

const char *dbg_error(const DbgClient *c)
{
    return c->err;
}

bool dbg_is_snapshot(const DbgClient *c)
{
    return c->snapshot;
}

/* ----------------------------------------------------------------------
 * Frames
 * ---------------------------------------------------------------------- */

static int read_full(DbgClient *c, void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = recv(c->fd, (char *)buf + done, n - done, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0)
            return dbg_fail(c, "the program closed the connection");
        if (r < 0)
            return dbg_fail(c, "reading from the debug socket: %s", strerror(errno));
        done += (size_t)r;
    }
    return 0;
}

static int write_full(DbgClient *c, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = send(c->fd, (const char *)buf + done, n - done, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return dbg_fail(c, "writing to the debug socket: %s", strerror(errno));
        done += (size_t)w;
    }
    return 0;
}

/* Reads one response frame into c->resp; returns its status or -1. */
static int read_frame(DbgClient *c, uint16_t cmd)
{
    uint8_t h[DEBUG_FRAME_HEADER_BYTES];
    if (read_full(c, h, sizeof h) != 0)
        return -1;
    uint32_t len = debug_load_u32(h);
    int status = h[4] | h[5] << 8;
    uint16_t got_cmd = (uint16_t)(h[6] | h[7] << 8);
    if (len < 4)
        return dbg_fail(c, "malformed response: length %u", len);
    debug_buf_reset(&c->resp);
    uint8_t *p = debug_buf_reserve(&c->resp, len - 4 + 1);
    if (p == NULL)
        return dbg_fail(c, "out of memory for a response of %u bytes", len);
    c->resp.len--;
    if (read_full(c, p, len - 4) != 0)
        return -1;
    p[len - 4] = '\0';
    if (status != DEBUG_STATUS_OK && status != DEBUG_STATUS_MORE)
        return dbg_fail(c, "%s (status %d)", (const char *)p, status), status;
    if (got_cmd != cmd)
        return dbg_fail(c, "response for command %u to a request of command %u", got_cmd, cmd);
    return status;
}

/* Sends a request and reads the (first) response frame. */
static int request(DbgClient *c, uint16_t cmd, const DebugBuf *payload)
{
    if (c->fd < 0)
        return dbg_fail(c, "not connected to a live program");
    DebugBuf b = {0};
    debug_buf_put_u32(&b, (uint32_t)(4 + (payload ? payload->len : 0)));
    debug_buf_put_u16(&b, cmd);
    debug_buf_put_u16(&b, 0);
    if (payload != NULL)
        debug_buf_put_bytes(&b, payload->data, payload->len);
    int st = b.oom ? dbg_fail(c, "out of memory building a request")
                   : write_full(c, b.data, b.len);
    debug_buf_free(&b);
    if (st != 0) {
        /* The stub may have said why before it closed (a refused uid, a
         * busy stub): prefer its message. */
        char write_err[sizeof c->err];
        memcpy(write_err, c->err, sizeof write_err);
        if (!b.oom && read_frame(c, 0) > DEBUG_STATUS_MORE)
            return -1;
        memcpy(c->err, write_err, sizeof write_err);
        return -1;
    }
    st = read_frame(c, cmd);
    return st == DEBUG_STATUS_OK || st == DEBUG_STATUS_MORE ? st : -1;
}

static DebugCursor resp_cursor(DbgClient *c)
{
    return (DebugCursor){c->resp.data, c->resp.len, false};
}

/* ----------------------------------------------------------------------
 * Block contents
 * ---------------------------------------------------------------------- */

/* Note [Block contents in chunks]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A full analysis holds every block's contents: a quarter of a million
 * 4 KB copies for a 1 GB heap.  One malloc each cost a header apiece and
 * most of the load's time in the allocator and in page faults, so the
 * copies are cut from 64 MB chunks mapped for the purpose, freed all at
 * once when the pause ends.  Fresh chunks are zeroed by the kernel, which
 * the snapshot reader relies on for the parts of a block it leaves out.
 * Rejected: asking for huge pages (madvise): on a kernel that compacts
 * memory on such faults it tripled the load's system time. */

#define CHUNK_BYTES ((size_t)64 << 20)
#define POPULATE_STEP ((size_t)2 << 20)

uint8_t *dbg_block_space(DbgClient *c, uint64_t len)
{
    size_t need = (size_t)((len + 7) & ~(uint64_t)7);
    if (need == 0)
        need = 8;
    if (need > SIZE_MAX / 2)
        return NULL;
    if (c->n_chunks == 0 || c->chunk_used + need > c->chunk_bytes[c->n_chunks - 1]) {
        /* Two arrays of one capacity: each grows from cap_chunks alike. */
        size_t cap_chunks = c->cap_chunks, cap_bytes = c->cap_chunks;
        if (GROW_ARRAY_RESERVE(c->chunks, cap_chunks, c->n_chunks + 1) != 0 ||
            GROW_ARRAY_RESERVE(c->chunk_bytes, cap_bytes, c->n_chunks + 1) != 0)
            return NULL;
        c->cap_chunks = cap_bytes;
        size_t bytes = need > CHUNK_BYTES ? need : CHUNK_BYTES;
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        c->chunks[c->n_chunks] = p;
        c->chunk_bytes[c->n_chunks++] = bytes;
        c->chunk_used = 0;
        c->chunk_populated = 0;
    }
    uint8_t *p = c->chunks[c->n_chunks - 1] + c->chunk_used;
#ifdef MADV_POPULATE_WRITE
    /* Fault the pages in ahead, a few megabytes in one call, rather than
     * one page fault per 4 KB as the copies land. */
    size_t ahead = c->chunk_used + need;
    if (ahead > c->chunk_populated) {
        size_t to = (ahead + POPULATE_STEP - 1) / POPULATE_STEP * POPULATE_STEP;
        if (to > c->chunk_bytes[c->n_chunks - 1])
            to = c->chunk_bytes[c->n_chunks - 1];
        (void)madvise(c->chunks[c->n_chunks - 1] + c->chunk_populated,
                      to - c->chunk_populated, MADV_POPULATE_WRITE);   /* a hint: errors are harmless */
        c->chunk_populated = to;
    }
#endif
    c->chunk_used += need;
    return p;
}

void dbg_drop_blocks(DbgClient *c)
{
    for (size_t i = 0; i < c->n_chunks; i++)
        munmap(c->chunks[i], c->chunk_bytes[i]);
    free(c->chunks);
    free(c->chunk_bytes);
    c->chunks = NULL;
    c->chunk_bytes = NULL;
    c->n_chunks = c->cap_chunks = c->chunk_used = c->chunk_populated = 0;
    block_index_free(&c->block_index);
    free(c->blocks);
    free(c->block_data);
    c->blocks = NULL;
    c->block_data = NULL;
    c->n_blocks = 0;
    c->have_blocks = false;
}

/* ----------------------------------------------------------------------
 * Payload decoders
 * ---------------------------------------------------------------------- */

int dbg_parse_target(DbgClient *c, DebugCursor *cur)
{
    DbgTarget *t = &c->target;
    free(t->program);
    free(t->strata_version);
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
    if (t->protocol != DEBUG_PROTOCOL_VERSION || t->word_size != 8)
        return dbg_fail(c, "unsupported target: protocol %u, word size %u (expected %u, 8)",
                        t->protocol, t->word_size, DEBUG_PROTOCOL_VERSION);
    c->have_target = true;
    return 0;
}

static int block_cmp(const void *a, const void *b)
{
    uint64_t x = ((const DbgBlock *)a)->start, y = ((const DbgBlock *)b)->start;
    return x < y ? -1 : x > y;
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
        debug_get_bytes(cur, 7);
        /* A later era segment of a block counts no blocks of its own (the
         * protocol's block entries). */
        uint64_t room_blocks = b->n_blocks > 0 ? b->n_blocks : 1;
        if (b->used_bytes > room_blocks * 4096 || b->start % 8 != 0 ||
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

static void free_roots(DbgClient *c)
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
static void free_statics(DbgClient *c)
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
    free_roots(c);
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
        free_roots(c);
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
            free_roots(c);
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
    free(in);
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

int dbg_set_block_data(DbgClient *c, size_t i, const uint8_t *data, uint64_t len)
{
    if (len != c->blocks[i].used_bytes)
        return dbg_fail(c, "block 0x%llx: %llu bytes of contents for %llu bytes used",
                        (unsigned long long)c->blocks[i].start, (unsigned long long)len,
                        (unsigned long long)c->blocks[i].used_bytes);
    if (c->block_data[i] != NULL)
        return 0;
    uint8_t *copy = dbg_block_space(c, len);
    if (copy == NULL)
        return dbg_fail(c, "out of memory for a block of %llu bytes", (unsigned long long)len);
    memcpy(copy, data, len);
    c->block_data[i] = copy;
    c->blocks[i].data = copy;
    return 0;
}

/* ----------------------------------------------------------------------
 * Opening and closing
 * ---------------------------------------------------------------------- */

static int fetch_target(DbgClient *c)
{
    if (request(c, DEBUG_CMD_VERSION, NULL) < 0)
        return -1;
    DebugCursor cur = resp_cursor(c);
    return dbg_parse_target(c, &cur);
}

DbgClient *dbg_connect(const char *path, char *err, size_t err_len)
{
    DbgClient *c = calloc(1, sizeof *c);
    if (c == NULL) {
        snprintf(err, err_len, "out of memory");
        return NULL;
    }
    c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof addr.sun_path) {
        snprintf(err, err_len, "%s: socket path longer than %zu bytes", path,
                 sizeof addr.sun_path - 1);
        goto fail;
    }
    strcpy(addr.sun_path, path);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        snprintf(err, err_len, "%s: cannot connect: %s", path, strerror(errno));
        goto fail;
    }
    if (fetch_target(c) != 0) {
        snprintf(err, err_len, "%s: %s", path, c->err);
        goto fail;
    }
    return c;
fail:
    if (c->fd >= 0)
        close(c->fd);
    dbg_free_state(c);
    free(c);
    return NULL;
}

void dbg_free_state(DbgClient *c)
{
    free(c->target.program);
    free(c->target.strata_version);
    dbg_drop_blocks(c);
    free_roots(c);
    size_t pos = 0;
    uint64_t key, val;
    while (word_map_next(&c->infos, &pos, &key, &val))
        free_info((DbgInfo *)(uintptr_t)val);
    word_map_free(&c->infos);
    c->last_info_addr = 0;
    c->last_info = NULL;
    free_statics(c);
    word_map_free(&c->statics);
    word_map_free(&c->bad_statics);
    debug_buf_free(&c->resp);
}

void dbg_close(DbgClient *c)
{
    if (c == NULL)
        return;
    if (c->fd >= 0) {
        if (c->paused_by_us)
            dbg_resume(c);
        close(c->fd);   /* a disconnect resumes the program anyway */
    }
    dbg_free_state(c);
    free(c);
}

const DbgTarget *dbg_target(DbgClient *c)
{
    return &c->target;
}

/* ----------------------------------------------------------------------
 * Control
 * ---------------------------------------------------------------------- */

/* Everything cached describes one pause. */
static void forget_heap(DbgClient *c)
{
    dbg_drop_blocks(c);
    free_roots(c);
    free_statics(c);
    word_map_free(&c->statics);
    word_map_free(&c->bad_statics);
}

int dbg_pause(DbgClient *c, uint32_t timeout_ms, uint64_t *latency_ns)
{
    if (c->snapshot) {
        if (latency_ns)
            *latency_ns = 0;
        return 0;
    }
    DebugBuf p = {0};
    debug_buf_put_u32(&p, timeout_ms);
    int st = request(c, DEBUG_CMD_PAUSE, &p);
    debug_buf_free(&p);
    if (st < 0)
        return -1;
    DebugCursor cur = resp_cursor(c);
    uint64_t lat = debug_get_u64(&cur);
    if (latency_ns)
        *latency_ns = lat;
    c->paused_by_us = true;
    forget_heap(c);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (fetch_target(c) != 0)
        return -1;
    c->target.paused_at = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    return 0;
}

int dbg_new_era(DbgClient *c, uint64_t *era)
{
    if (c->snapshot)
        return dbg_fail(c, "a snapshot cannot start a new era: it is not a running program");
    if (request(c, DEBUG_CMD_NEW_ERA, NULL) < 0)
        return -1;
    DebugCursor cur = resp_cursor(c);
    *era = debug_get_u64(&cur);
    if (cur.bad)
        return dbg_fail(c, "malformed new-era reply");
    return 0;
}

int dbg_resume(DbgClient *c)
{
    if (c->snapshot)
        return 0;
    forget_heap(c);
    c->paused_by_us = false;
    return request(c, DEBUG_CMD_RESUME, NULL) < 0 ? -1 : 0;
}

/* ----------------------------------------------------------------------
 * Heap access
 * ---------------------------------------------------------------------- */

int dbg_blocks(DbgClient *c, const DbgBlock **blocks, size_t *n)
{
    if (!c->have_blocks) {
        if (request(c, DEBUG_CMD_BLOCKS, NULL) < 0)
            return -1;
        DebugCursor cur = resp_cursor(c);
        if (dbg_parse_blocks(c, &cur) != 0)
            return -1;
    }
    *blocks = c->blocks;
    *n = c->n_blocks;
    return 0;
}

int dbg_roots(DbgClient *c, const DbgRoot **roots, size_t *n)
{
    if (!c->have_roots) {
        if (request(c, DEBUG_CMD_ROOTS, NULL) < 0)
            return -1;
        DebugCursor cur = resp_cursor(c);
        if (dbg_parse_roots(c, &cur) != 0)
            return -1;
    }
    *roots = c->roots;
    *n = c->n_roots;
    return 0;
}

void dbg_static_root_name(const DbgRoot *r, char *buf, size_t len)
{
    if (r == NULL || r->kind != DEBUG_ROOT_STATIC || r->func[0] == '\0')
        snprintf(buf, len, "%s", "");
    else if (r->file[0] != '\0' && r->line != 0)
        snprintf(buf, len, "%s (%s:%u)", r->func, r->file, r->line);
    else if (r->file[0] != '\0')
        snprintf(buf, len, "%s (%s)", r->func, r->file);
    else
        snprintf(buf, len, "%s", r->func);
}

const DbgRoot *dbg_static_root(DbgClient *c, uint64_t addr)
{
    const DbgRoot *roots;
    size_t n;
    if (!c->have_roots && dbg_roots(c, &roots, &n) != 0)
        return NULL;
    const uint64_t *v = word_map_get(&c->named_statics, addr);
    return v != NULL ? &c->roots[*v - 1] : NULL;
}

static long block_index(DbgClient *c, uint64_t start)
{
    size_t lo = 0, hi = c->n_blocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->blocks[mid].start == start)
            return (long)mid;
        if (c->blocks[mid].start < start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Handles one BLOCK_CONTENTS payload (also a snapshot stream item). */
static int take_block_contents(DbgClient *c, DebugCursor *cur)
{
    uint64_t start = debug_get_u64(cur);
    uint64_t len = debug_get_u64(cur);
    const uint8_t *data = debug_get_bytes(cur, len);
    if (data == NULL)
        return dbg_fail(c, "malformed block contents (0x%llx)", (unsigned long long)start);
    long i = block_index(c, start);
    if (i < 0)
        return dbg_fail(c, "contents for unknown block 0x%llx", (unsigned long long)start);
    return dbg_set_block_data(c, (size_t)i, data, len);
}

int dbg_load_all(DbgClient *c)
{
    if (c->snapshot)
        return 0;
    const DbgBlock *bs;
    size_t n;
    if (dbg_blocks(c, &bs, &n) != 0)
        return -1;
    bool all = true;
    for (size_t i = 0; i < n && all; i++)
        all = bs[i].data != NULL || bs[i].used_bytes == 0;
    if (all)
        return 0;
    int st = request(c, DEBUG_CMD_SNAPSHOT, NULL);
    while (st == DEBUG_STATUS_MORE) {
        DebugCursor cur = resp_cursor(c);
        uint8_t item = debug_get_u8(&cur);
        int r = 0;
        if (item == DEBUG_ITEM_BLOCKS)
            r = 0;   /* same pause: the list we have is this one */
        else if (item == DEBUG_ITEM_BLOCK_CONTENTS)
            while (r == 0 && cur.left > 0)   /* one or more blocks */
                r = take_block_contents(c, &cur);
        else if (item == DEBUG_ITEM_ROOTS)
            r = c->have_roots ? 0 : dbg_parse_roots(c, &cur);
        else
            r = dbg_fail(c, "unknown snapshot stream item %u", item);
        if (r != 0)
            return -1;   /* the stream is out of step: the caller closes */
        st = read_frame(c, DEBUG_CMD_SNAPSHOT);
    }
    return st == DEBUG_STATUS_OK ? 0 : -1;
}

const DbgBlock *dbg_block_of(DbgClient *c, uint64_t addr)
{
    return block_of(c, addr);
}

const uint8_t *dbg_block_data(DbgClient *c, const DbgBlock *b)
{
    if (b->data != NULL || b->used_bytes == 0)
        return b->data;
    if (c->snapshot)
        return NULL;
    DebugBuf p = {0};
    debug_buf_put_u64(&p, b->start);
    int st = request(c, DEBUG_CMD_BLOCK_CONTENTS, &p);
    debug_buf_free(&p);
    if (st < 0)
        return NULL;
    DebugCursor cur = resp_cursor(c);
    if (take_block_contents(c, &cur) != 0)
        return NULL;
    return b->data;
}

const DbgInfo *dbg_info(DbgClient *c, uint64_t addr)
{
    uint64_t *v = word_map_get(&c->infos, addr);
    if (v != NULL)
        return (const DbgInfo *)(uintptr_t)*v;
    if (c->snapshot) {
        dbg_fail(c, "info table 0x%llx is not in the snapshot", (unsigned long long)addr);
        return NULL;
    }
    DebugBuf p = {0};
    debug_buf_put_u32(&p, 1);
    debug_buf_put_u64(&p, addr);
    int st = request(c, DEBUG_CMD_INFO, &p);
    debug_buf_free(&p);
    if (st < 0)
        return NULL;
    DebugCursor cur = resp_cursor(c);
    if (dbg_parse_infos(c, &cur) != 0)
        return NULL;
    v = word_map_get(&c->infos, addr);
    return v ? (const DbgInfo *)(uintptr_t)*v : NULL;
}

static const StaticObj *static_obj(DbgClient *c, uint64_t addr)
{
    uint64_t *v = word_map_get(&c->statics, addr);
    if (v != NULL)
        return (const StaticObj *)(uintptr_t)*v;
    if (c->snapshot || word_map_get(&c->bad_statics, addr) != NULL) {
        dbg_fail(c, "no closure at 0x%llx", (unsigned long long)addr);
        return NULL;
    }
    DebugBuf p = {0};
    debug_buf_put_u32(&p, 1);
    debug_buf_put_u64(&p, addr);
    int st = request(c, DEBUG_CMD_CLOSURES, &p);
    debug_buf_free(&p);
    if (st < 0) {
        word_map_put(&c->bad_statics, addr, 1);
        return NULL;
    }
    DebugCursor cur = resp_cursor(c);
    uint32_t n = debug_get_u32(&cur);
    uint64_t got = debug_get_u64(&cur);
    uint32_t words = debug_get_u32(&cur);
    debug_get_bytes(&cur, 4);
    const uint8_t *data = debug_get_bytes(&cur, (size_t)words * 8);
    if (n != 1 || got != addr || data == NULL) {
        dbg_fail(c, "malformed closures response for 0x%llx", (unsigned long long)addr);
        return NULL;
    }
    if (dbg_add_static(c, addr, data, words) != 0)
        return NULL;
    v = word_map_get(&c->statics, addr);
    return (const StaticObj *)(uintptr_t)*v;
}

/* Exposed to Decode.c: a static closure's words. */
int dbg_static_words(DbgClient *c, uint64_t addr, const uint64_t **words, uint32_t *n);
int dbg_static_words(DbgClient *c, uint64_t addr, const uint64_t **words, uint32_t *n)
{
    const StaticObj *s = static_obj(c, addr);
    if (s == NULL)
        return -1;
    *words = s->words;
    *n = s->n_words;
    return 0;
}
