/*
 * sm/heap/Nursery.c -- each capability's nursery: making it, syncing the
 * bump pointer, counting what was allocated and resetting it after a GC
 * (entering a block, stamped with the current era, is inline in
 * Nursery.h; moving on to the next one is the allocation slow path's).
 * Relies on the block allocator, the generations (Heap.h) and the current
 * era (Era.h).  See docs/design/storage.md.
 */
#include "Nursery.h"

#include "BlockAlloc.h"
#include "Era.h"
#include "Heap.h"
#include "Messages.h"

static void nursery_block_init(BlockDesc *bd)
{
    bd->gen = &storage_gens[0];
    block_set_gen_no(bd, 0);
    bd->dest_no = 0;
    bd->flags = BF_NURSERY;
}

static BlockDesc *nursery_block_new(void)
{
    BlockDesc *bd = block_alloc_group(1);
    if (bd != NULL)
        nursery_block_init(bd);
    return bd;
}

bool storage_nursery_create(Capability *cap, StgWord n_blocks)
{
    BlockDesc **tail = &cap->nursery.blocks;
    for (StgWord i = 0; i < n_blocks; i++) {
        BlockDesc *bd = nursery_block_new();
        if (bd == NULL) {
            rts_error("storage: cannot allocate the nursery of capability %u (-A%lu bytes)",
                      cap->no, (unsigned long)storage_config.nursery_bytes);
            return false;
        }
        *tail = bd;
        tail = &bd->link;
    }
    cap->nursery.n_blocks = n_blocks;
    return true;
}

StgWord storage_nursery_used_blocks(const Capability *cap)
{
    StgWord n = 0;
    for (const BlockDesc *bd = cap->nursery.blocks; bd != NULL; bd = bd->link) {
        if (bd->free > bd->start)
            n++;
        if (bd == cap->nursery.current)
            break;
    }
    return n;
}

BlockDesc *storage_nursery_swap_used(Capability *cap, BlockDesc **fresh)
{
    BlockDesc *used = NULL;
    BlockDesc **slot = &cap->nursery.blocks;
    for (BlockDesc *bd = *slot; bd != NULL; bd = *slot) {
        bool last = bd == cap->nursery.current;
        if (bd->free > bd->start) {
            BlockDesc *nb = *fresh;
            ASSERT(nb != NULL);
            *fresh = nb->link;
            nursery_block_init(nb);
            nb->link = bd->link;
            *slot = nb;
            bd->link = used;
            used = bd;
            bd = nb;
        }
        if (last)
            break;
        slot = &bd->link;
    }
    cap->nursery.current = cap->nursery.blocks;
    return used;
}

void storage_reset_nursery(void)
{
    for (unsigned i = 0; i < capabilities_n; i++) {
        Capability *cap = &capabilities[i];
        for (BlockDesc *bd = cap->nursery.blocks; bd != NULL; bd = bd->link) {
            bd->free = bd->start;
            bd->n_era_runs = 0;
        }
        nursery_enter_block(cap, cap->nursery.blocks);
    }
}

void storage_sync_nursery(void)
{
    for (unsigned i = 0; i < capabilities_n; i++)
        capability_sync_nursery(&capabilities[i]);
}

StgWord storage_nursery_allocated_bytes_of(Capability *cap)
{
    StgWord words = 0;
    capability_sync_nursery(cap);
    capability_sync_nursery(cap);
    for (BlockDesc *bd = cap->nursery.blocks; bd != NULL; bd = bd->link) {
        words += (StgWord)(bd->free - bd->start);
        if (bd == cap->nursery.current)
            break;
    }
    return words * WORD_SIZE;
}

StgWord storage_nursery_allocated_bytes(void)
{
    StgWord bytes = 0;
    for (unsigned i = 0; i < capabilities_n; i++)
        bytes += storage_nursery_allocated_bytes_of(&capabilities[i]);
    return bytes;
}

StgWord storage_nursery_blocks(void)
{
    StgWord n = 0;
    for (unsigned i = 0; i < capabilities_n; i++)
        n += capabilities[i].nursery.n_blocks;
    return n;
}
