/*
 * utils/debug-client/BlockStore.c -- the blocks' contents, as the socket
 * (Client.c) fetches them and the snapshot reader (Snapshot.c) reads
 * them: copies cut from large mappings (Note [Block contents in chunks]),
 * freed all at once with the block list when the pause ends.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "BlockIndex.h"
#include "BlockStore.h"
#include "ClientState.h"
#include "DebugTypes.h"
#include "GrowArray.h"

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
