/*
 * strata/Config.h -- word type, version and the storage manager's fixed sizes.
 *
 * The block and megablock geometry is GHC's (docs/reference/storage.md): 4 KiB
 * blocks inside 1 MiB-aligned megablocks whose first 16 KiB hold one 64-byte
 * descriptor per block slot.  Everything here is a compile-time constant.
 */
#ifndef STRATA_CONFIG_H
#define STRATA_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#define STRATA_VERSION "0.1.0"

/* Symbols of the public API are exported; everything else is hidden
 * (the library is built with -fvisibility=hidden). */
#if defined(__GNUC__)
#define STRATA_API __attribute__((visibility("default")))
#else
#define STRATA_API
#endif

typedef uintptr_t StgWord;   /* one machine word */
typedef intptr_t StgInt;     /* a signed machine word */
typedef uint32_t StgHalfWord;
typedef StgWord *StgPtr;     /* a pointer to words in the heap */

#define WORD_SIZE ((StgWord)sizeof(StgWord))
#define WORD_SHIFT 3

#define BLOCK_SHIFT 12
#define BLOCK_SIZE ((StgWord)1 << BLOCK_SHIFT)              /* 4096 bytes */
#define BLOCK_SIZE_W (BLOCK_SIZE / WORD_SIZE)
#define BLOCK_MASK (BLOCK_SIZE - 1)

#define MBLOCK_SHIFT 20
#define MBLOCK_SIZE ((StgWord)1 << MBLOCK_SHIFT)            /* 1 MiB */
#define MBLOCK_MASK (MBLOCK_SIZE - 1)

#define BDESCR_SHIFT 6
#define BDESCR_SIZE ((StgWord)1 << BDESCR_SHIFT)            /* 64 bytes */

/* Descriptors for the 256 block slots of a megablock take 16 KiB, which is
 * the first 4 block slots; the remaining 252 slots are usable blocks. */
#define FIRST_BLOCK_OFF (BDESCR_SIZE << (MBLOCK_SHIFT - BLOCK_SHIFT))
#define FIRST_USABLE_BLOCK (FIRST_BLOCK_OFF >> BLOCK_SHIFT)  /* 4 */
#define BLOCKS_PER_MBLOCK ((MBLOCK_SIZE - FIRST_BLOCK_OFF) / BLOCK_SIZE)  /* 252 */

/* Objects of at least this many bytes get a block group of their own and are
 * never copied (8/10 of a block, as in GHC). */
#define LARGE_OBJECT_THRESHOLD ((BLOCK_SIZE * 8) / 10)

#define ROUND_UP_WORDS(bytes) (((bytes) + WORD_SIZE - 1) / WORD_SIZE)

#if defined(__GNUC__)
#define STRATA_LIKELY(x) __builtin_expect(!!(x), 1)
#define STRATA_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define STRATA_LIKELY(x) (x)
#define STRATA_UNLIKELY(x) (x)
#endif

#endif /* STRATA_CONFIG_H */
