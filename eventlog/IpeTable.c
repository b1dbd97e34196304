/*
 * eventlog/IpeTable.c -- IPE events by info table address (IpeTable.h).
 */
#include "IpeTable.h"

#include <stdlib.h>
#include <string.h>

static size_t addr_hash(uint64_t a)
{
    a ^= a >> 33;
    a *= 0xff51afd7ed558ccdu;
    a ^= a >> 33;
    return (size_t)a;
}

static int hash_grow(EvrIpeTable *t)
{
    size_t cap = t->hash_cap ? t->hash_cap * 2 : 64;
    size_t *h = calloc(cap, sizeof *h);
    if (h == NULL)
        return 0;
    for (size_t i = 0; i < t->n_ipes; i++) {
        size_t j = addr_hash(t->ipes[i].info) & (cap - 1);
        while (h[j] != 0)
            j = (j + 1) & (cap - 1);
        h[j] = i + 1;
    }
    free(t->hash);
    t->hash = h;
    t->hash_cap = cap;
    return 1;
}

/* The hash slot holding info, or the empty one where it would go.  The
 * hash must have been allocated. */
static size_t *slot_for(const EvrIpeTable *t, uint64_t info)
{
    size_t j = addr_hash(info) & (t->hash_cap - 1);
    while (t->hash[j] != 0 && t->ipes[t->hash[j] - 1].info != info)
        j = (j + 1) & (t->hash_cap - 1);
    return &t->hash[j];
}

/* Copies s to *at, NUL-terminated, and returns the view of the copy. */
static EvrStr put(char **at, EvrStr s)
{
    memcpy(*at, s.ptr, s.len);
    (*at)[s.len] = '\0';
    EvrStr view = { .ptr = *at, .len = s.len };
    *at += s.len + 1;
    return view;
}

int evr_ipe_table_add(EvrIpeTable *t, const EvrEvent *ev)
{
    if (2 * (t->n_ipes + 1) >= t->hash_cap && !hash_grow(t))
        return 0;
    size_t *slot = slot_for(t, ev->u.ipe.info);
    if (*slot != 0)
        return 1;   /* the first description wins */
    if (t->n_ipes == t->ipes_cap) {
        size_t cap = t->ipes_cap ? t->ipes_cap * 2 : 32;
        EvrIpe *ni = realloc(t->ipes, cap * sizeof *ni);
        if (ni == NULL)
            return 0;
        t->ipes = ni;
        t->ipes_cap = cap;
    }
    size_t n = ev->u.ipe.table_name.len + ev->u.ipe.closure_desc.len + ev->u.ipe.ty_desc.len
               + ev->u.ipe.label.len + ev->u.ipe.module.len + ev->u.ipe.srcloc.len + 6;
    char *text = malloc(n), *at = text;
    if (text == NULL)
        return 0;
    t->ipes[t->n_ipes] = (EvrIpe){
        .info = ev->u.ipe.info,
        .text = text,
        .table_name = put(&at, ev->u.ipe.table_name),
        .closure_desc = put(&at, ev->u.ipe.closure_desc),
        .ty_desc = put(&at, ev->u.ipe.ty_desc),
        .label = put(&at, ev->u.ipe.label),
        .module = put(&at, ev->u.ipe.module),
        .srcloc = put(&at, ev->u.ipe.srcloc),
    };
    *slot = ++t->n_ipes;
    return 1;
}

const EvrIpe *evr_ipe_table_find(const EvrIpeTable *t, uint64_t info)
{
    if (t->n_ipes == 0)
        return NULL;
    size_t k = *slot_for(t, info);
    return k ? &t->ipes[k - 1] : NULL;
}

const EvrIpe *evr_ipe_table_find_label(const EvrIpeTable *t, const char *label, size_t len)
{
    if (len < 3 || len > 18 || label[0] != '0' || label[1] != 'x')
        return NULL;
    uint64_t a = 0;
    for (size_t i = 2; i < len; i++) {
        char c = label[i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return NULL;
        a = a << 4 | d;
    }
    return evr_ipe_table_find(t, a);
}

void evr_ipe_table_free(EvrIpeTable *t)
{
    for (size_t i = 0; i < t->n_ipes; i++)
        free(t->ipes[i].text);
    free(t->ipes);
    free(t->hash);
    memset(t, 0, sizeof *t);
}
