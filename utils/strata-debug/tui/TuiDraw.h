/*
 * utils/strata-debug/tui/TuiDraw.h -- the terminal UI's drawing, the only
 * file that calls ncurses besides the key reading in Tui.c: a header
 * (program, pause, views), the current view's lines coloured by era, a
 * status or prompt line, and a footer with the keys and the era legend.
 * Without colour (NO_COLOR set, or a terminal like vt100) rows carry their
 * era as text only and the selection is shown in reverse video.
 */
#ifndef STRATA_TUIDRAW_H
#define STRATA_TUIDRAW_H

#include <stdbool.h>
#include <stddef.h>

#include "TuiHeap.h"
#include "TuiInput.h"

typedef struct {
    bool color;                  /* era colours in use */
    bool color256;               /* the 256-colour palette (else 8 colours) */
    int rows, cols;
} TuiScreen;

/* What the screen shows besides the heap. */
typedef struct {
    TuiView view;
    bool help;                   /* the help screen is open */
    const char *prompt_label;    /* non-NULL: the prompt line is being edited */
    const TuiPrompt *prompt;
    const char *working;         /* non-NULL: "working" message (a long operation) */
} TuiUiState;

/* Starts curses on the terminal; false with a message in err (unknown
 * terminal type, ...). */
bool tui_screen_start(TuiScreen *s, char *err, size_t err_len);
void tui_screen_stop(TuiScreen *s);
/* Lines available to a view's body at the current size. */
size_t tui_body_height(const TuiScreen *s);
/* Draws everything (scrolling the view's tree to keep its cursor shown). */
void tui_draw(TuiScreen *s, TuiHeap *h, const TuiUiState *ui);

#endif /* STRATA_TUIDRAW_H */
