/*
 * sm/heap/Heap.c -- the heap floor: the heap's address-space reservation,
 * the generations, heap accounting, heap overflow and the doubly linked
 * group lists.  Relies on the block allocator (sm/block/) and reads the
 * capabilities' nurseries and pinned blocks to count the heap; allocates
 * no object and never collects.  See docs/design/storage.md.
 */
#include "Heap.h"

#include <stdlib.h>
#include <string.h>

#include "BlockAlloc.h"
#include "MBlock.h"
#include "Messages.h"
#include "Segment.h"

Generation *storage_gens = NULL;
unsigned storage_n_gens = 0;
StorageConfig storage_config;
HeapOverflowHandler storage_heap_overflow_handler = NULL;
StgWord storage_large_alloc_bytes = 0;

/* Address space reserved for the heap: megablocks come from one range so
 * that heap_alloced is a subtraction and a compare. */
#define HEAP_RESERVATION_BYTES ((StgWord)1 << 40)
#define HEAP_RESERVATION_MIN_BYTES ((StgWord)1 << 28)   /* 256 MiB */

/* ----------------------------------------------------------------------
 * Start-up and shutdown
 * ---------------------------------------------------------------------- */

static void generation_init(Generation *g, unsigned no, unsigned n_gens)
{
    memset(g, 0, sizeof *g);
    g->no = (uint16_t)no;
    g->promote_to = (uint16_t)(no + 1 < n_gens ? no + 1 : no);
    /* GHC's -O default: 1 MiB before the first collection of an old gen. */
    g->max_blocks = (1u << 20) / BLOCK_SIZE;
}

bool heap_init(const StorageConfig *config)
{
    storage_config = *config;
    /* A smaller reservation when the address space is limited (ulimit -v,
     * valgrind): halve down to the minimum before giving up. */
    StgWord reserve = HEAP_RESERVATION_BYTES;
    int err;
    while ((err = mblock_init(reserve)) != 0 && reserve / 2 >= HEAP_RESERVATION_MIN_BYTES)
        reserve /= 2;
    if (err != 0) {
        rts_error("storage: cannot reserve address space for the heap (tried %lu down to %lu "
                  "bytes, errno=%d); is the address space limited (ulimit -v)?",
                  (unsigned long)HEAP_RESERVATION_BYTES, (unsigned long)reserve, err);
        return false;
    }
    if (storage_config.max_heap_bytes > reserve)
        rts_error("storage: warning: the heap can grow to %lu bytes only (address space "
                  "reserved), less than -M%lu", (unsigned long)reserve,
                  (unsigned long)storage_config.max_heap_bytes);
    block_alloc_init();
    segment_classes_init();

    storage_n_gens = storage_config.generations;
    storage_gens = calloc(storage_n_gens, sizeof(Generation));
    if (storage_gens == NULL) {
        rts_error("storage: out of C heap allocating %u generations", storage_n_gens);
        return false;
    }
    for (unsigned g = 0; g < storage_n_gens; g++)
        generation_init(&storage_gens[g], g, storage_n_gens);

    storage_large_alloc_bytes = 0;
    return true;
}

void heap_exit(void)
{
    /* All memory goes back with the reservation. */
    free(storage_gens);
    storage_gens = NULL;
    storage_n_gens = 0;
    mblock_exit();
}

/* ----------------------------------------------------------------------
 * Pinned blocks onto the large-object list
 * ---------------------------------------------------------------------- */

void storage_retire_pinned_block_of(Capability *cap)
{
    BlockDesc *bd = cap->pinned_block;
    if (bd == NULL)
        return;
    cap->pinned_block = NULL;
    Generation *g0 = &storage_gens[0];
    sm_lock();
    dbl_link_onto(bd, &g0->large_objects);
    g0->n_large_blocks += bd->blocks;
    g0->n_large_words += (StgWord)(bd->free - bd->start);
    sm_unlock();
}

void storage_retire_pinned_blocks(void)
{
    for (unsigned i = 0; i < capabilities_n; i++)
        storage_retire_pinned_block_of(&capabilities[i]);
}

/* ----------------------------------------------------------------------
 * Heap size and limits
 * ---------------------------------------------------------------------- */

/* The runtime decides what a heap overflow ends in (exit 251 after
 * shutdown); sm/ never exits the process itself. */
_Noreturn static void heap_overflow_handle(void)
{
    if (storage_heap_overflow_handler != NULL)
        storage_heap_overflow_handler();
    abort();
}

/* Note [Object sizes are checked]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * A size that came from a negative int reaches us as a number near 2^64,
 * and rounding it up to words or adding a header wraps it to a small one:
 * the object would then claim more bytes than it has.  So every
 * constructor that takes a size compares it with the largest object the
 * heap's reservation could hold before any arithmetic, and reports an
 * impossible request as a heap overflow naming the size asked for (exit
 * 251, as a request the OS refuses).  Below that bound, none of the size
 * computations here can wrap. */
StgWord storage_max_object_words(void)
{
    return (StgWord)(mblock_heap_end - mblock_heap_base) / WORD_SIZE;
}

void storage_alloc_too_large(const char *what, StgWord n, const char *unit)
{
    rts_error("heap overflow: %s of %lu %s was asked for, more than the heap can ever hold "
              "(the largest object is %lu bytes)",
              what, (unsigned long)n, unit,
              (unsigned long)(storage_max_object_words() * WORD_SIZE));
    heap_overflow_handle();
}

StgWord storage_heap_blocks(void)
{
    StgWord n = 0;
    for (unsigned g = 0; g < storage_n_gens; g++)
        n += storage_gens[g].n_blocks + storage_gens[g].n_large_blocks;
    for (unsigned i = 0; i < capabilities_n; i++) {
        n += capabilities[i].nursery.n_blocks;
        if (capabilities[i].pinned_block != NULL)
            n += capabilities[i].pinned_block->blocks;
    }
    return n;
}

void storage_heap_overflow(StgWord needed_bytes)
{
    if (storage_config.max_heap_bytes == 0)
        rts_error("heap overflow: the OS refused memory (needed %lu more bytes; heap is %lu bytes)",
                  (unsigned long)needed_bytes,
                  (unsigned long)(storage_heap_blocks() * BLOCK_SIZE));
    else
        rts_error("heap overflow: the heap needs %lu bytes but the maximum heap size is %lu "
                  "bytes (use `+RTS -M<size>' to increase it)",
                  (unsigned long)needed_bytes, (unsigned long)storage_config.max_heap_bytes);
    heap_overflow_handle();
}

/* ----------------------------------------------------------------------
 * Doubly linked group lists
 * ---------------------------------------------------------------------- */

void dbl_link_onto(BlockDesc *bd, BlockDesc **list)
{
    bd->link = *list;
    bd->u.back = NULL;
    if (*list != NULL)
        (*list)->u.back = bd;
    *list = bd;
}

void dbl_link_remove(BlockDesc *bd, BlockDesc **list)
{
    if (bd->u.back != NULL)
        bd->u.back->link = bd->link;
    else
        *list = bd->link;
    if (bd->link != NULL)
        bd->link->u.back = bd->u.back;
    bd->link = NULL;
    bd->u.back = NULL;
}
