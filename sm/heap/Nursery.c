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

/* Note [Counting the nursery]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Every collection asks what each nursery holds (the allocation it
 * accounts for) and where its survivors go (tenure), and both used to walk
 * the nursery's blocks: about a thousand descriptors at the default -A,
 * twice, beside the reset's own walk.  A minor GC that copied nothing took
 * 5.4 µs of CPU against GHC 9.10.3's 2.0 µs; those two walks were 2.1 µs
 * of it (and the statistics' page-fault count, now read only for -S,
 * 0.7 µs), so it takes 2.6 µs now (bench/optimisations.md).  Now:
 *   - the allocation slow path, leaving a block for the next one, adds
 *     what it holds to left_words, so a nursery holds left_words plus its
 *     current block's words (.inv.nursery-count); allocation never goes
 *     back to a block it left, and the reset and the swap for promotion
 *     in place set the count to 0 with the blocks;
 *   - every nursery block's dest_no is nursery_dest (.inv.nursery-dest),
 *     but for at most nursery_sample_blocks() of each nursery, whose
 *     dest_no is sample_dest while a probe of adaptive aging ages a sample
 *     (Note [A probe that ages a sample] in Tenure.c): a block takes
 *     nursery_dest as it joins a nursery, storage_init sets it to 0, and
 *     tenure changes it with storage_nursery_set_dest (which ends a
 *     sample) and storage_nursery_set_sample_dest, which write the blocks
 *     only when a destination changes.
 * The debug level 3 builds recount by walking and compare. */
static uint16_t nursery_dest = 0;
/* 0, or n: 1/n of each nursery's blocks go to sample_dest. */
static unsigned sample_share = 0;
static uint16_t sample_dest = 0;

static void nursery_block_init(BlockDesc *bd)
{
    bd->gen = &storage_gens[0];
    block_set_gen_no(bd, 0);
    bd->dest_no = nursery_dest;
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
    cap->nursery.left_words = 0;
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
        cap->nursery.left_words = 0;
        nursery_enter_block(cap, cap->nursery.blocks);
    }
}

void storage_sync_nursery(void)
{
    for (unsigned i = 0; i < capabilities_n; i++)
        capability_sync_nursery(&capabilities[i]);
}

/* What cap's nursery holds, by walking it: the debug builds' check of
 * .inv.nursery-count. */
static StgWord nursery_words_by_walking(const Capability *cap)
{
    StgWord words = 0;
    for (const BlockDesc *bd = cap->nursery.blocks; bd != NULL; bd = bd->link) {
        words += (StgWord)(bd->free - bd->start);
        if (bd == cap->nursery.current)
            break;
    }
    return words;
}

StgWord storage_nursery_allocated_bytes_of(Capability *cap)
{
    capability_sync_nursery(cap);
    const BlockDesc *cur = cap->nursery.current;
    StgWord words = cur == NULL ? nursery_words_by_walking(cap)
                                : cap->nursery.left_words + (StgWord)(cur->free - cur->start);
    ASSERT_EXPENSIVE(words == nursery_words_by_walking(cap));
    return words * WORD_SIZE;
}

uint16_t storage_nursery_dest(void)
{
    return nursery_dest;
}

/* How many of cap's nursery blocks a sample takes. */
static StgWord nursery_sample_blocks(const Capability *cap)
{
    return sample_share == 0 ? 0 : cap->nursery.n_blocks / sample_share;
}

/* Writes every nursery block's dest_no: nursery_dest, but sample_dest for
 * the last nursery_sample_blocks() that allocation used in each (up to its
 * current block: the youngest objects). */
static void nursery_write_dests(void)
{
    for (unsigned i = 0; i < capabilities_n; i++) {
        Capability *cap = &capabilities[i];
        StgWord used = 0, n = 0;
        for (BlockDesc *bd = cap->nursery.blocks; bd != NULL; bd = bd->link, n++)
            if (bd == cap->nursery.current)
                used = n + 1;
        StgWord k = nursery_sample_blocks(cap);
        StgWord first = used > k ? used - k : 0;
        n = 0;
        for (BlockDesc *bd = cap->nursery.blocks; bd != NULL; bd = bd->link, n++)
            bd->dest_no = n >= first && n < used ? sample_dest : nursery_dest;
    }
}

static void nursery_check_dests(void)
{
#if STRATA_DEBUG >= 3
    for (unsigned i = 0; i < capabilities_n; i++) {
        StgWord k = nursery_sample_blocks(&capabilities[i]);
        for (const BlockDesc *bd = capabilities[i].nursery.blocks; bd != NULL; bd = bd->link) {
            ASSERT_EXPENSIVE(bd->dest_no == nursery_dest || (k > 0 && bd->dest_no == sample_dest));
            k -= bd->dest_no != nursery_dest;
        }
    }   /* .inv.nursery-dest */
#endif
}

void storage_nursery_set_dest(uint16_t dest)
{
    nursery_check_dests();
    if (dest == nursery_dest && sample_share == 0)
        return;
    nursery_dest = dest;
    sample_share = 0;
    nursery_write_dests();
}

void storage_nursery_set_sample_dest(unsigned share, uint16_t to_sample, uint16_t dest)
{
    ASSERT(share > 0);
    nursery_check_dests();
    nursery_dest = dest;
    sample_share = share;
    sample_dest = to_sample;
    nursery_write_dests();
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

StgWord storage_nursery_largest_blocks(void)
{
    StgWord n = 0;
    for (unsigned i = 0; i < capabilities_n; i++)
        if (capabilities[i].nursery.n_blocks > n)
            n = capabilities[i].nursery.n_blocks;
    return n;
}
