/*
 * utils/debug-client/GhcSnapshot.c -- the heap part of a snapshot of a GHC
 * program: its live objects found from the traversal's marks, since a GHC
 * block cannot be walked object by object (Note [Snapshots of a GHC
 * heap]).  Snapshot.c writes the rest of the file as for strata's heap.
 */
#include <stdlib.h>

#include "ClientState.h"
#include "Decode.h"
#include "GhcSnapshot.h"
#include "HeapLookup.h"
#include "ReachState.h"
#include "SnapshotSegments.h"
#include "strata/Debug.h"

/* Note [Snapshots of a GHC heap]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * strata's snapshot writer walks each block from its start, object by
 * object.  GHC leaves the rest of an updated thunk behind its indirection
 * as slop that is not zeroed (unless it runs its sanity checker), so a
 * walk of a GHC block goes astray at the first one.  So the objects saved
 * are taken from the marks, in address order, with the weak pointers and
 * their values (not marked: Note [Weak pointers in a snapshot] in
 * Snapshot.c) merged in; adjacent ones make one segment as before.  A
 * pinned block, which holds only byte arrays and no slop, is still saved
 * whole when any object in it is (.inv.ghc-no-block-walk). */

static int addr_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The next object of block i after the mark word cursor *k, *bits, or of
 * the sorted extra addresses at *e: the lower of the two (0 at the end). */
typedef struct {
    const uint64_t *marks;
    size_t n_words, k;
    uint64_t bits;
    const uint64_t *extra;
    size_t n_extra, e;
    uint64_t start;
} ObjCursor;

static uint64_t next_marked(ObjCursor *o)
{
    while (o->bits == 0 && o->marks != NULL && o->k < o->n_words)
        o->bits = o->marks[o->k++];
    if (o->bits == 0)
        return 0;
    uint64_t w = (uint64_t)(o->k - 1) * 64 + (uint64_t)__builtin_ctzll(o->bits);
    return o->start + w * 8;
}

static uint64_t next_object(ObjCursor *o)
{
    uint64_t m = next_marked(o);
    uint64_t x = o->e < o->n_extra ? o->extra[o->e] : 0;
    uint64_t a = m == 0 ? x : x == 0 || m < x ? m : x;
    if (a != 0 && a == m)
        o->bits &= o->bits - 1;
    if (a != 0 && a == x)
        o->e++;
    return a;
}

static int put_block(DbgClient *c, DebugBuf *b, const DbgBlock *blk, ObjCursor *o,
                     uint8_t *pinned_done, uint64_t *n_segments)
{
    SegmentRun run;
    segment_run_start(&run, b, blk, n_segments);
    for (uint64_t a; (a = next_object(o)) != 0;) {
        if (blk->kind == DEBUG_BLOCK_PINNED) {
            *pinned_done = 1;   /* whole, below */
            continue;
        }
        DbgClosure cl;
        if (dbg_closure_in(c, blk, a, &cl) != 0)
            return -1;
        segment_run_add(&run, (a - blk->start) / 8, cl.n_words);
    }
    segment_run_end(&run);
    if (*pinned_done)
        dbg_snapshot_put_segment(b, blk->start, 1, (const uint64_t *)(const void *)blk->data,
                                 blk->used_bytes / 8, n_segments);
    return 0;
}

int ghc_put_block_segments(DbgClient *c, const DbgReach *r, DebugBuf *b, const WordMap *weak_kept,
                           uint8_t *pinned_done, uint64_t *n_segments)
{
    uint64_t *extra = malloc((weak_kept->n ? weak_kept->n : 1) * sizeof *extra);
    if (extra == NULL)
        return dbg_fail(c, "out of memory for the snapshot");
    size_t n_extra = 0, pos = 0;
    uint64_t key, val;
    while (word_map_next(weak_kept, &pos, &key, &val))
        if (block_of(c, key) != NULL)
            extra[n_extra++] = key;
    qsort(extra, n_extra, sizeof *extra, addr_cmp);
    size_t e = 0;
    int st = 0;
    for (size_t i = 0; i < c->n_blocks && st == 0; i++) {
        const DbgBlock *blk = &c->blocks[i];
        size_t first = e;
        while (e < n_extra && extra[e] < blk->start + blk->used_bytes)
            e++;
        ObjCursor o = {r->marks[i], (blk->used_bytes / 8 + 63) / 64 + 1, 0, 0,
                       extra + first, e - first, 0, blk->start};
        st = put_block(c, b, blk, &o, &pinned_done[i], n_segments);
    }
    free(extra);
    return st;
}
