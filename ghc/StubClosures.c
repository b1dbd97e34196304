/*
 * ghc/StubClosures.c -- closures of a paused GHC heap: reading memory that
 * a client's address may leave unmapped, GHC 9.10's closure sizes by type,
 * and the CLOSURES request.  Relies on GHC's storage headers (Closures.h,
 * InfoTables.h, TSO.h) and on StubView.c's block list.  See
 * docs/design/ghc-stub.md.
 */
#include "GhcStub.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Largest closure the stub copies out of static memory (words). */
#define STATIC_CLOSURE_MAX_WORDS ((StgWord)1 << 20)

/* ----------------------------------------------------------------------
 * Safe reads
 * ---------------------------------------------------------------------- */

/* process_vm_readv on our own pid copies without faulting: an address a
 * client made up gives EFAULT, never SIGSEGV.  Where that call is refused
 * (a sandbox), write() of the bytes into a pipe does the same: the kernel
 * reads them and says EFAULT. */
static bool read_through_pipe(void *dst, uint64_t addr, size_t n)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return false;
    bool ok = true;
    for (size_t done = 0; ok && done < n;) {
        size_t chunk = n - done < 4096 ? n - done : 4096;
        ssize_t w = write(fds[1], (const void *)(uintptr_t)(addr + done), chunk);
        ok = w > 0 && read(fds[0], (char *)dst + done, (size_t)w) == w;
        done += ok ? (size_t)w : 0;
    }
    close(fds[0]);
    close(fds[1]);
    return ok;
}

bool stub_safe_read(void *dst, uint64_t addr, size_t n)
{
    if (n == 0)
        return true;
    if (addr + n < addr)
        return false;
    struct iovec local = {dst, n}, remote = {(void *)(uintptr_t)addr, n};
    ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (got == (ssize_t)n)
        return true;
    if (got < 0 && (errno == ENOSYS || errno == EPERM))
        return read_through_pipe(dst, addr, n);
    return false;
}

void stub_safe_string(uint64_t addr, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    while (addr != 0 && len + 1 < cap) {
        size_t page_left = 4096 - (size_t)(addr % 4096);
        size_t want = cap - 1 - len < page_left ? cap - 1 - len : page_left;
        if (!stub_safe_read(out + len, addr, want)) {
            out[0] = '\0';
            return;
        }
        if (memchr(out + len, '\0', want) != NULL)
            return;
        len += want;
        addr += want;
    }
    out[len] = '\0';
}

bool stub_info_read(uint64_t info_ptr, StgInfoTable *out)
{
    if (info_ptr % sizeof(StgWord) != 0 || info_ptr < sizeof *out ||
        !stub_safe_read(out, info_ptr - sizeof *out, sizeof *out))
        return false;
    return out->type > INVALID_OBJECT && out->type < N_CLOSURE_TYPES;
}

/* ----------------------------------------------------------------------
 * Sizes
 * ---------------------------------------------------------------------- */

/* Word i of the closure at addr (avail words mapped, or 0: read safely). */
static bool closure_word(uint64_t addr, StgWord avail, StgWord i, StgWord *out)
{
    if (avail != 0) {
        if (i >= avail)
            return false;
        *out = ((const StgWord *)(uintptr_t)addr)[i];
        return true;
    }
    return stub_safe_read(out, addr + i * sizeof(StgWord), sizeof(StgWord));
}

#define FIELD_WORD(type, field) (offsetof(type, field) / sizeof(StgWord))

/* A half word at a byte offset within its word. */
static bool closure_half(uint64_t addr, StgWord avail, size_t byte_off, StgHalfWord *out)
{
    StgWord w;
    if (!closure_word(addr, avail, byte_off / sizeof(StgWord), &w))
        return false;
    memcpy(out, (const char *)&w + byte_off % sizeof(StgWord), sizeof *out);
    return true;
}

/* Sizes whose length is a field of the object. */
static StgWord sized_by_field(uint64_t addr, const StgInfoTable *info, StgWord avail)
{
    StgWord f = 0;
    StgHalfWord h = 0;
    switch (info->type) {
    case ARR_WORDS:
        return closure_word(addr, avail, FIELD_WORD(StgArrBytes, bytes), &f)
                   ? sizeofW(StgArrBytes) + ROUNDUP_BYTES_TO_WDS(f) : 0;
    case MUT_ARR_PTRS_CLEAN: case MUT_ARR_PTRS_DIRTY:
    case MUT_ARR_PTRS_FROZEN_CLEAN: case MUT_ARR_PTRS_FROZEN_DIRTY:
        return closure_word(addr, avail, FIELD_WORD(StgMutArrPtrs, size), &f)
                   ? sizeofW(StgMutArrPtrs) + f : 0;
    case SMALL_MUT_ARR_PTRS_CLEAN: case SMALL_MUT_ARR_PTRS_DIRTY:
    case SMALL_MUT_ARR_PTRS_FROZEN_CLEAN: case SMALL_MUT_ARR_PTRS_FROZEN_DIRTY:
        return closure_word(addr, avail, FIELD_WORD(StgSmallMutArrPtrs, ptrs), &f)
                   ? sizeofW(StgSmallMutArrPtrs) + f : 0;
    case PAP:
        return closure_half(addr, avail, offsetof(StgPAP, n_args), &h) ? PAP_sizeW(h) : 0;
    case AP:
        return closure_half(addr, avail, offsetof(StgAP, n_args), &h) ? AP_sizeW(h) : 0;
    case AP_STACK:
        return closure_word(addr, avail, FIELD_WORD(StgAP_STACK, size), &f)
                   ? sizeofW(StgAP_STACK) + f : 0;
    case BCO:
        return closure_half(addr, avail, offsetof(StgBCO, size), &h) ? h : 0;
    case STACK: {
        uint32_t words;
        if (!closure_word(addr, avail, FIELD_WORD(StgStack, stack_size), &f))
            return 0;
        memcpy(&words, (const char *)&f + offsetof(StgStack, stack_size) % sizeof(StgWord),
               sizeof words);
        return sizeofW(StgStack) + words;
    }
    case CONTINUATION:
        return closure_word(addr, avail, FIELD_WORD(StgContinuation, stack_size), &f)
                   ? sizeofW(StgContinuation) + f : 0;
    default:
        return 0;
    }
}

StgWord stub_closure_words(uint64_t addr, const StgInfoTable *info, StgWord avail)
{
    StgWord payload = (StgWord)info->layout.payload.ptrs + info->layout.payload.nptrs;
    switch (info->type) {
    case CONSTR: case CONSTR_1_0: case CONSTR_0_1: case CONSTR_2_0: case CONSTR_1_1:
    case CONSTR_0_2: case CONSTR_NOCAF:
    case FUN: case FUN_1_0: case FUN_0_1: case FUN_2_0: case FUN_1_1: case FUN_0_2:
    case FUN_STATIC:
    case PRIM: case MUT_PRIM:
        return sizeofW(StgHeader) + payload;
    case THUNK: case THUNK_1_0: case THUNK_0_1: case THUNK_2_0: case THUNK_1_1:
    case THUNK_0_2:
        return sizeofW(StgThunk) + payload;
    case THUNK_STATIC: case IND_STATIC:
        return sizeofW(StgIndStatic);   /* a CAF, evaluated or not */
    case THUNK_SELECTOR:
        return sizeofW(StgSelector);
    case IND: case BLACKHOLE:
        return sizeofW(StgInd);
    case MVAR_CLEAN: case MVAR_DIRTY:
        return sizeofW(StgMVar);
    case TVAR:
        return sizeofW(StgTVar);
    case BLOCKING_QUEUE:
        return sizeofW(StgBlockingQueue);
    case MUT_VAR_CLEAN: case MUT_VAR_DIRTY:
        return sizeofW(StgMutVar);
    case WEAK:
        return sizeofW(StgWeak);
    case TSO:
        return sizeofW(StgTSO);
    case TREC_CHUNK:
        return sizeofW(StgTRecChunk);
    case COMPACT_NFDATA:
        return sizeofW(StgCompactNFData);
    default:
        return sized_by_field(addr, info, avail);
    }
}

/* ----------------------------------------------------------------------
 * CLOSURES
 * ---------------------------------------------------------------------- */

/* The closure at addr: its word count and whether it is in the heap, or
 * an error status with a message.  A heap address must lie in the used
 * part of a listed block and hold a valid info pointer; unlike strata's
 * stub, this one cannot check that an object starts there (GHC leaves
 * slop behind updated thunks, so a block cannot be walked). */
static int locate(uint64_t addr, StgWord *words, bool *in_heap, char *err, size_t err_len)
{
    StgInfoTable info;
    if (addr == 0 || addr % sizeof(StgWord) != 0) {
        snprintf(err, err_len, "closure address 0x%llx is not a word-aligned address",
                 (unsigned long long)addr);
        return DEBUG_STATUS_BAD_ADDRESS;
    }
    const StubBlock *b = stub_view_block_of(addr);
    *in_heap = b != NULL;
    if (b != NULL) {
        StgWord avail = ((uint64_t)(uintptr_t)b->start + b->used - addr) / sizeof(StgWord);
        if (!stub_info_read(*(const StgWord *)(uintptr_t)addr, &info) ||
            (*words = stub_closure_words(addr, &info, avail)) == 0 || *words > avail) {
            snprintf(err, err_len, "closure address 0x%llx does not hold a closure (block 0x%llx)",
                     (unsigned long long)addr, (unsigned long long)(uintptr_t)b->start);
            return DEBUG_STATUS_BAD_ADDRESS;
        }
        return DEBUG_STATUS_OK;
    }
    if (HEAP_ALLOCED((void *)(uintptr_t)addr)) {
        snprintf(err, err_len,
                 "closure address 0x%llx is in the heap but not in the used part of a block",
                 (unsigned long long)addr);
        return DEBUG_STATUS_BAD_ADDRESS;
    }
    StgWord header;
    if (!stub_safe_read(&header, addr, sizeof header) || !stub_info_read(header, &info) ||
        (*words = stub_closure_words(addr, &info, 0)) == 0 ||
        *words > STATIC_CLOSURE_MAX_WORDS) {
        snprintf(err, err_len,
                 "closure address 0x%llx is neither in the heap nor a readable static closure",
                 (unsigned long long)addr);
        return DEBUG_STATUS_BAD_ADDRESS;
    }
    return DEBUG_STATUS_OK;
}

int stub_closures(const DebugRequest *req, DebugBuf *out, char *err, size_t err_len)
{
    debug_buf_put_u32(out, req->n_addrs);
    for (uint32_t i = 0; i < req->n_addrs; i++) {
        uint64_t addr = debug_request_addr(req, i);
        StgWord words;
        bool in_heap;
        int st = locate(addr, &words, &in_heap, err, err_len);
        if (st != DEBUG_STATUS_OK)
            return st;
        debug_put_closure_header(out, addr, (uint32_t)words, in_heap);
        uint8_t *dst = debug_buf_reserve(out, words * sizeof(StgWord));
        if (dst == NULL)
            break;   /* out->oom: the reply becomes RESOURCE */
        if (in_heap) {
            memcpy(dst, (const void *)(uintptr_t)addr, words * sizeof(StgWord));
        } else if (!stub_safe_read(dst, addr, words * sizeof(StgWord))) {
            snprintf(err, err_len, "static closure 0x%llx (%lu words) is not all readable",
                     (unsigned long long)addr, (unsigned long)words);
            return DEBUG_STATUS_BAD_ADDRESS;
        }
    }
    return DEBUG_STATUS_OK;
}
