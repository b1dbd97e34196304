/*
 * utils/strata-debug/tui/TuiPalette.h -- the era palette: which colour a
 * row of a given era gets, the same for an era in every view, every run
 * and in `strata-debug retainers --color`, so that a young object holding
 * an old one stands out along a retainer path.  Pure (no terminal): the
 * drawing code turns slots into ncurses colour pairs.
 */
#ifndef STRATA_TUIPALETTE_H
#define STRATA_TUIPALETTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Slot 0 is era 0 (statics, unknown); eras >= 1 cycle through the rest. */
#define TUI_ERA_SLOTS 9

/* The palette slot of an era. */
int tui_era_slot(uint64_t era);
/* The slot's background in the 256-colour palette (as the CLI's --color). */
int tui_slot_color256(int slot);
/* The slot's background with only the 8 basic colours (COLOR_* numbers:
 * 0 black .. 7 white), and whether its text should be black (else white)
 * to stay readable. */
int tui_slot_color8(int slot, bool *black_text);

/* The legend: from the eras present (any order, repeats allowed), the
 * distinct ones, ascending, at most max of them, newest kept when they do
 * not all fit.  Returns how many were written to out. */
size_t tui_legend_eras(const uint64_t *eras, size_t n, uint64_t *out, size_t max);

#endif /* STRATA_TUIPALETTE_H */
