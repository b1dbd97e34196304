/*
 * utils/debug-client/Client.c -- the client library's transport (requests
 * over the debug socket, docs/debug-protocol.md), its caches (blocks,
 * info tables, static closures: each fetched once).  The wire payloads'
 * decoders, shared with the snapshot reader, are Payloads.c's; the
 * blocks' contents are kept by BlockStore.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "BlockIndex.h"
#include "BlockStore.h"
#include "Client.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "Payloads.h"
#include "strata/Debug.h"

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

int dbg_request_status(DbgClient *c, uint16_t cmd, DebugCursor *reply)
{
    if (c->fd < 0)
        return dbg_fail(c, "not connected to a live program");
    DebugBuf b = {0};
    debug_buf_put_u32(&b, 4);
    debug_buf_put_u16(&b, cmd);
    debug_buf_put_u16(&b, 0);
    int st = b.oom ? dbg_fail(c, "out of memory building a request")
                   : write_full(c, b.data, b.len);
    debug_buf_free(&b);
    if (st != 0)
        return -1;
    st = read_frame(c, cmd);
    *reply = resp_cursor(c);
    return st;
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

bool dbg_heap_is_ghc(const DbgClient *c)
{
    return c->target.heap != NULL;
}

bool dbg_heap_has_eras(const DbgClient *c, const char **why)
{
    if (!dbg_heap_is_ghc(c) || (c->target.heap_flags & DEBUG_HEAP_ERAS_IN_HEADERS))
        return true;
    if (why != NULL)
        *why = c->target.header_words == 1
                   ? "a GHC program has eras only when built with -prof and run with +RTS -he"
                   : "this -prof program was not run with +RTS -he, so its objects carry no era";
    return false;
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
    dbg_free_roots(c);
    dbg_free_alloc_sites(c);
    dbg_free_statics(c);
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
    c->target.resumes_in_era = *era;
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
    return block_index_find(&c->block_index, c->blocks, c->n_blocks, addr);
}

int dbg_words_at(DbgClient *c, uint64_t addr, const uint64_t **words, uint64_t *avail,
                 const DbgBlock **block)
{
    if (!c->have_blocks) {
        const DbgBlock *bs;
        size_t n;
        if (dbg_blocks(c, &bs, &n) != 0)
            return -1;
    }
    const DbgBlock *b = dbg_block_of(c, addr);
    *block = b;
    if (b != NULL) {
        const uint8_t *data = b->data != NULL ? b->data : dbg_block_data(c, b);
        if (data == NULL)
            return -1;
        uint64_t off = addr - b->start;
        *words = (const uint64_t *)(const void *)(data + off);
        *avail = (b->used_bytes - off) / 8;
        return 0;
    }
    uint32_t n;
    if (dbg_static_words(c, addr, words, &n) != 0)
        return -1;
    *avail = n;
    return 0;
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
