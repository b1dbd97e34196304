/*
 * utils/heapprof/CostCentres.c -- the cost centres of a -hc heap profile,
 * by id (CostCentres.h).
 */
#include <stdlib.h>
#include <string.h>

#include "CostCentres.h"
#include "GrowArray.h"

int hp_cost_centre_define(HpCostCentres *t, uint32_t id, EvrStr label, EvrStr module,
                          EvrStr srcloc)
{
    if (id >= HP_MAX_CC_ID)
        return 0;
    if (id >= t->n) {
        size_t n = t->n;   /* every id is kept: length = capacity */
        if (GROW_ARRAY_RESERVE_MIN(t->cc, n, (size_t)id + 1, 64) != 0)
            return -1;
        memset(t->cc + t->n, 0, (n - t->n) * sizeof *t->cc);
        t->n = n;
    }
    HpCostCentre *cc = &t->cc[id];
    if (cc->label != NULL)
        return 0;   /* defined once; a repeat keeps the first */
    HpCostCentre c = { evr_str_dup(label), evr_str_dup(module), evr_str_dup(srcloc) };
    if (c.label == NULL || c.module == NULL || c.srcloc == NULL) {
        free(c.label);
        free(c.module);
        free(c.srcloc);
        return -1;
    }
    *cc = c;
    return 0;
}

const HpCostCentre *hp_cost_centre(const HpCostCentres *t, uint64_t id)
{
    return id < t->n && t->cc[id].label != NULL ? &t->cc[id] : NULL;
}

bool hp_cost_centre_is_caf(const HpCostCentre *cc)
{
    return strcmp(cc->label, "CAF") == 0 && cc->module[0] != '\0';
}

void hp_cost_centres_free(HpCostCentres *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->cc[i].label);
        free(t->cc[i].module);
        free(t->cc[i].srcloc);
    }
    free(t->cc);
    memset(t, 0, sizeof *t);
}

/* Appends '/' (unless *len is 0), then a and b, to *buf; 0 when out of
 * memory. */
static int append(char **buf, size_t *len, size_t *cap, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (GROW_ARRAY_RESERVE_MIN(*buf, *cap, *len + na + nb + 2, 64) != 0)
        return 0;
    if (*len > 0)
        (*buf)[(*len)++] = '/';
    memcpy(*buf + *len, a, na);
    memcpy(*buf + *len + na, b, nb);
    *len += na + nb;
    (*buf)[*len] = '\0';
    return 1;
}

char *hp_stack_name(const HpCostCentres *t, const char *key, size_t len)
{
    if (len == 4 && memcmp(key, "MAIN", 4) == 0)
        return strdup("MAIN");
    char *buf = NULL;
    size_t n = 0, cap = 0;
    if (GROW_ARRAY_RESERVE_MIN(buf, cap, 1, 64) != 0)
        return NULL;
    buf[0] = '\0';
    size_t i = 0;
    while (i < len) {
        uint64_t id = 0;
        size_t j = i;
        while (j < len && j - i < 19 && key[j] >= '0' && key[j] <= '9')
            id = id * 10 + (uint64_t)(key[j++] - '0');
        if (j == i)
            break;   /* not an id list: stop rather than loop */
        const HpCostCentre *cc = hp_cost_centre(t, id);
        char num[32];
        snprintf(num, sizeof num, "cc%llu", (unsigned long long)id);
        int ok = cc == NULL ? append(&buf, &n, &cap, num, "")
                 : hp_cost_centre_is_caf(cc) ? append(&buf, &n, &cap, cc->module, ".CAF")
                                             : append(&buf, &n, &cap, cc->label, "");
        if (!ok) {
            free(buf);
            return NULL;
        }
        i = j < len && key[j] == ',' ? j + 1 : j;
    }
    return buf;
}
