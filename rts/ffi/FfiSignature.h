/*
 * rts/ffi/FfiSignature.h -- foreign-call signatures: parsing "i32(ptr,ptr)"
 * into argument and result types and a prepared libffi call interface.
 * The grammar and the type names are in includes/strata/Ffi.h.
 */
#ifndef STRATA_FFISIGNATURE_H
#define STRATA_FFISIGNATURE_H

#include <ffi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* More arguments than any C callback or library call we know of takes;
 * a longer signature is rejected with a message. */
#define FFI_SIGNATURE_MAX_ARGS 32

typedef enum {
    SIG_VOID, SIG_I8, SIG_I16, SIG_I32, SIG_I64, SIG_U8, SIG_U16, SIG_U32, SIG_U64,
    SIG_F32, SIG_F64, SIG_PTR, SIG_SPTR,
} SigType;

typedef struct {
    SigType result;                              /* SIG_VOID for none */
    uint32_t n_args;                             /* <= FFI_SIGNATURE_MAX_ARGS */
    SigType args[FFI_SIGNATURE_MAX_ARGS];        /* never SIG_VOID */
    ffi_type *ffi_args[FFI_SIGNATURE_MAX_ARGS];  /* libffi's type of each */
    ffi_cif cif;                                 /* prepared for the default ABI;
                                                    points into ffi_args, so the
                                                    struct must not move */
} FfiSignature;

/* Parses text into *sig and prepares sig->cif.  On failure returns false
 * and writes a message naming the problem (and its column) to why. */
bool ffi_signature_parse(const char *text, FfiSignature *sig, char *why, size_t why_bytes);

/* The canonical name of a type ("i32", "f64", ...). */
const char *ffi_signature_type_name(SigType t);

#endif /* STRATA_FFISIGNATURE_H */
