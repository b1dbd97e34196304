/*
 * ghc/GhcStub.h -- strata's debug stub for GHC 9.10 programs: what its
 * parts share.  The stub is C compiled into a Haskell program by ghc itself,
 * against GHC's own headers (Rts.h), never against strata's runtime; it
 * serves strata's debug protocol (docs/debug-protocol.md, version 2) so that
 * strata-debug can analyse a GHC heap.  The parts: StubServer.c (the socket,
 * requests, starting), StubPause.c (rts_pause on a thread of its own),
 * StubView.c (what the pause reads first: blocks, threads, stable pointers),
 * StubHeap.c (BLOCKS, BLOCK_CONTENTS, SNAPSHOT), StubClosures.c (closure
 * sizes, CLOSURES, safe reads), StubInfo.c (INFO) and StubRoots.c (ROOTS).
 * docs/design/ghc-stub.md describes the design; scripts/ghc-stub-source.sh
 * joins the parts, with the protocol code they share with strata's own stub,
 * into the one file that is installed (share/strata/ghc/strata-ghc-debug.c).
 */
#ifndef STRATA_GHCSTUB_H
#define STRATA_GHCSTUB_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* process_vm_readv, program_invocation_short_name */
#endif

/* ghc compiles C for a -threaded program without THREADED_RTS, but GHC's
 * structures (a generation's size, among others) depend on it, and the stub
 * refuses to start in a program without the threaded runtime (rts_pause
 * needs it). */
#ifndef THREADED_RTS
#define THREADED_RTS 1
#endif
#include "Rts.h"
/* GHC's ASSERT gives way to strata's (support/Messages.h), which the
 * support code the stub shares with strata's stub uses; in the stub's build
 * both check nothing. */
#undef ASSERT

/* Note [One GHC version]
 * ~~~~~~~~~~~~~~~~~~~~~~
 * The stub reads GHC's heap through GHC's headers, and strata-debug decodes
 * what it sends by GHC 9.10's layouts (utils/debug-client/GhcLayout.c), so
 * both are for one major version of GHC.  Compiled by another ghc, the stub
 * stops the build naming both versions (the rest of the file is then left
 * out, so no other error follows); the heap name it sends ("ghc-9.10.3")
 * lets strata-debug refuse, by name, a stub of another version built some
 * other way (.inv.ghc-stub-one-version). */
#if __GLASGOW_HASKELL__ != 910
#define STUB_UNSUPPORTED_GHC 1
#pragma message("strata-ghc-debug.c: this ghc is GHC " __GLASGOW_HASKELL_FULL_VERSION__)
#error "strata-ghc-debug.c reads the heap of GHC 9.10 only: compile the program with ghc 9.10"
#elif !defined(TABLES_NEXT_TO_CODE) || SIZEOF_VOID_P != 8
#define STUB_UNSUPPORTED_GHC 1
#error "strata-ghc-debug.c supports 64-bit GHC with tables next to code (x86-64, AArch64)"
#endif
#if !defined(STUB_UNSUPPORTED_GHC)   /* to the end: nothing else to complain about */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "DebugRequest.h"
#include "DebugServe.h"
#include "DebugWire.h"
#include "strata/DebugProtocol.h"

/* A Capability is opaque outside the RTS, but compiled code reaches two of
 * its fields at offsets DerivedConstants.h gives (OFFSET_Capability_r, the
 * allocation registers, and OFFSET_Capability_weak_ptr_list_hd), and so may
 * the stub.  That header spells three of Block.h's sizes as numbers. */
#pragma push_macro("BLOCK_SIZE")
#pragma push_macro("MBLOCK_SIZE")
#pragma push_macro("BLOCKS_PER_MBLOCK")
#undef BLOCK_SIZE
#undef MBLOCK_SIZE
#undef BLOCKS_PER_MBLOCK
#include "DerivedConstants.h"
#pragma pop_macro("BLOCK_SIZE")
#pragma pop_macro("MBLOCK_SIZE")
#pragma pop_macro("BLOCKS_PER_MBLOCK")

/* Exported by the RTS, declared only in its own headers. */
extern Capability **capabilities;
extern nursery *nurseries;
extern uint32_t n_nurseries;
extern unsigned int SNT_size;
void traceUserMarker(Capability *cap, char *msg);

/* The heap's name in VERSION (protocol version 2). */
#define STUB_HEAP_NAME "ghc-" __GLASGOW_HASKELL_FULL_VERSION__

/* Words of every closure's header: the info pointer, and GHC's profiling
 * header in a -prof build. */
#define STUB_HEADER_WORDS (sizeof(StgHeader) / sizeof(StgWord))

/* ----------------------------------------------------------------------
 * Messages (StubServer.c)
 * ---------------------------------------------------------------------- */

/* The stub's name in its messages, and so in every program's bytes:
 * strata-debug's --pid tells a GHC program with the stub from one without
 * by it (utils/strata-debug/NoStub.c). */
#define STUB_WHO "strata-ghc-debug"

/* One line on stderr, "<program>: strata-ghc-debug: <message>". */
void stub_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ----------------------------------------------------------------------
 * What a pause reads first (StubView.c)
 * ---------------------------------------------------------------------- */

/* One block group, in the protocol's terms. */
typedef struct {
    StgPtr start;                /* objects lie in [start, start + used) */
    StgWord used;                /* bytes */
    uint32_t n_blocks;
    uint16_t gen;
    uint8_t kind;                /* DEBUG_BLOCK_* */
} StubBlock;

/* The heap as the pause found it; read only while paused.  Built on the
 * pausing thread (rts_listThreads and rts_listMiscRoots must be called
 * there), read by the server's thread after the hand-over in StubPause.c. */
typedef struct {
    StubBlock *blocks;           /* sorted by start */
    size_t n_blocks, cap_blocks;
    StgTSO **threads;            /* live threads, by id: oldest first */
    size_t n_threads, cap_threads;
    StgClosure **stable;         /* stable pointer targets */
    size_t n_stable, cap_stable;
    bool oom;                    /* a list above is short */
    const char *unsupported;     /* why this heap cannot be served, or NULL */
} StubView;

extern StubView stub_view;

/* Fills stub_view; on the pausing thread, with the RTS paused. */
void stub_view_build(void);
/* The block whose used part holds addr, or NULL. */
const StubBlock *stub_view_block_of(uint64_t addr);
/* The block starting exactly at addr (used or empty), or NULL. */
const StubBlock *stub_view_block_at(uint64_t addr);

/* ----------------------------------------------------------------------
 * Pausing (StubPause.c)
 * ---------------------------------------------------------------------- */

/* Starts the pausing thread; 0 or an errno value. */
int stub_pause_init(void);
/* Pauses every Haskell thread (rts_pause), waiting at most timeout_ms:
 * DEBUG_STATUS_OK with the latency, or TIMEOUT with a message. */
int stub_pause(uint32_t timeout_ms, uint64_t *latency_ns, char *err, size_t err_len);
/* Resumes; false if the program was not paused. */
bool stub_resume(void);
bool stub_is_paused(void);
/* NEW_ERA while paused: the era the program resumes in. */
uint64_t stub_new_era(void);
/* The era allocation is in now (0 unless paused, or without eras). */
uint64_t stub_era_now(void);
/* True when objects carry their era (-prof, run with +RTS -he). */
bool stub_eras_in_headers(void);

/* ----------------------------------------------------------------------
 * Requests that read the heap (paused only)
 * ---------------------------------------------------------------------- */

void stub_put_blocks(DebugBuf *out);
int stub_block_contents(uint64_t start, DebugBuf *out, char *err, size_t err_len);
bool stub_snapshot(const DebugConn *c);
int stub_closures(const DebugRequest *req, DebugBuf *out, char *err, size_t err_len);
int stub_info(const DebugRequest *req, DebugBuf *out, char *err, size_t err_len);
void stub_put_roots(DebugBuf *out);

/* ----------------------------------------------------------------------
 * Reading memory that may not be mapped, and closures (StubClosures.c)
 * ---------------------------------------------------------------------- */

/* Copies n bytes at addr without faulting (process_vm_readv on our own
 * pid); false if any byte is unreadable. */
bool stub_safe_read(void *dst, uint64_t addr, size_t n);
/* A NUL-terminated string at addr into out (cut to cap - 1); "" if
 * unreadable. */
void stub_safe_string(uint64_t addr, char *out, size_t cap);
/* The info table of an info pointer (the word in a closure's header: the
 * entry code, with the table just before it), copied if readable and of a
 * known closure type. */
bool stub_info_read(uint64_t info_ptr, StgInfoTable *out);
/* The size in words of the closure at addr (mapped for avail words, or
 * read safely when avail is 0) whose table is info; 0 if it is not a heap
 * or static closure of a known layout. */
StgWord stub_closure_words(uint64_t addr, const StgInfoTable *info, StgWord avail);

/* ----------------------------------------------------------------------
 * Pointer bitmaps (StubInfo.c)
 * ---------------------------------------------------------------------- */

/* The longest bitmap handled (bits): larger ones are a sign of a bad table. */
#define STUB_BITMAP_MAX_BITS 65536u

/* Bit i set: word i is a pointer (GHC's own bitmaps set a bit for a
 * non-pointer). */
typedef struct {
    uint8_t bytes[STUB_BITMAP_MAX_BITS / 8];
    uint32_t bits;
} StubBitmap;

void stub_bitmap_clear(StubBitmap *m);
bool stub_bitmap_is_ptr(const StubBitmap *m, uint32_t i);
/* GHC's small bitmap (size and bits in one word), or the large bitmap at
 * addr (read safely; empty if unreadable). */
void stub_bitmap_small(StubBitmap *m, StgWord bitmap);
void stub_bitmap_large(StubBitmap *m, uint64_t addr);
/* The argument words of the function whose info pointer is info_ptr. */
void stub_fun_arg_bitmap(uint64_t info_ptr, StubBitmap *m);
/* The SRT's static closure of the table at info_ptr, or 0. */
uint64_t stub_info_srt(uint64_t info_ptr, const StgInfoTable *info);
/* IPE provenance of an info pointer (lookupIPE), or false. */
bool stub_ipe(uint64_t info_ptr, InfoProvEnt *out);

/* Pointer tags live in the low bits of a pointer. */
static inline uint64_t stub_untag(uint64_t p)
{
    return p & ~(uint64_t)TAG_MASK;
}

#endif /* !STUB_UNSUPPORTED_GHC */
#endif /* STRATA_GHCSTUB_H */
