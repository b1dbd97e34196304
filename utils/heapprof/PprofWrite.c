/*
 * utils/heapprof/PprofWrite.c -- the string table and the packing shared
 * by the tools' pprof encoders (PprofWrite.h).
 */
#include "PprofWrite.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "TextOut.h"

char *pprof_string(const char *s, size_t len, size_t *out_len)
{
    size_t n = text_escape(NULL, 0, s, len, TEXT_TERMINAL);
    char *c = malloc(n + 1);
    if (c == NULL)
        return NULL;
    text_escape(c, n + 1, s, len, TEXT_TERMINAL);
    *out_len = n;
    return c;
}

int64_t pprof_intern(PprofStrings *st, const char *s, size_t len)
{
    if (st->failed)
        return 0;
    size_t clean_len;
    char *clean = pprof_string(s, len, &clean_len);
    if (clean == NULL) {
        st->failed = 1;
        return 0;
    }
    size_t k = evr_label_find(&st->ix, clean, clean_len);
    if (k == EVR_NO_LABEL)
        k = evr_label_add(&st->ix, clean, clean_len);
    free(clean);
    if (k == EVR_NO_LABEL) {
        st->failed = 1;
        return 0;
    }
    return (int64_t)k;
}

int64_t pprof_intern_cstr(PprofStrings *st, const char *s)
{
    return pprof_intern(st, s, strlen(s));
}

void pprof_strings_free(PprofStrings *st)
{
    evr_label_index_free(&st->ix);
}

static int gzip_bytes(const uint8_t *in, size_t in_bytes, uint8_t **out, size_t *out_bytes)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip wrapper, as pprof expects.  The fastest
     * level, as Go's runtime writes its profiles: at the default level
     * deflate was most of the time strata-live took to serve a profile of
     * many stacks (bench/alloc-sample/RESULTS.md). */
    if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    uLong cap = deflateBound(&z, (uLong)in_bytes);
    uint8_t *buf = malloc(cap);
    if (buf == NULL) {
        deflateEnd(&z);
        return 0;
    }
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)in_bytes;
    z.next_out = buf;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    size_t n = (size_t)z.total_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        return 0;
    }
    *out = buf;
    *out_bytes = n;
    return 1;
}

int pprof_pack_gzip(Perftools__Profiles__Profile *prof, const PprofStrings *st, uint8_t **out,
                    size_t *out_bytes, const char **why)
{
    *why = "out of memory";
    if (st->failed)
        return 0;
    char **table = malloc((st->ix.n ? st->ix.n : 1) * sizeof *table);
    if (table == NULL)
        return 0;
    for (size_t k = 0; k < st->ix.n; k++)
        table[k] = (char *)evr_label(&st->ix, k).ptr;
    prof->n_string_table = st->ix.n;
    prof->string_table = table;
    size_t packed_bytes = perftools__profiles__profile__get_packed_size(prof);
    uint8_t *packed = malloc(packed_bytes ? packed_bytes : 1);
    int ok = 0;
    if (packed == NULL)
        goto done;
    if (perftools__profiles__profile__pack(prof, packed) != packed_bytes) {
        *why = "protobuf-c packed a different size than it measured";
        goto done;
    }
    if (!gzip_bytes(packed, packed_bytes, out, out_bytes)) {
        *why = "zlib could not compress the profile";
        goto done;
    }
    ok = 1;
    *why = NULL;
done:
    free(packed);
    free(table);
    prof->n_string_table = 0;
    prof->string_table = NULL;
    return ok;
}
