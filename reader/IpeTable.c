/*
 * reader/IpeTable.c -- IPE events by info table address (IpeTable.h).
 */
#include "IpeTable.h"

#include <stdlib.h>
#include <string.h>

#include "GrowArray.h"

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
    if (word_map_get(&t->by_info, ev->u.ipe.info) != NULL)
        return 1;   /* the first description wins */
    if (GROW_ARRAY_RESERVE_MIN(t->ipes, t->ipes_cap, t->n_ipes + 1, 32) != 0)
        return 0;
    size_t n = ev->u.ipe.table_name.len + ev->u.ipe.closure_desc.len + ev->u.ipe.ty_desc.len
               + ev->u.ipe.label.len + ev->u.ipe.module.len + ev->u.ipe.srcloc.len + 6;
    char *text = malloc(n), *at = text;
    if (text == NULL || word_map_put(&t->by_info, ev->u.ipe.info, t->n_ipes) != 0) {
        free(text);
        return 0;
    }
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
    t->n_ipes++;
    return 1;
}

const EvrIpe *evr_ipe_table_find(const EvrIpeTable *t, uint64_t info)
{
    const uint64_t *k = word_map_get(&t->by_info, info);
    return k ? &t->ipes[*k] : NULL;
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
    word_map_free(&t->by_info);
    memset(t, 0, sizeof *t);
}
