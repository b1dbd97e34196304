/*
 * rts/ffi/FfiSignature.c -- parsing foreign-call signatures (see
 * FfiSignature.h; the grammar is in includes/strata/Ffi.h):
 *
 *     signature := type "(" [ "void" | type { "," type } ] ")"
 *
 * with spaces allowed between tokens.  Relies on libffi for the call
 * interface (ffi_prep_cif).  Every rejection names what was expected,
 * what was found and the 1-based column, because a signature is a string
 * the compiler cannot check for the programmer.
 */
#include "FfiSignature.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ----------------------------------------------------------------------
 * Type names
 * ---------------------------------------------------------------------- */

typedef struct {
    const char *name;
    SigType type;
} TypeName;

static const TypeName type_names[] = {
    {"void", SIG_VOID}, {"i8", SIG_I8}, {"i16", SIG_I16}, {"i32", SIG_I32},
    {"i64", SIG_I64}, {"u8", SIG_U8}, {"u16", SIG_U16}, {"u32", SIG_U32},
    {"u64", SIG_U64}, {"f32", SIG_F32}, {"f64", SIG_F64}, {"ptr", SIG_PTR},
    {"sptr", SIG_SPTR},
    /* C's names, for signatures copied from a prototype. */
    {"int", SIG_I32}, {"uint", SIG_U32}, {"long", SIG_I64}, {"ulong", SIG_U64},
    {"size_t", SIG_U64}, {"float", SIG_F32}, {"double", SIG_F64},
};

#define TYPE_LIST "void i8 i16 i32 i64 u8 u16 u32 u64 f32 f64 ptr sptr, " \
                  "or int uint long ulong size_t float double"

_Static_assert(sizeof(long) == 8 && sizeof(size_t) == 8 && sizeof(void *) == 8,
               "the C type aliases assume an LP64 platform");

const char *ffi_signature_type_name(SigType t)
{
    return type_names[t].name;   /* the canonical names come first, in order */
}

static ffi_type *ffi_type_of(SigType t)
{
    switch (t) {
    case SIG_VOID: return &ffi_type_void;
    case SIG_I8: return &ffi_type_sint8;
    case SIG_I16: return &ffi_type_sint16;
    case SIG_I32: return &ffi_type_sint32;
    case SIG_I64: return &ffi_type_sint64;
    case SIG_U8: return &ffi_type_uint8;
    case SIG_U16: return &ffi_type_uint16;
    case SIG_U32: return &ffi_type_uint32;
    case SIG_U64: return &ffi_type_uint64;
    case SIG_F32: return &ffi_type_float;
    case SIG_F64: return &ffi_type_double;
    case SIG_PTR: return &ffi_type_pointer;
    case SIG_SPTR: return &ffi_type_pointer;
    }
    return NULL;
}

/* ----------------------------------------------------------------------
 * Tokens
 * ---------------------------------------------------------------------- */

typedef struct {
    const char *text;   /* the whole signature */
    size_t pos;         /* offset of the next unread character */
    char *why;          /* message buffer */
    size_t why_bytes;
} Parser;

static void skip_spaces(Parser *p)
{
    while (isspace((unsigned char)p->text[p->pos]))
        p->pos++;
}

static bool is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Length of the token at p->pos (after spaces): a name, or one character. */
static size_t token_length(const Parser *p)
{
    const char *s = p->text + p->pos;
    if (*s == '\0')
        return 0;
    if (!is_name_char(*s))
        return 1;
    size_t n = 0;
    while (is_name_char(s[n]))
        n++;
    return n;
}

static bool fail(Parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(Parser *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->why, p->why_bytes, fmt, ap);
    va_end(ap);
    return false;
}

/* "found \"x\" at column N" or "found the end of the signature". */
static bool fail_expected(Parser *p, const char *expected)
{
    size_t n = token_length(p);
    if (n == 0)
        return fail(p, "expected %s at column %zu, found the end of the signature", expected,
                    p->pos + 1);
    return fail(p, "expected %s at column %zu, found \"%.*s\"", expected, p->pos + 1, (int)n,
                p->text + p->pos);
}

static bool expect_char(Parser *p, char c, const char *expected)
{
    skip_spaces(p);
    if (p->text[p->pos] != c)
        return fail_expected(p, expected);
    p->pos++;
    return true;
}

/* Reads a type name; what says which type it is for the messages. */
static bool read_type(Parser *p, const char *what, SigType *out)
{
    skip_spaces(p);
    size_t n = token_length(p);
    if (n == 0 || !is_name_char(p->text[p->pos]))
        return fail_expected(p, what);
    const char *s = p->text + p->pos;
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
        if (strlen(type_names[i].name) == n && memcmp(type_names[i].name, s, n) == 0) {
            *out = type_names[i].type;
            p->pos += n;
            return true;
        }
    }
    return fail(p, "unknown type \"%.*s\" at column %zu (the types are " TYPE_LIST ")", (int)n, s,
                p->pos + 1);
}

/* ----------------------------------------------------------------------
 * Signatures
 * ---------------------------------------------------------------------- */

/* The argument list after "(": empty, "void", or types separated by ",". */
static bool parse_args(Parser *p, FfiSignature *sig)
{
    skip_spaces(p);
    if (p->text[p->pos] == ')')
        return true;
    for (;;) {
        skip_spaces(p);
        size_t column = p->pos + 1;
        SigType t;
        if (!read_type(p, sig->n_args == 0 ? "an argument type or \")\"" : "an argument type", &t))
            return false;
        if (t == SIG_VOID) {
            skip_spaces(p);
            if (sig->n_args == 0 && p->text[p->pos] == ')')
                return true;   /* "(void)": no arguments, as in C */
            return fail(p, "\"void\" at column %zu is not an argument type (it may only be "
                           "the result, or stand alone as \"(void)\")", column);
        }
        if (sig->n_args == FFI_SIGNATURE_MAX_ARGS)
            return fail(p, "too many arguments (more than %d; the argument at column %zu is "
                           "one too many)", FFI_SIGNATURE_MAX_ARGS, column);
        sig->args[sig->n_args++] = t;
        skip_spaces(p);
        if (p->text[p->pos] == ')')
            return true;
        if (!expect_char(p, ',', "\",\" or \")\" after an argument type"))
            return false;
    }
}

static bool parse(Parser *p, FfiSignature *sig)
{
    if (!read_type(p, "a result type", &sig->result))
        return false;
    if (!expect_char(p, '(', "\"(\" after the result type"))
        return false;
    if (!parse_args(p, sig))
        return false;
    if (!expect_char(p, ')', "\")\""))
        return false;
    skip_spaces(p);
    if (p->text[p->pos] != '\0')
        return fail(p, "unexpected \"%s\" after the closing \")\" at column %zu",
                    p->text + p->pos, p->pos + 1);
    return true;
}

bool ffi_signature_parse(const char *text, FfiSignature *sig, char *why, size_t why_bytes)
{
    Parser p = {text, 0, why, why_bytes};
    memset(sig, 0, sizeof *sig);
    if (text == NULL)
        return fail(&p, "no signature (NULL)");
    if (!parse(&p, sig))
        return false;
    for (uint32_t i = 0; i < sig->n_args; i++)
        sig->ffi_args[i] = ffi_type_of(sig->args[i]);
    ffi_status st = ffi_prep_cif(&sig->cif, FFI_DEFAULT_ABI, sig->n_args,
                                 ffi_type_of(sig->result), sig->ffi_args);
    if (st != FFI_OK)
        return fail(&p, "libffi cannot prepare a call of this signature (ffi_prep_cif "
                        "status=%d)", (int)st);
    return true;
}
