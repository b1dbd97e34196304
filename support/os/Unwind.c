/*
 * support/os/Unwind.c -- the calling thread's call stack by a walk of the
 * call frame information with each return address's rule cached (see
 * Unwind.h and Note [Cached unwind rules]).  x86-64 only; elsewhere it
 * is os_process_call_stack.
 */
#include "Unwind.h"

#include <stdint.h>
#include <string.h>

#include "Process.h"

static _Thread_local bool cache_off;

void os_call_stack_cache(bool on)
{
    cache_off = !on;
}

#if defined(__x86_64__) && defined(__GNUC__)

/* Note [Cached unwind rules]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~
 * The C library's backtrace finds each frame's FDE and interprets its CFI
 * program afresh, about 1,500 instructions a frame, and an allocation
 * sample's stack has 10-30 frames.  Yet the return addresses a sampled
 * program's stacks pass through are few.  So the rule that unwinds one
 * return address -- where the caller's stack pointer is (the CFA: rsp or
 * rbp plus an offset), where the return address and the caller's rbp
 * are saved -- is read from .eh_frame once (the FDE found by libgcc's
 * _Unwind_Find_FDE, which backtrace uses too) and kept in a small
 * per-thread table keyed by the address.  A walk then costs a lookup and
 * two loads a frame.  Only rsp and rbp are tracked: a CFA in another
 * register or by expression (stack realignment), a signal frame or any
 * CFI operation the reader does not know marks the rule unreadable and
 * the whole stack is taken by backtrace, so the walk gives backtrace's
 * answer or backtrace gives it.  The walk ends where backtrace's does:
 * at an address with no FDE or whose rule leaves the return address
 * undefined (_start), after recording it.  Entries are never evicted by
 * code unloading: the runtime does not dlclose, so an address keeps its
 * code. */

struct dwarf_eh_bases {
    void *tbase, *dbase, *func;
};
extern const void *_Unwind_Find_FDE(void *pc, struct dwarf_eh_bases *bases);

enum { REG_RBP = 6, REG_RSP = 7, REG_RA = 16 };
enum { RULE_EMPTY, RULE_STEP, RULE_END, RULE_UNREADABLE };
enum { HOW_SAME, HOW_OFFSET, HOW_UNDEFINED };

typedef struct {
    uintptr_t pc;        /* the address looked up (a return address - 1) */
    int32_t cfa_off;     /* CFA = (cfa_rbp ? rbp : rsp) + cfa_off */
    int32_t rbp_off;     /* the caller's rbp at CFA + rbp_off, if saved */
    int32_t ra_off;      /* the return address at CFA + ra_off */
    uint8_t kind, cfa_rbp, rbp_saved;
} Rule;

#define CACHE_BITS 9
static _Thread_local Rule cache[1u << CACHE_BITS];

/* The CFI row being built: the CFA and the two registers the walk uses. */
typedef struct {
    uint64_t cfa_reg;
    int64_t cfa_off;
    int rbp_how, ra_how;
    int64_t rbp_off, ra_off;
} Row;

typedef struct {
    const uint8_t *p, *end;
    bool bad;
} Reader;

static uint64_t uleb(Reader *r)
{
    uint64_t v = 0;
    for (unsigned shift = 0; r->p < r->end; shift += 7) {
        uint8_t b = *r->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = true;
    return 0;
}

static int64_t sleb(Reader *r)
{
    uint64_t v = 0;
    unsigned shift = 0;
    while (r->p < r->end) {
        uint8_t b = *r->p++;
        if (shift < 64)
            v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) {
            if (shift < 64 && (b & 0x40))
                v |= ~(uint64_t)0 << shift;
            return (int64_t)v;
        }
    }
    r->bad = true;
    return 0;
}

static uint64_t fixed(Reader *r, size_t n)
{
    uint64_t v = 0;
    if ((size_t)(r->end - r->p) < n) {
        r->bad = true;
        return 0;
    }
    memcpy(&v, r->p, n); /* little-endian */
    r->p += n;
    return v;
}

/* Skips a pointer of DW_EH_PE encoding enc (its value is not needed: the
 * FDE's start comes from _Unwind_Find_FDE). */
static void skip_encoded(Reader *r, uint8_t enc)
{
    if (enc == 0xff) /* DW_EH_PE_omit */
        return;
    switch (enc & 0x0f) {
    case 0x00: case 0x04: case 0x0c: fixed(r, 8); break;
    case 0x02: case 0x0a: fixed(r, 2); break;
    case 0x03: case 0x0b: fixed(r, 4); break;
    case 0x01: uleb(r); break;
    case 0x09: sleb(r); break;
    default: r->bad = true;
    }
    if ((enc & 0x70) == 0x50) /* DW_EH_PE_aligned */
        r->bad = true;
}

static void set_reg(Row *row, uint64_t reg, int how, int64_t off)
{
    if (reg == REG_RBP) {
        row->rbp_how = how;
        row->rbp_off = off;
    } else if (reg == REG_RA) {
        row->ra_how = how;
        row->ra_off = off;
    }
}

/* DW_CFA_restore: reg's rule as the CIE's program left it. */
static void restore_reg(Row *row, const Row *init, uint64_t reg)
{
    if (reg == REG_RBP)
        set_reg(row, reg, init->rbp_how, init->rbp_off);
    else if (reg == REG_RA)
        set_reg(row, reg, init->ra_how, init->ra_off);
}

/* Runs the CFI program at r until the row for target is complete (loc,
 * code_align, data_align as the CIE says; init the row after the CIE's
 * own program, for DW_CFA_restore).  false: an operation it cannot
 * follow. */
static bool run_cfi(Reader *r, Row *row, const Row *init, uintptr_t loc, uintptr_t target,
                    uint64_t code_align, int64_t data_align)
{
    Row saved[8];
    size_t n_saved = 0;
    while (r->p < r->end && !r->bad) {
        uint8_t op = *r->p++;
        uint64_t reg, delta = 0;
        switch (op & 0xc0) {
        case 0x40: delta = op & 0x3f; break;
        case 0x80: reg = op & 0x3f; set_reg(row, reg, HOW_OFFSET, (int64_t)uleb(r) * data_align); continue;
        case 0xc0: restore_reg(row, init, op & 0x3f); continue;
        default:
            switch (op) {
            case 0x00: continue;
            case 0x02: delta = fixed(r, 1); break;
            case 0x03: delta = fixed(r, 2); break;
            case 0x04: delta = fixed(r, 4); break;
            case 0x05: reg = uleb(r); set_reg(row, reg, HOW_OFFSET, (int64_t)uleb(r) * data_align); continue;
            case 0x06: restore_reg(row, init, uleb(r)); continue;
            case 0x07: set_reg(row, uleb(r), HOW_UNDEFINED, 0); continue;
            case 0x08: set_reg(row, uleb(r), HOW_SAME, 0); continue;
            case 0x09: case 0x14: case 0x15: /* register, val_offset(_sf) */
                reg = uleb(r);
                if (op == 0x15)
                    sleb(r);
                else
                    uleb(r);
                if (reg == REG_RBP || reg == REG_RA)
                    return false;
                continue;
            case 0x0a:
                if (n_saved == sizeof saved / sizeof saved[0])
                    return false;
                saved[n_saved++] = *row;
                continue;
            case 0x0b:
                if (n_saved == 0)
                    return false;
                *row = saved[--n_saved];
                continue;
            case 0x0c: row->cfa_reg = uleb(r); row->cfa_off = (int64_t)uleb(r); continue;
            case 0x0d: row->cfa_reg = uleb(r); continue;
            case 0x0e: row->cfa_off = (int64_t)uleb(r); continue;
            case 0x11: reg = uleb(r); set_reg(row, reg, HOW_OFFSET, sleb(r) * data_align); continue;
            case 0x12: row->cfa_reg = uleb(r); row->cfa_off = sleb(r) * data_align; continue;
            case 0x13: row->cfa_off = sleb(r) * data_align; continue;
            case 0x2e: uleb(r); continue; /* GNU_args_size */
            case 0x2f: reg = uleb(r); set_reg(row, reg, HOW_OFFSET, -(int64_t)uleb(r) * data_align); continue;
            default: return false; /* set_loc, def_cfa_expression, others */
            }
        }
        loc += delta * code_align;
        if (loc > target)
            break;
    }
    return !r->bad;
}

/* The rule at address pc (an instruction of the frame's code) from its
 * FDE: the CIE's augmentation, then both programs. */
static Rule read_rule(uintptr_t pc)
{
    Rule rule = {.pc = pc, .kind = RULE_UNREADABLE};
    struct dwarf_eh_bases bases;
    const uint8_t *fde = _Unwind_Find_FDE((void *)pc, &bases);
    if (fde == NULL) {
        rule.kind = RULE_END;
        return rule;
    }
    uint32_t fde_len, cie_off, cie_len;
    memcpy(&fde_len, fde, 4);
    memcpy(&cie_off, fde + 4, 4);
    if (fde_len == 0xffffffffu || cie_off == 0)
        return rule;
    const uint8_t *cie = fde + 4 - cie_off;
    memcpy(&cie_len, cie, 4);
    if (cie_len == 0xffffffffu)
        return rule;
    Reader c = {.p = cie + 8, .end = cie + 4 + cie_len};
    uint8_t version = (uint8_t)fixed(&c, 1);
    const char *aug = (const char *)c.p;
    size_t aug_len = strnlen(aug, (size_t)(c.end - c.p));
    c.p += aug_len + 1;
    uint64_t code_align = uleb(&c);
    int64_t data_align = sleb(&c);
    if (version == 1)
        fixed(&c, 1);
    else
        uleb(&c);
    uint8_t fde_enc = 0;
    if (aug[0] == 'z') {
        Reader a = {.p = c.p, .end = c.end};
        uint64_t n = uleb(&a);
        if (a.bad || n > (uint64_t)(a.end - a.p))
            return rule;
        c.p = a.p + n;
        for (size_t i = 1; i < aug_len && !a.bad; i++) {
            if (aug[i] == 'R')
                fde_enc = (uint8_t)fixed(&a, 1);
            else if (aug[i] == 'P')
                skip_encoded(&a, (uint8_t)fixed(&a, 1));
            else if (aug[i] == 'L')
                fixed(&a, 1);
            else
                return rule; /* 'S' (a signal frame) and the unknown */
        }
    } else if (aug[0] != '\0') {
        return rule;
    }
    if (c.bad)
        return rule;
    Row row = {.cfa_reg = REG_RSP}, init;
    uintptr_t func = (uintptr_t)bases.func;
    if (!run_cfi(&c, &row, &row, func, pc, code_align, data_align))
        return rule;
    init = row;
    Reader f = {.p = fde + 8, .end = fde + 4 + fde_len};
    skip_encoded(&f, fde_enc);
    skip_encoded(&f, fde_enc & 0x0f);
    if (aug[0] == 'z')
        f.p += uleb(&f);
    if (f.bad || f.p > f.end || !run_cfi(&f, &row, &init, func, pc, code_align, data_align))
        return rule;
    if (row.ra_how == HOW_UNDEFINED) {
        rule.kind = RULE_END;
        return rule;
    }
    if ((row.cfa_reg != REG_RSP && row.cfa_reg != REG_RBP) || row.ra_how != HOW_OFFSET ||
        row.rbp_how == HOW_UNDEFINED || row.cfa_off != (int32_t)row.cfa_off ||
        row.ra_off != (int32_t)row.ra_off || row.rbp_off != (int32_t)row.rbp_off)
        return rule;
    rule.kind = RULE_STEP;
    rule.cfa_rbp = row.cfa_reg == REG_RBP;
    rule.cfa_off = (int32_t)row.cfa_off;
    rule.ra_off = (int32_t)row.ra_off;
    rule.rbp_saved = row.rbp_how == HOW_OFFSET;
    rule.rbp_off = (int32_t)row.rbp_off;
    return rule;
}

static Rule rule_at(uintptr_t pc)
{
    if (cache_off)
        return read_rule(pc);
    Rule *slot = &cache[(pc * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - CACHE_BITS)];
    if (slot->kind == RULE_EMPTY || slot->pc != pc)
        *slot = read_rule(pc);
    return *slot;
}

/* The walk from the registers of a point in os_call_stack: false if a
 * frame's rule is unreadable or the stack does not grow up as it goes. */
static bool walk(uintptr_t pc, uintptr_t sp, uintptr_t bp, void **pcs, size_t max, size_t *n)
{
    uintptr_t look = pc; /* the first is no return address: its own rule */
    *n = 0;
    while (*n < max) {
        pcs[(*n)++] = (void *)pc;
        Rule rule = rule_at(look);
        if (rule.kind == RULE_END)
            return true;
        if (rule.kind != RULE_STEP)
            return false;
        uintptr_t cfa = (rule.cfa_rbp ? bp : sp) + (uintptr_t)(intptr_t)rule.cfa_off;
        if (cfa <= sp || (cfa & 7) != 0)
            return false;
        pc = *(const uintptr_t *)(cfa + (uintptr_t)(intptr_t)rule.ra_off);
        if (rule.rbp_saved)
            bp = *(const uintptr_t *)(cfa + (uintptr_t)(intptr_t)rule.rbp_off);
        sp = cfa;
        if (pc == 0)
            return true;
        look = pc - 1; /* inside the call, whose rule it is */
    }
    return true;
}

__attribute__((noinline)) size_t os_call_stack(void **pcs, size_t max)
{
    uintptr_t pc, sp, bp;
    __asm__ volatile("lea 0f(%%rip), %0\n0:\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
                     : "=r"(pc), "=r"(sp), "=r"(bp));
    size_t n;
    if (max > 0 && walk(pc, sp, bp, pcs, max, &n))
        return n;
    return os_process_call_stack(pcs, max);
}

#else

size_t os_call_stack(void **pcs, size_t max)
{
    return os_process_call_stack(pcs, max);
}

#endif
