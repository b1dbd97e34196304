/*
 * utils/strata-debug/tui/TuiPalette.c -- the era palette (TuiPalette.h).
 */
#include <stdlib.h>

#include "TuiPalette.h"

/* Pale backgrounds under black text, neighbours far apart in hue; the
 * same numbers as strata-debug's --color (main.c), by era % 8. */
static const int palette256[8] = {153, 187, 223, 181, 151, 189, 229, 195};
/* With 8 colours: no black (the text) and no white (era 0's grey). */
static const int palette8[8] = {6, 3, 2, 5, 4, 1, 6, 3};

int tui_era_slot(uint64_t era)
{
    return era == 0 ? 0 : 1 + (int)(era % 8);
}

int tui_slot_color256(int slot)
{
    return slot <= 0 || slot >= TUI_ERA_SLOTS ? 252 : palette256[slot - 1];
}

int tui_slot_color8(int slot, bool *black_text)
{
    if (slot <= 0 || slot >= TUI_ERA_SLOTS) {
        *black_text = true;
        return 7;
    }
    int c = palette8[slot - 1];
    /* Blue and red are dark: white text on them. */
    *black_text = c != 4 && c != 1;
    return c;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t tui_legend_eras(const uint64_t *eras, size_t n, uint64_t *out, size_t max)
{
    if (n == 0 || max == 0)
        return 0;
    uint64_t *sorted = malloc(n * sizeof *sorted);
    if (sorted == NULL)
        return 0;
    for (size_t i = 0; i < n; i++)
        sorted[i] = eras[i];
    qsort(sorted, n, sizeof *sorted, cmp_u64);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++)
        if (distinct == 0 || sorted[distinct - 1] != sorted[i])
            sorted[distinct++] = sorted[i];
    size_t from = distinct > max ? distinct - max : 0;
    for (size_t i = from; i < distinct; i++)
        out[i - from] = sorted[i];
    free(sorted);
    return distinct - from;
}
